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
) -> go.Figure:
    """Training loss per model (keys of ``losses``: lexicon models) over ``steps``, on an
    x axis from 0 to ``total``; no steps yet draws the empty axes."""
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
        # inside, top right: a falling loss leaves that corner empty, and it keeps off the title
        legend=dict(
            yanchor="top", y=0.98, xanchor="right", x=0.98, bgcolor="rgba(255,255,255,0.8)"
        ),
    )
    return fig


def bucket_accuracy(
    buckets: Sequence[str], accuracy: Mapping[str, Sequence[float]], **labels
) -> go.Figure:
    """Accuracy (fractions 0-1) per length bucket, one line per model
    (:func:`charts.attention.bucket_lines`, same ``labels``: titles, presenter, names); no
    models yet (no evaluation so far) draws the empty axes."""
    if accuracy:
        return attention_figures.bucket_lines(buckets, accuracy, **labels)
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
