"""Bars of attention weights: one chart built in one plotly construction (the very figure
the step-by-step calls drew), and panels stacked in one figure: one chart for the browser to
redraw per click."""

from __future__ import annotations

import json

import numpy as np
import plotly.io as pio
import pytest

from charts import attention as F
from charts import base
from charts.common import Titles


def _json(fig) -> dict:
    return json.loads(pio.to_json(fig, validate=False))


def test_bars_ceiling_is_the_dashed_line_add_hline_draws():
    w = np.array([0.1, 0.6, 0.3])
    old = F.weight_bars(list("abc"), w, titles=Titles("T", "X", "Y"))
    old.add_hline(y=np.log2(3), line_dash="dash", line_color="#888888")
    new = F.weight_bars(list("abc"), w, titles=Titles("T", "X", "Y"), ceiling=np.log2(3))
    assert _json(new) == _json(old)


def test_bar_panels_stack_top_to_bottom_each_with_its_title_and_axes():
    a, b = np.array([0.1, 0.7, 0.2]), np.array([0.5, 0.2, 0.3])
    figure = F.bar_panels(
        [
            F.BarPanel(list("abc"), a, title="A", y_title="wa", x_title="xa"),
            F.BarPanel(list("abd"), b, title="B", y_title="wb", highlight=2),
            F.BarPanel(["a", "b", "c/d"], a - b, title="A-B", y_title="d", signed=True),
        ]
    )
    fig = _json(figure)
    lay = fig["layout"]
    assert [(tr["xaxis"], tr["yaxis"]) for tr in fig["data"]] == [
        ("x", "y"),
        ("x2", "y2"),
        ("x3", "y3"),
    ]
    np.testing.assert_allclose(figure.data[2].y, a - b)
    domains = [lay[f"yaxis{n}"]["domain"] for n in ("", "2", "3")]
    for (lo, hi), (lo_next, hi_next) in zip(domains, domains[1:]):
        assert lo_next < hi_next < lo < hi  # each panel under the one before, no overlap
    assert [lay[f"yaxis{n}"]["title"]["text"] for n in ("", "2", "3")] == ["wa", "wb", "d"]
    assert lay["xaxis"]["title"]["text"] == "xa" and lay["xaxis2"]["title"]["text"] == ""
    assert [lay[f"xaxis{n}"]["anchor"] for n in ("", "2", "3")] == ["y", "y2", "y3"]
    assert "matches" not in lay["xaxis2"]  # different words: no shared axis
    titles = lay["annotations"]
    assert [n["text"] for n in titles] == ["<b>A</b>", "<b>B</b>", "<b>A-B</b>"]
    for note, (_, hi) in zip(titles, domains):
        assert note["y"] == pytest.approx(hi) and note["yanchor"] == "bottom"
    s = base.scale(False)
    colors = [tr["marker"]["color"] for tr in fig["data"]]
    mark = base.HIGHLIGHT  # the one highlight colour of every chart
    assert colors[0] == [s.palette[2], mark, s.palette[2]]  # largest
    assert colors[1] == [s.palette[2], s.palette[2], mark]  # highlight=2
    assert colors[2] == [s.palette[2], s.palette[1], s.palette[2]]  # signed: 0.5 > 0
    assert "title" not in lay and lay["margin"]["t"] == 10  # no figure title: no room for one


def test_bar_panels_shared_axis_title_and_legend_over_its_panel():
    sc = np.array([2.0, -1.0, 0.5])
    w = np.exp(sc) / np.exp(sc).sum()
    fig = _json(
        F.bar_panels(
            [
                F.BarPanel(list("abc"), sc, title="", y_title="score"),
                F.BarPanel(
                    list("abc"),
                    w,
                    title="softmax",
                    y_title="weight",
                    reference=w * 0.9,
                    reference_name="used",
                    bars_name="ours",
                ),
            ],
            title="Scores",
            presenter=True,
            share_x=True,
        )
    )
    lay = fig["layout"]
    assert lay["title"]["text"] == "Scores" and lay["title"]["font"]["size"] == 28
    assert lay["xaxis2"]["matches"] == "x"
    used = fig["data"][2]
    assert (used["type"], used["xaxis"], used["yaxis"], used["name"]) == (
        "scatter",
        "x2",
        "y2",
        "used",
    )
    _, top2 = lay["yaxis2"]["domain"]
    assert lay["legend"]["y"] == pytest.approx(top2) and lay["legend"]["yanchor"] == "bottom"
    (note,) = lay["annotations"]  # the first panel has no title of its own
    assert note["text"] == "<b>softmax</b>" and note["y"] > top2  # above its legend
    assert fig["data"][0]["showlegend"] is False and fig["data"][1]["showlegend"] is True


def test_bar_panels_check_their_input():
    with pytest.raises(ValueError, match="panels is empty"):
        F.bar_panels([])
    with pytest.raises(ValueError, match="share_x"):
        F.bar_panels(
            [F.BarPanel(list("ab"), [1, 2], "", ""), F.BarPanel(list("ac"), [1, 2], "", "")],
            share_x=True,
        )
    with pytest.raises(ValueError, match="one label per bar"):
        F.bar_panels([F.BarPanel(list("abc"), [1, 2], "", "")])
    with pytest.raises(ValueError, match="reference"):
        F.bar_panels([F.BarPanel(list("ab"), [1, 2], "", "", reference=[1], reference_name="r")])


def test_bar_words_slant_when_they_would_not_stand_side_by_side_on_a_phone():
    """Six bars of short words stand level; the pair's panels ("transformer" among six bars)
    would run their words into each other in a phone's ~290 px plot: slanted, with the room
    under the panel for them (the next panel's title no longer sits on them). A slide (the
    projector's plot is wider) keeps them level."""
    short = ["they", "tested", "the", "big", "cat", "eos"]
    long_ = ["they", "tested", "the", "power", "transformer", "⟨eos⟩"]
    w = np.array([0.1, 0.1, 0.1, 0.3, 0.3, 0.1])

    def lay(labels, presenter=False):
        panels = [F.BarPanel(labels, w, title=t, y_title="w") for t in "AB"]
        return _json(F.bar_panels(panels, presenter=presenter))["layout"]

    flat, slanted = lay(short), lay(long_)
    assert flat["xaxis"]["tickangle"] == 0 and slanted["xaxis"]["tickangle"] == -45
    assert lay(long_, presenter=True)["xaxis"]["tickangle"] == 0
    # the room under panel A (between its plot and panel B's title) grows for slanted words
    gap = lambda la: (la["yaxis"]["domain"][0] - la["yaxis2"]["domain"][1]) * la["height"]  # noqa: E731
    assert gap(slanted) > gap(flat) + 0.45 * 14 * 10  # ~ its longest word's slanted height
    assert lay(short, presenter=True)["xaxis"]["tickangle"] == 0
    single = _json(F.weight_bars(long_, w, titles=Titles("t", "x", "y")))["layout"]
    assert single["xaxis"]["tickangle"] == -45
    assert (
        _json(F.weight_bars(short, w, titles=Titles("t", "x", "y")))["layout"]["xaxis"]["tickangle"]
        == 0
    )
