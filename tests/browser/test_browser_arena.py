"""The arena's HTML blocks (cards, confidence grid, numbers table) in a real Chromium: drawn
only near the screen, so the slider above them reruns them off screen without laying them
out, drawn in full once scrolled to, and a keyboard's focus ring inside them not clipped by
that containment. ~30 s on an idle machine."""

from __future__ import annotations

from pathlib import Path

import pytest

from charts.screen import sizes as screen
from tests.browser.conftest import DESKTOP, PHONE, reopened, wait_idle

pytestmark = pytest.mark.browser

# For each .road-html box: is its content rendered (not skipped by content-visibility), its
# height, and how far below the screen's bottom its top is.
_BOXES_JS = """() => [...document.querySelectorAll('[data-testid="stMain"] .road-html')].map(b => {
  const r = b.getBoundingClientRect();
  const child = b.firstElementChild;
  return {rendered: child ? child.checkVisibility({contentVisibilityAuto: true}) : null,
          height: r.height, below: r.top - innerHeight, nodes: b.querySelectorAll('*').length};
})"""

# The focused element's ring (outline and its offset around the border box) against the box
# of the .road-html it is in: how many px the ring sticks out on its worst side.
_RING_JS = """() => {
  const el = document.activeElement, box = el.closest('.road-html');
  const s = getComputedStyle(el), r = el.getBoundingClientRect(), b = box.getBoundingClientRect();
  const out = parseFloat(s.outlineOffset) + parseFloat(s.outlineWidth);
  return {visible: el.matches(':focus-visible'), style: s.outlineStyle,
          out: Math.max(b.left - (r.left - out), (r.right + out) - b.right,
                        b.top - (r.top - out), (r.bottom + out) - b.bottom)};
}"""


def test_blocks_under_the_fold_are_skipped_until_scrolled_to(server, browser):
    with reopened(browser, server.url("/arena?lang=en"), DESKTOP) as tab:
        page = tab.page
        boxes = page.evaluate(_BOXES_JS)
        assert len(boxes) == 3, boxes  # cards, confidence grid, numbers table
        # a screen or more below (Chromium renders what is a little closer, ahead of a scroll)
        below = [b for b in boxes if b["below"] > DESKTOP["height"]]
        assert below, f"no HTML block a screen under the first to test with: {boxes}"
        # off screen: in the DOM (a screen reader and find-in-page read them) but not rendered
        assert all(b["nodes"] > 20 and b["rendered"] is False for b in below), boxes
        last = page.locator('[data-testid="stMain"] .road-html').last
        last.scroll_into_view_if_needed()
        page.wait_for_timeout(300)  # the next frames render what came near the screen
        drawn = page.evaluate(_BOXES_JS)[-1]
        assert drawn["rendered"] is True and drawn["height"] > 50, drawn


def test_a_focus_ring_inside_a_block_is_not_clipped(server, browser):
    with reopened(browser, server.url("/arena?lang=en"), DESKTOP) as tab:
        page = tab.page
        scrollers = page.locator('[data-testid="stMain"] .road-html .road-scroll')
        assert scrollers.count() >= 2  # the grid and the table scroll sideways on a phone
        for i in range(scrollers.count()):
            scrollers.nth(i).scroll_into_view_if_needed()
            scrollers.nth(i).focus()
            ring = page.evaluate(_RING_JS)
            assert ring["visible"] and ring["style"] != "none", ring
            assert ring["out"] <= 0.5, f"the focus ring sticks out of its clipped box: {ring}"


# Each bar's text in the first chart as drawn: its font size times the scale() plotly puts on
# a bar's inside text to fit it to the bar's height.
_BAR_TEXT_JS = """() => [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')][0]
  .querySelectorAll('text.bartext').values().map(t => {
    const m = /scale\\(([\\d.]+)/.exec(t.getAttribute('transform') || '');
    return {text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * (m ? +m[1] : 1)};
  }).toArray()"""


@pytest.mark.parametrize(
    ("viewport", "present", "lang"),
    [(DESKTOP, True, "en"), (DESKTOP, True, "zh"), (PHONE, False, "zh")],
    ids=["projector-en", "projector-zh", "phone-zh"],
)
def test_the_bars_numbers_have_one_readable_size(server, browser, viewport, present, lang):
    """plotly shrinks a bar's inside text to the bar: on the projector the numbers came out
    at 16 px, on a phone at ~10 px inside a long bar beside 14 px after a short one."""

    least = screen.MIN_PROJECTOR_FONT if present else screen.MIN_PHONE_FONT
    url = server.url(f"/arena?lang={lang}" + ("&present=1" if present else ""))
    with reopened(browser, url, viewport) as tab:
        texts = tab.page.evaluate(_BAR_TEXT_JS)
        assert len(texts) == 7, texts  # one per model
        small = [t for t in texts if t["px"] < least - 0.01]
        assert not small, f"bar text under {least} px: {small}"
        sizes = {round(t["px"], 1) for t in texts}
        assert len(sizes) == 1, f"the bars' numbers in {len(sizes)} sizes: {texts}"


# The numbers table as drawn: its rows of cells' text (the header first).
_TABLE_JS = """() => {
  const t = [...document.querySelectorAll('[data-testid="stMain"] .road-html table')]
    .find(t => t.querySelector('th') && t.querySelector('th').textContent === 'Model');
  return [...t.querySelectorAll('tr')].map(r => [...r.cells].map(c => c.textContent));
}"""


def test_the_csv_download_is_the_table_on_screen_after_a_length_click(server, browser):
    """After a length click (the sentence's fragment alone reruns), the CSV download is the
    table of the sentence on screen, not of the first one."""
    import csv
    import io

    with reopened(browser, server.url("/arena?lang=en&len=9&seed=3"), DESKTOP) as tab:
        page = tab.page
        first = page.evaluate(_TABLE_JS)
        page.locator('[data-testid="stMain"] [data-testid="stSlider"] input').first.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_url("**len=10**", timeout=30_000)
        wait_idle(page)
        shown = page.evaluate(_TABLE_JS)
        assert shown != first and len(shown) == len(first)  # a new sentence, every model
        with page.expect_download(timeout=30_000) as got:
            page.get_by_role("button", name="Download the table (CSV)").click()
        text = Path(got.value.path()).read_text(encoding="utf-8-sig")
        assert list(csv.reader(io.StringIO(text))) == shown
