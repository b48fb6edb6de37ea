"""charts.base: one template for both modes, input checks that say how to fix the call."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from charts import base
from tests.conftest import ROOT


def test_presenter_scale_is_bigger_and_colour_blind_safe():
    n, p = base.scale(False), base.scale(True)
    assert p.font > n.font and p.title > n.title and p.line > n.line
    # one palette on every screen: a colour means the same on the laptop and the projector
    assert p.palette == n.palette == base.OKABE_ITO
    tpl = base.template_of(True)
    assert tpl.layout.font.size == p.font
    assert "Noto Sans CJK SC" in tpl.layout.font.family
    for presenter in (False, True):  # unstyled series: black and greys, never a model's hue
        assert list(base.template_of(presenter).layout.colorway) == list(base.SERIES)


def test_a_figure_takes_the_template_by_name_without_validating_it_again():
    """plotly copies a figure's template; given by name, the copy is ``_Registered``'s plain
    one (a validated rebuild was three quarters of a small figure's build), the same JSON."""
    for presenter in (False, True):
        fig = base.bar_chart(["a", "b"], [1, 3], title="T", presenter=presenter)
        assert fig.layout.template._validate is False  # the cheap copy, not a rebuild
        got = fig.to_plotly_json()["layout"]["template"]
        assert got == base.template_of(presenter).to_plotly_json()
    assert base.template(True) != base.template(False)


def test_bar_chart_and_style():
    fig = base.bar_chart(["a", "b"], [1, 3], title="T", presenter=True, log_y=True)
    assert fig.layout.yaxis.type == "log"
    assert fig.layout.template.layout.font.size == base.PRESENTER.font
    fig = base.style(fig, presenter=False)
    assert fig.layout.template.layout.font.size == base.NORMAL.font


def test_line_chart_uses_template_line_width():
    fig = base.line_chart([1, 2, 3], {"rnn": [3, 2, 1], "attn": [1, 1, 1]}, title="T")
    assert len(fig.data) == 2
    assert fig.layout.template.data.scatter[0].line.width == base.NORMAL.line


def test_heatmap_keeps_repeated_tokens_apart():
    fig = base.heatmap(np.eye(3), ["the", "cat", "the"], ["猫", "的", "猫"], title="T")
    assert len(set(fig.data[0].x)) == 3 and len(set(fig.data[0].y)) == 3


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: base.bar_chart(["a"], [1, 2], title=""), "labels has 1 entries"),
        (lambda: base.bar_chart([], [], title=""), "empty"),
        (lambda: base.bar_chart(["a"], [0], title="", log_y=True), "positive"),
        (lambda: base.bar_chart(["a"], [float("nan")], title=""), "NaN"),
        (lambda: base.line_chart([1, 2], {"a": [1]}, title=""), "one value per x"),
        (lambda: base.line_chart([1, 2], {}, title=""), "series is empty"),
        (lambda: base.heatmap([1, 2], ["a", "b"], ["x"], title=""), "2-D"),
        (lambda: base.heatmap([[1, 2]], ["a"], ["x"], title=""), "x_labels"),
        (lambda: base.heatmap([[1, 2]], ["a", "b"], ["x"], title="", zmin=1, zmax=0), "zmin"),
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

    line = base.hline(0.25, {"dash": "dot"})
    assert (line["xref"], line["x0"], line["x1"], line["y0"], line["y1"]) == (
        "x domain",
        0,
        1,
        0.25,
        0.25,
    )
    assert line["line"] == {"dash": "dot"}
    right = base.hline_label(0.25, "chance")
    left = base.hline_label(0.25, "chance", side="left", anchor="bottom")
    assert (right["x"], right["xanchor"], right["yanchor"], right["y"]) == (1, "right", "top", 0.25)
    assert (left["x"], left["xanchor"], left["yanchor"]) == (0, "left", "bottom")


def test_vmark_adds_a_dotted_full_height_line_and_its_label_left_of_it():
    fig = base.line_chart([1, 10, 100], {"a": [1, 2, 3]}, title="T")
    fig.update_layout(shapes=[base.hline(2, {"dash": "dash"})], annotations=[{"text": "h"}])
    out = base.vmark(fig, 10, "n = 10", font_size=15, legend=dict(x=0.3)).to_dict()["layout"]
    # earlier shapes and notes stay; extra layout goes in the same update
    assert [s["line"]["dash"] for s in out["shapes"]] == ["dash", "dot"]
    assert [a["text"] for a in out["annotations"]] == ["h", "n = 10"]
    assert out["legend"]["x"] == 0.3
    line, note = out["shapes"][1], out["annotations"][1]
    assert (line["x0"], line["x1"], line["yref"], line["y0"], line["y1"]) == (10, 10, "paper", 0, 1)
    assert "width" not in line["line"]  # the template's width unless asked
    assert (note["x"], note["y"], note["xanchor"], note["yanchor"]) == (10, 1, "right", "top")
    assert note["font"]["size"] == 15 and note["showarrow"] is False
    # on a log x axis the label goes in log10 units, the line in data units
    fig = base.line_chart([1, 10, 100], {"a": [1, 2, 3]}, title="T")
    fig.update_xaxes(type="log")
    out = base.vmark(fig, 100, "n", font_size=15, width=2, log_x=True).to_dict()["layout"]
    assert out["shapes"][0]["x0"] == 100 and out["shapes"][0]["line"]["width"] == 2
    assert out["annotations"][0]["x"] == pytest.approx(2.0)
    with pytest.raises(ValueError, match="positive"):
        base.vmark(fig, 0, "n", font_size=15, log_x=True)


@pytest.mark.parametrize("name", ["Cividis", "Viridis", "Blues", "RdBu"])
def test_sample_colors_is_plotlys_sample_colorscale_string_for_string(name):
    from plotly.colors import sample_colorscale

    rng = np.random.default_rng(7)
    # random values, both ends, every stop of the scale and 1,001 evenly spaced points
    stops = base._scale_colors(name)[0].tolist()
    values = np.concatenate([rng.random(5000), [0.0, 1.0, 0.5], stops, np.linspace(0, 1, 1001)])
    assert base.sample_colors(name, values) == sample_colorscale(name, values.tolist())
