"""The score part's figures: the weights under each score function side by side, and how
the spread of the weights saturates as the size d grows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from charts import base
from charts.attention.common import axis, fonts, line_traces
from charts.common import Titles


def saturation_figure(
    dims: Sequence[int],
    curves: Mapping[str, Sequence[float] | np.ndarray],
    *,
    titles: Titles,
    presenter: bool = False,
    marker_d: int | None = None,
    ceiling: float | None = None,
    ceiling_label: str = "",
) -> go.Figure:
    """Entropy (or largest weight) against d on a log axis, one line per score kind;
    ``marker_d`` draws the slider's d, ``ceiling`` a dashed line (e.g. log2(S) bits)."""
    x = np.asarray(dims, dtype=float)
    if x.ndim != 1 or x.size == 0 or not np.all(x > 0):
        raise ValueError(f"dims must be a non-empty list of positive sizes, got {dims!r}")
    s = base.scale(presenter)
    shapes, annotations = [], []
    if marker_d is not None:
        shapes.append(
            dict(
                type="line",
                xref="x",
                x0=marker_d,
                x1=marker_d,
                yref="y domain",
                y0=0,
                y1=1,
                line=dict(color=s.palette[4], width=s.line, dash="dot"),
            )
        )
    if ceiling is not None:
        line = dict(color="#888888", width=max(1.0, s.line / 2), dash="dash")
        shapes.append(base.hline(ceiling, line))
        if ceiling_label:
            annotations.append(base.hline_label(ceiling, ceiling_label))
    # one construction: plotly validates every update call separately
    return go.Figure(
        data=line_traces(x, curves),
        layout=dict(
            template=base.template(presenter),
            title_text=titles.title,
            xaxis=axis(
                s, titles.x_title, type="log", tickvals=list(dims), ticktext=[str(d) for d in dims]
            ),
            yaxis=axis(s, titles.y_title),
            **fonts(s, orientation="h", yanchor="bottom", y=1.02, x=0.0),
            # the title's line, then the legend's row above the plot: room for both
            margin=dict(t=round(3 * s.title + 4 * s.font)),
            shapes=shapes,
            annotations=annotations,
        ),
    )


def score_kinds_bars(
    labels: Sequence[str],
    weights: Mapping[str, Sequence[float] | np.ndarray],
    scores: Mapping[str, Sequence[float] | np.ndarray],
    *,
    titles: Titles,
    hover: Mapping[str, str],
    presenter: bool = False,
    selected: str | None = None,
    even_label: str = "",
) -> go.Figure:
    """Grouped bars: the weight of every key (x) under each score function (one colour per
    entry of ``weights``, keyed by the trace name; ``scores`` holds the matching energies).

    ``hover`` gives the translated words for ``key``, ``score`` and ``weight``; the hover
    shows a bar's score and weight. ``selected`` (a trace name) is drawn solid, the others
    lighter; ``even_label`` adds a dashed line at 1/S (weights spread evenly).
    """
    missing = {"key", "score", "weight"} - set(hover)
    if missing:
        raise ValueError(f"hover needs the labels {sorted(missing)}")
    if set(weights) != set(scores):
        raise ValueError("weights and scores need the same names (one per score function)")
    if selected is not None and selected not in weights:
        raise ValueError(f"selected {selected!r} is not one of {sorted(weights)}")
    s = base.scale(presenter)
    xl = base.unique_labels(labels)
    data = [
        _score_kind_trace(i, name, xl, w, scores[name], hover, s, selected)
        for i, (name, w) in enumerate(weights.items())
    ]
    shapes, annotations = [], []
    if even_label and xl:
        even = 1.0 / len(xl)
        line = dict(color="#888888", width=max(1.0, s.line / 2), dash="dash")
        shapes.append(base.hline(even, line))
        annotations.append(base.hline_label(even, even_label, anchor="bottom"))
    # one construction: plotly validates every add_trace / update call separately
    return go.Figure(
        data=data,
        layout=dict(
            template=base.template(presenter),
            barmode="group",
            title_text=titles.title,
            xaxis=axis(s, titles.x_title, type="category"),
            # weights live in [0, 1]; room for the labels
            yaxis=axis(s, titles.y_title, range=[0.0, 1.12]),
            # on the projector the long names (kind · H) go right of the plot, one a line
            legend=dict(orientation="v", yanchor="top", y=1.0, xanchor="left", x=1.01)
            if presenter
            else dict(orientation="h", yanchor="bottom", y=1.0, xanchor="left", x=0.0),
            font=dict(family=base.FONT_FAMILY, size=s.font),
            margin=dict(t=130 if presenter else 100),
            uniformtext=dict(minsize=max(8, s.font - 4), mode="hide"),
            shapes=shapes,
            annotations=annotations,
        ),
    )


def _score_kind_trace(
    i: int,
    name: str,
    xl: list[str],
    weights: Sequence[float] | np.ndarray,
    scores: Sequence[float] | np.ndarray,
    hover: Mapping[str, str],
    s: base.Scale,
    selected: str | None,
) -> dict:
    """The bars of score function ``name`` (the ``i``-th) in :func:`score_kinds_bars`."""
    w = np.asarray(weights, dtype=float)
    e = np.asarray(scores, dtype=float)
    if w.shape != (len(xl),) or e.shape != w.shape:
        raise ValueError(
            f"{name}: {len(xl)} labels need {len(xl)} weights and scores, "
            f"got {w.shape} and {e.shape}"
        )
    if not (np.isfinite(w).all() and np.isfinite(e).all()):
        raise ValueError(f"{name}: weights and scores must be finite")
    return dict(
        type="bar",
        x=xl,
        y=w,
        name=name,
        customdata=e,
        marker_color=base.SERIES[i % len(base.SERIES)],  # ways to score, not models
        opacity=1.0 if selected in (None, name) else 0.45,
        text=[f"{x:.2f}" for x in w],
        textposition="outside",
        textfont=dict(size=max(s.font - 4, 12)),
        hovertemplate=(
            f"<b>{name}</b><br>{hover['key']}: %{{x}}<br>"
            f"{hover['score']}: %{{customdata:.3f}}<br>"
            f"{hover['weight']}: %{{y:.3f}}<extra></extra>"
        ),
    )
