"""Peer instruction in Chromium: a teacher's projector (presenter mode, 1280x800) and three
phones (390x844) through two rounds of one question, in English and Chinese.

Round 1: the phones vote alone; the teacher's buttons, "Discuss, then vote again" among them,
are whole on the first screen. Round 2: each phone shows its own round-1 answer above its
answer buttons (all above the fold) and votes again. The projector then draws both rounds
side by side (one whole-vote axis), says how many changed, and after Reveal which round came
closer; the teacher's guide stays in the closed sidebar. Screenshots of every first screen go
to tests/artifacts/peer_*.png.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from core.i18n import translate
from tests.browser.conftest import ARTIFACTS, PHONE, PHONE_UA, wait_idle
from tests.browser.test_poll_layout import BOX_JS, CONTROLS_JS, _inside
from tests.poll.test_app_rounds import QID, asked

pytestmark = pytest.mark.browser

PROJECTOR = {"width": 1280, "height": 800}

# Every plotly bar's count, per subplot (x axis id): both rounds' histograms.
BARS_JS = """() => {
  const plot = document.querySelector('[data-testid="stMain"] .js-plotly-plot');
  if (!plot) return null;
  return [...plot.querySelectorAll('.barlayer .trace')].map(tr =>
    [...tr.querySelectorAll('.point text')].map(t => +t.textContent));
}"""


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))  # the first screen only


def _whole(page, labels: list[str]) -> None:
    controls = page.evaluate(CONTROLS_JS)
    assert controls, "no teacher controls on the teacher's screen"
    for label in labels:
        found = [c for c in controls if label in c["text"]]
        assert len(found) == 1, (label, [c["text"] for c in controls])
        _inside(found[0], PROJECTOR, label)
        assert not found[0]["cut"], f"{label!r} is cut"


def _buttons_above_the_fold(page, n: int) -> None:
    buttons = page.locator('[data-testid="stMain"] [class*="st-key-poll_answer_"] button')
    assert buttons.count() == n
    for i in range(n):
        box = buttons.nth(i).bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], (i, box)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_teacher_and_three_phones_through_two_rounds(browser, server, lang):
    tr, names, right, wrong = asked(lang)
    locale = "zh-CN" if lang == "zh" else "en-US"
    contexts = []

    def context(viewport: dict, phone: bool):
        extra = dict(user_agent=PHONE_UA, is_mobile=True) if phone else {}
        ctx = browser.new_context(viewport=viewport, locale=locale, **extra)
        ctx.set_default_timeout(180_000)
        contexts.append(ctx)
        return ctx.new_page()

    try:
        teacher = context(PROJECTOR, phone=False)
        teacher.goto(server.url(f"/poll?ask={QID}&lang={lang}&present=1"))
        teacher.wait_for_function("() => location.href.includes('room=')")
        code = re.search(r"room=([A-Z0-9]+)", teacher.url).group(1)
        phones = [context(PHONE, phone=True) for _ in range(3)]
        first, second = (right, wrong[0], wrong[0]), (right, right, wrong[1])

        # round 1: alone
        for page, answer in zip(phones, first, strict=True):
            page.goto(server.url(f"/poll?room={code}&lang={lang}"))
            wait_idle(page)
            _buttons_above_the_fold(page, len(names))
            page.get_by_role("button", name=names[answer], exact=True).click()
            page.get_by_role("button", name=f"✓ {names[answer]}").wait_for()
        teacher.wait_for_function(
            "n => [...document.querySelectorAll('.js-plotly-plot .point text')]"
            ".map(t => +t.textContent).reduce((a, b) => a + b, 0) === n",
            arg=3,
        )
        wait_idle(teacher)
        _shot(teacher, f"peer_projector_{lang}_round1")
        _whole(
            teacher,
            [
                tr(k)
                for k in ("poll.reveal", "poll.discuss", "poll.close", "poll.next", "poll.back")
            ],
        )
        assert not teacher.get_by_text(tr("poll.guide.title")).is_visible()  # sidebar shut
        teacher.locator('[data-testid="stExpandSidebarButton"]').click()  # the teacher's look
        guide = tr("poll.guide.share", share="33%", n=3, answer=names[right]).replace("**", "")
        sidebar = teacher.locator('[data-testid="stSidebar"]')
        sidebar.get_by_text(tr("poll.guide.discuss")).wait_for()
        assert guide in sidebar.inner_text()
        _shot(teacher, f"peer_projector_{lang}_guide")
        sidebar.locator('[data-testid="stBaseButton-headerNoPadding"]').first.click()
        teacher.get_by_text(tr("poll.guide.discuss")).wait_for(state="hidden")

        # round 2: after discussing, each phone sees its own first answer
        teacher.get_by_role("button", name=tr("poll.discuss")).click()
        teacher.get_by_text(tr("poll.rounds.none_both")).wait_for()
        for i, (page, answer, was) in enumerate(zip(phones, second, first, strict=True)):
            said = page.get_by_text(tr("poll.student.round2", answer=names[was]).split("**")[0])
            said.wait_for()  # the phone's 2-second refresh brings round 2
            wait_idle(page)
            mine = page.locator(
                '[data-testid="stMain"] [data-testid="stCaptionContainer"]', has_text=names[was]
            )
            box = mine.first.bounding_box()
            assert box and 0 <= box["y"] and box["y"] + box["height"] <= PHONE["height"], box
            _buttons_above_the_fold(page, len(names))
            if i == 1:
                _shot(page, f"peer_phone_{lang}_round2")
            page.get_by_role("button", name=names[answer], exact=True).click()
            page.get_by_role("button", name=f"✓ {names[answer]}").wait_for()
        teacher.get_by_text(tr("poll.rounds.changed", changed=2, both=3)).wait_for()
        teacher.wait_for_function(
            "want => JSON.stringify((" + BARS_JS + ")()) === want",
            arg=str(
                [
                    [first.count(i) for i in range(len(names))],
                    [second.count(i) for i in range(len(names))],
                ]
            ).replace(" ", ""),
        )
        wait_idle(teacher)
        _shot(teacher, f"peer_projector_{lang}_round2")
        plot = teacher.evaluate(BOX_JS, '[data-testid="stMain"] .js-plotly-plot')[0]
        _inside(plot, PROJECTOR, "both rounds")
        ticks = teacher.evaluate(
            "() => [...document.querySelectorAll('.js-plotly-plot .ytick text')]"
            ".map(t => t.textContent)"
        )
        assert ticks and all(float(t.replace("\u2212", "-")).is_integer() for t in ticks), ticks
        _whole(teacher, [tr(k) for k in ("poll.reveal", "poll.close", "poll.next", "poll.back")])
        assert teacher.get_by_role("button", name=tr("poll.discuss")).count() == 0

        # reveal: the models' answer, and which round came closer
        teacher.get_by_role("button", name=tr("poll.reveal")).click()
        closer = tr("poll.rounds.closer_second", first="33%", second="67%")
        teacher.get_by_text(closer).wait_for()
        wait_idle(teacher)
        _shot(teacher, f"peer_projector_{lang}_revealed")
        for i, box in enumerate(teacher.evaluate(BOX_JS, '[data-testid="stMain"] .js-plotly-plot')):
            _inside(box, PROJECTOR, f"chart {i} after the reveal")
        alert = teacher.locator('[data-testid="stMain"] [data-testid="stAlert"]').first
        assert names[right] in alert.inner_text()
        box = alert.bounding_box()
        assert 0 <= box["y"] and box["y"] + box["height"] <= PROJECTOR["height"], box
        _whole(teacher, [tr(k) for k in ("poll.reveal", "poll.reopen", "poll.next", "poll.back")])
        phones[2].get_by_text(closer).wait_for()  # the phones see it too

        # the evidence, from the sidebar: both rounds' counts and the models' answer
        teacher.locator('[data-testid="stExpandSidebarButton"]').click()
        with teacher.expect_download() as got:
            teacher.get_by_role("button", name=tr("poll.export.download")).click()
        rows = list(csv.DictReader(io.StringIO(Path(got.value.path()).read_text("utf-8"))))
        assert [(r["round"], r["stage"], r["answer"], r["votes"]) for r in rows] == [
            (str(n), str(n), names[i], str(votes.count(i)))
            for n, votes in ((1, first), (2, second))
            for i in range(len(names))
        ]
        assert {r["answer"] for r in rows if r["models_answer"] == "yes"} == {names[right]}
    finally:
        for ctx in contexts:
            ctx.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_concept_check_before_and_after_and_the_class_gain(browser, server, lang):
    """The teacher starts the check from the sidebar; a phone answers every question with its
    radio buttons (two more phones answer through the store); the projector shows progress,
    then the class's gain chart whole on the first screen."""
    from poll import concept as pc
    from poll import concept_views as cv
    from poll.checks import CheckStore
    from poll.store import PollStore, default_url

    def tr(key: str, **kw) -> str:
        return translate(key, lang, **kw)

    right = cv.right_answers()
    n = len(pc.ITEMS)
    locale = "zh-CN" if lang == "zh" else "en-US"
    store = PollStore(default_url())
    checks = CheckStore(store)
    teacher_ctx = browser.new_context(viewport=PROJECTOR, locale=locale)
    phone_ctx = browser.new_context(
        viewport=PHONE, user_agent=PHONE_UA, is_mobile=True, locale=locale
    )
    for ctx in (teacher_ctx, phone_ctx):
        ctx.set_default_timeout(180_000)
    try:
        teacher = teacher_ctx.new_page()
        teacher.goto(server.url(f"/poll?ask={QID}&lang={lang}&present=1"))
        teacher.wait_for_function("() => location.href.includes('room=')")
        code = re.search(r"room=([A-Z0-9]+)", teacher.url).group(1)
        phone = phone_ctx.new_page()
        phone.goto(server.url(f"/poll?room={code}&lang={lang}"))
        wait_idle(phone)
        wait_idle(teacher)

        def sidebar_button(key: str) -> None:
            teacher.locator('[data-testid="stExpandSidebarButton"]').click()
            teacher.get_by_role("button", name=tr(key)).click()
            teacher.locator(
                '[data-testid="stSidebar"] [data-testid="stBaseButton-headerNoPadding"]'
            ).first.click()

        others = ("concept-browser-0001", "concept-browser-0002")
        plans = {  # what the phone and the two others answer, before and after
            "pre": ([(r + 1) % it.n_answers for it, r in zip(pc.ITEMS, right)], [0] * n, right),
            "post": (list(right), [r if i < 4 else 0 for i, r in enumerate(right)], right),
        }
        for phase, key in (("pre", "poll.concept.start_pre"), ("post", "poll.concept.start_post")):
            sidebar_button(key)
            phone.get_by_text(tr(f"poll.concept.title.{phase}")).wait_for()
            wait_idle(phone)
            mine, *rest = plans[phase]
            if phase == "pre":
                first = phone.locator('[data-testid="stRadio"]').first.bounding_box()
                assert first["y"] + first["height"] <= PHONE["height"], first
                _shot(phone, f"peer_phone_{lang}_check")
            for i, answer in enumerate(mine):
                label = pc.ITEMS[i].answer_labels(tr)[answer]
                group = phone.locator('[data-testid="stRadio"]').nth(i)
                group.get_by_text(label, exact=True).click()
                wait_idle(phone)
            for browser_id, answers in zip(others, rest, strict=True):
                for i, answer in enumerate(answers):
                    checks.answer_check(code, browser_id, i, answer)
            teacher.get_by_text(tr("poll.concept.room", started=3, done=3, n=n)).wait_for()
            wait_idle(teacher)
            if phase == "pre":
                _shot(teacher, f"peer_projector_{lang}_check")
        assert checks.my_check(code, "concept-browser-0001", "pre") == dict(enumerate([0] * n))

        sidebar_button("poll.concept.show_gain")
        teacher.get_by_text(tr("poll.gain.formula")).wait_for()
        wait_idle(teacher)
        _shot(teacher, f"peer_projector_{lang}_gain")
        g = pc.gain(checks.check_answers(code), list(right))
        assert g.matched == 3 and g.g is not None
        headline = teacher.locator(
            '[data-testid="stMain"] [data-testid="stMarkdownContainer"]', has_text="⟨g⟩"
        )
        assert f"{g.g:.2f}" in headline.first.inner_text()
        for what, sel in (
            ("gain chart", '[data-testid="stMain"] .js-plotly-plot'),
            ("back", '[data-testid="stMain"] .st-key-poll_check_back button'),
        ):
            _inside(teacher.evaluate(BOX_JS, sel)[0], PROJECTOR, what)
        phone.get_by_text(tr("poll.concept.wait")).wait_for()
        wait_idle(phone)
        _shot(phone, f"peer_phone_{lang}_gain")
    finally:
        teacher_ctx.close()
        phone_ctx.close()
        store.dispose()
