"""The self part's lines: self-attention drawn as BertViz does, each word twice and a line
from each attending word to each word it attends to, as wide and dark as its weight."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from charts import base
from charts.attention.common import check_matrix

_WIDTH_BINS = (0.05, 0.1, 0.2, 0.4, 0.7)  # weights below the first bin get no line


def attention_lines(
    weights: Sequence[Sequence[float]] | np.ndarray,
    tokens: Sequence[str],
    *,
    title: str,
    presenter: bool = False,
    selected: int | None = None,
    left_title: str = "",
    right_title: str = "",
) -> go.Figure:
    """Self-attention drawn as BertViz does: each word twice (left: attending, right:
    attended), a line from left i to right j whose width and darkness grow with weight
    (i, j). Weights under 0.05 are not drawn. ``selected`` highlights one word's lines.
    """
    z = check_matrix("weights", weights)
    n = len(tokens)
    if z.shape != (n, n):
        raise ValueError(f"weights must be ({n}, {n}) for {n} tokens, got {z.shape}")
    if selected is not None and not 0 <= selected < n:
        raise ValueError(f"selected {selected} is outside 0..{n - 1}")
    s = base.scale(presenter)
    y = -np.arange(n, dtype=float)
    data = _weight_lines(z, y, s, presenter, selected)
    data.append(  # an invisible point that puts the right axis on the figure
        dict(
            type="scatter",
            x=[0.5],
            y=[0.0],
            yaxis="y2",
            mode="markers",
            hoverinfo="skip",
            showlegend=False,
            marker=dict(opacity=0),
        )
    )
    layout = _lines_layout(tokens, y, s, presenter, selected, title, left_title, right_title)
    # one construction: plotly validates every add_trace / update call separately
    return go.Figure(data=data, layout=layout)


def _weight_lines(
    z: np.ndarray, y: np.ndarray, s: base.Scale, presenter: bool, selected: int | None
) -> list[dict]:
    """:func:`attention_lines`' lines: one trace per width bin (and, with a ``selected``
    word, per "its lines or the others'"), a line from left i to right j for each weight
    (i, j) in the bin."""
    n = len(y)
    accent = base.HIGHLIGHT
    data: list[dict] = []
    edges = list(_WIDTH_BINS) + [1.01]
    for b in range(len(_WIDTH_BINS)):
        lo, hi = edges[b], edges[b + 1]
        for chosen in (False, True):
            xs: list[float | None] = []
            ys: list[float | None] = []
            for i in range(n):
                if selected is not None and (i == selected) != chosen:
                    continue
                if selected is None and chosen:
                    continue
                for j in np.flatnonzero((lo <= z[i]) & (z[i] < hi)):
                    xs += [0.0, 1.0, None]
                    ys += [y[i], y[j], None]
            if not xs:
                continue
            faint = selected is not None and not chosen
            data.append(
                dict(
                    type="scatter",
                    x=xs,
                    y=ys,
                    mode="lines",
                    hoverinfo="skip",
                    showlegend=False,
                    line=dict(
                        width=(1 + 2.5 * b) * (1.6 if presenter else 1.0),
                        color=accent if chosen else ("#BBBBBB" if faint else s.palette[2]),
                    ),
                    opacity=0.25 if faint else min(1.0, 0.35 + 0.15 * b),
                )
            )
    return data


def _lines_layout(
    tokens: Sequence[str],
    y: np.ndarray,
    s: base.Scale,
    presenter: bool,
    selected: int | None,
    title: str,
    left_title: str,
    right_title: str,
) -> dict:
    """:func:`attention_lines`' layout: the words as the tick labels of a left and a right
    axis, the two column titles above them, room for a title broken over lines."""
    n = len(tokens)
    # The words are the tick labels of a left and a right axis: plotly makes room for them
    # outside the plot, so a long word never runs into its twin on the other side (drawn
    # as text inside the plot, "because" at the left and "because" at the right touched in
    # a narrow column and read "becausbecause").
    bold = ["<b>" + t + "</b>" if i == selected else t for i, t in enumerate(tokens)]
    ticks = dict(
        tickvals=list(y),
        ticktext=bold,
        tickfont=dict(size=s.font + 2),
        showgrid=False,
        zeroline=False,
        showline=False,
        ticks="",
        range=[-n + 0.4, 0.8],
        fixedrange=True,
        automargin=True,
    )
    annotations = [
        dict(
            x=x,
            xref="x",
            y=1.0,
            yref="paper",
            yanchor="bottom",
            xanchor=anchor,
            text=f"<i>{text}</i>",
            showarrow=False,
            font=dict(size=s.font),
        )
        for x, anchor, text in ((0.0, "left", left_title), (1.0, "right", right_title))
        if text
    ]
    layout = dict(
        template=base.template(presenter),
        title_text=title,
        font=dict(family=base.FONT_FAMILY, size=s.font),
        height=max(s.height, int(110 + n * (s.font + 12))),
        xaxis=dict(visible=False, range=[-0.02, 1.02], fixedrange=True),
        yaxis=dict(side="left", **ticks),
        yaxis2=dict(side="right", overlaying="y", **ticks),
        annotations=annotations,
    )
    breaks = title.count("<br>")
    top = base.template_of(presenter).layout.margin.t
    layout["margin"] = dict(t=top + s.font * 2 + breaks * (s.title + 6))
    return layout
