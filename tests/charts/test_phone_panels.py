"""On a phone, figures with panels side by side stack them (each panel full width, the
figure taller, every panel title above its own panel, the legend and notes clear of the
panels), and notes that ran past a narrow plot's edge are placed to fit. Same traces, same
words: only the layout changes."""

from __future__ import annotations

import pytest

from charts import base
from charts import cnn_receptive_field as cnn
from charts import path_length as pl
from charts import rnn_gradients as rg
from charts.common import Titles
from charts.screen.sizes import PHONE_WIDTH

# the plain width of text as plotly's default font draws it (a CJK glyph is square)
_CJK = ("\u2e80", "\u9fff")


def _width(text: str, size: float) -> float:
    return sum(size if _CJK[0] <= ch <= _CJK[1] else 0.56 * size for ch in text)


PANELS = [
    dict(
        title="1 · Alignment",
        x=["I", "love you"],
        series={"equal shares": [0.5, 0.5]},
        kind="bar",
        x_title="I love you → 我爱你",
        y_title="share",
        y_range=[0, 1],
        y_format=".0%",
    ),
    dict(
        title="2 · Fixed-size state",
        x=["1-10", "11-20", "21-30"],
        series={"GRU, C = 256": [0.9, 0.4, 0.0], "GRU + attention": [1.0, 1.0, 0.99]},
        x_title="source length (words)",
        y_title="translated exactly",
        y_format=".0%",
    ),
    dict(
        title="3 · Relation distance: how many hops a signal needs between two words",
        x=[1, 10, 20],
        series={"Recurrent": [1, 10, 20], "Convolution": [1, 5, 10], "Self-attention": [1, 1, 1]},
        x_title="words apart",
        y_title="hops",
    ),
]


def _plot_px(lay: dict) -> float:
    """The plot area's height in px (the figure less its top and bottom margins)."""
    return lay["height"] - lay["margin"]["t"] - lay["margin"]["b"]


def _check_stacked(lay: dict, n: int) -> list[list[float]]:
    """Every panel full width, the y domains one under the other without overlap (panel 0
    on top); returns the y domains top to bottom."""
    xs = [lay["xaxis" + ("" if i == 0 else str(i + 1))]["domain"] for i in range(n)]
    ys = [lay["yaxis" + ("" if i == 0 else str(i + 1))]["domain"] for i in range(n)]
    for lo, hi in xs:
        assert hi - lo >= 0.9, xs
    for upper, lower in zip(ys, ys[1:], strict=False):
        assert lower[1] < upper[0], ys  # a gap between two panels, the lower one below
    assert ys[0][1] == pytest.approx(1) and ys[-1][0] == pytest.approx(0)
    return ys


@pytest.mark.parametrize("presenter", [False, True])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_problems_figure_stacks_its_panels_with_their_titles_above(presenter, n):
    wide = pl.problems_figure(PANELS[:n], title="", presenter=presenter).to_dict()
    tall = pl.problems_figure(PANELS[:n], title="", presenter=presenter, stacked=True).to_dict()
    assert tall["data"] == wide["data"]
    lay = tall["layout"]
    ys = _check_stacked(lay, n)
    anns = lay["annotations"]
    assert len(anns) == n
    px = _plot_px(lay)
    for lo, hi in ys:  # each panel as tall as half a chart at least: the figure grows
        assert (hi - lo) * px >= 0.5 * base.scale(presenter).height
    for c, (ann, panel) in enumerate(zip(anns, PANELS, strict=False)):
        # the same words (wrapped to a phone's width), above its own panel
        assert ann["text"].replace("<br>", " ") == panel["title"]
        assert ann["yanchor"] == "bottom" and ann["y"] == pytest.approx(ys[c][1])
        size = ann["font"]["size"]
        lines = ann["text"].split("<br>")
        assert max(_width(ln, size) for ln in lines) <= PHONE_WIDTH - 90
        if c:  # room between the panel above (its x axis) and this title
            room = (ys[c - 1][0] - ann["y"]) * px - ann.get("yshift", 0)
            assert room >= len(lines) * size * 1.2 + 3 * size
        else:
            assert lay["margin"]["t"] >= len(lines) * size * 1.2 + ann.get("yshift", 0)
    assert "<br>" in anns[-1]["text"] or n < 3  # the long third title is wrapped
    assert lay["legend"]["y"] < 0 and lay["legend"]["yanchor"] == "top"
    assert lay["margin"]["b"] > -lay["legend"]["y"] * px  # the legend inside the figure


def test_accuracy_note_goes_under_the_plot_on_a_phone():
    note = "LSTM / GRU: the same accuracy at every distance (the lines overlap)"
    kw = dict(
        chance=0.1,
        chance_label="chance (1 in 10)",
        titles=Titles("Held-out accuracy<br>400 sequences", "distance", "accuracy"),
        note=note,
    )
    series = {"Plain RNN": [1.0, 0.5, 0.1], "LSTM": [1.0, 1.0, 1.0], "GRU": [1.0, 1.0, 1.0]}
    wide = rg.accuracy_figure([5, 30, 60], series, **kw).to_dict()
    phone = rg.accuracy_figure([5, 30, 60], series, phone=True, **kw).to_dict()
    assert phone["data"] == wide["data"]
    assert phone["layout"]["annotations"][0] == wide["layout"]["annotations"][0]  # chance
    on_plot, below = wide["layout"]["annotations"][1], phone["layout"]["annotations"][1]
    assert on_plot["text"] == note and on_plot["yref"] == "y"  # inside the plot, right
    assert on_plot["xref"] == "x domain" and on_plot["x"] == 1 and on_plot["xanchor"] == "right"
    assert below["text"].replace("<br>", " ") == note  # the same words, wrapped
    lines = below["text"].split("<br>")
    assert len(lines) > 1
    assert max(_width(ln, base.NORMAL.font) for ln in lines) <= PHONE_WIDTH - 90
    # under the plot from its left edge, and the bottom margin holds it
    assert below["yref"] == "paper" and below["y"] == 0 and below["yanchor"] == "top"
    assert below["xref"] == "paper" and below["x"] == 0 and below["xanchor"] == "left"
    margin = phone["layout"]["margin"]
    assert margin["b"] >= -below["yshift"] + len(lines) * base.NORMAL.font * 1.2
    assert margin["t"] == wide["layout"]["margin"]["t"]  # the two-line title keeps its room
    # no note: nothing to place
    kw["note"] = None
    assert (
        rg.accuracy_figure([5, 30, 60], series, phone=True, **kw).to_dict()
        == rg.accuracy_figure([5, 30, 60], series, **kw).to_dict()
    )


@pytest.mark.parametrize(("pair", "anchor"), [((3, 12), "right"), ((0, 2), "left")])
def test_pair_label_ends_at_its_line_toward_the_middle_on_a_phone(pair, anchor):
    tokens = "the autumn cicadas rest in the old trees and the farmer who drinks".split()
    kw = dict(
        titles=Titles("Window", "words", "layer"),
        hover="{layer} {lo} {hi} {width}",
        pair_label="the pair",
    )
    wins = [(6, 6), (5, 7), (4, 8)]
    wide = cnn.window_figure(tokens, wins, pair, **kw).to_dict()
    phone = cnn.window_figure(tokens, wins, pair, phone=True, **kw).to_dict()
    assert phone["data"] == wide["data"] and phone["layout"]["shapes"] == wide["layout"]["shapes"]
    (label,) = phone["layout"]["annotations"]
    assert label["text"] == "the pair" and label["x"] == max(pair)
    # centred on a line near the plot's edge, half the label ran past it
    assert "xanchor" not in wide["layout"]["annotations"][0]
    assert label["xanchor"] == anchor
