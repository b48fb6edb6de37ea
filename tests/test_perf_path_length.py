"""Speed work on the path-length page: one part at a time, its sections are fragments, the
paths figure is built in one go (no make_subplots) and Table 1 runs without torch. These
tests pin the behaviour that must not change."""

from __future__ import annotations

import ast
import subprocess
import sys

import numpy as np
import streamlit as st

from core.analysis import path_length as pl
from core.figures import path_length as figs
from tests.conftest import ROOT, make_app
from tests.lessons.test_cnn_receptive_field import fake_zoo  # noqa: F401 (fixture)

PAGE = "pages/path_length.py"


def _points(trace) -> set[tuple[int, int]]:
    return {(int(x), int(y)) for x, y in zip(trace.x, trace.y, strict=True) if x is not None}


def test_paths_figure_draws_every_polyline_on_its_own_panel():
    tokens = [f"w{i}" for i in range(27)]
    paths = pl.pair_paths(0, 26, 3)
    titles = {a: f"title {a}" for a in paths}
    fig = figs.paths_figure(tokens, paths, titles, (0, 26), title="t", layer_title="layer")
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
    fig = figs.table_chart(
        [2, 10, 100],
        {"a": [1, 1, 1], "b": [1, 9, 99]},
        current_n=10,
        current_label="n = 10",
        title="t",
        x_title="n",
        y_title="y",
    )
    (shape,) = fig.layout.shapes
    assert shape.x0 == shape.x1 == 10 and shape.yref == "paper"
    assert [a.text for a in fig.layout.annotations] == ["n = 10"]


def test_sections_are_fragments():
    """Each control group reruns only its own section (ui.fragment)."""
    text = (ROOT / PAGE).read_text(encoding="utf-8")
    assert "@ui.fragment" in text.split("def table_section")[0].rsplit("\n\n", 1)[-1]
    assert "@ui.fragment" in text.split("def pair_section")[0].rsplit("\n\n", 1)[-1]


def test_k_is_shared_by_the_table_and_the_pair(fake_zoo):  # noqa: F811
    """Parts 1 and 2 both show the kernel k, bound to one URL parameter."""
    at = make_app(PAGE, lang="en", part="pair", sent="en", a="2", b="22").run(timeout=120)
    conv = lambda: [str(m.value) for m in at.main.metric][2]  # noqa: E731
    assert conv() == str(pl.pair_steps(2, 22, 3)["conv"])
    at.slider(key="path_k").set_value(5).run()
    assert not at.exception
    assert at.query_params["k"] == "5"
    assert conv() == str(pl.pair_steps(2, 22, 5)["conv"])
    at.segmented_control(key="path_part").set_value("table").run()
    assert at.slider(key="path_k").value == 5
    at.slider(key="path_n").set_value(300).run()  # n stays in its section
    at.slider(key="path_k").set_value(4).run()
    assert at.query_params["n"] == "300" and at.query_params["k"] == "4"
    at.segmented_control(key="path_part").set_value("pair").run()
    assert at.slider(key="path_k").value == 4 and conv() == str(pl.pair_steps(2, 22, 4)["conv"])
    st.cache_data.clear()


def test_table_1_does_not_import_torch():
    """The default part needs only formulas: the page's module-level imports must not pull
    in torch (~1.5 s on a cold server); the probes part imports what it needs itself."""
    tree = ast.parse((ROOT / PAGE).read_text(encoding="utf-8"))
    lines = [
        ast.unparse(node) for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)
    ]
    code = "\n".join([*lines, "import sys", "print('torch' in sys.modules)"])
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "False", lines
