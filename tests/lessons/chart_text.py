"""What every chart of a view must carry besides its drawing (checked on the views the figure
oracle runs, so no page runs twice): a text alternative built from the chart's own data in
the view's language, and model lines told apart by more than colour."""

from __future__ import annotations

import html
import json
import re

from charts import describe
from core import lexicon
from core.i18n import translate

_ALT = re.compile(r'<p class="chart-alt"[^>]*>(.*?)</p>', re.S)
_MODEL_COLORS = {lk.color.upper() for lk in lexicon.LOOKS.values()}


def problems(at, lang: str) -> list[str]:
    """One line per chart of the run view ``at`` without its text alternative (sent with
    it, equal to :func:`charts.describe.describe` of its spec, in ``lang``), and per two
    model lines in one chart that share both dash and marker."""
    charts = at.get("plotly_chart")
    specs = [json.loads(c.proto.spec) for c in charts]
    alts = [html.unescape(m) for c in charts for m in _ALT.findall(c.proto.alt)]
    out = []
    if len(alts) != len(specs):
        out.append(f"{len(specs)} charts but {len(alts)} text alternatives")
    for i, (spec, alt) in enumerate(zip(specs, alts)):
        if alt != describe.describe(spec, lang):
            out.append(f"chart {i}: its text alternative is not its own data's: {alt[:80]!r}")
        if not alt.startswith(translate("chart.alt.untitled", lang).rstrip(".。")):
            out.append(f"chart {i}: text alternative not in {lang}: {alt[:80]!r}")
        out += [f"chart {i}: {p}" for p in _alike_lines(spec)]
    return out


def _alike_lines(spec: dict) -> list[str]:
    """Model lines on the same axes (one panel) drawn with the same dash and the same marker
    (or both without markers): told apart by colour alone."""
    seen: dict[tuple, str] = {}
    out = []
    for tr in spec.get("data") or []:
        line, marker = tr.get("line") or {}, tr.get("marker") or {}
        color = str(line.get("color") or "").upper()
        mode = str(tr.get("mode", "lines"))
        if "lines" not in mode or color not in _MODEL_COLORS:
            continue
        symbol = (marker.get("symbol") or "circle") if "markers" in mode else None
        look = (tr.get("xaxis", "x"), tr.get("yaxis", "y"), line.get("dash") or "solid", symbol)
        if look in seen and seen[look] != color:
            out.append(f"lines {seen[look]} and {color} share dash and marker {look[2:]}")
        seen.setdefault(look, color)
    return out
