"""A figure fitted to the classroom projector, whoever built it (:func:`fit_projector`):
every text at projector size, the title wrapped above the plot and clear of a legend and of
panel titles, each vertical axis title wrapped to its own axis, the height capped so the
chart stays on the first screen of a slide.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from charts.screen.sizes import (
    LAPTOP_FONT,
    LAPTOP_TITLE,
    MIN_PROJECTOR_FONT,
    PROJECTOR_FONT,
    PROJECTOR_FRAME_PX,
    PROJECTOR_TITLE,
    PROJECTOR_WIDTH,
    SLIDE_HEIGHT,
)
from charts.screen.text import wrap

if TYPE_CHECKING:
    import plotly.graph_objects as go


def _fix_font(holder: dict, key: str, floor: float, unset: float) -> None:
    """Raise ``holder[key]["size"]`` to ``floor`` if it is set below it; set it to ``unset``
    if it is not set at all (in Streamlit an unset size falls to the theme's small default,
    whatever the figure's template says)."""
    font = holder.setdefault(key, {})
    size = font.get("size")
    if size is None:
        font["size"] = unset
    elif size < floor:
        font["size"] = floor


def fit_projector(fig: go.Figure, *, width: float = 1.0, height: int = SLIDE_HEIGHT) -> go.Figure:
    """Make any figure readable on a projector, whoever built it; returns the same figure.

    - every text (layout font, titles, ticks, legends, annotations, colour bars, trace text)
      at least :data:`MIN_PROJECTOR_FONT` px, none left to a theme's small default;
    - the title wrapped to the chart's width (``width``: the fraction of the main column the
      chart gets, e.g. 0.5 in one of two columns) instead of being cut, at the top of the
      figure, with the top margin sized for its lines and for a legend at the top (which
      goes right under the title: they never overlap);
    - no taller than ``height`` px, so the main chart stays on the first screen.

    It edits the figure's own property dicts (``fig._layout``, ``fig._data``) rather than
    going through ``update_layout``: plotly validates every magic-underscore path, which
    cost ~100 ms a figure; this costs well under 1 ms. (plotly is pinned; a test checks the
    result through plotly's public ``to_dict``.)
    """
    floor, full = MIN_PROJECTOR_FONT, PROJECTOR_FONT  # full: what an unset size becomes
    lay: dict = fig._layout  # noqa: SLF001 (see the docstring)
    data: list[dict] = fig._data  # noqa: SLF001
    _fix_font(lay, "font", floor, full)
    axes = {k for k in lay if k.startswith(("xaxis", "yaxis"))}
    for tr in data:  # axes a trace draws on but the layout never mentions
        for ref, stem in (("xaxis", "xaxis"), ("yaxis", "yaxis")):
            if tr.get("type", "scatter") in ("pie", "table", "sankey", "indicator"):
                continue
            axes.add(stem + str(tr.get(ref, ref[0]))[1:])
    for name in axes:
        axis = lay.setdefault(name, {})
        _fix_font(axis, "tickfont", floor, full)
        _fix_font(axis.setdefault("title", {}), "font", floor, full)
    for name in [k for k in lay if k.startswith("coloraxis")]:
        bar = lay[name].setdefault("colorbar", {})
        _fix_font(bar, "tickfont", floor, full)
        _fix_font(bar.setdefault("title", {}), "font", floor, full)
    legend = lay.setdefault("legend", {})
    _fix_font(legend, "font", floor, full)
    for ann in lay.get("annotations") or []:
        _fix_font(ann, "font", floor, full)
    for tr in data:
        if tr.get("text") is not None or tr.get("texttemplate"):
            _fix_font(tr, "textfont", floor, full)
        if tr.get("type") in ("heatmap", "contour", "histogram2d") and tr.get("showscale", True):
            bar = tr.setdefault("colorbar", {})
            _fix_font(bar, "tickfont", floor, full)
            _fix_font(bar.setdefault("title", {}), "font", floor, full)
        if "hoverlabel" in tr:
            _fix_font(tr["hoverlabel"], "font", floor, full)
    # the title: wrapped, at the top; the margin makes room for it and a legend at the top
    title = lay.setdefault("title", {})
    tfont = title.setdefault("font", {})
    tfont["size"] = max(tfont.get("size") or PROJECTOR_TITLE, floor)
    for name in axes:  # tick labels above the plot would sit under the title: move them down
        if name.startswith("xaxis") and lay[name].get("side") == "top":
            lay[name]["side"] = "bottom"
    _title_on_top(lay, data, PROJECTOR_WIDTH * width)
    if lay.get("height") is None or lay["height"] > height:
        lay["height"] = height
    _wrap_y_titles(lay, lay["height"])
    _space_y_ticks(lay, lay["height"])
    return fig


# A tick label's room on a vertical axis, in font sizes: its line and a gap (measured: 22-px
# numbers 8.5 px apart on path_length's stacked panels, capped to a slide, were one smudge)
TICK_ROOM = 1.3


def _space_y_ticks(lay: dict, height: float) -> None:
    """Widen the step of every vertical axis with fixed steps (``dtick`` over a fixed
    ``range``) until its labels stand :data:`TICK_ROOM` font sizes apart: a figure built
    taller than a slide (stacked panels, each a few layers high) is capped to it, and its
    panels' labels stacked on each other. The step grows as 1, 2, 5, 10, ..."""
    plot = max(100.0, height - PROJECTOR_FRAME_PX)
    for name in [k for k in lay if k.startswith("yaxis")]:
        axis = lay[name]
        step, span = axis.get("dtick"), axis.get("range")
        ends = span if isinstance(span, list | tuple) and len(span) == 2 else (None, None)
        if not isinstance(step, int | float) or step <= 0 or None in ends or ends[0] == ends[1]:
            continue  # an open end (``[0, None]``): plotly chooses it, the room is unknown
        if axis.get("type") in ("log", "category", "date"):
            continue
        lo, hi = axis.get("domain") or (0.0, 1.0)
        per_unit = plot * (hi - lo) / abs(ends[1] - ends[0])
        size = (axis.get("tickfont") or {}).get("size") or PROJECTOR_FONT
        need = TICK_ROOM * size / per_unit  # the least step, in the axis's units
        if step >= need:
            continue
        mag = 10.0 ** math.floor(math.log10(need))
        axis["dtick"] = next(m * mag for m in (1, 2, 5, 10) if m * mag >= need)
        if float(axis["dtick"]).is_integer():
            axis["dtick"] = int(axis["dtick"])


def _wrap_y_titles(lay: dict, height: float) -> None:
    """Wrap every vertical axis title to the length of its own axis (and half the gap to the
    next one). On a projector the text is big and a stacked subplot's axis short: plotly
    never wraps an axis title, so the titles of two stacked subplots ran into each other
    (bottleneck's part 1, in Chinese)."""
    plot = max(100.0, height - PROJECTOR_FRAME_PX)
    domains = {k: tuple(lay[k].get("domain") or (0.0, 1.0)) for k in lay if k.startswith("yaxis")}
    for name, (lo, hi) in domains.items():
        title = lay[name].get("title")
        if not isinstance(title, dict) or not title.get("text"):
            continue
        below = max((top for n, (_, top) in domains.items() if n != name and top <= lo), default=lo)
        above = min((bot for n, (bot, _) in domains.items() if n != name and bot >= hi), default=hi)
        room = plot * ((hi - lo) + (lo - below) / 2 + (above - hi) / 2)
        size = (title.get("font") or {}).get("size") or PROJECTOR_FONT
        title["text"] = wrap(str(title["text"]), size, room)


def _title_on_top(lay: dict, data: list[dict], width_px: float) -> None:
    """Wrap the title to ``width_px`` and stand it on the plot's top edge, above a legend at
    the top and above subplot titles: plotly never wraps a title, it cuts it (a phone) or
    lets it run over the legend."""
    title = lay.setdefault("title", {})
    text = title.get("text") or ""
    if not text:
        return
    tsize = title.setdefault("font", {}).get("size") or LAPTOP_TITLE
    title["text"] = wrap(text, tsize, width_px - 40)
    gap = 6
    legend = lay.setdefault("legend", {})
    lsize = legend.get("font", {}).get("size") or LAPTOP_FONT
    shown = [tr for tr in data if tr.get("showlegend") is not False and tr.get("name")]
    if lay.get("showlegend") is not False and len(shown) > 1 and legend.get("y", 0) > 1:
        # a legend above the plot: on the plot's top edge, the title above it
        per_row = max(1, int(width_px // 260))
        rows = -(-len(shown) // per_row)
        legend.update(y=1.0, yanchor="bottom", yref="paper")
        gap += int(rows * lsize * 1.7)
    # subplot titles and notes standing on the plot's top edge: the title goes above them
    above = [
        a
        for a in lay.get("annotations") or []
        if a.get("yref", "paper") == "paper" and (a.get("y") or 0) >= 0.98
    ]
    if above:
        lines = max(str(a.get("text", "")).count("<br>") + 1 for a in above)
        size = max((a.get("font") or {}).get("size") or LAPTOP_FONT for a in above)
        gap = max(gap, int(lines * size * 1.4) + 10)
    # anchored on the plot's top edge and pushed up by its own lines (automargin makes the
    # top margin as tall as they need): a wrapped title is never cut at the top
    title.update(y=1.0, yref="paper", yanchor="bottom", pad={"b": gap}, automargin=True)
    margin = lay.setdefault("margin", {})
    margin["t"] = min(margin.get("t") or 10, 10)  # the title's automargin decides
