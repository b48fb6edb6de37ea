"""Measure a lesson part the way a projector and a phone show it (Chromium, Playwright).

For one page and part, in one browser tab: how much of the part's first chart lies inside
the first screen (no scrolling), the smallest chart text, whether a chart's title box meets
its legend box, the document's width against the viewport, the smallest heatmap label and
whether every heatmap row and column has one, each chart's plot area as a share of its
width, page text cut by its box, where the part's step controls end, and a screenshot. The
browser tests (test_slides.py, test_poll.py) call :func:`measure` and :func:`wait_ready`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bench.browser import IDLE_JS

# All numbers in CSS px, read in the page itself.
MEASURE_JS = """() => {
  const vh = window.innerHeight, vw = window.innerWidth;
  const main = document.querySelector('[data-testid="stMain"]');
  const charts = [...main.querySelectorAll('[data-testid="stPlotlyChart"]')]
      .filter(c => c.getBoundingClientRect().height > 0);
  const out = {viewport_w: vw, viewport_h: vh, charts: charts.length,
               doc_width: document.documentElement.scrollWidth,
               first_top: null, first_height: null, first_visible: null,
               min_font: null, min_font_text: null, overlaps: [], min_heat_label: null,
               cut: [], narrow: [], heat_unlabelled: [], min_heat_tick: null,
               clipped: [], control_bottom: null, control_text: null, crowded: []};
  if (charts.length) {
    const r = charts[0].getBoundingClientRect();
    const top = r.top + window.scrollY;
    out.first_top = top;
    out.first_height = r.height;
    out.first_visible = Math.max(0, Math.min(top + r.height, vh) - Math.max(top, 0));
  }
  // as drawn: plotly shrinks a bar's inside text with a scale() on the text itself
  const scaleOf = (el) => {
    const m = /scale\\(([\\d.]+)/.exec(el.getAttribute('transform') || '');
    return m ? parseFloat(m[1]) : 1;
  };
  const fontOf = (el) => scaleOf(el) * (parseFloat(getComputedStyle(el).fontSize) ||
      parseFloat(el.getAttribute('font-size') || el.style.fontSize));
  charts.forEach((c, ci) => {
    for (const el of c.querySelectorAll('svg text')) {
      if (!el.textContent.trim()) continue;
      const b = el.getBoundingClientRect();
      if (b.width === 0 && b.height === 0) continue;
      const f = fontOf(el);
      if (f && (out.min_font === null || f < out.min_font)) {
        out.min_font = f; out.min_font_text = `chart ${ci}: ${el.textContent.slice(0, 40)}`;
      }
    }
    const title = c.querySelector('.infolayer .g-gtitle, .infolayer .gtitle');
    const legend = c.querySelector('.infolayer .legend');
    if (title && legend) {
      const a = title.getBoundingClientRect(), b = legend.getBoundingClientRect();
      const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (a.width && b.width && x > 1 && y > 1) out.overlaps.push(ci);
    }
    // a chart title, panel title, axis title or note wider than its chart: plotly cuts it
    // at the edge (an axis title is centred on its axis and never wrapped by plotly)
    const box = c.getBoundingClientRect();
    const texts = '.infolayer .g-gtitle text, .infolayer .gtitle, .infolayer .annotation text, ' +
      '.infolayer [class^="g-x"][class$="title"] text, ' +
      '.infolayer [class^="g-y"][class$="title"] text';
    for (const el of c.querySelectorAll(texts)) {
      const b = el.getBoundingClientRect();
      if (b.width && (b.right > box.right + 1 || b.left < box.left - 1))
        out.cut.push(`chart ${ci}: ${el.textContent.slice(0, 40)}`);
    }
    // words under a plot that stand level (not slanted) and run into each other or into a
    // title or note of the chart (a panel's title below them): too many for their axis
    // (a text's box holds its line's leading: boxes a few px into each other vertically
    // are glyphs that do not touch)
    const meets = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 &&
        Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.25 * Math.min(a.height, b.height);
    const level = el => !/rotate\\((?!0[,)])/.test((el.getAttribute('transform') || '') + ' ' +
        ((el.parentElement && el.parentElement.getAttribute('transform')) || ''));
    const titles = [...c.querySelectorAll(texts)].map(el => el.getBoundingClientRect())
        .filter(b => b.width);
    for (const ax of c.querySelectorAll('.xaxislayer-above, .xaxislayer-below')) {
      const words = [...ax.querySelectorAll('[class*="tick"] text')]
          .filter(el => el.textContent.trim() && level(el))
          .map(el => [el.textContent.trim().slice(0, 20), el.getBoundingClientRect()])
          .filter(([, b]) => b.width).sort((p, q) => p[1].left - q[1].left);
      for (let i = 0; i < words.length; i++) {
        if (i && meets(words[i - 1][1], words[i][1]))
          out.crowded.push(`chart ${ci}: "${words[i - 1][0]}" meets "${words[i][0]}"`);
        if (titles.some(b => meets(b, words[i][1])))
          out.crowded.push(`chart ${ci}: "${words[i][0]}" meets a title`);
      }
    }
    // a plot squeezed by what stands beside it (a legend right of it on a phone)
    const fl = (c.querySelector('.js-plotly-plot') || {})._fullLayout;
    if (fl) {
      const widths = Object.keys(fl).filter(k => /^xaxis\\d*$/.test(k) && fl[k]._length)
          .map(k => fl[k]._length / ((fl[k].domain || [0, 1])[1] - (fl[k].domain || [0, 1])[0]));
      if (widths.length) out.narrow.push(Math.round(Math.min(...widths) / fl.width * 100) / 100);
    }
    if (c.querySelector('.hm, .heatmaplayer image, .heatmaplayer .hm')) {
      for (const el of c.querySelectorAll('.xtick text, .ytick text')) {
        if (!el.textContent.trim()) continue;
        const f = fontOf(el);
        if (f && (out.min_heat_label === null || f < out.min_heat_label)) out.min_heat_label = f;
      }
    }
    // every category of a heatmap's axes has its label, here or on the axis it shares
    // (plotly drops every other one when the rows are too thin for their font), and how big
    // the smallest is
    const gd = c.querySelector('.js-plotly-plot');
    for (const tr of ((gd && gd._fullData) || []).filter(t => t.type === 'heatmap')) {
      for (const ref of [tr.xaxis || 'x', tr.yaxis || 'y']) {
        const ax = fl && fl[ref[0] + 'axis' + ref.slice(1)];
        if (!ax || ax.type !== 'category') continue;
        // categories with a name (a one-row strip's row, named "" and by the title, is not)
        const want = (ax._categories || []).filter(c => String(c).trim()).length;
        const shown = a => a && a.showticklabels ?
            (a._vals || []).filter(v => String(v.text || '').trim()).length : 0;
        // a shared axis labels the words once, under the panel it shares them with
        const twins = Object.keys(fl).filter(k => /^[xy]axis\\d*$/.test(k)).map(k => fl[k])
            .filter(a => a !== ax && (a.matches === ax._id || ax.matches === a._id));
        const got = Math.max(shown(ax), ...twins.map(shown));
        if (got < want) out.heat_unlabelled.push(`chart ${ci} ${ax._id}: ${got} of ${want}`);
        const size = ax.showticklabels ? ax.tickfont.size : null;
        if (size && (out.min_heat_tick === null || size < out.min_heat_tick))
          out.min_heat_tick = size;
      }
    }
  });
  // text cut by a box that hides its overflow (an option of a segmented control, a link);
  // a box that scrolls sideways (the arena's tables, a wide formula on a phone) is not one
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  while (walker.nextNode()) {
    const node = walker.currentNode, el = node.parentElement;
    if (!node.textContent.trim() || seen.has(el)) continue;
    seen.add(el);
    // drawn text only: not a chart's description (hidden on purpose, for a screen reader),
    // nor what a closed <details> holds (a chart's data table)
    if (el.closest('svg, .katex-mathml, .chart-alt')) continue;
    if (el.closest('details:not([open])') && !el.closest('summary')) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const r = range.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) continue;
    for (let a = el; a && a !== main; a = a.parentElement) {
      // inside a box that scrolls sideways the rest is a swipe away: not cut
      const overflow = getComputedStyle(a).overflowX;
      if (overflow === 'auto' || overflow === 'scroll') break;
      if (overflow === 'visible') continue;
      const b = a.getBoundingClientRect();
      if (r.right > b.right + 1 || r.left < b.left - 1) {
        out.clipped.push(node.textContent.trim().slice(0, 40));
        break;
      }
    }
  }
  // the part's step controls (widget keys with "step": Back / Next / Play, a step slider),
  // not folded away: where the lowest ends
  for (const el of main.querySelectorAll('[class*="st-key-"]')) {
    if (!/(^|\\s)st-key-\\w*step/.test(el.className) || el.closest('details')) continue;
    const bottom = el.getBoundingClientRect().bottom + window.scrollY;
    if (out.control_bottom === null || bottom > out.control_bottom) {
      out.control_bottom = bottom;
      out.control_text = el.innerText.trim().slice(0, 30);
    }
  }
  return out;
}"""


@dataclass
class Measure:
    """What one part looks like on one screen (px)."""

    url: str
    viewport_w: int
    viewport_h: int
    charts: int
    doc_width: int
    first_top: float | None
    first_height: float | None
    first_visible: float | None
    min_font: float | None
    min_font_text: str | None
    overlaps: list[int]
    min_heat_label: float | None
    cut: list[str]  # chart, panel and axis titles and notes running past their chart's edge
    # per chart: its plot area's width (a panel's axis over its share of the width) as a
    # share of the chart's width
    narrow: list[float]
    heat_unlabelled: list[str]  # heatmap category axes that label fewer than all categories
    min_heat_tick: float | None  # the smallest tick font of a heatmap's category axes
    clipped: list[str]  # page text cut by a box that hides its overflow
    control_bottom: float | None  # where the part's step controls end (keys with "step")
    control_text: str | None
    crowded: list[str]  # level words under a plot that meet each other or a title

    @property
    def in_view(self) -> float | None:
        """Share of the first chart's height inside the first screen (None: no chart)."""
        if not self.first_height:
            return None
        return self.first_visible / self.first_height


def part_url(
    base: str, slug: str, part: str | None, lang: str, present: bool, deck: str | None = None
) -> str:
    """A stop's link (``deck``: the deck's path, ``"full"`` for every part; the class path
    by default)."""
    path = "/" if slug == "home" else f"/{slug}"
    query = f"lang={lang}&present={int(present)}" + (f"&path={deck}" if deck else "")
    query += f"&part={part}" if part else ""
    return f"{base.rstrip('/')}{path}?{query}"


def wait_ready(page, timeout: float = 180_000) -> None:
    """Until the app is idle twice in a row 0.6 s apart and every chart has drawn."""
    for _ in range(30):
        page.wait_for_function(IDLE_JS, arg=True, timeout=timeout, polling=200)
        page.wait_for_timeout(600)
        if page.evaluate(IDLE_JS, True):
            return


def measure(page, shot: Path | None = None) -> Measure:
    """Measure the page as it is now, at scroll position 0 (and screenshot it)."""
    page.evaluate("() => window.scrollTo(0, 0)")
    page.evaluate(
        "() => { const m = document.querySelector('[data-testid=\"stMain\"]');"
        " if (m) m.scrollTop = 0; }"
    )
    data = page.evaluate(MEASURE_JS)
    if shot is not None:
        shot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shot))
    return Measure(url=page.url, **data)
