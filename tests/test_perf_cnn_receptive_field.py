"""Speed work on the CNN receptive-field page: one part at a time; in each part two nested
fragments, so that a click resends only what it changes (the formula's knobs only their
controls, the metrics and the chart; the measured position only its picker and its two
charts); the figures are built in one go (no add_vline/update_* calls) and the formula runs
without torch. These tests pin the behaviour that must not change."""

from __future__ import annotations

import ast
import json
import subprocess
import sys

import numpy as np
import pytest
import streamlit.testing.v1.local_script_runner as lsr

from core.analysis import receptive_field as rf
from core.figures import cnn_receptive_field as figs
from core.figures.path_length import probe_chart
from tests.conftest import ROOT, fragment_rerun, make_app
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
    fig = probe_chart(
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
    assert hline.y0 == 0.1 and hline.xref in ("paper", "x domain")  # across the whole plot
    assert [a.text for a in fig.layout.annotations] == ["d = 4", "d = 10", "chance"]
    assert fig.layout.yaxis.range[0] == 0 and 1 < fig.layout.yaxis.range[1] <= 1.1
    assert fig.layout.yaxis.title.text == "y"


# the fragments of each part, outer first, and the widgets (keys) each one draws itself
FRAGMENTS = {
    "window_section": {
        "cnn_rf_sent",
        "cnn_rf_text",
        "cnn_rf_a",
        "cnn_rf_b",
        "cnn_rf_pos",
        "cnn_rf_dil",
    },
    "formula_section": {"cnn_rf_k", "cnn_rf_depth"},
    "measured_section": {"cnn_rf_sent", "cnn_rf_text"},
    "measured_view": {"cnn_rf_pos", "cnn_rf_mpos"},
}
INNER = {"window_section": "formula_section", "measured_section": "measured_view"}


def _functions() -> dict[str, ast.FunctionDef]:
    tree = ast.parse((ROOT / PAGE).read_text(encoding="utf-8"))
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


def _calls(fn: ast.FunctionDef) -> set[str]:
    return {
        n.func.id if isinstance(n.func, ast.Name) else n.func.attr
        for n in ast.walk(fn)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name | ast.Attribute)
    }


def test_sections_are_fragments():
    """Each part is an outer fragment that calls an inner one (ui.fragment: st.fragment
    behind the fair gate; nested)."""
    functions = _functions()
    for name in FRAGMENTS:
        decorators = [ast.unparse(d) for d in functions[name].decorator_list]
        assert decorators == ["ui.fragment"], (name, decorators)
    for outer, inner in INNER.items():
        assert inner in _calls(functions[outer]), f"{outer} must call {inner}"
        assert outer not in _calls(functions[inner])


# --- what a click sends ----------------------------------------------------------------------
# AppTest reruns the whole script on every interaction; the browser asks the server for a
# rerun of the fragment that holds the widget (RerunData.fragment_id, set by AppSession from
# the widget's delta). These helpers do what the browser does, through the AppTest runner, and
# list the elements the server sends for the click (Streamlit 1.67, pinned in requirements).
def _sent(msgs) -> list[tuple[str, str]]:
    """(element type, widget or chart key, "" if none) of each new element, in send order."""
    out = []
    for msg in msgs:
        if msg.WhichOneof("type") != "delta" or msg.delta.WhichOneof("type") != "new_element":
            continue
        element = msg.delta.new_element
        kind = element.WhichOneof("type")
        ident = getattr(getattr(element, kind), "id", "") or ""
        key = ident.rsplit("-", 1)[-1] if ident.startswith("$$ID") else ""
        out.append((kind, key))
    return out


@pytest.fixture
def wire(monkeypatch):
    """The messages of every AppTest run, in order (a list of lists of ForwardMsg)."""
    runs: list[list] = []
    parse = lsr.parse_tree_from_messages

    def record(msgs):
        runs.append(list(msgs))
        return parse(msgs)

    monkeypatch.setattr(lsr, "parse_tree_from_messages", record)
    return runs


def _fragment_of(runs: list[list], key: str) -> str:
    """The id of the fragment that last drew the widget ``key``."""
    for msgs in reversed(runs):
        for msg in msgs:
            if msg.WhichOneof("type") != "delta" or not msg.delta.HasField("new_element"):
                continue
            element = msg.delta.new_element
            ident = getattr(getattr(element, element.WhichOneof("type")), "id", "") or ""
            if ident.endswith(f"-{key}"):
                assert msg.delta.fragment_id, f"{key} is not inside a fragment"
                return msg.delta.fragment_id
    raise AssertionError(f"no widget {key}")


def _click(at, runs, widget, value) -> list[tuple[str, str]]:
    """Set ``widget`` to ``value`` and rerun its fragment only, as the browser does; returns
    what the server sent. (AppTest's tree then holds only those elements.)"""
    with fragment_rerun(_fragment_of(runs, widget.key)):
        widget.set_value(value).run()
    assert not at.exception, [e.value for e in at.exception]
    return _sent(runs[-1])


def _widgets(sent) -> set[str]:
    return {key for kind, key in sent if key and kind != "plotly_chart"}


def _charts(sent) -> list[str]:
    return [key for kind, key in sent if kind == "plotly_chart"]


@pytest.mark.parametrize(
    ("key", "kind", "value"),
    [
        ("cnn_rf_k", "select_slider", 5),
        ("cnn_rf_depth", "slider", 3),
    ],
)
def test_a_knob_of_the_formula_resends_only_the_formula(wire, key, kind, value):
    """Kernel and depth (the two knobs under the chart): their two controls, the metrics and
    the chart, nothing of the folded sentence, pair, position or dilation (each widget costs
    ~5 ms in the browser)."""
    at = make_app(PAGE, lang="en").run(timeout=120)
    before = _sent(wire[-1])
    assert {"cnn_rf_sent", "cnn_rf_a", "cnn_rf_b", "cnn_rf_pos", "cnn_rf_dil"} <= _widgets(before)
    sent = _click(at, wire, getattr(at, kind)(key=key), value)
    assert _widgets(sent) == FRAGMENTS["formula_section"]
    assert _charts(sent) == ["cnn_rf_windows"]
    assert [kind for kind, _ in sent].count("metric") == 3
    params = {"k": "3", "dil": "0", "depth": "8"} | {key.removeprefix("cnn_rf_"): str(int(value))}
    assert {p: at.query_params[p] for p in params} == params
    # the chart sent follows the new value
    k, base, depth = int(params["k"]), 1 + int(params["dil"]), int(params["depth"])
    fig = _chart(at, "cnn_rf_windows")
    assert fig["data"][0]["x"] == [hi - lo + 1 for lo, hi in rf.windows(12, depth, k, 24, base)]
    assert f"k = {k}, {depth} layers" in fig["layout"]["title"]["text"]
    # the words are untouched (the URL keeps them) and a full run still shows them
    assert (at.query_params["a"], at.query_params["b"], at.query_params["pos"]) == ("2", "22", "12")
    at.run()
    assert at.selectbox(key="cnn_rf_pos").value == 12
    assert at.segmented_control(key="cnn_rf_sent").value == "en"


def test_dilation_reruns_both_fragments(wire):
    """Dilation sits with the folded controls (the outer fragment): a click redraws the
    formula with the doubled windows, and keeps the words."""
    at = make_app(PAGE, lang="en").run(timeout=120)
    sent = _click(at, wire, at.toggle(key="cnn_rf_dil"), True)
    assert _charts(sent) == ["cnn_rf_windows"]
    assert at.query_params["dil"] == "1" and at.query_params["pos"] == "12"
    widths = [hi - lo + 1 for lo, hi in rf.windows(12, 8, 3, 24, base=2)]
    assert _chart(at, "cnn_rf_windows")["data"][0]["x"] == widths


def test_the_words_rerun_both_fragments(wire):
    """The position (and so the pair and the sentence, its neighbours) reruns the outer
    fragment, which draws the formula again: the chart follows the new word."""
    at = make_app(PAGE, lang="en").run(timeout=120)
    sent = _click(at, wire, at.selectbox(key="cnn_rf_pos"), 4)
    assert (
        _widgets(sent)
        == FRAGMENTS["window_section"] - {"cnn_rf_text"} | FRAGMENTS["formula_section"]
    )
    assert _charts(sent) == ["cnn_rf_windows"]
    assert "“in”" in _chart(at, "cnn_rf_windows")["layout"]["title"]["text"]
    assert at.query_params["pos"] == "4"


@pytest.mark.parametrize(
    ("params", "key", "value"),
    [({"sent": "en"}, "cnn_rf_pos", 6), ({"sent": "zh"}, "cnn_rf_mpos", 3)],
)
def test_the_measured_position_resends_only_its_charts(
    fake_zoo,  # noqa: F811
    wire,
    params,
    key,
    value,
):
    """Part 2: the position changes both charts, not the sentence above them."""
    at = make_app(PAGE, lang="en", part="measured", **params).run(timeout=120)
    assert "cnn_rf_sent" in _widgets(_sent(wire[-1]))
    sent = _click(at, wire, at.selectbox(key=key), value)
    assert _widgets(sent) == {key}
    assert _charts(sent) == ["cnn_rf_measured", "cnn_rf_widths"]
    word = rf.english_counterpart()[value]
    assert f"“{word}”" in _chart(at, "cnn_rf_measured")["layout"]["title"]["text"]
    assert at.query_params[key.removeprefix("cnn_rf_")] == str(value)


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


def test_a_click_in_a_fragment_passes_the_fair_gate(wire, monkeypatch):
    """A fragment's own rerun skips app.py and its frame: ui.fragment takes it through the
    fair gate itself (else a client could rerun a part past every limit)."""
    from serve import admission
    from serve.fairshare import FairGate

    gate = FairGate(1)
    monkeypatch.setattr(admission, "_GATE", gate)
    at = make_app(PAGE, lang="en").run(timeout=120)
    assert gate.granted == 1  # the full run: once, its fragments inside it do not re-enter
    sent = _click(at, wire, at.select_slider(key="cnn_rf_k"), 5)
    assert _widgets(sent) == FRAGMENTS["formula_section"]  # the fragment alone ran
    assert gate.granted == 2 and gate.running() == 0 and not admission.holding()
