"""The attention heatmap is built in one plotly construction (plotly validates every
add_trace / update call separately: a few ms each, on every rerun of a control). This test
pins that the one-shot figure is the very figure the step-by-step calls drew."""

from __future__ import annotations

import json

import numpy as np
import plotly.io as pio
import pytest

from charts import attention as F
from charts import base
from charts.common import Titles

HOVER = {"row": "r", "col": "c", "weight": "w", "sum": "s"}


def _json(fig) -> dict:
    return json.loads(pio.to_json(fig, validate=False))


@pytest.mark.parametrize("presenter", [False, True])
@pytest.mark.parametrize("show_values", [False, True])
def test_heatmap_equals_the_shared_heatmap_with_its_updates(presenter, show_values):
    rng = np.random.default_rng(0)
    z = rng.random((5, 7))
    z /= z.sum(1, keepdims=True)
    x, y = list("abcdefa"), list("vwxyz")  # a repeated word stays its own column
    old = base.heatmap(
        z,
        x,
        y,
        title="T",
        x_title="X",
        y_title="Y",
        presenter=presenter,
        zmin=0.0,
        zmax=1.0,
        show_values=show_values,
    )
    s = base.scale(presenter)
    old.update_layout(
        margin=dict(t=150 if presenter else 110),
        title=dict(yref="container", y=0.99, yanchor="top"),
        # fonts on the figure itself (Streamlit's theme overrides the template's), and on
        # the projector the word axis under the heatmap, away from the title
        font=dict(family=base.FONT_FAMILY, size=s.font),
        height=old.layout.height,
    )
    for axis in (old.layout.xaxis, old.layout.yaxis):
        axis.update(tickfont=dict(size=s.font), title_font=dict(size=s.font + 2))
    if presenter:
        old.update_xaxes(side="bottom")
    old.update_traces(
        customdata=np.repeat(z.sum(1, keepdims=True), 7, axis=1),
        hovertemplate=("r: %{y}<br>c: %{x}<br>w: %{z:.3f}<br>s: %{customdata:.3f}<extra></extra>"),
        colorbar=dict(title=dict(text="w")),
    )
    old.add_shape(
        type="rect",
        xref="x",
        yref="y",
        x0=-0.5,
        x1=6.5,
        y0=1.5,
        y1=2.5,
        line=dict(color=base.HIGHLIGHT, width=s.line + 1),
    )
    new = F.attention_heatmap(
        z,
        x,
        y,
        titles=Titles("T", "X", "Y"),
        hover=HOVER,
        presenter=presenter,
        highlight_row=2,
        show_values=show_values,
    )
    assert _json(new) == _json(old)
