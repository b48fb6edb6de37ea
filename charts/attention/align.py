"""The align part's figure: the decoder's attention as a heatmap, the current step's row
framed, and that row as bars under it (on the projector the heatmap alone)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from charts import base
from charts.attention.bars import (
    bar_traces,
    panel_px,
    panel_title,
    stack,
    tick_angle,
    title_px,
    words_px,
)
from charts.attention.common import axis, check_labels, check_matrix, fonts
from charts.attention.heatmap import (
    heat_height,
    heat_top,
    heatmap_trace,
    row_frame,
    words_on_top_px,
)
from charts.common import Titles
from charts.screen import sizes


def alignment_figure(
    weights: Sequence[Sequence[float]] | np.ndarray,
    x_labels: Sequence[str],
    y_labels: Sequence[str],
    *,
    step: int,
    titles: Titles,
    row_title: str,
    row_y_title: str,
    hover: Mapping[str, str],
    presenter: bool = False,
    show_values: bool = False,
) -> go.Figure:
    """The decoder's attention (T, S) as a heatmap with the row of ``step`` framed (top),
    and that row as bars (bottom) on the same source-word axis: each bar under its column,
    so the framed row becomes the bars. One figure, one chart for the browser to redraw
    when the step moves. On the projector the heatmap alone (:func:`_alignment_slide`).

    The heatmap is :func:`~charts.attention.heatmap.attention_heatmap`'s (``hover``,
    ``show_values`` and its top axis, titled ``titles.x_title``); the bars are
    :func:`~charts.attention.bars.weight_bars`' (largest coloured) with their words under
    them, ``row_title`` above them and ``row_y_title`` on their axis.
    The two x axes match: zooming one zooms the other.
    """
    z = check_matrix("weights", weights)
    rows, cols = z.shape
    xl = base.unique_labels(check_labels("x_labels", x_labels, cols))
    yl = base.unique_labels(check_labels("y_labels", y_labels, rows))
    s = base.scale(presenter)
    frame = row_frame(step, z, presenter, name="step")
    if presenter:
        heatmap = heatmap_trace(z, xl, yl, hover, s, show_values=show_values)
        return _alignment_slide(heatmap, frame, titles.title, s)
    top, heat, bars, plot_px = _alignment_geometry(rows, xl, s, presenter)
    heatmap = heatmap_trace(z, xl, yl, hover, s, show_values=show_values)
    heatmap["colorbar"].update(
        y=sum(heat) / 2, len=heat[1] - heat[0], yanchor="middle", tickfont=dict(size=s.font)
    )
    heatmap["colorbar"]["title"]["font"] = dict(size=s.font)
    row = bar_traces(xl, z[step], s, axes=dict(xaxis="x2", yaxis="y2"))
    row[0]["hovertemplate"] = (
        f"{hover['col']}: %{{x}}<br>{hover['weight']}: %{{y:.3f}}<extra></extra>"
    )
    layout = dict(
        template=base.template(presenter),
        **fonts(s),
        title=dict(
            text=titles.title, yref="container", y=0.99, yanchor="top", font=dict(size=s.title)
        ),
        margin=dict(t=top),
        height=top + plot_px + 10,
        **_alignment_axes(s, presenter, cols, heat, bars, titles, row_y_title),
        shapes=[frame],
        annotations=[panel_title(row_title, bars[1], s)],
    )
    return go.Figure(data=[heatmap, *row], layout=layout)


def every_category(n: int, room_px: float, s: base.Scale) -> dict:
    """A projector's category axis of ``n`` words that labels every one (plotly drops every
    other label when they crowd), at the scale's font or smaller to fit ``room_px``, never
    under :data:`charts.sizes.MIN_PROJECTOR_FONT`: where even that size does not fit (a
    sentence of 40 words and more), every k-th word, so that no two labels stack."""
    size = min(s.font, math.floor(room_px / max(n, 1) / 1.15))
    size = max(size, sizes.MIN_PROJECTOR_FONT)
    step = max(1, math.ceil(n * size / max(room_px, 1.0)))  # a label no taller than its k rows
    return dict(tickmode="linear", tick0=0, dtick=step, tickfont=dict(size=size))


def _slide_words(xl: Sequence[str], s: base.Scale, width: float) -> tuple[int, int]:
    """The angle and font size of a slide's source words under a heatmap ``width`` px wide:
    level at the scale's font when each fits its column (~0.6 font size a character),
    else slanted at the projector's smallest size (slanted words eat the rows' height)."""
    longest = max(len(x) for x in xl)
    if 0.6 * s.font * longest * 1.1 <= width / len(xl):
        return 0, s.font
    return -45, sizes.MIN_PROJECTOR_FONT


def _alignment_slide(heatmap: dict, frame: dict, title: str, s: base.Scale) -> go.Figure:
    """:func:`alignment_figure` on the projector: the heatmap alone, the step's row framed,
    every row and column labelled at projector size (the step's bars under it left the rows
    ~13 px, too thin to label), the step controls on the same screen."""
    xl, yl = heatmap["x"], heatmap["y"]
    height = sizes.SLIDE_HEIGHT - 85  # the step slider (~75 px) under it on the first screen
    top = math.ceil(12 + s.title * 1.3 + 8)
    angle, size = _slide_words(xl, s, sizes.PRESENTER_WIDTH * 0.75)
    heatmap["colorbar"]["tickfont"] = dict(size=s.font)
    heatmap["colorbar"]["title"]["font"] = dict(size=s.font)
    words = size * 1.8 + (0.45 * size * max(len(x) for x in xl) if angle else 0)
    rows_px = height - top - words - 10
    layout = dict(
        template=base.template(True),
        **fonts(s),
        title=dict(text=title, yref="container", y=0.99, yanchor="top", font=dict(size=s.title)),
        # the words' own room: plotly's automargin leaves ~60 px more under slanted ones
        margin=dict(t=top, b=math.ceil(words) + 8),
        height=height,
        xaxis=axis(s, type="category", side="bottom", tickangle=angle, automargin=False),
        yaxis=axis(s, type="category", autorange="reversed"),
        shapes=[frame],
    )
    layout["xaxis"].update(every_category(len(xl), sizes.PRESENTER_WIDTH * 0.75, s))
    layout["xaxis"]["tickfont"]["size"] = size
    layout["yaxis"].update(every_category(len(yl), rows_px, s))
    # a frame as thick as a thin row would cover the row it frames: at most a third of it
    row_px = rows_px / max(len(yl), 1)
    frame["line"]["width"] = min(frame["line"]["width"], max(1.0, row_px / 3))
    return go.Figure(data=[heatmap], layout=layout)


def _alignment_geometry(
    rows: int, xl: Sequence[str], s: base.Scale, presenter: bool
) -> tuple[int, list[float], list[float], int]:
    """Where :func:`alignment_figure`'s panels sit: the top margin (title, axis title,
    standing words), the heatmap's and the bars' y domains, and the plot's height in px."""
    heat_px = heat_height(rows, s) - heat_top(presenter, xl, s) - 10  # as attention_heatmap's
    top = words_on_top_px(xl, s)  # above the heatmap: title, axis title, standing words
    bars_px = panel_px(s)
    if presenter:  # one slide: the words only under the bars (the same columns), all in view
        top, bars_px = math.ceil(12 + s.title * 1.3 + 8), round(s.font * 4)
        rest = top + title_px(s) + bars_px + words_px(xl, s) + round(s.font * 0.6) + 10
        heat_px = max(150, sizes.SLIDE_HEIGHT - rest)
    (heat, bars), plot_px = stack(
        [
            (0, heat_px, round(s.font * 0.6)),
            (title_px(s), bars_px, words_px(xl, s)),
        ]
    )
    return top, heat, bars, plot_px


def _alignment_axes(
    s: base.Scale,
    presenter: bool,
    cols: int,
    heat: list[float],
    bars: list[float],
    titles: Titles,
    row_y_title: str,
) -> dict:
    """The two x and two y axes of :func:`alignment_figure`: the heatmap's words on top (off
    on a slide), the bars' words under them; zooming one x axis zooms the other."""
    return dict(
        xaxis=axis(
            s,
            "" if presenter else titles.x_title,
            type="category",
            side="top",
            anchor="y",
            showticklabels=not presenter,
        ),
        yaxis=axis(
            s,
            "" if presenter else titles.y_title,
            type="category",
            autorange="reversed",
            domain=heat,
        ),
        xaxis2=axis(s, type="category", matches="x", anchor="y2", tickangle=tick_angle(cols)),
        yaxis2=axis(s, row_y_title, domain=bars, anchor="x2", rangemode="tozero"),
    )
