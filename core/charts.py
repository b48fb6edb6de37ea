"""Plotly figure builders: one template, one palette, one presenter scale.

Every chart in the app is made here (or with :func:`style`), so the classroom mode changes
all of them at once: bigger fonts, thicker lines, a high-contrast colour-blind-safe palette.
Builders take plain arrays and labels, check them, and raise a ``ValueError`` that says how
to fix the call. No streamlit here: figures are returned, the page displays them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import plotly.graph_objects as go

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


@cache  # built once per scale: plotly validates every property, ~15 ms a build
def template(presenter: bool = False) -> go.layout.Template:
    """The one plotly template of the app, at laptop or projector scale.

    Shared: plotly copies a template into each figure it is given to, so callers never
    mutate this object."""
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
    colors = [s.palette[1] if lab in marked else s.palette[2] for lab in labels]
    fig = go.Figure(go.Bar(x=labels, y=vals, marker_color=colors))
    fig.update_layout(
        template=template(presenter),
        title_text=title,
        xaxis_title=x_title,
        yaxis_title=y_title,
    )
    if log_y:
        fig.update_yaxes(type="log")
    return fig


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
    fig.update_layout(
        template=template(presenter),
        title_text=title,
        xaxis_title=x_title,
        yaxis_title=y_title,
    )
    if log_y:
        fig.update_yaxes(type="log")
    return fig


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
    xl = _unique(_check_labels("x_labels", x_labels, cols))
    yl = _unique(_check_labels("y_labels", y_labels, rows))
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
    fig = go.Figure(trace)
    fig.update_layout(
        template=template(presenter),
        title_text=title,
        xaxis_title=x_title,
        yaxis_title=y_title,
    )
    fig.update_xaxes(type="category", side="top")
    fig.update_yaxes(type="category", autorange="reversed")
    fig.update_layout(height=max(s.height, min(900, 40 + math.ceil(rows * s.font * 2.2))))
    return fig


def _unique(labels: list[str]) -> list[str]:
    """Make repeated labels distinct with zero-width spaces (plotly merges equal categories)."""
    seen: dict[str, int] = {}
    out = []
    for lab in labels:
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
