"""The attention figures are built in one plotly construction each (plotly validates every
add_trace / update call separately: a few ms each, on every rerun of a control). These
tests pin that the one-shot figures are the very figures the step-by-step calls drew."""

from __future__ import annotations

import json

import numpy as np
import plotly.io as pio
import pytest

from core import charts
from core.figures import attention as F

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
    old = charts.heatmap(
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
    old.update_layout(
        margin=dict(t=150 if presenter else 110),
        title=dict(yref="container", y=0.99, yanchor="top"),
    )
    old.update_traces(
        customdata=np.repeat(z.sum(1, keepdims=True), 7, axis=1),
        hovertemplate=("r: %{y}<br>c: %{x}<br>w: %{z:.3f}<br>s: %{customdata:.3f}<extra></extra>"),
        colorbar=dict(title=dict(text="w")),
    )
    s = charts.scale(presenter)
    old.add_shape(
        type="rect",
        xref="x",
        yref="y",
        x0=-0.5,
        x1=6.5,
        y0=1.5,
        y1=2.5,
        line=dict(color=s.palette[1] if presenter else "#EE6677", width=s.line + 1),
    )
    new = F.attention_heatmap(
        z,
        x,
        y,
        title="T",
        x_title="X",
        y_title="Y",
        hover=HOVER,
        presenter=presenter,
        highlight_row=2,
        show_values=show_values,
    )
    assert _json(new) == _json(old)


def test_bars_ceiling_is_the_dashed_line_add_hline_draws():
    w = np.array([0.1, 0.6, 0.3])
    old = F.weight_bars(list("abc"), w, title="T", x_title="X", y_title="Y")
    old.add_hline(y=np.log2(3), line_dash="dash", line_color="#888888")
    new = F.weight_bars(list("abc"), w, title="T", x_title="X", y_title="Y", ceiling=np.log2(3))
    assert _json(new) == _json(old)


def test_lines_view_title_broken_for_a_narrow_column_gets_room():
    z = np.full((3, 3), 1 / 3)
    one = F.attention_lines(z, list("abc"), title="one line")
    two = F.attention_lines(z, list("abc"), title="two<br>lines")
    assert "margin" not in _json(one)["layout"]  # the template's margin
    top = charts.template(False).layout.margin.t
    assert _json(two)["layout"]["margin"]["t"] > top
