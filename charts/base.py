"""Plotly figure builders: one template, one palette, one presenter scale.

Every chart in the app is made here (or with :func:`style`), so the classroom mode changes
all of them at once: bigger fonts, thicker lines, a high-contrast colour-blind-safe palette.
Builders take plain arrays and labels, check them, and raise a ``ValueError`` that says how
to fix the call. No streamlit here: figures are returned, the page displays them.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from charts.screen.sizes import LAPTOP_FONT, LAPTOP_TITLE, PROJECTOR_FONT, PROJECTOR_TITLE

# Old names of what fitting a figure to a screen moved to charts.screen, still read here by
# modules and tests outside charts (lessons, charts.arena / attention / bottleneck /
# path_length, tests/browser): new code imports them from charts.screen.sizes / .text.

# Fonts with Chinese glyphs first, so chart text in zh never falls back to boxes.
FONT_FAMILY = (
    '"Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "PingFang SC", '
    '"Microsoft YaHei", "Hiragino Sans GB", "WenQuanYi Micro Hei", '
    '"Source Sans Pro", "Helvetica Neue", Arial, sans-serif'
)

# Okabe & Ito (2008), "Color Universal Design": distinguishable with every common
# colour-vision deficiency; black first for the strongest contrast. The one palette of every
# screen: a colour means the same on the laptop, the projector and a phone.
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
# Series that are no model (a formula, a count, a way of computing): black and greys, the
# template's colorway. The hues belong to the models (core.lexicon), so a series drawn in a
# hue would pass for a model; these never do.
SERIES: tuple[str, ...] = ("#000000", "#777777", "#AAAAAA")
# One scale for every accuracy, share and probability: percent (the values stay fractions
# 0-1, plotly writes the ticks and the hover as 0 %-100 %). Attention weights stay weights,
# 0-1 with two decimals, on every chart: the numbers the weighted sum multiplies by.
PERCENT = ".0%"
SHARE_RANGE = (-0.03, 1.03)  # 0 %-100 % with room for a marker at either end


def share_axis(**extra: object) -> dict:
    """An axis of shares in percent, 0 %-100 % (``extra``: the axis's other properties)."""
    return dict(dict(range=list(SHARE_RANGE), tickformat=PERCENT), **extra)


@dataclass(frozen=True)
class Scale:
    """Sizes that differ between the laptop and the classroom projector."""

    font: int  # base font size in px
    title: int  # chart title size in px
    line: float  # line width in px
    marker: int  # marker size in px
    height: int  # default figure height in px
    palette: tuple[str, ...]


# (font, title): the screens' own text sizes (charts.screen fits unset text to them)
NORMAL, PRESENTER = (
    Scale(LAPTOP_FONT, LAPTOP_TITLE, line=2.0, marker=7, height=380, palette=OKABE_ITO),
    Scale(PROJECTOR_FONT, PROJECTOR_TITLE, line=4.5, marker=12, height=520, palette=OKABE_ITO),
)


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
            colorway=list(SERIES),
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


def vector(name: str, values: Sequence[float] | np.ndarray) -> np.ndarray:
    """``values`` as a float array, checked to be one-dimensional and not empty (the error
    names ``name``)."""
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence, got shape {arr.shape}")
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
    xs = vector("x", _finite("x", x))
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


def vline(x: float, line: Mapping) -> dict:
    """A reference line up the whole plot at ``x`` (:func:`hline` turned upright)."""
    return dict(type="line", xref="x", x0=x, x1=x, yref="y domain", y0=0, y1=1, line=dict(line))


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
