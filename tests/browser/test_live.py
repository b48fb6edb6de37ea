"""The live race in Chromium: the room watches the teacher's run grow.

A server of its own (its own poll database, a 200-step budget through ``ROAD_LIVE_STEPS``;
the real training process, not a stand-in). The teacher has opened a class room (in the
store, for the browser id the teacher's cookie carries). A phone of that room (390x844,
Chinese; its link carries the room, as the poll's does) opens the live page first: no
Start, no Cancel. The teacher's tab (presenter mode, 1280x800)
finds Start on the first screen under both charts and presses it; then both tabs see the
loss curves grow (more points at a later look, every tab on its own refresh), the phone
without a button, and at the end both show the run's ending and its translations. No
console error on either tab. About 1-2 minutes (the training process loads torch and the
corpus, then trains both models for 200 steps).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from bench import procs
from lessons.live.common import STEPS_ENV
from lessons.live.race import WATCH_S
from poll.store import DATA_DIR_ENV, PollStore
from poll.views import COOKIE
from tests.browser.conftest import (
    ARTIFACTS,
    DESKTOP,
    PHONE,
    PHONE_UA,
    Tab,
    open_tab,
    stop_server,
    wait_idle,
)
from tests.conftest import ROOT

pytestmark = pytest.mark.browser

TEACHER = "teacher-browser-live-0001"
STEPS = 200
LIMIT_S = 600  # a crowded machine takes minutes to start torch in a new process

# loss points drawn per chart (both traces), in page order
_POINTS_JS = """() => [...document.querySelectorAll('.js-plotly-plot')].map(
    g => (g.data || []).reduce((n, t) => n + ((t.x || []).length || 0), 0))"""


@pytest.fixture
def live_server(tmp_path):
    env = {**os.environ, DATA_DIR_ENV: str(tmp_path), STEPS_ENV: str(STEPS)}
    srv = procs.start_server("app.py", ROOT, ARTIFACTS / "server-live.log", timeout=120, env=env)
    yield srv, tmp_path
    stop_server(srv)


def _teacher_tab(browser, url: str) -> Tab:
    """The teacher's projector tab: its browser-id cookie set before the first visit."""
    context = browser.new_context(viewport=DESKTOP, locale="en-US")
    context.set_default_timeout(180_000)
    host = url.split("//", 1)[1].split("/", 1)[0].split(":")[0]
    context.add_cookies([{"name": COOKIE, "value": TEACHER, "domain": host, "path": "/"}])
    page = context.new_page()
    tab = Tab(page)
    page.on(
        "console",
        lambda m: m.type == "error" and tab.errors.append(f"{m.location.get('url', '')} {m.text}"),
    )
    page.on("pageerror", lambda exc: tab.errors.append(f"pageerror {exc}"))
    page.goto(url)
    wait_idle(page)
    return tab


def _loss_points(page) -> int:
    counts = page.evaluate(_POINTS_JS)
    return counts[0] if counts else 0


def _until(pred, what: str) -> None:
    deadline = time.monotonic() + LIMIT_S
    while not pred():  # bounded
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.5)


def _buttons(page) -> set[str]:
    return {b.inner_text().strip() for b in page.locator("[data-testid='stMain'] button").all()}


def start_on_first_screen(page):
    """The projector's Start, checked whole on the first screen under both charts."""
    start = page.get_by_role("button", name="Start", exact=True)
    box = start.bounding_box()
    assert box and box["y"] + box["height"] <= DESKTOP["height"], f"Start below the screen: {box}"
    charts = page.locator(".js-plotly-plot").all()
    assert len(charts) == 2 and all(c.bounding_box()["y"] < box["y"] for c in charts)
    return start


def _changes_within(page, seconds: float) -> int:
    """DOM changes in the page's main area during ``seconds`` (a rerun of a part marks its
    elements stale, then fresh, even when they come back the same)."""
    page.evaluate(
        """() => { window.__changes = 0; new MutationObserver((ms) => { window.__changes +=
        ms.length; }).observe(document.querySelector("[data-testid='stMain']"),
        {subtree: true, childList: true, attributes: true, characterData: true}); }"""
    )
    time.sleep(seconds)
    return page.evaluate("() => window.__changes")


def test_a_phone_watches_the_teachers_run_grow(browser, live_server):
    srv, data = live_server
    store = PollStore(f"sqlite:///{Path(data) / 'polls.sqlite3'}")
    room = store.open("lm_next", 3, TEACHER)  # the class's room: only its teacher may start
    store.dispose()
    phone = open_tab(browser, f"{srv.base}/live?lang=zh&room={room}", PHONE, locale="zh-CN")
    assert phone.page.evaluate("() => navigator.userAgent") == PHONE_UA
    assert not {"开始", "取消"} & _buttons(phone.page)
    assert "下一轮由老师开始" in phone.page.inner_text("[data-testid='stMain']")
    # idle, the page is not sent again every few seconds: only a watch that draws nothing
    # runs (lessons.live.race.idle_watch), so nothing on the screen changes in a while
    assert _changes_within(phone.page, WATCH_S + 1.5) == 0

    teacher = _teacher_tab(browser, f"{srv.base}/live?present=1")
    start_on_first_screen(teacher.page).click()

    for tab in (teacher, phone):  # the curves appear, then grow, on both screens
        _until(lambda tab=tab: _loss_points(tab.page) >= 4, "the first loss points")
    first = {id(tab): _loss_points(tab.page) for tab in (teacher, phone)}
    for tab in (teacher, phone):
        _until(lambda tab=tab: _loss_points(tab.page) > first[id(tab)] + 4, "more loss points")
    assert not {"开始", "取消"} & _buttons(phone.page)  # read-only while it trains

    end_en, end_zh = "Done: 200 of 200 steps", "完成"
    _until(lambda: end_en in teacher.page.inner_text("[data-testid='stMain']"), "the end")
    _until(lambda: end_zh in phone.page.inner_text("[data-testid='stMain']"), "the phone's end")
    for tab in (teacher, phone):  # both translations (drawn by the rerun the run's end asks)
        table = tab.page.locator("[data-testid='stMain'] [data-testid='stTable']")
        _until(lambda table=table: table.count() >= 1, "the translations")
    assert teacher.real_errors() == [] and phone.real_errors() == []
    for tab in (teacher, phone):
        tab.page.context.close()
