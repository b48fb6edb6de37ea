"""Plotly figure builders: one template, one palette, one presenter scale.

Every chart in the app is made here (or with :func:`style`), so the classroom mode changes
all of them at once: bigger fonts, thicker lines, a high-contrast colour-blind-safe palette.
Builders take plain arrays and labels, check them, and raise a ``ValueError`` that says how
to fix the call. No streamlit here: figures are returned, the page displays them.
"""

from __future__ import annotations

import copy
import html
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

# Fonts with Chinese glyphs first, so chart text in zh never falls back to boxes.
FONT_FAMILY = (
    '"Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "PingFang SC", '
    '"Microsoft YaHei", "Hiragino Sans GB", "WenQuanYi Micro Hei", '
    '"Source Sans Pro", "Helvetica Neue", Arial, sans-serif'
)

# Okabe & Ito (2008), "Color Universal Design": distinguishable with every common
# colour-vision deficiency; black first for the strongest contrast on a projector.
OKABE_ITO: tuple[str, ...] = (
    "#000000",  # black
    "#E69F00",  # orange
    "#0072B2",  # blue
    "#009E73",  # bluish green
    "#D55E00",  # vermillion
    "#56B4E9",  # sky blue
    "#CC79A7",  # reddish purple
    "#F0E442",  # yellow (last: weak on white)
)
# The one highlight of every chart (the chosen word, the largest weight, the framed row, a
# marked bar), on the laptop and the projector alike: Okabe-Ito orange.
HIGHLIGHT = OKABE_ITO[1]
# Paul Tol's "bright" scheme: also colour-blind safe, softer for a laptop screen.
TOL_BRIGHT: tuple[str, ...] = (
    "#4477AA",
    "#EE6677",
    "#228833",
    "#CCBB44",
    "#66CCEE",
    "#AA3377",
    "#BBBBBB",
)


@dataclass(frozen=True)
class Scale:
    """Sizes that differ between the laptop and the classroom projector."""

    font: int  # base font size in px
    title: int  # chart title size in px
    line: float  # line width in px
    marker: int  # marker size in px
    height: int  # default figure height in px
    palette: tuple[str, ...]


NORMAL = Scale(font=14, title=17, line=2.0, marker=7, height=380, palette=TOL_BRIGHT)
PRESENTER = Scale(font=22, title=28, line=4.5, marker=12, height=520, palette=OKABE_ITO)


def scale(presenter: bool) -> Scale:
    """The size set for the laptop (``False``) or the projector (``True``)."""
    return PRESENTER if presenter else NORMAL


class _Registered(go.layout.Template):
    """A template that plotly copies without validating it again. plotly copies a template
    into every figure given it, and copying a template object validates every property of it
    afresh (~1.5 ms, three quarters of building a small figure); a template given by its
    registered name is copied with ``copy.deepcopy`` instead, which here copies the property
    dicts as they are (they were validated once, when :func:`template_of` built them)."""

    def __deepcopy__(self, memo: dict) -> go.layout.Template:
        return go.layout.Template(copy.deepcopy(self._props, memo), _validate=False)


def template(presenter: bool = False) -> str:
    """The one plotly template of the app, at laptop or projector scale, by the name it has
    in ``plotly.io.templates``: what a figure's ``layout.template`` is set to (by name, plotly
    copies it without validating it again; see :class:`_Registered`)."""
    return _register(presenter)


@cache
def _register(presenter: bool) -> str:
    name = "road_presenter" if presenter else "road"
    # into the registry's own dict: its ``__setitem__`` would validate the template into a
    # plain Template again (tests/charts/test_base.py checks the copy stays cheap)
    pio.templates._templates[name] = _Registered(template_of(presenter).to_plotly_json())  # noqa: SLF001
    return name


@cache  # built once per scale: plotly validates every property, ~15 ms a build
def template_of(presenter: bool = False) -> go.layout.Template:
    """The template itself (:func:`template` names it), to read its settings.

    Shared: callers never mutate this object."""
    s = scale(presenter)
    ink = "#000000" if presenter else "#262730"
    grid = "#BDBDBD" if presenter else "#E5E5E5"
    axis = dict(
        gridcolor=grid,
        linecolor=ink,
        zerolinecolor=grid,
        tickfont=dict(size=s.font, color=ink),
        title=dict(font=dict(size=s.font + 2, color=ink)),
        automargin=True,
    )
    return go.layout.Template(
        layout=go.Layout(
            font=dict(family=FONT_FAMILY, size=s.font, color=ink),
            title=dict(font=dict(size=s.title, color=ink), x=0.0, xanchor="left"),
            colorway=list(s.palette),
            paper_bgcolor="#FFFFFF",
            plot_bgcolor="#FFFFFF",
            xaxis=axis,
            yaxis=axis,
            legend=dict(font=dict(size=s.font)),
            hoverlabel=dict(font=dict(family=FONT_FAMILY, size=s.font)),
            margin=dict(l=10, r=10, t=60 if presenter else 50, b=10),
            height=s.height,
        ),
        data=dict(
            scatter=[go.Scatter(line=dict(width=s.line), marker=dict(size=s.marker))],
            bar=[go.Bar(marker=dict(line=dict(width=1.5 if presenter else 0, color=ink)))],
            heatmap=[go.Heatmap(colorscale="Cividis")],
        ),
    )


def style(fig: go.Figure, presenter: bool = False) -> go.Figure:
    """Apply the app template to a figure built elsewhere; returns the same figure."""
    fig.update_layout(template=template(presenter))
    s = scale(presenter)
    fig.update_traces(line_width=s.line, selector=dict(type="scatter"))
    return fig


def layout(
    presenter: bool,
    title: str,
    x_title: str,
    y_title: str,
    *,
    fonts: bool = True,
    xaxis: Mapping | None = None,
    yaxis: Mapping | None = None,
    **extra: object,
) -> dict:
    """A chart's layout as one dict, so the figure is built (and validated) in one go rather
    than through several update calls (plotly validates on every call).

    ``fonts``: the sizes again on the figure itself, not only in the template (Streamlit's
    chart theme writes its own small fonts over the template's in the browser). A two-line
    title (``<br>``) gets room above the plot; ``extra`` layout properties come last and win.
    """
    s = scale(presenter)
    out: dict = dict(template=template(presenter), title=dict(text=title))
    axes = dict(title=dict(text=x_title)), dict(title=dict(text=y_title))
    if fonts:
        out["title"]["font"] = dict(size=s.title)
        out.update(font=dict(family=FONT_FAMILY, size=s.font), legend=dict(font=dict(size=s.font)))
        for axis in axes:
            axis["title"]["font"] = dict(size=s.font + 2)
            axis["tickfont"] = dict(size=s.font)
    out.update(xaxis=dict(axes[0], **(xaxis or {})), yaxis=dict(axes[1], **(yaxis or {})))
    if "<br>" in title:
        out["margin"] = dict(t=100 if presenter else 80)
    out.update(extra)
    return out


def _check_labels(name: str, labels: Sequence[object], n: int) -> list[str]:
    labels = [str(x) for x in labels]
    if len(labels) != n:
        raise ValueError(
            f"{name} has {len(labels)} entries but the data has {n}; pass one label per "
            f"{'row' if name.startswith('y') else 'column'}/value"
        )
    return labels


def _finite(name: str, values: Sequence[float] | np.ndarray) -> np.ndarray:
    arr = np.asarray(values, dtype=float)
    if arr.size and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinity; clean the data before plotting")
    return arr


def _dress(
    fig: go.Figure, presenter: bool, title: str, x_title: str, y_title: str, log_y: bool = False
) -> go.Figure:
    """The template and the titles on ``fig`` (and a log y axis); returns the same figure."""
    fig.update_layout(
        template=template(presenter),
        title_text=title,
        xaxis_title=x_title,
        yaxis_title=y_title,
    )
    if log_y:
        fig.update_yaxes(type="log")
    return fig


def bar_chart(
    labels: Sequence[object],
    values: Sequence[float] | np.ndarray,
    *,
    title: str,
    x_title: str = "",
    y_title: str = "",
    presenter: bool = False,
    log_y: bool = False,
    highlight: Sequence[object] = (),
) -> go.Figure:
    """Vertical bars, one per label. ``highlight`` labels get the palette's second colour."""
    vals = _finite("values", values)
    if vals.ndim != 1:
        raise ValueError(f"values must be one-dimensional, got shape {vals.shape}")
    if vals.size == 0:
        raise ValueError("values is empty; a bar chart needs at least one bar")
    labels = _check_labels("labels", labels, vals.size)
    if log_y and np.any(vals <= 0):
        raise ValueError("log_y=True needs positive values; drop zeros or use log_y=False")
    s = scale(presenter)
    marked = {str(h) for h in highlight}
    colors = [HIGHLIGHT if lab in marked else s.palette[2] for lab in labels]
    fig = go.Figure(go.Bar(x=labels, y=vals, marker_color=colors))
    return _dress(fig, presenter, title, x_title, y_title, log_y)


def line_chart(
    x: Sequence[float] | np.ndarray,
    series: Mapping[str, Sequence[float] | np.ndarray],
    *,
    title: str,
    x_title: str = "",
    y_title: str = "",
    presenter: bool = False,
    log_y: bool = False,
    markers: bool = True,
) -> go.Figure:
    """One line per named series, all over the same ``x``."""
    xs = _finite("x", x)
    if xs.ndim != 1 or xs.size == 0:
        raise ValueError(f"x must be a non-empty 1-D sequence, got shape {xs.shape}")
    if not series:
        raise ValueError("series is empty; pass {name: values} with at least one line")
    fig = go.Figure()
    for name, ys in series.items():
        arr = _finite(f"series[{name!r}]", ys)
        if arr.shape != xs.shape:
            raise ValueError(
                f"series[{name!r}] has shape {arr.shape} but x has {xs.shape}; "
                "every series needs one value per x"
            )
        if log_y and np.any(arr <= 0):
            raise ValueError(f"log_y=True needs positive values; series[{name!r}] has some <= 0")
        fig.add_trace(
            go.Scatter(x=xs, y=arr, name=str(name), mode="lines+markers" if markers else "lines")
        )
    return _dress(fig, presenter, title, x_title, y_title, log_y)


def heatmap(
    matrix: Sequence[Sequence[float]] | np.ndarray,
    x_labels: Sequence[object],
    y_labels: Sequence[object],
    *,
    title: str,
    x_title: str = "",
    y_title: str = "",
    presenter: bool = False,
    zmin: float | None = None,
    zmax: float | None = None,
    show_values: bool = False,
) -> go.Figure:
    """A (rows, cols) matrix as a heatmap, e.g. attention weights (target x source).

    Labels are shown in order, first row at the top, as one reads a sentence.
    Repeated tokens stay separate cells (they are made unique with invisible suffixes).
    """
    z = _finite("matrix", matrix)
    if z.ndim != 2 or 0 in z.shape:
        raise ValueError(f"matrix must be a non-empty 2-D array (rows, cols), got {z.shape}")
    rows, cols = z.shape
    xl = unique_labels(_check_labels("x_labels", x_labels, cols))
    yl = unique_labels(_check_labels("y_labels", y_labels, rows))
    if zmin is not None and zmax is not None and not zmin < zmax:
        raise ValueError(f"zmin ({zmin}) must be smaller than zmax ({zmax})")
    s = scale(presenter)
    trace = go.Heatmap(
        z=z, x=xl, y=yl, zmin=zmin, zmax=zmax, colorscale="Cividis", hoverongaps=False
    )
    if show_values:
        trace.update(
            text=np.round(z, 2), texttemplate="%{text}", textfont=dict(size=max(10, s.font - 4))
        )
    fig = _dress(go.Figure(trace), presenter, title, x_title, y_title)
    fig.update_xaxes(type="category", side="top")
    fig.update_yaxes(type="category", autorange="reversed")
    fig.update_layout(height=max(s.height, min(900, 40 + math.ceil(rows * s.font * 2.2))))
    return fig


@cache
def _scale_colors(name: str) -> tuple[np.ndarray, np.ndarray]:
    """A named plotly colour scale as its stops and their RGB in 0..1 (plotly's own parse)."""
    from plotly.colors import (
        colorscale_to_colors,
        colorscale_to_scale,
        get_colorscale,
        validate_colors,
    )

    named = get_colorscale(name)
    stops = np.array(colorscale_to_scale(named), dtype=np.float64)
    rgb = validate_colors(colorscale_to_colors(named), colortype="tuple")
    return stops, np.array(rgb, dtype=np.float64)


def sample_colors(name: str, values: Sequence[float] | np.ndarray) -> list[str]:
    """``plotly.colors.sample_colorscale(name, values)``, string for string, at numpy speed:
    plotly parses every colour again for every value (10 ms for 300 grid cells)."""
    stops, rgb = _scale_colors(name)
    points = np.asarray(values, dtype=np.float64)
    high = np.searchsorted(stops, points, side="left")  # bisect_left, as plotly
    low = high - 1  # -1 at 0.0: plotly reads the last stop there too, to the same colour
    frac = (points - stops[low]) / (stops[high] - stops[low])
    mixed = rgb[low] + frac[:, None] * (rgb[high] - rgb[low])
    # plotly rounds repr(x * 255.0) half to even; a float's repr gives back that float, so
    # rounding the float itself half to even (np.rint) agrees
    ints = np.rint(mixed * 255.0).astype(int)
    return [f"rgb({r}, {g}, {b})" for r, g, b in ints.tolist()]


def unique_labels(labels: Iterable[object]) -> list[str]:
    """The labels as text, repeats made distinct with zero-width spaces (plotly merges equal
    categories: a repeated word would lose its bar or cell)."""
    seen: dict[str, int] = {}
    out = []
    for lab in map(str, labels):
        k = seen.get(lab, 0)
        seen[lab] = k + 1
        out.append(lab + "\u200b" * k)
    return out


def hline(y: float, line: Mapping) -> dict:
    """A reference line across the whole plot at height ``y`` (what ``add_hline`` draws,
    built directly: ``add_hline`` re-validates the whole figure)."""
    return dict(type="line", xref="x domain", x0=0, x1=1, yref="y", y0=y, y1=y, line=dict(line))


def hline_label(y: float, text: str, *, side: str = "right", anchor: str = "top") -> dict:
    """The label of :func:`hline` at ``y``: at its right (or left) end, under (or above) it."""
    return dict(
        text=text,
        showarrow=False,
        xref="x domain",
        x=1 if side == "right" else 0,
        xanchor=side,
        yref="y",
        y=y,
        yanchor=anchor,
    )


def vmark(
    fig: go.Figure,
    x: float,
    label: str,
    *,
    font_size: float,
    width: float | None = None,
    log_x: bool = False,
    **layout: object,
) -> go.Figure:
    """Mark ``x`` (e.g. the n chosen on a slider): a dotted grey line over the plot's whole
    height and ``label`` at its top, left of it. Returns the same figure.

    Added to the figure's shapes and annotations in one ``update_layout`` together with any
    other ``layout`` properties (plotly's ``add_vline`` re-validates the figure, ~15 ms a
    call on every slider move). ``width``: the line's width (the template's when ``None``);
    ``log_x``: the x axis is logarithmic, where plotly.js places annotations in log10 units
    (shapes in data units)."""
    if log_x and not x > 0:
        raise ValueError(f"x must be positive on a log axis (log_x=True), got {x}")
    line: dict = dict(dash="dot", color="#777777")
    if width is not None:
        line["width"] = width
    shape = dict(type="line", xref="x", yref="paper", x0=x, x1=x, y0=0, y1=1, line=line)
    note = dict(
        x=math.log10(x) if log_x else x,
        y=1,
        xref="x",
        yref="paper",
        xanchor="right",
        yanchor="top",
        text=label,
        showarrow=False,
        font=dict(size=font_size),
    )
    fig.update_layout(
        shapes=[*fig.layout.shapes, shape],
        annotations=[*fig.layout.annotations, note],
        **layout,
    )
    return fig


# --- the projector ---------------------------------------------------------------------------
# A part's main chart on the projector must fit, whole, on the first 1280x800 screen under
# the compact presenter header (measured in Chromium: the header, the part selector and
# one sentence take ~260 px), so no figure is drawn taller than this in presenter mode.
SLIDE_HEIGHT = 480
# A part whose step controls (Back / Next / Play, a step slider) sit under its chart: the
# chart leaves them room on the first screen (measured: with the line of words between,
# the buttons end ~115 px under the chart).
STEP_SLIDE_HEIGHT = SLIDE_HEIGHT - 150
MIN_PROJECTOR_FONT = 18  # px: no chart text smaller than this on a projector (tests ask >= 16)
# Width of the main column in presenter mode at 1280 px (sidebar folded), for title wrapping.
PROJECTOR_WIDTH = 1200
# px of a presenter figure's height outside its plot area: a wrapped title above, tick labels
# and an axis title below (measured on the slides: 480 px figures have 300-340 px of plot)
PROJECTOR_FRAME_PX = 160
# Width of a full-width chart (measured at 1280 x 800): on a laptop with the sidebar open,
# and in presenter mode (sidebar folded). The margins are worked out for these
# (charts.margins); another width only costs a redraw where the estimate falls short.
LAPTOP_WIDTH = 820
PRESENTER_WIDTH = 1120


def _is_cjk(ch: str) -> bool:
    return "\u2e80" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef" or "\u3000" <= ch <= "\u303f"


def _text_width(text: str, size: float) -> float:
    """Rough rendered width in px of ``text`` at ``size`` px (CJK glyphs are square)."""
    return sum(size if _is_cjk(ch) else 0.56 * size for ch in text)


def wrap(text: str, size: float, width: float) -> str:
    """``text`` with ``<br>`` inserted so that no line is wider than ``width`` px at
    ``size`` px: at spaces in Latin text, between any two characters in Chinese. Text that
    already has line breaks is wrapped line by line."""
    if not text:
        return text
    out: list[str] = []
    for para in text.split("<br>"):
        line = ""
        # tokens: words with their trailing space, or single CJK characters
        tokens: list[str] = []
        word = ""
        for ch in para:
            if _is_cjk(ch):
                if word:
                    tokens.append(word)
                    word = ""
                tokens.append(ch)
            else:
                word += ch
                if ch == " ":
                    tokens.append(word)
                    word = ""
        if word:
            tokens.append(word)
        tokens = _keep_punctuation_attached(tokens)
        for tok in tokens:
            if line and _text_width(line + tok.rstrip(), size) > width:
                out.append(line.rstrip())
                line = tok.lstrip() if tok.strip() else ""
            else:
                line += tok
        out.append(line.rstrip())
    return "<br>".join(out)


# Chinese line-breaking rules (kinsoku): no line starts with a closing mark, none ends with an
# opening one.
_OPENING = set("（《“‘「『【〔(")
_CLOSING = set("）》”’」』】〕，。、；：！？)")


def _keep_punctuation_attached(tokens: list[str]) -> list[str]:
    """Merge an opening mark with the token after it and a closing mark with the one before,
    so that :func:`wrap` never breaks next to them ("（1–256）" stays whole)."""
    out: list[str] = []
    glue = False  # the last token was an opening mark: the next one joins it
    for tok in tokens:
        if out and (glue or tok in _CLOSING):
            out[-1] += tok
        else:
            out.append(tok)
        glue = tok in _OPENING
    return out


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
    floor, full = MIN_PROJECTOR_FONT, PRESENTER.font  # full: what an unset size becomes
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
    tfont["size"] = max(tfont.get("size") or PRESENTER.title, floor)
    for name in axes:  # tick labels above the plot would sit under the title: move them down
        if name.startswith("xaxis") and lay[name].get("side") == "top":
            lay[name]["side"] = "bottom"
    _title_on_top(lay, data, PROJECTOR_WIDTH * width)
    if lay.get("height") is None or lay["height"] > height:
        lay["height"] = height
    _wrap_y_titles(lay, lay["height"])
    return fig


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
        size = (title.get("font") or {}).get("size") or PRESENTER.font
        title["text"] = wrap(str(title["text"]), size, room)


def _title_on_top(lay: dict, data: list[dict], width_px: float) -> None:
    """Wrap the title to ``width_px`` and stand it on the plot's top edge, above a legend at
    the top and above subplot titles: plotly never wraps a title, it cuts it (a phone) or
    lets it run over the legend."""
    title = lay.setdefault("title", {})
    text = title.get("text") or ""
    if not text:
        return
    tsize = title.setdefault("font", {}).get("size") or NORMAL.title
    title["text"] = wrap(text, tsize, width_px - 40)
    gap = 6
    legend = lay.setdefault("legend", {})
    lsize = legend.get("font", {}).get("size") or NORMAL.font
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
        size = max((a.get("font") or {}).get("size") or NORMAL.font for a in above)
        gap = max(gap, int(lines * size * 1.4) + 10)
    # anchored on the plot's top edge and pushed up by its own lines (automargin makes the
    # top margin as tall as they need): a wrapped title is never cut at the top
    title.update(y=1.0, yref="paper", yanchor="bottom", pad={"b": gap}, automargin=True)
    margin = lay.setdefault("margin", {})
    margin["t"] = min(margin.get("t") or 10, 10)  # the title's automargin decides


PHONE_WIDTH = 360  # px: the plot area a phone gives a chart (a 390-px screen, less padding)
MIN_PHONE_FONT = 12  # px: a panel title is made no smaller than this to fit a phone
MIN_PHONE_TICK = 11  # px: tick labels shrink no further to label every category on a phone
PHONE_BAR = 10  # px: a colour bar's thickness on a phone (plotly's default: 30)
PHONE_BAR_PAD = 4  # px: its padding on either side (plotly's default: 10)
PHONE_BAR_TITLE = 12  # px: its title at most (the app's charts: 14, Streamlit's default: 17)


def take_title(fig: go.Figure) -> str:
    """Remove the figure's title and return it as plain text (line breaks and tags gone),
    for the page to show above the chart. On a phone plotly cut a title wider than the
    chart (it never wraps one) and a long one ran over a legend at the top; text above
    the chart wraps like any text. The room the figure kept for its title row goes too."""
    lay: dict = fig._layout  # noqa: SLF001 (see fit_projector)
    title = lay.get("title") or {}
    text = title.get("text") or ""
    if not text:
        return ""
    size = (title.get("font") or {}).get("size") or NORMAL.title
    title["text"] = ""
    margin = lay.get("margin") or {}
    if margin.get("t"):
        margin["t"] = max(10, margin["t"] - math.ceil(size * 1.5))
    plain = re.sub(r"<br\s*/?>", " ", text)
    return html.unescape(re.sub(r"<[^>]+>", "", plain)).strip()


def fit_phone(fig: go.Figure, *, width_px: float = PHONE_WIDTH) -> go.Figure:
    """Fit long panel titles (annotations on a panel's top edge) to a phone's width:
    smaller (not under :data:`MIN_PHONE_FONT`), wrapped only if that is not enough; lay a
    legend that stands right of the plot above it, in rows, and make colour bars thin
    (:data:`PHONE_BAR`), so that the plot keeps the phone's width; returns the same figure.
    (The chart's own title: :func:`take_title`.)"""
    lay: dict = fig._layout  # noqa: SLF001 (see fit_projector)
    # a panel title starts at the plot's left edge (x = 0 on the paper) and may run to the
    # figure's right edge: the room is the width less the left margin, which plotly grows
    # for the axis's title and labels (~130 px measured for a heatmap of words)
    room = max(120.0, width_px - max((lay.get("margin") or {}).get("l") or 0, 130))
    for ann in lay.get("annotations") or []:
        if ann.get("yanchor") == "bottom" and ann.get("text") and not ann.get("showarrow", True):
            # smaller rather than wrapped: an extra line would grow up into the panel above
            font = ann.setdefault("font", {})
            size = font.get("size") or NORMAL.font
            lines = [re.sub(r"<[^>]+>", "", ln) for ln in re.split(r"<br\s*/?>", ann["text"])]
            wide = max(_text_width(line, size) for line in lines)
            if wide > room:
                font["size"] = max(MIN_PHONE_FONT, math.floor(size * room / wide))
                if max(_text_width(line, font["size"]) for line in lines) > room:
                    ann["text"] = wrap(str(ann["text"]), font["size"], room)
                    if ann.get("xanchor") == "left":  # its lines from the same left edge
                        ann.setdefault("align", "left")
    # a legend standing right of the plot would leave it a sliver of a phone's width (the
    # bottleneck's probe curves: 3 px): it lies above the plot instead, in rows
    legend = lay.get("legend") or {}
    data: list[dict] = fig._data  # noqa: SLF001
    shown = any(tr.get("showlegend") is not False and tr.get("name") for tr in data)
    right = legend.get("x", 1.02) >= 1 and legend.get("xanchor", "left") in ("left", "auto")
    vertical = legend.get("orientation", "v") == "v"
    if lay.get("showlegend") is not False and shown and vertical and right:
        lay["legend"] = {
            **legend,
            "orientation": "h",
            "x": 0.0,
            "xanchor": "left",
            "y": 1.02,
            "yanchor": "bottom",
        }
    # colour bars: thin, close to the plot (a 13-word attention map keeps ~30 px more)
    bars = [lay[k].setdefault("colorbar", {}) for k in lay if k.startswith("coloraxis")]
    for tr in data:
        if tr.get("type") in ("heatmap", "contour", "histogram2d") and tr.get("showscale", True):
            if not tr.get("coloraxis"):
                bars.append(tr.setdefault("colorbar", {}))
        elif (tr.get("marker") or {}).get("showscale"):
            bars.append(tr["marker"].setdefault("colorbar", {}))
    for bar in bars:
        if bar.get("orientation", "v") == "v":
            bar["thickness"] = min(bar.get("thickness") or 30, PHONE_BAR)
            bar["xpad"] = min(bar.get("xpad", 10), PHONE_BAR_PAD)
            title = bar.get("title")
            if isinstance(title, dict) and title.get("text"):  # above the bar: sets its width
                font = title.setdefault("font", {})
                font["size"] = min(font.get("size") or PHONE_BAR_TITLE, PHONE_BAR_TITLE)
    return fig
