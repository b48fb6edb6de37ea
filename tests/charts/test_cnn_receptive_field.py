"""The CNN receptive-field figures: growing windows with the pair marked, the measured
gradients outlined by the formula's windows, the probe chart (shared with path length);
each built in one go (no add_vline/update_* calls)."""

from __future__ import annotations

import numpy as np

from charts import cnn_receptive_field as figures
from charts.common import Titles
from charts.path_length import probe_chart
from core.analysis import receptive_field as analysis


def test_window_figure_marks_the_pair_with_two_lines():
    tokens = [f"w{i}" for i in range(10)]
    wins = analysis.windows(5, 3, 3, 10)
    fig = figures.window_figure(
        tokens, wins, (1, 8), titles=Titles("t", "x", "y"), hover="{layer}", pair_label="p"
    )
    assert sorted(s.x0 for s in fig.layout.shapes) == [1, 8]
    assert all(s.x0 == s.x1 and s.yref == "paper" for s in fig.layout.shapes)
    assert [a.text for a in fig.layout.annotations] == ["p"]
    assert list(fig.data[0].x) == [hi - lo + 1 for lo, hi in wins]
    assert list(fig.layout.xaxis.ticktext) == tokens and fig.layout.xaxis.title.text == "x"
    assert fig.layout.yaxis.title.text == "y" and fig.layout.yaxis.dtick == 1


def test_gradient_heatmap_outlines_each_layer():
    wins = [(3, 5), (2, 6)]
    fig = figures.gradient_heatmap(
        np.ones((2, 8)),
        [f"w{i}" for i in range(8)],
        wins,
        titles=Titles("t", "x", "y"),
        colorbar="c",
        window_label="w",
    )
    heat, outline = fig.data
    assert heat.type == "heatmap" and outline.name == "w"
    xs = [x for x in outline.x if x is not None]
    assert min(xs) == 1.5 and max(xs) == 6.5
    assert tuple(fig.layout.yaxis.range) == (0.5, 2.5)


def test_probe_chart_draws_fields_and_chance_in_one_layout():
    fig = probe_chart(
        [5, 10, 15],
        {"a": [1.0, 0.1, 0.1], "b": [1.0, 1.0, 0.1]},
        fields={"a": 5, "b": 11},
        chance=0.1,
        titles=Titles("t", "x", "y"),
        field_label="d = {d}",
        chance_label="chance",
    )
    vlines = sorted(s.x0 for s in fig.layout.shapes if s.x0 == s.x1)
    assert vlines == [4, 10]
    (hline,) = [s for s in fig.layout.shapes if s.y0 == s.y1]
    assert hline.y0 == 0.1 and hline.xref in ("paper", "x domain")  # across the whole plot
    assert [a.text for a in fig.layout.annotations] == ["d = 4", "d = 10", "chance"]
    assert fig.layout.yaxis.range[0] == 0 and 1 < fig.layout.yaxis.range[1] <= 1.1
    assert fig.layout.yaxis.title.text == "y"
