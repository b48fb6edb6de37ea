"""Every part's first chart is whole on the projector's first screen, measured in Chromium.

Presenter mode, every part of the full lesson, at 1280x800 in Chinese and 1920x1080 in
English, the page scrolled to its top: the first chart's axis titles, its legend and its
colour bars' titles lie inside the screen (a teacher does not scroll to read what an axis
measures), the tick labels of one axis never run into each other, no axis title sits on tick
labels, an axis of percentages ticks no higher than 100 %, and a legend is not drawn over the
data (a legend inside the plot area keeps clear of every point, bar and line under it), nor
a line drawn across a label's words (a label on its own opaque ground hides the line instead).

Measured by ``tests/browser/test_slides.py``'s presenter walk, which has every part on those
screens already (Chinese loaded at 1280x800, English widened to 1920x1080 as a projector's
window): :func:`first_screen` on the page it shows.
"""

from __future__ import annotations

import math

from ui.nav import Stop

# The first chart of the main column, as drawn, in CSS px from the top of the first screen.
FIRST_CHART_JS = r"""() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const box = [...main.querySelectorAll('[data-testid="stPlotlyChart"]')]
      .find(c => c.getBoundingClientRect().height > 0);
  if (!box) return null;
  const gd = box.querySelector('.js-plotly-plot');
  const rect = el => { const b = el.getBoundingClientRect();
      return {l: b.left, r: b.right, t: b.top, b: b.bottom, w: b.width, h: b.height}; };
  const shown = el => { const b = el.getBoundingClientRect(); return b.width > 0 && b.height > 0; };
  const words = el => el.textContent.trim().slice(0, 30);
  const out = {titles: [], ticks: [], legend: null, plots: [], marks: []};
  // axis titles (xtitle, x2title, ytitle, ...) and colour bars' titles
  for (const el of box.querySelectorAll('.infolayer text[class$="title"], .cbtitle text')) {
    if (!el.textContent.trim() || !shown(el) || /gtitle/.test(el.getAttribute('class'))) continue;
    out.titles.push({what: words(el), ...rect(el)});
  }
  // tick labels, one list per axis of each subplot (rotated labels measured as drawn)
  for (const layer of box.querySelectorAll('.xaxislayer-above, .yaxislayer-above')) {
    const sub = layer.closest('.subplot');
    const axis = (sub ? sub.getAttribute('class').replace('subplot', '').trim() : '?') +
        (layer.classList.contains('xaxislayer-above') ? ':x' : ':y');
    const labels = [...layer.querySelectorAll('[class$="tick"] text')]
        .filter(el => el.textContent.trim() && shown(el))
        .map(el => {
          // a slanted label: its angle, the point it turns about (on screen) and its size
          const turn = /rotate\((-?[\d.]+)/.exec([el, el.parentElement]
              .map(e => e.getAttribute('transform') || '').join(' '));
          const m = el.getScreenCTM(), p = m && new DOMPoint(
              parseFloat(el.getAttribute('x') || 0), parseFloat(el.getAttribute('y') || 0))
              .matrixTransform(m);
          return {what: words(el), ...rect(el), angle: turn ? parseFloat(turn[1]) : 0,
                  ax: p ? p.x : 0, ay: p ? p.y : 0,
                  size: parseFloat(getComputedStyle(el).fontSize) || 0};
        });
    if (labels.length) out.ticks.push({axis, labels});
  }
  const legend = box.querySelector('.infolayer .legend');
  if (legend && shown(legend)) {
    const bg = legend.querySelector('.bg') || legend;
    out.legend = rect(bg);
  }
  for (const el of box.querySelectorAll('.nsewdrag')) if (shown(el)) out.plots.push(rect(el));
  // notes written on the chart (an annotation's text), and what a trace draws: points,
  // bars, and its line sampled every 3 px (a heatmap's image is the whole plot)
  // (a note on its own opaque ground hides the line under it: its words stay whole)
  const grounded = el => {
    const bg = el.closest('.annotation') && el.closest('.annotation').querySelector('.bg');
    if (!bg) return false;
    const fill = getComputedStyle(bg).fill, alpha = /rgba\([^)]*,\s*([\d.]+)\)/.exec(fill);
    return fill !== 'none' && !/rgba\(0, 0, 0, 0\)/.test(fill) && (!alpha || +alpha[1] >= 0.8);
  };
  out.notes = [...box.querySelectorAll('.infolayer .annotation text')]
      .filter(el => el.textContent.trim() && shown(el) && !grounded(el))
      .map(el => ({what: words(el), ...rect(el)}));
  out.lines = [];
  if (out.legend || out.notes.length) {
    for (const el of box.querySelectorAll('.scatterlayer .point, .barlayer .point path')) {
      if (shown(el)) out.marks.push(rect(el));
    }
    for (const tr of box.querySelectorAll('.scatterlayer .js-line')) {
      const len = tr.getTotalLength ? tr.getTotalLength() : 0;
      const ctm = tr.getScreenCTM();
      if (!len || !ctm) continue;
      const n = Math.min(2000, Math.ceil(len / 3));
      for (let i = 0; i <= n; i++) {
        const p = tr.getPointAtLength(len * i / n).matrixTransform(ctm);
        out.lines.push({l: p.x, r: p.x, t: p.y, b: p.y, w: 0, h: 0});
      }
    }
  }
  // axes that tick shares in percent: their highest tick (a probability ends at 100 %)
  const fl = gd && gd._fullLayout;
  out.percent = fl ? Object.keys(fl).filter(k => /^[xy]axis\d*$/.test(k))
      .filter(k => /%/.test(fl[k].tickformat || '') && (fl[k]._vals || []).length)
      .map(k => ({axis: k, top: Math.max(...fl[k]._vals.map(v => v.x))})) : [];
  return out;
}"""


def _meet(a: dict, b: dict, slack: float = 1.0) -> bool:
    """Two boxes overlap by more than ``slack`` px each way (a text box holds its line's
    leading: a quarter of the smaller height is glyphs that do not touch)."""
    dx = min(a["r"], b["r"]) - max(a["l"], b["l"])
    dy = min(a["b"], b["b"]) - max(a["t"], b["t"])
    lead = 0.25 * min(a["h"], b["h"])
    return dx > slack and dy > max(slack, lead)


def _stacked(a: dict, b: dict) -> bool:
    """Two tick labels of one axis drawn into each other. Level labels: their boxes meet.
    Slanted ones (plotly turns crowded words): their boxes always meet, so the lines they
    stand on, parallel, must lie at least 0.8 of the font size apart."""
    if not (a["angle"] or b["angle"]):
        return _meet(a, b)
    turn = math.radians(a["angle"])
    across = abs(-(b["ax"] - a["ax"]) * math.sin(turn) + (b["ay"] - a["ay"]) * math.cos(turn))
    return across < 0.8 * min(a["size"], b["size"])


def _inside(a: dict, b: dict) -> bool:
    """A point-sized box ``a`` strictly within ``b``."""
    return b["l"] < a["l"] < b["r"] and b["t"] < a["t"] < b["b"]


def first_screen_problems(got: dict | None, vw: int, vh: int, where: str) -> list[str]:
    """What of the first chart a teacher would have to scroll for, or cannot read."""
    if got is None:
        return []  # a part without a chart has nothing to fit (home's map)
    out = []
    boxes = [(f"axis title {t['what']!r}", t) for t in got["titles"]]
    if got["legend"]:
        boxes.append(("legend", got["legend"]))
    for what, b in boxes:
        if b["t"] < -1 or b["b"] > vh + 1 or b["l"] < -1 or b["r"] > vw + 1:
            out.append(
                f"{where}: {what} at x {b['l']:.0f}-{b['r']:.0f}, y {b['t']:.0f}-{b['b']:.0f}"
                f" (screen {vw}x{vh})"
            )
    for axis in got["ticks"]:
        labels = sorted(axis["labels"], key=lambda b: (b["ax"], b["ay"]))
        hits = [
            f"{a['what']!r} / {b['what']!r}"
            for i, a in enumerate(labels)
            for b in labels[i + 1 :]
            if _stacked(a, b)
        ]
        if hits:
            out.append(f"{where}: tick labels of {axis['axis']} run into each other: {hits[:3]}")
    ticks = [b for axis in got["ticks"] for b in axis["labels"]]
    for t in got["titles"]:
        hits = [b["what"] for b in ticks if _meet(t, b)]
        if hits:
            out.append(f"{where}: axis title {t['what']!r} sits on tick labels {hits[:3]}")
    out += [
        f"{where}: {p['axis']} ticks percent up to {p['top']:.0%}"
        for p in got["percent"]
        if p["top"] > 1 + 1e-9
    ]
    legend = got["legend"]
    if legend and any(_meet(legend, p, 0) for p in got["plots"]):
        under = [m for m in got["marks"] + got["lines"] if _inside(m, legend) or _meet(m, legend)]
        if under:
            out.append(f"{where}: the legend is drawn over {len(under)} points of the data")
    for note in got["notes"]:  # a line through a note's glyphs (its box less the leading)
        lead = 0.2 * note["h"]
        inner = dict(note, l=note["l"] + 2, r=note["r"] - 2, t=note["t"] + lead, b=note["b"] - lead)
        crossed = sum(_inside(p, inner) for p in got["lines"])
        if crossed:
            out.append(f"{where}: a line crosses the label {note['what']!r} ({crossed} points)")
    return out


def first_screen(page, stop: Stop, lang: str) -> list[str]:
    """The first-screen problems of ``stop``'s first chart on the page as it is (scrolled to
    its top first), at the page's viewport."""
    page.evaluate(
        "() => { window.scrollTo(0, 0); const m = document.querySelector("
        "'[data-testid=\"stMain\"]'); if (m) m.scrollTop = 0; }"
    )
    vp = page.viewport_size
    where = f"{stop.slug}/{stop.part} [{lang} {vp['width']}x{vp['height']}]"
    return first_screen_problems(page.evaluate(FIRST_CHART_JS), vp["width"], vp["height"], where)
