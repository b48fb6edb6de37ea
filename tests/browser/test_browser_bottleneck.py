"""The bottleneck page in a real Chromium: a click on the plain model reruns only what it
changes, not the sentence box (read from what the server really sends); on a phone the
first part's guesses over their bars can be read."""

from __future__ import annotations

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from charts.screen import sizes
from core import zoo
from core.i18n import translate
from tests.browser.conftest import DESKTOP, PHONE, reopened, wait_idle
from tests.conftest import element_kind

pytestmark = pytest.mark.browser
GROUPS = '[data-testid="stMain"] [data-testid="stButtonGroup"]'


def _need_models() -> None:
    try:
        for name in ("gru_plain_32", "gru_plain_256", "gru_attention"):
            zoo.load_model(name)
    except zoo.ZooError as err:
        pytest.skip(f"bottleneck models not trained yet: {err}")


def _record(page) -> dict[str, list]:
    """Every websocket frame from now on, decoded: what the browser sends, what it gets."""
    frames: dict[str, list] = {"sent": [], "got": []}

    def on_ws(ws) -> None:
        ws.on("framesent", lambda p: isinstance(p, bytes) and frames["sent"].append(p))
        ws.on("framereceived", lambda p: isinstance(p, bytes) and frames["got"].append(p))

    page.on("websocket", on_ws)
    return frames


def _new_elements(frames: dict[str, list], start: int) -> list[str]:
    out = []
    for raw in frames["got"][start:]:
        msg = ForwardMsg.FromString(raw)
        if msg.WhichOneof("type") == "delta" and msg.delta.WhichOneof("type") == "new_element":
            out.append(element_kind(msg.delta.new_element))
    return out


def test_a_model_click_reruns_only_the_switch_and_what_it_changes(server, browser):
    _need_models()
    url = "/bottleneck?lang=en&present=0&part=read&text=the+cat+drank+the+milk"
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(180_000)
    page = context.new_page()
    try:
        frames = _record(page)
        page.goto(server.url(url))
        wait_idle(page)
        groups = page.locator(GROUPS)
        # on part 1: the part selector, then the model switch (the benchmark's control)
        assert groups.count() == 2
        assert groups.nth(1).inner_text().startswith(translate("bottleneck.plain.label", "en"))
        sent, got = len(frames["sent"]), len(frames["got"])
        groups.nth(1).locator("button", has_text="C = 32").click()
        page.wait_for_url("**plain=gru_plain_32**", timeout=15_000)
        wait_idle(page)
        reruns = [BackMsg.FromString(raw) for raw in frames["sent"][sent:]]
        reruns = [m.rerun_script for m in reruns if m.WhichOneof("type") == "rerun_script"]
        assert len(reruns) == 1 and reruns[0].fragment_id, "a fragment rerun, not the page"
        drawn = _new_elements(frames, got)
        # the chart and the switch again; not the sentence box (its text box, its example
        # buttons) nor the part selector
        assert drawn.count("plotly_chart") == 1 and drawn.count("button_group") == 1, drawn
        assert "text_input" not in drawn and "button" not in drawn, drawn
        assert "text=the+cat+drank+the+milk" in page.url and "part=read" in page.url
        title = page.locator('[data-testid="stMain"] .js-plotly-plot .gtitle').first
        assert translate("model.gru_plain_32.name", "en") in (title.text_content() or "")
    finally:
        context.close()


@pytest.mark.parametrize("part", ["side"])
def test_on_the_projector_the_folded_model_switch_answers_every_click(server, browser, part):
    """Presenter mode: the model switch of a part whose main control is the sentence sits in
    "More controls", drawn by the switch's own fragment; click after click the fold, the
    switch and the part stay (a fold the fragment made itself vanished at its second
    click and the page went blank)."""
    _need_models()
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(180_000)
    page = context.new_page()
    try:
        page.goto(server.url(f"/bottleneck?lang=en&present=1&part={part}"))
        wait_idle(page)
        fold = translate("shell.more_controls", "en")
        page.locator('[data-testid="stMain"] summary', has_text=fold).click()
        main = page.locator('[data-testid="stMain"]')
        for size in ("32", "128", "32"):
            name = f"gru_plain_{size}"
            main.locator("button", has_text=f"C = {size}").first.click()
            page.wait_for_url(f"**plain={name}**", timeout=30_000)
            wait_idle(page)
            assert main.locator("summary", has_text=fold).count() == 1, name
            assert main.locator("button", has_text="C = 256").count() == 1, name
            # the part drawn with that model (its output's header names it)
            assert translate(f"model.{name}.name", "en") in (main.text_content() or ""), name
    finally:
        context.close()


# The first presenter screen of every part (this page's included), both languages, both
# projector sizes: tests/browser/test_slides.py


# The bar texts of the first chart as drawn: size (font size times the scale() plotly puts on
# a text it shrinks to its bar) and box, in page px.
_BAR_TEXTS_JS = """() => [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')][0]
  .querySelectorAll('text.bartext').values().map(t => {
    const m = /scale\\(([\\d.]+)/.exec(t.getAttribute('transform') || '');
    const r = t.getBoundingClientRect();
    return {text: t.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom,
            px: parseFloat(getComputedStyle(t).fontSize) * (m ? +m[1] : 1)};
  }).toArray()"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_phone_reads_the_guesses_over_the_bars(server, browser, lang):
    """On one line over a phone's ~45-px bars plotly shrank "-> wear 95%" to 5-6 px."""

    _need_models()
    with reopened(browser, server.url(f"/bottleneck?lang={lang}&part=latent"), PHONE) as tab:
        texts = tab.page.evaluate(_BAR_TEXTS_JS)
        assert len(texts) == 5, texts  # <bos> you should wear shoes
        small = [t for t in texts if t["px"] < sizes.MIN_PHONE_FONT - 0.01]
        assert not small, f"guesses under {sizes.MIN_PHONE_FONT} px on a phone: {small}"
        for a, b in zip(texts, texts[1:]):  # side by side, never into each other
            overlap = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > 0
            assert not (overlap and a["right"] > b["left"] + 0.5), (a, b)
