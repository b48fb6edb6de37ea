"""The chart element's plotly.js bundle in a real Chromium: one page of charts, a rerun and a
move to another page of charts in the same tab fetch it exactly once, from the app's own
origin, and draw every chart with no console error. ~1 min on an idle machine."""

from __future__ import annotations

from contextlib import contextmanager
from urllib.parse import urlsplit

import pytest

from tests.browser.conftest import DESKTOP, wait_idle
from ui import plot

pytestmark = pytest.mark.browser


PROJECTOR = {"width": 1920, "height": 1080}


@contextmanager
def _tab(browser, viewport: dict = DESKTOP):
    """A new tab at ``viewport`` and the list its page errors go to; closed afterwards."""
    context = browser.new_context(viewport=viewport)
    context.set_default_timeout(180_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        yield page, errors
    finally:
        context.close()


def _charts(page) -> int:
    return page.locator('[data-testid="stMain"] [data-testid="stPlotlyChart"] .main-svg').count()


def test_the_bundle_is_fetched_once_per_visit_from_the_app(server, browser):
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(180_000)
    page = context.new_page()
    requests, errors = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(server.url("/attention?lang=en"))
        wait_idle(page)
        first = _charts(page)
        # another page of charts in the same tab (the app's own navigation: no reload)
        page.locator('[data-testid="stSidebar"] a[href*="bottleneck"]').first.click()
        page.wait_for_url("**/bottleneck**")
        wait_idle(page)
        assert first >= 1 and _charts(page) >= 1, "no chart drawn"
        bundle = [u for u in requests if "plotly" in u.lower()]
        assert len(bundle) == 1 and f"/app/static/{plot.BUNDLE}?v=" in bundle[0], bundle
        origin = urlsplit(server.url("/")).netloc
        foreign = [u for u in requests if urlsplit(u).scheme in ("http", "https")]
        foreign = [u for u in foreign if urlsplit(u).netloc != origin]
        assert not foreign, f"requests to another origin: {foreign}"
        # only Streamlit's probes of the page's path answer 404 (see tests/browser/conftest.py)
        assert not [e for e in errors if "404" not in e], errors
    finally:
        context.close()


# Three figures for one chart in quick succession (a live chart redrawn while the previous
# drawing has not finished): road-chart.js draws one at a time and skips the one a newer
# figure overtook; the chart ends on the newest. Plotly.react is wrapped to count the
# drawings in flight.
RACE_JS = """async () => {
  const box = document.querySelector('[data-testid="stMain"] .stPlotlyChart');
  const parent = box.parentElement;
  const P = window.Plotly, react = P.react;
  let now = 0, most = 0, calls = 0;
  P.react = (...args) => {
    calls += 1; now += 1; most = Math.max(most, now);
    return Promise.resolve(react.apply(P, args)).finally(() => { now -= 1; });
  };
  const fig = (ys) => JSON.stringify({alt: "", config: {}, spec: {
    data: [{type: "bar", x: ["a", "b", "c"], y: ys, text: ys.map(String),
            textposition: "outside"}],
    layout: {height: 300}}});
  try {
    const drawn = [[1, 2, 3], [4, 5, 6], [7, 8, 9]].map(
      (ys) => window.RoadChart.draw(parent, fig(ys)));
    await Promise.all(drawn);
  } finally {
    P.react = react;
  }
  const texts = [...box.querySelectorAll('.point text')].map((t) => t.textContent);
  return {most, calls, texts};
}"""


def test_figures_that_arrive_together_are_drawn_one_at_a_time_newest_last(server, browser):
    with _tab(browser) as (page, errors):
        page.goto(server.url("/arena?lang=en"))  # one bar chart first on the page
        wait_idle(page)
        out = page.evaluate(RACE_JS)
        assert out["most"] == 1, out  # never two drawings of one chart at once
        assert out["texts"] == ["7", "8", "9"], out  # the newest figure is the one shown
        assert out["calls"] <= 2, out  # the overtaken middle figure was never drawn
        assert not errors, errors


# A chart whose title pushes the top margin (presenter mode) gets a second plotly pass when
# its margins changed (plotly.js #7750, road-chart.js redraw); a rerun that leaves them as
# they were draws once. The wrapper counts each chart's Plotly.react calls; a forced second
# pass afterwards must change nothing of the SVG (the random clip-path ids aside).
COUNT_JS = """() => {
  const P = window.Plotly, react = P.react;
  window.__reacts = new Map();
  P.react = (gd, ...rest) => {
    window.__reacts.set(gd, (window.__reacts.get(gd) || 0) + 1);
    return react.call(P, gd, ...rest);
  };
}"""
SECOND_PASS_JS = """async () => {
  const snap = (gd) => [...gd.querySelectorAll('svg.main-svg')]
    .map((s) => s.innerHTML.replace(/[0-9a-f]{6}/g, '')).join('|');
  const out = [];
  for (const gd of document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')) {
    const before = snap(gd), calls = window.__reacts.get(gd) || 0;
    const layout = Object.assign({}, gd.layout, {datarevision: (gd.layout.datarevision || 0) + 1});
    await window.Plotly.react(gd, gd.data, layout);
    out.push({calls, automargin: !!gd._fullLayout.title.automargin,
              same: before === snap(gd)});
  }
  return out;
}"""


SLIDER = '[data-testid="stMain"] [data-testid="stSlider"]'


def test_a_presenter_rerun_that_keeps_the_margins_draws_each_chart_once(server, browser):
    with _tab(browser, PROJECTOR) as (page, errors):
        # two line charts with titles over them, both redrawn by the slider (ρ)
        page.goto(server.url("/rnn_gradients?lang=zh&present=1&part=fresh"))
        wait_idle(page)
        page.evaluate(COUNT_JS)
        page.locator(f"{SLIDER} input[type='range']").first.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_function("() => window.__reacts.size >= 2", polling=100)
        wait_idle(page)
        charts = page.evaluate(SECOND_PASS_JS)
        assert len(charts) == 2 and all(c["automargin"] for c in charts), charts
        assert [c["calls"] for c in charts] == [1, 1], charts  # one pass each, not two
        assert all(c["same"] for c in charts), charts  # and a second would change nothing
        assert not errors, errors


# A chart's data table (under the chart, in a closed fold) enters the page when the fold is
# opened: the same rows as the text the server sent, none before.
TABLE_JS = """() => {
  const holder = document.querySelector('[data-testid="stMain"] .road-chart-alt');
  const sent = new DOMParser().parseFromString(holder.roadAlt, 'text/html');
  return {rows: holder.querySelectorAll('tr').length, sent: sent.querySelectorAll('tr').length,
          open: holder.querySelector('details').open};
}"""


def test_a_charts_data_table_enters_the_page_when_its_fold_opens(server, browser):
    with _tab(browser) as (page, errors):
        page.goto(server.url("/bottleneck?lang=en&part=read"))  # a 256 x 33 map: 2,000 cells
        wait_idle(page)
        closed = page.evaluate(TABLE_JS)
        assert closed["rows"] == 0 and closed["sent"] > 50 and not closed["open"], closed
        page.locator('[data-testid="stMain"] .road-chart-alt summary').first.focus()
        page.keyboard.press("Enter")  # the keyboard opens it as a click does
        page.wait_for_function("() => document.querySelector('.road-chart-alt tr')")
        opened = page.evaluate(TABLE_JS)
        assert opened["open"] and opened["rows"] == closed["sent"], opened
        assert not errors, errors
