"""The path-length figures: Table 1 against n with the chosen n marked, and the paths
between two words, one panel per layer type, built in one go (no make_subplots)."""

from __future__ import annotations

import numpy as np
import pytest

from charts import path_length as figures
from charts.common import Titles
from charts.screen import sizes
from core.analysis import path_length as analysis


def _points(trace) -> set[tuple[int, int]]:
    return {(int(x), int(y)) for x, y in zip(trace.x, trace.y, strict=True) if x is not None}


def test_paths_figure_draws_every_polyline_on_its_own_panel():
    tokens = [f"w{i}" for i in range(27)]
    paths = analysis.pair_paths(0, 26, 3)
    titles = {a: f"title {a}" for a in paths}
    fig = figures.paths_figure(tokens, paths, titles, (0, 26), title="t", layer_title="layer")
    assert len(fig.data) == 3 * len(paths)  # grid, path, pair per panel (was 4 + paths)
    for row, arch in enumerate(paths, start=1):
        grid, line, pair = fig.data[3 * (row - 1) : 3 * row]
        yname = "y" if row == 1 else f"y{row}"
        assert grid.yaxis == line.yaxis == pair.yaxis == yname
        assert _points(line) == {p for poly in paths[arch] for p in poly}
        # polylines stay separate: one None between consecutive ones
        assert list(line.x).count(None) == len(paths[arch]) - 1
        top = max(1, max(layer for poly in paths[arch] for _, layer in poly))
        assert _points(grid) == {(x, y) for x in range(27) for y in range(top + 1)}
        assert _points(pair) == {(0, 0), (26, 0)}
    # panels stacked top to bottom without overlap, heights growing with their layers
    domains = [fig.layout[f"yaxis{'' if r == 1 else r}"].domain for r in range(1, 5)]
    assert all(a[0] > b[1] for a, b in zip(domains, domains[1:]))
    # the top panel ends below the figure's top: its own title sits in between
    assert 0.85 < domains[0][1] < 1.0 and np.isclose(domains[-1][0], 0.0)
    sizes = [hi - lo for lo, hi in domains]
    assert sizes[2] > sizes[3] > sizes[0]  # conv (13 layers) > dilated (3) > attention (1)
    assert [a.text for a in fig.layout.annotations] == [titles[a] for a in paths]
    assert list(fig.layout.xaxis.ticktext) == tokens and fig.layout.xaxis.anchor == "y4"


def test_table_chart_marks_n_with_one_shape():
    fig = figures.table_chart(
        [2, 10, 100],
        {"a": [1, 1, 1], "b": [1, 9, 99]},
        current_n=10,
        current_label="n = 10",
        titles=Titles("t", "n", "y"),
    )
    (shape,) = fig.layout.shapes
    assert shape.x0 == shape.x1 == 10 and shape.yref == "paper"
    assert [a.text for a in fig.layout.annotations] == ["n = 10"]


@pytest.mark.parametrize(("n", "pair"), [(27, (0, 26)), (27, (3, 4)), (21, (1, 19)), (8, (2, 6))])
def test_on_a_phone_the_words_axis_keeps_the_pair_and_spaced_words(n, pair):
    """27 words in 10-px type under a phone's panels were a smear: there the words are at a
    phone's least size, the pair's two always written, the others spaced so that slanted
    words do not run into each other."""

    tokens = [f"w{i}" for i in range(n)]
    paths = {"rnn": [[(i, 1) for i in range(n)]]}
    kw = dict(title="t", layer_title="layer")
    wide = figures.paths_figure(tokens, paths, {"rnn": "r"}, pair, **kw).to_dict()
    phone = figures.paths_figure(tokens, paths, {"rnn": "r"}, pair, phone=True, **kw).to_dict()
    assert wide["layout"]["xaxis"]["ticktext"] == tokens  # elsewhere every word, as before
    axis = phone["layout"]["xaxis"]
    assert axis["tickfont"]["size"] == sizes.MIN_PHONE_FONT
    assert axis["tickvals"] == list(range(n))  # a tick under every word
    shown = [i for i, w in enumerate(axis["ticktext"]) if w]
    assert all(axis["ticktext"][i] == tokens[i] for i in shown)
    assert set(pair) <= set(shown)
    # the room a slanted word takes along the plot, from the figure's own rule
    room = (sizes.PHONE_WIDTH - figures._PHONE_Y_AXIS) / (figures._SLANT * sizes.MIN_PHONE_FONT)
    others = [i for i in shown if i not in pair]
    gaps = [b - a for a, b in zip(others, others[1:])]
    gaps += [abs(i - j) for i in others for j in pair]
    assert all(g >= n / room for g in gaps), (shown, n / room)
    assert len(shown) >= min(n, room) // 2  # not a bare axis either
