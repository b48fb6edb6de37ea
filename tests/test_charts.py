"""core.charts: one template for both modes, input checks that say how to fix the call."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from core import charts
from tests.conftest import ROOT


def test_presenter_scale_is_bigger_and_colour_blind_safe():
    n, p = charts.scale(False), charts.scale(True)
    assert p.font > n.font and p.title > n.title and p.line > n.line
    assert p.palette == charts.OKABE_ITO
    tpl = charts.template(True)
    assert tpl.layout.font.size == p.font
    assert "Noto Sans CJK SC" in tpl.layout.font.family
    assert list(tpl.layout.colorway) == list(charts.OKABE_ITO)


def test_bar_chart_and_style():
    fig = charts.bar_chart(["a", "b"], [1, 3], title="T", presenter=True, log_y=True)
    assert fig.layout.yaxis.type == "log"
    assert fig.layout.template.layout.font.size == charts.PRESENTER.font
    fig = charts.style(fig, presenter=False)
    assert fig.layout.template.layout.font.size == charts.NORMAL.font


def test_line_chart_uses_template_line_width():
    fig = charts.line_chart([1, 2, 3], {"rnn": [3, 2, 1], "attn": [1, 1, 1]}, title="T")
    assert len(fig.data) == 2
    assert fig.layout.template.data.scatter[0].line.width == charts.NORMAL.line


def test_heatmap_keeps_repeated_tokens_apart():
    fig = charts.heatmap(np.eye(3), ["the", "cat", "the"], ["猫", "的", "猫"], title="T")
    assert len(set(fig.data[0].x)) == 3 and len(set(fig.data[0].y)) == 3


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: charts.bar_chart(["a"], [1, 2], title=""), "labels has 1 entries"),
        (lambda: charts.bar_chart([], [], title=""), "empty"),
        (lambda: charts.bar_chart(["a"], [0], title="", log_y=True), "positive"),
        (lambda: charts.bar_chart(["a"], [float("nan")], title=""), "NaN"),
        (lambda: charts.line_chart([1, 2], {"a": [1]}, title=""), "one value per x"),
        (lambda: charts.line_chart([1, 2], {}, title=""), "series is empty"),
        (lambda: charts.heatmap([1, 2], ["a", "b"], ["x"], title=""), "2-D"),
        (lambda: charts.heatmap([[1, 2]], ["a"], ["x"], title=""), "x_labels"),
        (lambda: charts.heatmap([[1, 2]], ["a", "b"], ["x"], title="", zmin=1, zmax=0), "zmin"),
    ],
)
def test_bad_input_raises_value_error_with_advice(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_core_never_imports_streamlit():
    code = (
        "import sys, pkgutil, importlib, core\n"
        "for m in pkgutil.walk_packages(core.__path__, 'core.'):\n"
        "    if m.name.endswith('__main__'): continue\n"
        "    importlib.import_module(m.name)\n"
        "bad = [m for m in sys.modules if m == 'streamlit' or m.startswith('streamlit.')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=120)


def test_hline_spans_the_plot_and_its_label_sits_at_either_end():
    from core import charts

    line = charts.hline(0.25, {"dash": "dot"})
    assert (line["xref"], line["x0"], line["x1"], line["y0"], line["y1"]) == (
        "x domain",
        0,
        1,
        0.25,
        0.25,
    )
    assert line["line"] == {"dash": "dot"}
    right = charts.hline_label(0.25, "chance")
    left = charts.hline_label(0.25, "chance", side="left", anchor="bottom")
    assert (right["x"], right["xanchor"], right["yanchor"], right["y"]) == (1, "right", "top", 0.25)
    assert (left["x"], left["xanchor"], left["yanchor"]) == (0, "left", "bottom")
