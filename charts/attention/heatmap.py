"""The attention heatmap (rows = the attending words, columns = the attended ones): the self
part's picture, and the top of the align part's (``charts.attention.align``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from charts import base
from charts.attention.common import axis, check_labels, check_matrix
from charts.common import Titles


def heatmap_trace(
    z: np.ndarray,
    xl: list[str],
    yl: list[str],
    hover: Mapping[str, str],
    s: base.Scale,
    *,
    show_values: bool,
) -> dict:
    """The heatmap trace of :func:`attention_heatmap` (as ``charts.base.heatmap`` draws it,
    with the hover of each cell's weight and its row's sum)."""
    missing = {"row", "col", "weight", "sum"} - set(hover)
    if missing:
        raise ValueError(f"hover needs the labels {sorted(missing)}")
    trace = dict(
        type="heatmap",
        z=z,
        x=xl,
        y=yl,
        zmin=0.0,
        zmax=1.0,
        colorscale="Cividis",
        hoverongaps=False,
        customdata=np.repeat(z.sum(1, keepdims=True), z.shape[1], axis=1),  # each row's sum
        hovertemplate=(
            f"{hover['row']}: %{{y}}<br>{hover['col']}: %{{x}}<br>"
            f"{hover['weight']}: %{{z:.3f}}<br>{hover['sum']}: %{{customdata:.3f}}<extra></extra>"
        ),
        colorbar=dict(title=dict(text=hover["weight"])),
    )
    if show_values:
        trace.update(
            text=np.round(z, 2), texttemplate="%{text}", textfont=dict(size=max(10, s.font - 4))
        )
    return trace


def row_frame(row: int, z: np.ndarray, presenter: bool, name: str = "highlight_row") -> dict:
    """The frame around row ``row`` of the heatmap of ``z`` (the current step or word;
    ``name``: the caller's argument, for the error)."""
    rows, cols = z.shape
    if not 0 <= row < rows:
        raise ValueError(f"{name} {row} is outside 0..{rows - 1}")
    s = base.scale(presenter)
    return dict(
        type="rect",
        xref="x",
        yref="y",
        x0=-0.5,
        x1=cols - 0.5,
        y0=row - 0.5,
        y1=row + 0.5,
        line=dict(color=base.HIGHLIGHT, width=s.line + 1),
    )


def words_on_top_px(xl: Sequence[str], s: base.Scale) -> int:
    """Room above a heatmap for the chart title, the axis title and the words of a top x
    axis. The words' angle depends on the screen: plotly slants them by 30° when they fit
    side by side and stands them up on a phone, so the room is for standing words (their
    length: ~0.6 font size a character); on a laptop that leaves a little air."""
    longest = max((len(x) for x in xl), default=1)
    return math.ceil((s.title + s.font + 2) * 1.8 + s.font * (1.8 + 0.6 * longest))


def heat_top(presenter: bool, xl: Sequence[str] = (), s: base.Scale | None = None) -> int:
    """The top margin of a heatmap whose x axis (words and title) sits above it: the
    chart title goes above the axis (on the projector the words go under the map)."""
    if presenter:
        return 150
    return max(110, words_on_top_px(xl, s or base.scale(False)))


def heat_height(rows: int, s: base.Scale) -> int:
    """The height of a heatmap figure of ``rows`` rows (as ``charts.base.heatmap``)."""
    return max(s.height, min(900, 40 + math.ceil(rows * s.font * 2.2)))


def attention_heatmap(
    weights: Sequence[Sequence[float]] | np.ndarray,
    x_labels: Sequence[str],
    y_labels: Sequence[str],
    *,
    titles: Titles,
    hover: Mapping[str, str],
    presenter: bool = False,
    highlight_row: int | None = None,
    show_values: bool = False,
) -> go.Figure:
    """Attention weights (rows = the attending words, columns = the attended words).

    ``hover`` gives the translated words for ``row``, ``col``, ``weight`` and ``sum``; the
    hover shows each cell's weight and its row's sum (1 for a softmax row).
    ``highlight_row`` draws a frame around one row (the current decoding step).
    """
    z = check_matrix("weights", weights)
    rows, cols = z.shape
    xl = base.unique_labels(check_labels("x_labels", x_labels, cols))
    yl = base.unique_labels(check_labels("y_labels", y_labels, rows))
    s = base.scale(presenter)
    # one construction, as charts.base.heatmap draws it (plotly validates every call)
    trace = heatmap_trace(z, xl, yl, hover, s, show_values=show_values)
    shapes = [] if highlight_row is None else [row_frame(highlight_row, z, presenter)]
    return go.Figure(
        data=[trace],
        layout=dict(
            template=base.template(presenter),
            # the x axis (source words and its title) sits on top: the chart title above it
            title=dict(text=titles.title, yref="container", y=0.99, yanchor="top"),
            margin=dict(t=heat_top(presenter, xl, s)),
            # on the projector the title alone sits on top (fit_projector sizes the margin
            # for the title only), so the words go under the map
            xaxis=axis(s, titles.x_title, type="category", side="bottom" if presenter else "top"),
            yaxis=axis(s, titles.y_title, type="category", autorange="reversed"),
            font=dict(family=base.FONT_FAMILY, size=s.font),
            height=heat_height(rows, s),
            shapes=shapes,
        ),
    )
