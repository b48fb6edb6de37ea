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


def rounds(
    names: Sequence[str],
    first: Sequence[int],
    second: Sequence[int],
    reveal: int | None,
    *,
    title: str,
    round_titles: tuple[str, str],
    y_title: str,
    presenter: bool,
    height: int | None = None,
) -> go.Figure:
    """A question's two rounds side by side (alone, then after discussing): the same answers
    in the same order and colours, one whole-vote axis for both, so bars compare across."""
    from plotly.subplots import make_subplots

    if len(first) != len(names) or len(second) != len(names):
        raise ValueError(
            f"first and second need one count per answer ({len(names)}), got "
            f"{len(first)} and {len(second)}"
        )
    panels = [
        histogram(names, counts, reveal, title=title, y_title=y_title, presenter=presenter)
        for counts in (first, second)
    ]
    fig = make_subplots(
        rows=1, cols=2, shared_yaxes=True, subplot_titles=round_titles, horizontal_spacing=0.05
    )
    for col, panel in enumerate(panels, start=1):
        fig.add_trace(panel.data[0], row=1, col=col)
    layout = panels[0].layout.to_plotly_json()
    fig.update_layout(
        {k: v for k, v in layout.items() if k not in ("xaxis", "yaxis", "annotations")}
    )
    fig.update_layout(showlegend=False)
    fig.update_xaxes(type="category")
    fig.update_yaxes(title_text=y_title, row=1, col=1)
    vote_axis(fig, [*first, *second])
    for trace, counts in zip(fig.data, (first, second), strict=True):
        trace.text = [str(c) for c in counts]
    size = layout.get("font", {}).get("size")
    if size:
        fig.update_annotations(font_size=size)
    if height:
        fig.update_layout(height=height)
    return fig


def gain(
    labels: Sequence[str],
    before: Sequence[float],
    after: Sequence[float],
    *,
    title: str,
    series: tuple[str, str],
    y_title: str,
    presenter: bool,
    hover: Sequence[str] = (),
    height: int | None = None,
) -> go.Figure:
    """A concept check's share right before and after, question by question (0-1, drawn in
    percent): grey then black bars side by side, one pair per label."""
    if not (len(labels) == len(before) == len(after)) or not labels:
        raise ValueError(
            f"labels, before and after need the same length >= 1, got {len(labels)}, "
            f"{len(before)} and {len(after)}"
        )
    if hover and len(hover) != len(labels):
        raise ValueError(f"hover needs one text per label ({len(labels)}), got {len(hover)}")
    fig = go.Figure()
    for name, values, colour in zip(
        series, (before, after), (base.SERIES[1], base.SERIES[0]), strict=True
    ):
        fig.add_bar(
            x=list(labels),
            y=list(values),
            name=name,
            marker_color=colour,
            text=[f"{v:.0%}" for v in values],
            textposition="outside",
            cliponaxis=False,
            hovertext=list(hover) or None,
        )
    base._dress(fig, presenter, title, "", y_title)
    fig.update_layout(barmode="group", legend=dict(orientation="h", y=1.02, x=1, xanchor="right"))
    fig.update_xaxes(type="category")
    fig.update_yaxes(**base.share_axis(range=[0, 1.15]))
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
