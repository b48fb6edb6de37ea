"""The poll room fits its screens, measured in Chromium.

On the projector (presenter mode, 1280x800 and 1920x1080, English and Chinese) the teacher's
first screen holds the question, the live histogram, the room code with its QR code and every
teacher button whole (inside the viewport, no label cut: ``scrollWidth <= clientWidth``),
before and after the reveal, when the model's answer and its evidence take the QR's place.
The vote axis counts whole votes and each bar carries its count. On a phone (390x844) the
question and every answer button are above the fold, and after the reveal the model's answer
comes first. Screenshots of each first screen go to tests/artifacts/poll_*.png.
"""

from __future__ import annotations

import re

import pytest

from core.i18n import translate
from poll import questions as pq
from poll.store import PollStore, default_url
from tests.browser.conftest import ARTIFACTS, PHONE, PHONE_UA, wait_idle

pytestmark = pytest.mark.browser

QID = "lm_next"  # the longest answers and evidence title of the room's questions
VOTES = (2, 0, 5, 1)  # cast straight into the store by four, two, ... browsers

# Every teacher control (buttons and the link back), where it is, and whether any part of
# its label is cut (an element whose content is wider than its box).
CONTROLS_JS = """() => {
  const row = document.querySelector('[data-testid="stMain"] .st-key-poll_teacher_buttons');
  if (!row) return null;
  return [...row.querySelectorAll('button, a')].map(el => {
    const r = el.getBoundingClientRect();
    const cut = [el, ...el.querySelectorAll('*')].filter(e => e.clientWidth > 0)
      .some(e => e.scrollWidth > e.clientWidth + 1);
    return {text: el.innerText, top: r.top, bottom: r.bottom, left: r.left, right: r.right, cut};
  });
}"""

BOX_JS = """(sel) => [...document.querySelectorAll(sel)].map(el => {
  const r = el.getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, left: r.left, right: r.right};
})"""

AXIS_JS = """() => {
  const plot = document.querySelector('[data-testid="stMain"] .js-plotly-plot');
  return {ticks: [...plot.querySelectorAll('.ytick text')].map(t => t.textContent),
          bars: [...plot.querySelectorAll('.point text')].map(t => t.textContent)};
}"""


def _inside(box: dict, vp: dict, what: str) -> None:
    assert box["top"] >= 0 and box["bottom"] <= vp["height"], (what, box, vp)
    assert box["left"] >= 0 and box["right"] <= vp["width"], (what, box, vp)


def _first(page, selector: str) -> dict:
    boxes = page.evaluate(BOX_JS, selector)
    assert boxes, f"nothing matches {selector}"
    return boxes[0]


def _controls_whole(page, vp: dict, lang: str, state: str) -> None:
    controls = page.evaluate(CONTROLS_JS)
    assert controls, "no teacher controls on the teacher's screen"
    second = "poll.close" if state == "open" else "poll.reopen"
    for key in ("poll.reveal", second, "poll.next", "poll.back"):
        label = translate(key, lang)
        found = [c for c in controls if label in c["text"]]
        assert len(found) == 1, (key, label, [c["text"] for c in controls])
        _inside(found[0], vp, label)
        assert not found[0]["cut"], f"{label!r} is cut ({state})"


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))  # the first screen only


def _vote(code: str) -> None:
    store = PollStore(default_url())
    n = 0
    for answer, count in enumerate(VOTES):
        for _ in range(count):
            store.vote(code, f"layout-test-browser-{n:04d}", answer)
            n += 1
    store.dispose()


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)], ids=["1280x800", "1920x1080"])
def test_the_teachers_first_screen_holds_the_whole_room(browser, server, size, lang):
    vp = {"width": size[0], "height": size[1]}
    ctx = browser.new_context(viewport=vp, locale="zh-CN" if lang == "zh" else "en-US")
    ctx.set_default_timeout(180_000)
    try:
        page = ctx.new_page()
        page.goto(server.url(f"/poll?ask={QID}&lang={lang}&present=1"))
        page.wait_for_function("() => location.href.includes('room=')")
        code = re.search(r"room=([A-Z0-9]+)", page.url).group(1)
        _vote(code)
        wait_idle(page)
        page.wait_for_function(  # the live histogram has caught up with the votes
            "n => [...document.querySelectorAll('.js-plotly-plot .point text')]"
            ".map(t => +t.textContent).reduce((a, b) => a + b, 0) === n",
            arg=sum(VOTES),
        )
        _shot(page, f"poll_{size[0]}_{lang}")
        question = pq.BY_ID[QID].text(lambda key, **quotes: translate(key, lang, **quotes))
        _inside(_first(page, '[data-testid="stMain"] h3'), vp, "question")
        assert page.locator('[data-testid="stMain"] h3').first.inner_text().strip() == question
        _inside(_first(page, '[data-testid="stMain"] .js-plotly-plot'), vp, "histogram")
        _inside(_first(page, '[data-testid="stMain"] [data-testid="stImage"] img'), vp, "QR")
        room = page.get_by_text(f"{code[:4]} {code[4:]}").first
        box = room.bounding_box()
        assert box and 0 <= box["y"] and box["y"] + box["height"] <= vp["height"], box
        _controls_whole(page, vp, lang, "open")
        axis = page.evaluate(AXIS_JS)
        ticks = [float(t.replace("\u2212", "-")) for t in axis["ticks"]]
        assert ticks and all(t == int(t) for t in ticks), axis  # whole votes only
        assert [int(b) for b in axis["bars"]] == list(VOTES), axis  # each bar's count

        page.get_by_role("button", name=translate("poll.reveal", lang)).click()
        page.locator('[data-testid="stMain"] [data-testid="stAlert"]').first.wait_for()
        wait_idle(page)
        _shot(page, f"poll_{size[0]}_{lang}_revealed")
        q = pq.BY_ID[QID]
        right = q.answer_labels(lambda k: translate(k, lang))[q.solve().correct]
        alert = page.locator('[data-testid="stMain"] [data-testid="stAlert"]').first
        assert right in alert.inner_text()
        _inside(_first(page, '[data-testid="stMain"] [data-testid="stAlert"]'), vp, "answer")
        plots = page.evaluate(BOX_JS, '[data-testid="stMain"] .js-plotly-plot')
        assert len(plots) == 2, plots  # the class's answers and the model's evidence
        for i, plot in enumerate(plots):
            _inside(plot, vp, f"chart {i} after the reveal")
        assert page.locator('[data-testid="stMain"] [data-testid="stImage"]').count() == 0
        _controls_whole(page, vp, lang, "revealed")
    finally:
        ctx.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_phone_shows_every_answer_then_the_models_answer_first(browser, server, lang):
    q = pq.BY_ID[QID]
    store = PollStore(default_url())
    teacher = "layout-test-teacher-01"
    code = store.open(QID, len(q.answers), teacher)
    ctx = browser.new_context(
        viewport=PHONE,
        user_agent=PHONE_UA,
        is_mobile=True,
        locale="zh-CN" if lang == "zh" else "en-US",
    )
    ctx.set_default_timeout(180_000)
    try:
        page = ctx.new_page()
        page.goto(server.url(f"/poll?room={code}&lang={lang}"))
        wait_idle(page)
        labels = q.answer_labels(lambda k: translate(k, lang))
        buttons = page.locator('[data-testid="stMain"] [class*="st-key-poll_answer_"] button')
        assert buttons.count() == len(labels)
        _inside(_first(page, '[data-testid="stMain"] h3'), PHONE, "question")
        for i in range(len(labels)):
            box = buttons.nth(i).bounding_box()
            assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], (i, box)
        _shot(page, f"poll_phone_{lang}")

        store.set_state(code, teacher, "revealed")
        alert = page.locator('[data-testid="stMain"] [data-testid="stAlert"]').first
        alert.wait_for()  # the phone's 2-second refresh brings the reveal
        wait_idle(page)
        _shot(page, f"poll_phone_{lang}_revealed")
        right = labels[q.solve().correct]
        assert right in alert.inner_text()
        a, b = alert.bounding_box(), buttons.first.bounding_box()
        assert a["y"] >= 0 and a["y"] + a["height"] <= PHONE["height"], a
        assert a["y"] < b["y"], "after the reveal the model's answer comes first"
    finally:
        ctx.close()
        store.dispose()
