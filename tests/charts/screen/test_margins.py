"""The margin estimate of charts.screen.margins: plotly's autoMargin arithmetic, the label
widths and tick labels it reads, and what it sets on a figure. (Whether the browser then
keeps those margins is checked in tests/browser/test_chart_margins.py.)"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from charts import base
from charts.screen import margins as cm
from charts.screen.sizes import PHONE_WIDTH


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
    fig = base.heatmap(
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
    fig = base.line_chart([1, 2, 3], series, title="t")
    right = cm.preset(fig, width_px=820)
    fig.update_layout(legend=dict(orientation="h", y=-0.25, yanchor="top", x=0))
    fig.layout.margin = None
    bottom = cm.preset(fig, width_px=820)
    assert right["r"] > cm.text_width("a long series name", 12)
    assert bottom["r"] == 0 and bottom["b"] > right["b"]


def test_preset_keeps_the_figures_own_margins_as_a_floor_and_is_idempotent():
    fig = base.bar_chart(["a", "b"], [0.2, 0.4], title="t")
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


def _word_heatmap(cols: int, rows: int = 11, tickfont: float | None = 14) -> go.Figure:
    words = [f"w{i}" for i in range(cols)]
    xaxis = {"type": "category", "side": "top"}
    if tickfont is not None:
        xaxis["tickfont"] = {"size": tickfont}
    return go.Figure(
        go.Heatmap(z=np.ones((rows, cols)), x=words, y=[f"r{i}" for i in range(rows)]),
        layout={"xaxis": xaxis, "height": 400},
    )


def _plot_width(fig: go.Figure, width_px: float) -> float:
    m = cm.preset(go.Figure(fig), width_px=width_px)
    return width_px - m["l"] - m["r"]


def test_label_every_category_shrinks_labels_to_plotlys_rule():
    fig = _word_heatmap(16)
    room = _plot_width(fig, PHONE_WIDTH) - cm.SLACK
    assert round(1.2 * 14) * 16 > room  # at 14 px plotly would skip some words
    got = cm.label_every_category(fig, width_px=PHONE_WIDTH, smallest=9)
    size = fig.layout.xaxis.tickfont.size
    assert got == {"x": size} and 9 <= size < 14
    # the largest size at which plotly labels all 16 words (its prepTicks: round(1.2 size)
    # px per category), measured on the plot left by the margins of the smaller labels
    assert round(1.2 * size) * 16 <= _plot_width(fig, PHONE_WIDTH) - cm.SLACK
    assert round(1.2 * (size + 1)) * 16 > room
    assert fig.to_dict()["layout"]["xaxis"]["side"] == "top"  # the rest of the axis kept
    # the y axis (11 rows on 400 px) had room: untouched
    assert "y" not in got and fig.layout.yaxis.tickfont.size is None


def test_label_every_category_leaves_what_fits_what_cannot_and_what_is_set():
    # 4 words fit at 14 px: nothing changes
    fig = _word_heatmap(4)
    assert cm.label_every_category(fig, width_px=PHONE_WIDTH, smallest=9) == {}
    assert fig.layout.xaxis.tickfont.size == 14
    # 60 words cannot fit even at the smallest size: plotly keeps thinning them
    fig = _word_heatmap(60)
    assert cm.label_every_category(fig, width_px=PHONE_WIDTH, smallest=9) == {}
    assert fig.layout.xaxis.tickfont.size == 14
    # a size the figure leaves unset is Streamlit's 12 px; 20 words need a smaller one
    fig = _word_heatmap(20, tickfont=None)
    got = cm.label_every_category(fig, width_px=PHONE_WIDTH, smallest=9)
    assert 9 <= got["x"] < cm.TICK_SIZE
    # ticks the figure chose itself, and numbers, are left alone
    fig = _word_heatmap(13)
    fig.update_xaxes(dtick=2)
    assert cm.label_every_category(fig, width_px=PHONE_WIDTH, smallest=9) == {}
    numbers = go.Figure(go.Heatmap(z=np.ones((3, 40)), x=list(range(40))))
    assert cm.label_every_category(numbers, width_px=PHONE_WIDTH, smallest=9) == {}


def test_overlapping_x_labels_turn_as_plotly_turns_them():
    """plotly's autotickangles (0, 30, 90): labels that fit stay flat; overlapping ones turn
    by 30 degrees when the ticks stand >= sqrt(3) x 1.25 line heights apart, else stand up
    (a phone's attention map: 13 words, 13 px apart)."""
    words = [f"word{i}" for i in range(10)]
    wide = cm.text_width("word0", 12) + 4
    assert cm._angle({}, words, 12, 10 * (wide + 1)) == 0.0
    line = 12 * 1.25
    assert cm._angle({}, words, 12, 10 * (3**0.5 * line + 0.5)) == 30.0
    assert cm._angle({}, words, 12, 10 * (3**0.5 * line - 0.5)) == 90.0
    assert cm._angle({"tickangle": -45}, words, 12, 10.0) == -45.0


def _room(fig, width_px: float) -> float:
    """The room a single-panel chart's x title has: twice its axis centre's distance to the
    nearer edge, less the margin wrap_x_titles keeps."""
    m = cm.preset(_copy(fig), width_px=width_px)
    centre = m["l"] + (width_px - m["l"] - m["r"]) / 2
    return 2 * min(centre, width_px - centre) - cm.TITLE_EDGE


def _copy(fig):
    return go.Figure(fig)


@pytest.mark.parametrize(
    "title",
    [
        "Edit-distance accuracy on this 40-word sentence, every model",
        "这句 40 个词的句子上的编辑距离准确率（全部模型）",
    ],
)
def test_a_long_x_title_is_wrapped_to_the_room_it_has_on_a_phone(title):
    """plotly centres an axis title and never wraps it: on a phone the arena's bars' title
    ran past the chart's right edge. Wrapped, every line fits; a short one is left alone."""
    names = [f"GRU, C = {n}" for n in (32, 128, 256)]
    fig = go.Figure(go.Bar(x=[0.2, 0.3, 0.4], y=names, orientation="h"))
    fig.update_layout(xaxis_title=title, height=300)
    room = _room(fig, PHONE_WIDTH)
    assert cm.text_width(title, cm.TITLE_SIZE) > room  # it did run past an edge
    got = cm.wrap_x_titles(fig, width_px=PHONE_WIDTH, smallest=12)
    text = fig.layout.xaxis.title.text
    assert (
        got == ["x"]
        and "<br>" in text
        and text.replace("<br>", "").replace(" ", "") == (title.replace(" ", ""))
    )
    assert cm.text_width(text, cm.TITLE_SIZE) <= room
    assert fig.layout.xaxis.title.font.size is None  # the size is kept: a bottom axis wraps
    short = go.Figure(go.Bar(x=[0.2, 0.3, 0.4], y=names, orientation="h"))
    short.update_layout(xaxis_title="accuracy")
    assert cm.wrap_x_titles(short, width_px=PHONE_WIDTH, smallest=12) == []
    assert short.layout.xaxis.title.text == "accuracy"
    # the wrapped title's second line is room the bottom margin preset sets now makes
    one_line = cm.preset(_copy(fig).update_layout(xaxis_title="x"), width_px=PHONE_WIDTH)
    assert cm.preset(fig, width_px=PHONE_WIDTH)["b"] > one_line["b"]


def test_a_long_x_title_over_another_panel_is_made_smaller_not_taller():
    """A stacked panel's x title (attention's pairs on a phone): a second line would run into
    the panel under it, so the title is made smaller, not under ``smallest``."""
    fig = go.Figure()
    fig.add_trace(go.Bar(x=["a", "b"], y=[1, 2], xaxis="x", yaxis="y"))
    fig.add_trace(go.Bar(x=["a", "b"], y=[1, 2], xaxis="x2", yaxis="y2"))
    long = "English source word (⟨eos⟩ = the end of the sentence)"  # fits at 12 px, not 14
    fig.update_layout(
        yaxis={"domain": [0.6, 1.0]},
        xaxis={"anchor": "y", "title": {"text": long}},
        yaxis2={"domain": [0.1, 0.45]},
        xaxis2={"anchor": "y2", "title": {"text": long}},
        height=600,
    )
    got = cm.wrap_x_titles(fig, width_px=PHONE_WIDTH, smallest=12)
    assert got == ["x", "x2"]
    top, bottom = fig.layout.xaxis.title, fig.layout.xaxis2.title
    assert "<br>" not in top.text and 12 <= top.font.size < cm.TITLE_SIZE
    assert "<br>" in bottom.text and bottom.font.size is None
    # too long even at the smallest size: smallest, and wrapped after all
    fig.update_layout(xaxis_title_text=long + ", as the model reads it", xaxis_title_font_size=None)
    assert cm.wrap_x_titles(fig, width_px=PHONE_WIDTH, smallest=12)
    assert fig.layout.xaxis.title.font.size == 12 and "<br>" in fig.layout.xaxis.title.text
