"""The "it" race in Chromium: the room watches a head learn what "it" means.

A server of its own (its own poll database, a 200-step budget through ``ROAD_LIVE_STEPS``;
the real training process, paced as in class). The teacher has opened a class room. A phone
of that room (390x844, Chinese) opens the live page: no Start. The teacher's projector tab
(1280x800) picks the "it" race beside Start: even bars (what the words say before a step),
Start on the first screen, under both charts; Start. Both tabs then follow the run: the
phone switches to the "it" race by itself, and on both the two bar rows sharpen (the
longest bar of each row passes one half) until the end draws each row beside the shipped
head and the sentence the run's numbers fill in. No console error. Screenshots in the
artifacts folder. About a minute (torch loads in the training process, then 20 s paced).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from poll.store import PollStore
from tests.browser import test_live
from tests.browser.conftest import ARTIFACTS, PHONE, open_tab, wait_idle
from tests.browser.test_live import TEACHER, _buttons, _teacher_tab, _until

pytestmark = pytest.mark.browser

MAIN = "[data-testid='stMain']"
live_server = test_live.live_server  # the live page's server and its 200-step budget

# the longest bar of each bar row of the first chart (the "it" rows, bars lying down), in order
_TALLEST_JS = """() => { const g = document.querySelector('.js-plotly-plot');
    return g && g.data ? g.data.map(t => Math.max(...(t.x || [0]))) : []; }"""


def _tallest(page) -> list[float]:
    return page.evaluate(_TALLEST_JS)


# quiet: ~35 s; in CI beside the other worker and the image build, the training process
# (niceness 19) took the whole of pytest's 300-s default without failing a step
@pytest.mark.timeout(900)
def test_the_room_watches_the_bars_sharpen(browser, live_server):
    srv, data = live_server
    store = PollStore(f"sqlite:///{Path(data) / 'polls.sqlite3'}")
    room = store.open("live_it", 4, TEACHER)
    store.dispose()
    phone = open_tab(browser, f"{srv.base}/live?lang=zh&room={room}", PHONE, locale="zh-CN")
    assert not {"开始", "取消"} & _buttons(phone.page)

    teacher = _teacher_tab(browser, f"{srv.base}/live?present=1")
    teacher.page.get_by_text('Self-attention: what "it" means', exact=True).click()
    _until(lambda: 'which noun "it" names' in teacher.page.inner_text(MAIN), "the it race")
    wait_idle(teacher.page)
    teacher.page.screenshot(path=str(ARTIFACTS / "it-race-projector-start.png"))
    even = _tallest(teacher.page)
    assert len(even) == 2 and all(v < 0.2 for v in even), even  # an even spread, as said
    test_live.start_on_first_screen(teacher.page).click()

    # the phone follows the race that trains, by itself
    _until(lambda: "“it” 指的是哪个名词" in phone.page.inner_text(MAIN), "the phone's it race")
    for tab in (teacher, phone):  # the rows sharpen: the tallest bar grows past half
        _until(lambda tab=tab: min(_tallest(tab.page) or [0]) > 0.5, "sharper bars")
    teacher.page.screenshot(path=str(ARTIFACTS / "it-race-projector-running.png"))
    phone.page.screenshot(path=str(ARTIFACTS / "it-race-phone-running.png"), full_page=True)
    assert not {"开始", "取消"} & _buttons(phone.page)  # read-only while it trains

    _until(lambda: "Done: 200 of 200 steps" in teacher.page.inner_text(MAIN), "the end")
    _until(lambda: "完成" in phone.page.inner_text(MAIN), "the phone's end")
    for tab in (teacher, phone):  # each row beside the shipped head: four bar traces
        _until(lambda tab=tab: len(_tallest(tab.page)) == 4, "the shipped head beside")
    assert "of its attention on “cat” when hungry" in teacher.page.inner_text(MAIN)
    assert "放在 “cat” 上" in phone.page.inner_text(MAIN)
    teacher.page.screenshot(path=str(ARTIFACTS / "it-race-projector-end.png"))
    phone.page.screenshot(path=str(ARTIFACTS / "it-race-phone-end.png"), full_page=True)
    assert teacher.real_errors() == [] and phone.real_errors() == []
    for tab in (teacher, phone):
        tab.page.context.close()
