"""A presentation clicker in Chromium: the keys turn the deck in presenter mode only.

- Presenter mode, 1280x800, in full screen: from the CNN page's first part, a
  focused slider keeps its arrow keys (it moves, the deck does not) while PageDown still
  turns the deck; then ArrowRight, Space, PageUp, ArrowLeft, End and Home each land on the
  stop the class path (``ui.nav.deck("class")``, the default) says.
- Presenter mode, reduced motion asked: keys typed in a text box leave the deck alone (and
  PageDown turns it once the box has lost the focus); the autoregressive stepper shows
  "Last step" in Play's place, and Play again once the browser stops asking.
- Presenter mode switched off in the same document: the keys do nothing to the deck.
About 60 s on a warm server (a cold one loads models first).
"""

from __future__ import annotations

import time

import pytest

from core.i18n import translate
from tests.browser.conftest import DESKTOP
from tests.browser.slides import part_url, wait_ready
from tests.browser.test_slides import _where
from ui.nav import Stop, deck

pytestmark = pytest.mark.browser

SETTLE_MS = 1500  # how long a key that must do nothing gets to do something


def _press(page, key: str, want: Stop) -> None:
    """Press ``key`` (focus where it is) and wait until the deck shows ``want``."""
    before = _where(page)
    page.keyboard.press(key)
    deadline = time.monotonic() + 120
    while _where(page) != want and time.monotonic() < deadline:  # bounded
        page.wait_for_timeout(100)
    assert _where(page) == want, f"{key} at {before}: {page.url}, expected {want}"
    wait_ready(page)


# A key listener behind the clicker's (same window, same capture phase, added later): it
# sees whether the clicker took the key (default prevented) before any control does.
_WATCH_JS = """() => {
  if (!window.roadKeys) {
    window.roadKeys = [];
    const seen = e => window.roadKeys.push([e.key, e.defaultPrevented]);
    window.addEventListener('keydown', seen, true);
  }
  window.roadKeys.length = 0;
}"""


def _stays(page, keys: list[str]) -> None:
    """Press ``keys``: the clicker takes none of them, and the deck stays where it is."""
    here = _where(page)
    page.evaluate(_WATCH_JS)
    for key in keys:
        page.keyboard.press(key)
    taken = [k for k, prevented in page.evaluate("() => window.roadKeys") if prevented]
    assert taken == [], f"the clicker took {taken} at {here}"
    page.wait_for_timeout(SETTLE_MS)
    wait_ready(page)
    assert _where(page) == here, f"{keys} moved the deck from {here} to {page.url}"


def _blur(page) -> None:
    page.evaluate("() => document.activeElement && document.activeElement.blur()")


@pytest.mark.timeout(600)
def test_the_clicker_turns_the_deck_in_presenter_mode(server, browser):
    stops = deck("class")
    i = stops.index(next(s for s in stops if s.slug == "cnn_receptive_field"))
    page = _tab(browser)
    try:
        page.goto(part_url(server.url("/"), stops[i].slug, stops[i].part, "en", True))
        wait_ready(page)
        # full screen, as on a projector (F11 is the browser's own: the same document)
        page.evaluate("() => document.documentElement.requestFullscreen()")
        assert page.evaluate("() => document.fullscreenElement === document.documentElement")
        # a focused slider keeps its arrows; PageDown still turns the deck
        slider = page.locator('[data-testid="stMain"] [data-testid="stSlider"] input').first
        value = int(slider.input_value())
        slider.focus()
        _stays(page, ["ArrowRight"])
        assert int(slider.input_value()) == value + 1
        slider.focus()
        _press(page, "PageDown", stops[i + 1])
        _blur(page)  # the body has the focus, as after a page loads
        _press(page, "ArrowRight", stops[i + 2])
        _press(page, "Space", stops[i + 3])
        _press(page, "PageUp", stops[i + 2])
        _press(page, "ArrowLeft", stops[i + 1])
        _press(page, "End", stops[-1])
        _press(page, "Home", stops[0])
        assert page.evaluate("() => !!document.fullscreenElement")
        # presenter mode off in the same document (the listener stays): keys are free again
        page.locator('[data-testid="stExpandSidebarButton"]').click()
        off = translate("shell.presenter_off", "en")
        page.locator(".st-key-ui_present button", has_text=off).click()
        page.wait_for_function("() => location.search.includes('present=0')")
        wait_ready(page)
        assert page.locator("[data-road-clicker]").count() == 0
        _blur(page)
        _stays(page, ["PageDown", "ArrowRight", "Space", "End"])
    finally:
        page.context.close()


@pytest.mark.timeout(600)
def test_typing_and_reduced_motion_in_presenter_mode(server, browser):
    stops = deck("class")
    i = stops.index(next(s for s in stops if s.slug == "autoregressive"))
    page = _tab(browser, reduced_motion="reduce")
    try:
        page.goto(part_url(server.url("/"), stops[i].slug, stops[i].part, "en", True))
        wait_ready(page)
        play = page.locator(".st-key-ar_step_play_if_motion button")
        last = page.locator(".st-key-ar_step_last_if_still button")
        assert translate("autoregressive.step.last", "en") in last.inner_text()
        assert last.is_visible() and not play.is_visible()
        page.emulate_media(reduced_motion="no-preference")
        assert play.is_visible() and not last.is_visible()
        # the prompt sits in the folded controls on the projector
        page.locator('[data-testid="stMain"] [data-testid="stExpander"] summary').first.click()
        box = page.locator('[data-testid="stMain"] input[type="text"]').first
        box.focus()
        _stays(page, ["PageDown", "ArrowRight", "ArrowLeft", "Home", "End"])
        _blur(page)
        _press(page, "PageDown", stops[i + 1])
    finally:
        page.context.close()


def _tab(browser, **options):
    context = browser.new_context(viewport=DESKTOP, locale="en-US", **options)
    context.set_default_timeout(180_000)
    return context.new_page()
