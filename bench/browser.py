"""Playwright helpers: time a page until it has rendered, time a rerun after a real control.

The page's own clock (``performance.now()``): a run has finished when Streamlit is idle
(:data:`IDLE_JS`) and the DOM has stayed quiet for ``QUIET_MS``; it took until the last DOM
mutation before that.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass

from lessons.handout.chromium import CHROMIUM, CHROMIUM_ARGS

# A phone says so in its User-Agent ("Mobile"): the app fits its charts to it (ui.on_a_phone)
PHONE_UA = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/126.0 Mobile Safari/537.36"
)
VIEWPORT = {"width": 1280, "height": 800}
QUIET_MS = 500  # the DOM must stay unchanged this long before a run counts as finished
POLL_MS = 40

INIT_JS = """(() => {
  if (window.__bench) return;
  // runs: how many times the script state has left notRunning (a click's run, with any run
  // it chains without going idle); ends[k]: the last change to the page from the start of
  // the k-th such run until the next one starts (another run than the click's: a fragment's
  // timer, say, must not count as part of the click)
  const b = window.__bench = {last: 0, input: 0, runs: 0, outside: 0, ends: {}};
  const observe = () => new MutationObserver((records) => {
    const now = b.last = performance.now();
    // a change outside the control being used (its own thumb and label do not count)
    for (const r of records) {
      const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      if (el && !el.closest('[data-bench-control]')) { b.outside = now; break; }
    }
    // a run starts when the state leaves notRunning (read the old value: a fast run can
    // go there and back within one batch of records)
    for (const r of records) {
      if (r.attributeName === 'data-test-script-state' && r.oldValue === 'notRunning') {
        b.runs += 1;
      }
    }
    b.ends[b.runs] = now;
  }).observe(document, {subtree: true, childList: true, attributes: true,
                        attributeOldValue: true, characterData: true});
  observe();
  for (const ev of ['keydown', 'pointerdown']) {
    document.addEventListener(ev, () => { b.input = performance.now(); }, true);
  }
})();"""

# Streamlit has finished: not running, nothing stale, a title (if asked), every chart drawn
IDLE_JS = """(needTitle) => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (document.querySelector('[data-testid="stStatusWidget"]')) return false;
  if (document.querySelector('[data-stale="true"]')) return false;
  if (document.querySelector('[data-testid="stSkeleton"]')) return false;
  if (needTitle && !document.querySelector('[data-testid="stMain"] h1')) return false;
  // every chart box holds a drawn figure (the app's chart element shows its box before
  // plotly.js has loaded)
  const boxes = document.querySelectorAll('[data-testid="stPlotlyChart"]');
  const plots = document.querySelectorAll('.js-plotly-plot');
  if (plots.length < boxes.length) return false;
  return [...plots].every(p => p.querySelector('.main-svg'));
}"""

STATE_JS = "() => ({...window.__bench, now: performance.now()})"


class BenchTimeout(RuntimeError):
    """A page did not settle (or a control did not start a rerun) within the time allowed."""


def new_tab(browser, errors: list[str] | None = None):
    """A fresh context (a new Streamlit session) with the timing script installed."""
    context = browser.new_context(viewport=VIEWPORT, locale="en-US")
    context.add_init_script(INIT_JS)
    page = context.new_page()
    if errors is not None:
        page.on("pageerror", lambda exc: errors.append(f"pageerror {exc}"))
    return page


@contextlib.contextmanager
def chromium():
    """Debian's Chromium (never a downloaded browser) through Playwright's sync API."""
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        raise RuntimeError(f"{CHROMIUM} not found: apt-get install chromium")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def tab(browser, errors: list[str] | None = None):
    """:func:`new_tab`, its context closed on the way out."""
    page = new_tab(browser, errors)
    try:
        yield page
    finally:
        page.context.close()


def warm_app(browser, server, url: str) -> float | None:
    """``url`` rendered once, then the app's warm-up waited for: seconds since launch, or None."""
    from bench import procs

    with tab(browser) as warm:
        render(warm, url, timeout_s=180)
    return procs.wait_warm(server, 300.0)


def wait_settled(
    page, timeout_s: float, need_title: bool = True, min_runs: int = 0, after: float = 0.0
) -> dict:
    """Poll (bounded) until Streamlit is idle and the DOM quiet: the timing state. With
    ``min_runs`` / ``after``: also until a run started or the page changed outside the control."""
    deadline = time.monotonic() + timeout_s
    state = {}
    while time.monotonic() < deadline:
        state = page.evaluate(STATE_JS)
        if (
            (state["runs"] >= min_runs or (after and state["outside"] > after))
            and state["now"] - state["last"] >= QUIET_MS
            and page.evaluate(IDLE_JS, need_title)
        ):
            return state
        page.wait_for_timeout(POLL_MS)
    raise BenchTimeout(f"{page.url} did not settle within {timeout_s:.0f} s (state {state})")


def render(page, url: str, timeout_s: float = 120.0, need_title: bool = True) -> float:
    """Open ``url`` and return seconds from navigation start to the last DOM change."""
    page.goto(url, wait_until="commit", timeout=timeout_s * 1000)
    state = wait_settled(page, timeout_s, need_title=need_title)
    return state["last"] / 1000.0  # performance.now() counts from navigation start


SLIDER = '[data-testid="stMain"] [data-testid="stSlider"] input[type="range"]'
SEGMENTED = '[data-testid="stMain"] [data-testid="stButtonGroup"]'
OPTION = "button[aria-checked]"  # a segmented control's options (not its label's help icon)


@dataclass
class Control:
    """One real control of a page and how to change it back and forth."""

    kind: str  # "slider" or "segmented"
    index: int  # among the page's controls of that kind, in document order
    label: str = ""
    disabled: bool = False  # e.g. a sampling temperature while decoding is greedy
    flips: int = 0

    def describe(self) -> str:
        return f"{self.kind}[{self.index}] {self.label}".strip()


def list_controls(page) -> list[Control]:
    """Every slider and segmented control in the main area, sliders first."""
    out: list[Control] = []
    sliders = page.locator(SLIDER)
    for i in range(sliders.count()):
        box = page.locator('[data-testid="stMain"] [data-testid="stSlider"]').nth(i)
        label = box.locator('[data-testid="stWidgetLabel"]').first
        text = label.inner_text(timeout=2000).strip() if label.count() else ""
        out.append(Control("slider", i, text, sliders.nth(i).is_disabled()))
    groups = page.locator(SEGMENTED)
    for i in range(groups.count()):
        g = groups.nth(i)
        label = g.locator("label").first
        text = label.inner_text(timeout=2000).strip() if label.count() else ""
        off = g.locator(OPTION).count() - g.locator(f"{OPTION}:disabled").count() < 2
        out.append(Control("segmented", i, text, off))
    return out


def pick_control(page, prefer: tuple[str, int] | None = None) -> Control:
    """The preferred control (or an error), else the first slider, else the first segmented."""
    controls = [c for c in list_controls(page) if not c.disabled]
    if prefer is not None:
        for c in controls:
            if (c.kind, c.index) == prefer:
                return c
        found = ", ".join(c.describe() for c in controls) or "none"
        raise BenchTimeout(f"{page.url} has no {prefer[0]}[{prefer[1]}] to change ({found})")
    if not controls:
        raise BenchTimeout(f"{page.url} has no slider or segmented control to change")
    return controls[0]


def change(page, control: Control) -> None:
    """Change ``control`` once; alternate so that the value goes back and forth."""
    if control.kind == "slider":
        thumb = page.locator(SLIDER).nth(control.index)
        now, lo, hi = thumb.evaluate("e => [e.valueAsNumber, Number(e.min), Number(e.max)]")
        up = now < hi and (now <= lo or control.flips % 2 == 0)
        thumb.focus()
        page.keyboard.press("ArrowRight" if up else "ArrowLeft")
    else:  # two options used alternately: the first two that are not the current one
        buttons = page.locator(SEGMENTED).nth(control.index).locator(OPTION)
        n = buttons.count()  # a picked control has two or more (list_controls)
        current = [i for i in range(n) if buttons.nth(i).get_attribute("aria-checked") == "true"]
        target = next(i for i in range(n) if i not in current[:1])
        buttons.nth(target).click()
    control.flips += 1


def rerun(page, control: Control, timeout_s: float = 60.0) -> float:
    """Change ``control``: seconds from the input event to the rerun's last DOM change."""
    wait_settled(page, timeout_s)
    locator = page.locator(SLIDER if control.kind == "slider" else SEGMENTED).nth(control.index)
    box = '[data-testid="stSlider"]' if control.kind == "slider" else "*"
    locator.evaluate(f"e => (e.closest('{box}') || e).setAttribute('data-bench-control', '')")
    before = page.evaluate(STATE_JS)
    page.evaluate("() => { window.__bench.input = 0; }")
    change(page, control)
    after = max(before["now"], 1.0)
    state = wait_settled(page, timeout_s, min_runs=before["runs"] + 1, after=after)
    if not state["input"]:
        raise BenchTimeout(f"no input event seen for {control.describe()} on {page.url}")
    return (click_end(before, state) - state["input"]) / 1000.0


def click_end(before: dict, state: dict) -> float:
    """When the page stopped changing for a click (ms, the page's clock): the last change of
    the run the click started (runs it chains without going idle included) and of what the
    browser drew for it before another run began; a run started later from elsewhere (the
    live page's watch, a fragment on a timer every 5 s) is not the click's. A click that ran
    nothing (a change drawn in the browser only): its last change."""
    runs = state.get("runs", 0)
    ends = state.get("ends") or {}
    mine = before.get("runs", 0) + 1
    if runs > mine and str(mine) in ends:  # JSON keys: strings
        return float(ends[str(mine)])
    return float(state["last"])
