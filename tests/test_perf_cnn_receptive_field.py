"""Speed work on the CNN receptive-field page: one part at a time, the controls and the
formula are one fragment, the measurement another, the figures are built in one go (no
add_vline/update_* calls) and the formula runs without torch. These tests pin the behaviour
that must not change."""

from __future__ import annotations

import ast
import json
import subprocess
import sys

import numpy as np

from core.analysis import receptive_field as rf
from core.figures import cnn_receptive_field as figs
from tests.conftest import ROOT, make_app
from tests.test_app_cnn_receptive_field import fake_zoo  # noqa: F401 (fixture)

PAGE = "pages/cnn_receptive_field.py"


def _chart(at, key: str) -> dict:
    for el in at.get("plotly_chart"):
        if el.proto.id and key in el.proto.id:
            return json.loads(el.proto.spec)
    raise AssertionError(f"no chart {key}")


def test_window_figure_marks_the_pair_with_two_lines():
    tokens = [f"w{i}" for i in range(10)]
    wins = rf.windows(5, 3, 3, 10)
    fig = figs.window_figure(
        tokens, wins, (1, 8), title="t", x_title="x", y_title="y", hover="{layer}", pair_label="p"
    )
    assert sorted(s.x0 for s in fig.layout.shapes) == [1, 8]
    assert all(s.x0 == s.x1 and s.yref == "paper" for s in fig.layout.shapes)
    assert [a.text for a in fig.layout.annotations] == ["p"]
    assert list(fig.data[0].x) == [hi - lo + 1 for lo, hi in wins]
    assert list(fig.layout.xaxis.ticktext) == tokens and fig.layout.xaxis.title.text == "x"
    assert fig.layout.yaxis.title.text == "y" and fig.layout.yaxis.dtick == 1


def test_gradient_heatmap_outlines_each_layer():
    wins = [(3, 5), (2, 6)]
    fig = figs.gradient_heatmap(
        np.ones((2, 8)),
        [f"w{i}" for i in range(8)],
        wins,
        title="t",
        x_title="x",
        y_title="y",
        colorbar="c",
        window_label="w",
    )
    heat, outline = fig.data
    assert heat.type == "heatmap" and outline.name == "w"
    xs = [x for x in outline.x if x is not None]
    assert min(xs) == 1.5 and max(xs) == 6.5
    assert tuple(fig.layout.yaxis.range) == (0.5, 2.5)


def test_probe_chart_draws_fields_and_chance_in_one_layout():
    fig = figs.probe_chart(
        [5, 10, 15],
        {"a": [1.0, 0.1, 0.1], "b": [1.0, 1.0, 0.1]},
        fields={"a": 5, "b": 11},
        chance=0.1,
        title="t",
        x_title="x",
        y_title="y",
        field_label="d = {d}",
        chance_label="chance",
    )
    vlines = sorted(s.x0 for s in fig.layout.shapes if s.x0 == s.x1)
    assert vlines == [4, 10]
    (hline,) = [s for s in fig.layout.shapes if s.y0 == s.y1]
    assert hline.y0 == 0.1 and hline.xref == "paper"
    assert [a.text for a in fig.layout.annotations] == ["d = 4", "d = 10", "chance"]
    assert tuple(fig.layout.yaxis.range) == (0, 1.05) and fig.layout.yaxis.title.text == "y"


def test_sections_are_fragments():
    text = (ROOT / PAGE).read_text(encoding="utf-8")
    for name in ("window_section", "measured_section"):
        assert "@st.fragment" in text.split(f"def {name}")[0].rsplit("\n\n", 1)[-1]


def test_position_is_shared_by_the_formula_and_the_measurement(fake_zoo):  # noqa: F811
    """Parts 1 and 2 both show the followed position, bound to one URL parameter."""
    at = make_app(PAGE, lang="en").run(timeout=120)
    en = rf.english_counterpart()
    assert at.selectbox(key="cnn_rf_pos").value == 12
    at.selectbox(key="cnn_rf_pos").set_value(4).run()
    assert not at.exception
    assert at.query_params["pos"] == "4"
    at.segmented_control(key="cnn_rf_part").set_value("measured").run()
    assert not at.exception
    assert at.selectbox(key="cnn_rf_pos").value == 4
    assert en[4] in _chart(at, "cnn_rf_measured")["layout"]["title"]["text"]
    at.selectbox(key="cnn_rf_pos").set_value(6).run()
    assert at.query_params["pos"] == "6"
    assert en[6] in _chart(at, "cnn_rf_measured")["layout"]["title"]["text"]
    at.segmented_control(key="cnn_rf_part").set_value("theory").run()
    assert at.selectbox(key="cnn_rf_pos").value == 6


def test_sentence_is_shared_by_the_formula_and_the_measurement(fake_zoo):  # noqa: F811
    at = make_app(PAGE, lang="en").run(timeout=120)
    at.segmented_control(key="cnn_rf_sent").set_value("zh").run()
    assert not at.exception
    assert _chart(at, "cnn_rf_windows")["layout"]["xaxis"]["ticktext"][0] == "秋蝉"
    at.segmented_control(key="cnn_rf_part").set_value("measured").run()
    assert not at.exception
    assert at.segmented_control(key="cnn_rf_sent").value == "zh"
    # the Chinese sentence is measured on its English counterpart, with its own picker
    assert at.selectbox(key="cnn_rf_mpos").value == rf.english_counterpart().index("their")
    at.segmented_control(key="cnn_rf_sent").set_value("en").run()  # changed in part 2 ...
    assert not at.exception
    assert at.selectbox(key="cnn_rf_pos").value == 12  # ... its own words, the pair's node
    at.segmented_control(key="cnn_rf_part").set_value("theory").run()
    assert at.query_params["sent"] == "en"
    assert _chart(at, "cnn_rf_windows")["layout"]["xaxis"]["ticktext"][2] == "cicadas"


def test_the_formula_does_not_import_torch():
    """Part 1 (the default) needs only formulas: the page's module-level imports must not
    pull in torch (~1.5 s on a cold server); parts 2 and 3 import what they need."""
    tree = ast.parse((ROOT / PAGE).read_text(encoding="utf-8"))
    lines = [ast.unparse(n) for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    code = "\n".join([*lines, "import sys", "print('torch' in sys.modules)"])
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "False", lines
