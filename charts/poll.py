"""The class poll's two charts: the class's answers (whole votes) and the evidence behind the
models' answer. Words come in translated; arrays in, a plotly figure out."""

from __future__ import annotations

import math
from collections.abc import Sequence

import plotly.graph_objects as go

from charts import base


def vote_axis(fig: go.Figure, counts: Sequence[int]) -> None:
    """A vote axis: whole votes from zero (integer ticks), each bar's count above it."""
    top = max(3, max(counts, default=0))
    step = max(1, math.ceil(top / 5))
    fig.update_yaxes(range=[0, top * 1.18], tick0=0, dtick=step, tickformat="d")
    fig.update_traces(text=[str(c) for c in counts], textposition="outside", cliponaxis=False)


def histogram(
    names: Sequence[str],
    counts: Sequence[int],
    reveal: int | None,
    *,
    title: str,
    y_title: str,
    presenter: bool,
    height: int | None = None,
) -> go.Figure:
    """The class's answers as bars, one per answer in ``names`` (the right one, index
    ``reveal``, highlighted once revealed)."""
    fig = base.bar_chart(
        list(names),
        list(counts),
        title=title,
        y_title=y_title,
        presenter=presenter,
        highlight=[names[reveal]] if reveal is not None else (),
    )
    fig.update_xaxes(type="category")  # answers are categories even when they read as numbers
    vote_axis(fig, counts)
    if height:
        fig.update_layout(height=height)
    return fig


def evidence(
    names: Sequence[str],
    values: Sequence[float],
    *,
    title: str,
    presenter: bool,
    log_y: bool = False,
    height: int | None = None,
) -> go.Figure:
    """The numbers that prove the models' answer, one bar per name."""
    fig = base.bar_chart(list(names), list(values), title=title, presenter=presenter, log_y=log_y)
    fig.update_xaxes(type="category")
    if height:
        fig.update_layout(height=height)
    return fig
