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


def it_rows(
    rows: Mapping[str, Mapping],
    *,
    titles: Titles,
    labels: Mapping[str, str],
    presenter: bool = False,
    beside: Mapping[str, Sequence[float]] | None = None,
    names: tuple[str, str] = ("", ""),
) -> go.Figure:
    """The weights from "it" over each sentence's words, one panel of bars per sentence side
    by side (keys of ``rows``, each ``{"tokens", "weights", "right"}`` with ``right`` the
    index of the noun "it" names; ``labels``: each panel's title). The words read down the
    shared axis as the sentence does; where the sentences differ (the last word) the label
    names both. ``beside``: a second set of weights per sentence (the shipped head), hatched
    beside the first; ``names`` name the two sets. The weight axis is 0-1 from the start: a
    row sharpens from an even spread to one long bar."""
    from plotly.subplots import make_subplots

    keys = list(rows)
    tokens = [rows[k]["tokens"] for k in keys]
    words = [" / ".join(dict.fromkeys(ws)) for ws in zip(*tokens)]  # "hungry / sweet"
    words = base.unique_labels(words)  # "the" twice: two bars, not one
    s = base.scale(presenter)
    fig = make_subplots(
        rows=1,
        cols=len(keys),
        shared_yaxes=True,
        subplot_titles=[labels[k] for k in keys],
        horizontal_spacing=0.06,
    )
    color = lexicon.look("coref_encoder").color
    for i, key in enumerate(keys, start=1):
        row = rows[key]
        colors = [color if j == row.get("right") else "#BBBBBB" for j in range(len(words))]
        sets = [(row["weights"], names[0], {})]
        if beside is not None:
            sets.append((beside[key], names[1], dict(pattern_shape="/", opacity=0.6)))
        for weights, name, extra in sets:
            fig.add_trace(
                go.Bar(
                    y=words,
                    x=list(weights),
                    orientation="h",
                    name=name,
                    marker=dict(color=colors, **extra),
                    showlegend=False,
                    hovertemplate="%{y}: %{x:.2f}<extra></extra>",
                ),
                row=1,
                col=i,
            )
        fig.update_xaxes(range=[0, 1.05], tickvals=[0, 0.5, 1], row=1, col=i)
    base.style(fig, presenter)
    fig.update_layout(title_text=titles.title, barmode="group", bargap=0.2)
    fig.update_yaxes(  # every word named: plotly thinned them to every other on a projector
        type="category",
        autorange="reversed",
        tickmode="array",
        tickvals=words,
        ticktext=words,
        tickfont=dict(size=s.font - 4),
    )
    fig.update_annotations(font_size=s.font - 2)  # the panels' titles
    return fig


def it_progress(
    steps: Sequence[int],
    loss: Sequence[float],
    held_steps: Sequence[int],
    held: Sequence[float],
    *,
    total: int,
    titles: Titles,
    held_title: str,
    loss_title: str,
    presenter: bool = False,
) -> go.Figure:
    """The training loss (top) and the held-out share resolved (bottom, 0-100 %) against the
    step, on an x axis from 0 to ``total``."""
    from plotly.subplots import make_subplots

    if total < 1:
        raise ValueError(f"total must be the step budget (>= 1), got {total}")
    if len(loss) != len(steps) or len(held) != len(held_steps):
        raise ValueError("each series needs one value per step")
    s = base.scale(presenter)
    line = lexicon.line("coref_encoder", s.line)
    fig = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        subplot_titles=[loss_title, held_title],
        vertical_spacing=0.2,
    )
    fig.add_trace(go.Scatter(x=list(steps), y=list(loss), mode="lines", line=line), row=1, col=1)
    fig.add_trace(
        go.Scatter(x=list(held_steps), y=list(held), mode="lines+markers", line=line),
        row=2,
        col=1,
    )
    base.style(fig, presenter)
    fig.update_layout(title_text=titles.title, showlegend=False)
    fig.update_xaxes(range=[0, total])
    fig.update_xaxes(title_text=titles.x_title, row=2, col=1)
    fig.update_yaxes(rangemode="tozero", **({} if steps else {"range": [0, 1]}), row=1, col=1)
    fig.update_yaxes(**base.share_axis(), row=2, col=1)
    return fig
