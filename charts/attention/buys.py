"""The buys part's figure: held-out accuracy per source-length bucket, one line per model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from charts import base
from charts.attention.common import axis, fonts, line_traces
from charts.common import Titles
from core import lexicon


def bucket_lines(
    buckets: Sequence[str],
    series: Mapping[str, Sequence[float]],
    *,
    titles: Titles,
    presenter: bool = False,
    names: Mapping[str, str] | None = None,
) -> go.Figure:
    """Accuracy per source-length bucket, one line per model (buckets as category labels).

    ``series`` is keyed by model; each line takes the model's one look from
    ``core.lexicon`` and its display name from ``names`` (model -> name)."""
    if not buckets:
        raise ValueError("buckets is empty; pass at least one length bucket")
    s = base.scale(presenter)
    x = np.arange(len(buckets), dtype=float)
    data = line_traces(x, series)
    for trace, model in zip(data, series):
        trace["name"] = (names or {}).get(model, model)
        if lexicon.known(model):
            trace["line"] = lexicon.line(model, s.line)
            trace["marker"] = lexicon.marker(model, s.marker)
    return go.Figure(
        data=data,
        layout=dict(
            template=base.template(presenter),
            title_text=titles.title,
            xaxis=axis(s, titles.x_title, tickvals=list(x), ticktext=list(buckets)),
            yaxis=axis(s, titles.y_title, **base.share_axis()),
            # inside the plot, bottom left (where no line goes: every model starts high), so
            # a narrow screen never puts it on the title
            **fonts(
                s,
                orientation="v",
                yanchor="bottom",
                y=0.02,
                xanchor="left",
                x=0.01,
                bgcolor="rgba(255,255,255,0.8)",
            ),
        ),
    )
