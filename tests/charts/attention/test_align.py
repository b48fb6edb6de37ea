"""The align part's figure: the heatmap with the step's row framed and that row as bars
under it, one chart for the browser to redraw per click (the heatmap alone on a slide)."""

from __future__ import annotations

import json

import numpy as np
import plotly.io as pio
import pytest

from charts import attention as F
from charts import base
from charts.common import Titles
from charts.screen import sizes

HOVER = {"row": "r", "col": "c", "weight": "w", "sum": "s"}


def _json(fig) -> dict:
    return json.loads(pio.to_json(fig, validate=False))


def _weights(rows: int, cols: int, seed: int = 0) -> np.ndarray:
    z = np.random.default_rng(seed).random((rows, cols))
    return z / z.sum(1, keepdims=True)


def _align(z, step=2, presenter=False, show_values=False, x=None):
    rows, cols = z.shape
    return F.alignment_figure(
        z,
        x or [f"w{j}" for j in range(cols)],
        [f"{i + 1} o{i}" for i in range(rows)],
        step=step,
        titles=Titles("T", "X", "Y"),
        row_title="Step 3",
        row_y_title="W",
        hover=HOVER,
        presenter=presenter,
        show_values=show_values,
    )


def test_alignment_figure_on_a_slide_is_the_heatmap_every_row_and_word_labelled():
    z = _weights(12, 13)
    fig = _json(_align(z, step=1, presenter=True, x=[f"word{j}" for j in range(13)]))
    (heat,) = fig["data"]
    lay = fig["layout"]
    assert heat["type"] == "heatmap" and len(lay["shapes"]) == 1  # the step's row framed
    for axis in (lay["xaxis"], lay["yaxis"]):  # every category labelled, projector size
        assert (axis["tickmode"], axis["dtick"], axis["type"]) == ("linear", 1, "category")
        assert axis["tickfont"]["size"] >= sizes.MIN_PROJECTOR_FONT
    # the rows are at least as tall as their labels; the step slider fits under the chart
    rows_px = lay["height"] - lay["margin"]["t"] - lay["margin"]["b"]
    assert rows_px / 12 >= lay["yaxis"]["tickfont"]["size"]
    assert lay["height"] < sizes.SLIDE_HEIGHT


def test_a_long_sentence_on_a_slide_labels_every_kth_row_and_keeps_its_row_visible():
    # 41 steps of a 45-word source (a long-range sentence): every label at the smallest
    # projector size would stack; the frame as thick as usual would cover the thin row
    z = _weights(41, 45)
    lay = _json(_align(z, step=37, presenter=True))["layout"]
    rows_px = lay["height"] - lay["margin"]["t"] - lay["margin"]["b"]
    y = lay["yaxis"]
    assert y["dtick"] > 1 and y["tickfont"]["size"] >= sizes.MIN_PROJECTOR_FONT
    assert rows_px / 41 * y["dtick"] >= y["tickfont"]["size"]  # labels never stack
    (frame,) = lay["shapes"]
    assert frame["line"]["width"] <= max(1.0, rows_px / 41 / 3)
    assert (frame["y0"], frame["y1"]) == (36.5, 37.5)


def test_alignment_figure_heatmap_on_top_and_the_framed_row_as_bars_under_it():
    presenter = False
    z = _weights(5, 7)
    x = list("abcdefa")  # a repeated word stays its own column, and its own bar
    figure = _align(z, step=2, presenter=presenter, x=x)
    fig = _json(figure)
    heat, bars = fig["data"]
    lay = fig["layout"]
    assert (heat["type"], bars["type"]) == ("heatmap", "bar")
    assert (heat.get("xaxis", "x"), heat.get("yaxis", "y")) == ("x", "y")
    assert (bars["xaxis"], bars["yaxis"]) == ("x2", "y2")
    # one source-word axis: the same categories, and the bars' axis follows the heatmap's
    assert bars["x"] == heat["x"] and len(set(heat["x"])) == 7
    assert lay["xaxis2"]["matches"] == "x" and lay["xaxis2"]["type"] == "category"
    assert lay["xaxis"]["side"] == "top" and lay["yaxis"]["autorange"] == "reversed"
    # on the projector the words are read once, under the bars (the same columns)
    assert lay["xaxis"]["showticklabels"] is (not presenter)
    # the heatmap above the bars, neither overlapping, each with its own y title
    (hb, ht), (bb, bt) = lay["yaxis"]["domain"], lay["yaxis2"]["domain"]
    assert 0.0 <= bb < bt < hb < ht <= 1.0
    assert ht - hb > bt - bb  # the heatmap is the larger panel
    # axis titles on a laptop; on the projector the slide's title and the row's say it all
    want = ("", "W", "") if presenter else ("Y", "W", "X")
    titles = (lay["yaxis"]["title"]["text"], lay["yaxis2"]["title"]["text"])
    assert (*titles, lay["xaxis"]["title"]["text"]) == want and lay["title"]["text"] == "T"
    # the frame on the step's row, the bars are that row, the largest in the frame's colour
    (frame,) = lay["shapes"]
    assert (frame["xref"], frame["yref"]) == ("x", "y")
    assert (frame["y0"], frame["y1"]) == (1.5, 2.5) and (frame["x0"], frame["x1"]) == (-0.5, 6.5)
    np.testing.assert_allclose(figure.data[1].y, z[2])
    top = int(np.argmax(z[2]))
    colors = bars["marker"]["color"]
    assert colors[top] == frame["line"]["color"] and len(set(colors)) == 2
    # the row's title sits just above the bars; the colour bar beside the heatmap only
    (note,) = lay["annotations"]
    assert "Step 3" in note["text"] and note["y"] == pytest.approx(bt)
    bar = heat["colorbar"]
    assert bar["y"] == pytest.approx((hb + ht) / 2) and bar["len"] == pytest.approx(ht - hb)
    assert "z" in heat["hovertemplate"] and "customdata" in heat["hovertemplate"]
    assert "%{y:.3f}" in bars["hovertemplate"]
    # the sizes of the scale in use, set on the figure (Streamlit's theme overrides the template)
    s = base.scale(presenter)
    assert lay["title"]["font"]["size"] == s.title and lay["font"]["size"] == s.font
    assert lay["xaxis2"]["tickfont"]["size"] == s.font


def test_alignment_figure_keeps_the_heatmap_and_grows_with_the_scale():
    z = _weights(9, 10)
    alone = _json(
        F.attention_heatmap(
            z,
            [f"w{j}" for j in range(10)],
            [f"{i + 1} o{i}" for i in range(9)],
            titles=Titles("T", "X", "Y"),
            hover=HOVER,
            highlight_row=2,
            show_values=True,
        )
    )
    both = _json(_align(z, step=2, show_values=True))
    heat = dict(both["data"][0])
    heat["colorbar"] = {"title": {"text": heat["colorbar"]["title"]["text"]}}
    assert heat == alone["data"][0]  # the same heatmap trace, values toggle included
    assert both["layout"]["shapes"] == alone["layout"]["shapes"]
    assert both["layout"]["height"] > alone["layout"]["height"]  # the bars add their room
    big = _json(_align(z, step=2, presenter=True))
    # on the projector the figure is one slide with its step slider: nearly a slide's height
    assert sizes.SLIDE_HEIGHT - 100 <= big["layout"]["height"] <= sizes.SLIDE_HEIGHT


def test_alignment_figure_checks_its_input():
    z = _weights(3, 4)
    with pytest.raises(ValueError, match="step 3 is outside 0..2"):
        _align(z, step=3)
    with pytest.raises(ValueError, match="hover"):
        F.alignment_figure(
            z,
            list("abcd"),
            list("xyz"),
            step=0,
            titles=Titles("", "", ""),
            row_title="",
            row_y_title="",
            hover={},
        )
    with pytest.raises(ValueError, match="x_labels"):
        _align(z, step=0, x=list("abc"))
