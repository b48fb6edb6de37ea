"""The margin estimate of core.chart_margins: plotly's autoMargin arithmetic, the label
widths and tick labels it reads, and what it sets on a figure. (Whether the browser then
keeps those margins is checked in tests/browser/test_chart_margins.py.)"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from core import chart_margins as cm
from core import charts


def test_text_width_uses_the_measured_advances_and_counts_cjk_as_square():
    assert cm.text_width("0", 10) == pytest.approx(5.55)
    assert cm.text_width("60%", 12) == pytest.approx((555 + 555 + 921) * 12 / 1000)
    assert cm.text_width("老虎", 14) == pytest.approx(28.0)
    # lines: the widest; tags and zero-width spaces take no room
    assert cm.text_width("ab<br>abcd", 10) == cm.text_width("abcd", 10)
    assert cm.text_width("<b>ab</b>\u200b", 10) == cm.text_width("ab", 10)


def test_solve_is_plotlys_arithmetic():
    base = {"l": 0.0, "r": 0.0, "t": 50.0, "b": 10.0}
    # nothing pushes: the base stays
    assert cm.solve(base, {}, 800, 400, 0) == {"l": 0, "r": 0, "t": 50, "b": 10}
    k = cm.SLACK  # px added to every estimated push
    # a y axis needs 60 px on the left, an x axis 50 at the bottom
    got = cm.solve(base, {"y": {"l": (0.0, 60)}, "x": {"b": (0.0, 50)}}, 800, 400, 0)
    assert got == {"l": 60 + k, "r": 0, "t": 50, "b": 50 + k}
    # a colour bar standing at x = 1.02 of the plot: its 60 px plus 2% of the plot width
    got = cm.solve(base, {"y": {"l": (0.0, 80 - k)}, "cb": {"r": (1.02, 60 - k)}}, 820, 400, 0)
    plot_w = 820 - got["l"] - got["r"]
    assert got["l"] == 80
    assert got["r"] == pytest.approx((60 + 0.02 * (820 - 80)) / 1.02, abs=1)
    assert 1.02 * plot_w + 60 <= plot_w + got["r"] + 1  # the bar fits inside the figure
    # a legend hanging under the plot (y = -0.2, 30 px tall): room for it below
    got = cm.solve(base, {"legend": {"b": (-0.2, 30 - k)}}, 800, 400, 0)
    plot_h = 400 - got["t"] - got["b"]
    assert 0.2 * plot_h + 30 == pytest.approx(got["b"], abs=1)
    # plotly's pad is added to each push
    assert cm.solve(base, {"y": {"l": (0.0, 60)}}, 800, 400, 12)["l"] == 72 + k


def test_tick_labels_categories_numbers_percent_and_logs():
    heat = [{"type": "heatmap", "z": np.zeros((2, 3)), "x": ["a", "bb", "a"], "y": ["p", "q"]}]
    assert cm.tick_labels({}, heat, "x", "x", 500) == ["a", "bb"]
    bars = [{"type": "bar", "x": ["x", "y"], "y": [0.3, 0.85]}]
    labels = cm.tick_labels({"tickformat": ".0%"}, bars, "y", "y", 300)
    assert labels[0] == "0%" and labels[-1] in ("80%", "90%", "100%")
    line = [{"type": "scatter", "x": [1, 2, 3], "y": [-0.3, 0.0, 0.4]}]
    assert "−0.2" in cm.tick_labels({}, line, "y", "y", 300)  # plotly's minus sign
    big = [{"type": "scatter", "x": [0, 1], "y": [0, 50000]}]
    assert any(s.endswith("k") for s in cm.tick_labels({}, big, "y", "y", 300))
    wide = cm.tick_labels({"type": "log"}, [{"x": [0, 1], "y": [1e-8, 1.0]}], "y", "y", 300)
    assert wide[0] == "10−8" and wide[-1] == "100"
    narrow = cm.tick_labels({"type": "log"}, [{"x": [0, 1], "y": [0.001, 0.03]}], "y", "y", 300)
    assert "0.001" in narrow and "0.02" in narrow
    assert cm.tick_labels({"ticktext": ["one", "two"], "tickvals": [1, 2]}, line, "y", "y", 1) == [
        "one",
        "two",
    ]
    assert cm.tick_labels({"showticklabels": False}, line, "y", "y", 300) == []


def test_preset_sets_margins_for_labels_titles_colour_bar_and_legend():
    words = ["the", "teacher", "fed", "a", "cat", "⟨eos⟩"]
    fig = charts.heatmap(
        np.random.default_rng(0).random((4, 6)),
        words,
        ["老虎", "只", "白", "⟨eos⟩"],
        title="weights",
        x_title="English source word",
        y_title="Chinese output word",
    )
    got = cm.preset(fig, width_px=820)
    assert fig.layout.margin.l == got["l"] and fig.layout.margin.r == got["r"]
    # left: the widest label plus the title; right: the colour bar
    assert got["l"] >= cm.text_width("⟨eos⟩", 12) + 14
    assert got["r"] > 30 + 20
    # a line chart with a legend on the right and a long one at the bottom
    series = {"a long series name": [0.1, 0.5, 0.9], "b": [0.2, 0.3, 0.4]}
    fig = charts.line_chart([1, 2, 3], series, title="t")
    right = cm.preset(fig, width_px=820)
    fig.update_layout(legend=dict(orientation="h", y=-0.25, yanchor="top", x=0))
    fig.layout.margin = None
    bottom = cm.preset(fig, width_px=820)
    assert right["r"] > cm.text_width("a long series name", 12)
    assert bottom["r"] == 0 and bottom["b"] > right["b"]


def test_preset_keeps_the_figures_own_margins_as_a_floor_and_is_idempotent():
    fig = charts.bar_chart(["a", "b"], [0.2, 0.4], title="t")
    fig.update_layout(margin=dict(t=144, b=120))
    first = cm.preset(fig, width_px=820)
    assert first["t"] == 144 and first["b"] == 120
    again = cm.preset(fig, width_px=820)
    assert again == first


def test_preset_ignores_hidden_axes_and_empty_figures():
    fig = go.Figure()
    assert cm.preset(fig, width_px=400) == {"l": 0, "r": 0, "t": 50, "b": 10}
    fig = go.Figure(go.Scatter(x=[1, 2], y=[3, 4]))
    fig.update_xaxes(visible=False)
    fig.update_yaxes(showticklabels=False)
    got = cm.preset(fig, width_px=400)
    assert got["b"] == 10 and got["l"] == 0
