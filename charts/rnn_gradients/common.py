"""What the RNN-gradients figures share: the input check of a log axis and the page's layout
(its legend in a row between the title and the plot)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from charts import base
from charts.common import Titles


def positive(name: str, values: Sequence[float] | np.ndarray) -> np.ndarray:
    """``values`` as a non-empty 1-D float array, every value positive and finite (a log
    axis): a ``ValueError`` names ``name`` otherwise."""
    arr = base.vector(name, values)
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name} must be positive and finite for a log axis; clean it first")
    return arr


def page_layout(presenter: bool, titles: Titles, **extra) -> dict:
    """:func:`charts.base.layout` with this page's legend, in a row between the title
    and the plot, and the template's fonts."""
    extra = {"legend": dict(orientation="h", yanchor="bottom", y=1.02, x=0), **extra}
    out = base.layout(presenter, *titles, fonts=False, **extra)
    if "<br>" in titles.title and "margin" not in extra:  # two title lines above the legend's row
        out["margin"] = dict(t=150 if presenter else 128)
    return out


def page_figure(
    traces: Sequence[dict | go.Scatter], presenter: bool, titles: Titles, **extra: object
) -> go.Figure:
    """A figure of ``traces`` on :func:`page_layout` (``extra``: more layout)."""
    return go.Figure(data=traces, layout=page_layout(presenter, titles, **extra))
