"""Figures of the live race (``core.live``): both training losses against the step, and
both models' held-out accuracy by source length at the latest evaluation.

Each model keeps its one look (``core.lexicon``); the step axis spans the whole budget from
the start, so a curve grows across an axis that does not move.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from charts import attention as attention_figures
from charts import base
from charts.common import Titles
from core import lexicon


def loss_curves(
    steps: Sequence[int],
    losses: Mapping[str, Sequence[float]],
    *,
    total: int,
    titles: Titles,
    presenter: bool = False,
    names: Mapping[str, str] | None = None,
    legend: bool = True,
) -> go.Figure:
    """Training loss per model (keys of ``losses``: lexicon models) over ``steps``, on an
    x axis from 0 to ``total``; no steps yet draws the empty axes. ``legend=False`` when the
    accuracy chart stands beside it with the same lines named (a projector's two columns,
    where two legends in two rows each crowded the titles)."""
    if total < 1:
        raise ValueError(f"total must be the step budget (>= 1), got {total}")
    for model, ys in losses.items():
        if len(ys) != len(steps):
            raise ValueError(f"losses[{model!r}] has {len(ys)} values for {len(steps)} steps")
    s = base.scale(presenter)
    fig = go.Figure()
    for model, ys in losses.items():
        fig.add_trace(
            go.Scatter(
                x=list(steps),
                y=list(ys),
                name=(names or {}).get(model, model),
                mode="lines",
                line=lexicon.line(model, s.line),
            )
        )
    base.style(fig, presenter)
    fig.update_layout(
        title_text=titles.title,
        xaxis=dict(title_text=titles.x_title, range=[0, total]),
        # no steps yet: a fixed range, so the empty axes are ticked as the margins expect
        yaxis=dict(
            title_text=titles.y_title, rangemode="tozero", **({} if steps else {"range": [0, 1]})
        ),
        showlegend=legend,
    )
    return legend_above(fig)


def legend_above(fig: go.Figure) -> go.Figure:
    """The legend in one row on the plot's top edge, outside the plotting area: a corner
    inside is empty only for some runs (two accuracy lines both under 30 % ran through the
    bottom-left one). ``charts.screen`` stands the title above it on a projector and makes
    room for it in the top margin on every screen; a phone keeps it there."""
    fig.update_layout(
        legend=dict(
            orientation="h",
            x=0.0,
            xanchor="left",
            y=1.02,  # above 1: charts.screen stands a projector's title above it
            yanchor="bottom",
            bgcolor="rgba(0,0,0,0)",
        )
    )
    return fig


def bucket_accuracy(
    buckets: Sequence[str], accuracy: Mapping[str, Sequence[float]], **labels
) -> go.Figure:
    """Accuracy (fractions 0-1) per length bucket, one line per model
    (:func:`charts.attention.bucket_lines`, same ``labels``: titles, presenter, names); no
    models yet (no evaluation so far) draws the empty axes."""
    if accuracy:
        fig = attention_figures.bucket_lines(buckets, accuracy, **labels)
        # room either side of the end points: autorange ended the axis on the last bucket and
        # a projector's zero right margin hid its label
        fig.update_xaxes(range=[-0.3, len(buckets) - 0.7])
        return legend_above(fig)
    titles: Titles = labels["titles"]
    fig = base.style(go.Figure(), labels.get("presenter", False))
    fig.update_layout(
        title_text=titles.title,
        xaxis=dict(
            title_text=titles.x_title,
            tickvals=list(range(len(buckets))),
            ticktext=list(buckets),
            range=[-0.3, len(buckets) - 0.7],
        ),
        yaxis=dict(title_text=titles.y_title, **base.share_axis()),
    )
    return fig
