"""A page holds still while it loads: every lesson page's cumulative layout shift (CLS), read
from Chromium's own layout-shift entries the way Lighthouse and web-vitals read them (shifts
without recent input, in session windows at most 1 s apart and 5 s long, the largest
window), is at most 0.1 on a laptop (1280x800) and on a phone (390x844, "Mobile"
User-Agent), until the page has drawn every chart and stayed quiet for a second.

Counted from the first frame painted with the app's frame in place, which Streamlit
delivers after the page itself is on the screen:

- its stylesheet (ui.style, what holds the page still: ``st.html`` code that Streamlit loads
  on first use and shows with its other late-loading elements, 0.1-0.7 s after the run's
  first elements on a busy 2-core machine). Before it, Streamlit draws a part's pieces as they
  come, in the order the part's code writes them (a control before the chart above it) and
  with a 40 px placeholder for each control whose code is still loading;
- on a laptop, the sidebar, which comes with the run's first message and moves the page's
  frame (still empty) aside by its width: 0.23 at 1280 px for any Streamlit app with a
  sidebar open (a bare ``st.navigation`` app too). The main column must show nothing before
  it (no text, no placeholder), so the shift left out moves nothing a visitor sees.

The whole load's CLS is in the failure message beside the counted one.

One visit per page and screen in one browser, each in a fresh context (nothing cached), a
laptop's visit of a page before its phone visit: ~2 min."""

from __future__ import annotations

import json

import pytest

from tests.browser.conftest import DESKTOP, PHONE, PHONE_UA
from tests.browser.slides import wait_ready
from ui.nav import PAGES, is_built
from ui.slide import UNDER_KEY
from ui.style import HOLD

pytestmark = pytest.mark.browser

BUDGET = 0.1  # Lighthouse's "good" CLS
SETTLE_MS = 1000  # a page is watched this long after it is idle (a late shift counts too)
GAP_MS, WINDOW_MS = 1000, 5000  # web-vitals' session windows
SLUGS = [p.slug for p in PAGES if p.listed and is_built(p.slug)]
SCREENS = {"laptop": DESKTOP, "phone": PHONE}

# Before the page's own code: every layout shift with the nodes it moved (a selector-like
# path and the rectangles before and after); the frame after the first one painted with the
# sidebar, and after the first one painted with the app's stylesheet (the one that names
# ui.slide's keys); the main column's text in the last frame before the sidebar.
WATCH_JS = """((marker) => {
  const shifts = window.__shifts = [];
  const name = (n) => {
    if (!n || n.nodeType !== 1) return n ? n.nodeName : '?';
    const out = [];
    for (let a = n; a && out.length < 3; a = a.parentElement) {
      const id = a.getAttribute('data-testid');
      const key = [...a.classList].find((c) => c.startsWith('st-key-'));
      if (id || key || a === n) out.push(a.tagName.toLowerCase() + (id ? `[${id}]` : '') +
                                        (key ? '.' + key : ''));
    }
    return out.join(' < ');
  };
  const rect = (r) => [r.x, r.y, r.width, r.height].map(Math.round).join(',');
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      shifts.push({t: e.startTime, value: e.value, input: e.hadRecentInput,
                   sources: (e.sources || []).map((s) =>
                     `${name(s.node)} [${rect(s.previousRect)}] -> [${rect(s.currentRect)}]`)});
    }
  }).observe({type: 'layout-shift', buffered: true});
  const frame = window.__frame = {sidebar: null, styled: null, main: ''};
  // found in this frame's callback: this frame is the first painted with it (the shift it
  // brings is in this frame); counting starts with the next frame
  const painted = (key) => requestAnimationFrame((next) => { frame[key] = next; });
  const sidebar = () => {
    if (document.querySelector('[data-testid="stSidebar"]')) return painted('sidebar');
    const main = document.querySelector('[data-testid="stMain"]');
    const skeleton = document.querySelector('[data-testid="stMain"] [data-testid*="Skeleton"]');
    frame.main = (main ? main.innerText.trim() : '') + (skeleton ? '[placeholder]' : '');
    requestAnimationFrame(sidebar);
  };
  requestAnimationFrame(sidebar);
  const styled = () => {
    if ([...document.querySelectorAll('style')].some((s) => s.textContent.includes(marker))) {
      return painted('styled');
    }
    requestAnimationFrame(styled);
  };
  requestAnimationFrame(styled);
})(%s);"""


HELD_JS = """(held) => [...document.querySelectorAll(held)].map((el) =>
  (el.innerText || el.getAttribute('data-testid') || el.tagName).trim().slice(0, 60))"""


def cls(shifts: list[dict]) -> float:
    """The largest session window's sum of shifts without recent input (web-vitals)."""
    best = window = 0.0
    start = last = None
    for s in sorted(shifts, key=lambda s: s["t"]):
        if s["input"]:
            continue
        if start is None or s["t"] - last > GAP_MS or s["t"] - start > WINDOW_MS:
            start, window = s["t"], 0.0
        window += s["value"]
        last = s["t"]
        best = max(best, window)
    return best


def _visit(browser, url: str, viewport: dict) -> dict:
    phone = {"user_agent": PHONE_UA, "is_mobile": True} if viewport == PHONE else {}
    context = browser.new_context(viewport=viewport, locale="en-US", **phone)
    context.set_default_timeout(180_000)
    context.add_init_script(WATCH_JS % json.dumps(f"st-key-{UNDER_KEY}"))
    try:
        page = context.new_page()
        page.goto(url)
        wait_ready(page)
        page.wait_for_timeout(SETTLE_MS)
        got = page.evaluate("({shifts: window.__shifts, frame: window.__frame})")
        # once the page is idle nothing waits unseen any more (ui.style.HOLD)
        got["held"] = page.evaluate(HELD_JS, f":is({HOLD})")
        return got
    finally:
        context.close()


@pytest.fixture(scope="module")
def seen(server, browser) -> dict[tuple[str, str], dict]:
    """Every page on every screen, visited once (laptop first: its visit warms the server)."""
    out = {}
    for screen, viewport in SCREENS.items():
        for slug in SLUGS:
            path = "/" if slug == "home" else f"/{slug}"
            out[slug, screen] = _visit(browser, server.url(f"{path}?lang=en"), viewport)
    return out


def _report(shifts: list[dict]) -> str:
    lines = []
    for s in sorted(shifts, key=lambda s: -s["value"])[:4]:
        lines.append(f"  {s['value']:.3f} at {s['t']:.0f} ms")
        lines += [f"    {src}" for src in s["sources"][:4]]
    return "\n".join(lines)


@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("slug", SLUGS)
def test_a_page_holds_still_while_it_loads(seen, slug, screen):
    got = seen[slug, screen]
    shifts, frame = got["shifts"], got["frame"]
    assert not got["held"], f"{slug} on a {screen}: still unseen once idle: {got['held']}"
    assert frame["styled"], f"{slug} on a {screen}: the app's stylesheet never came"
    start = frame["styled"]
    if screen == "laptop":
        assert frame["sidebar"], f"{slug}: Streamlit's sidebar never came"
        assert not frame["main"], (
            f"{slug}: the main column showed {frame['main'][:80]!r} before the sidebar moved it"
        )
        start = max(start, frame["sidebar"])
    counted = [s for s in shifts if s["t"] >= start]
    value = cls(counted)
    assert value <= BUDGET, (
        f"{slug} on a {screen}: CLS {value:.3f} > {BUDGET} from {start:.0f} ms (whole load: "
        f"{cls(shifts):.3f}); largest shifts:\n" + _report(counted)
    )
