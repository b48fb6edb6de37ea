"""The attention figures are built in one plotly construction each (plotly validates every
add_trace / update call separately: a few ms each, on every rerun of a control). These
tests pin that the one-shot figures are the very figures the step-by-step calls drew."""

from __future__ import annotations

import json

import numpy as np
import plotly.io as pio
import pytest

from charts import attention as F
from charts import base

HOVER = {"row": "r", "col": "c", "weight": "w", "sum": "s"}


def _json(fig) -> dict:
    return json.loads(pio.to_json(fig, validate=False))


@pytest.mark.parametrize("presenter", [False, True])
@pytest.mark.parametrize("show_values", [False, True])
def test_heatmap_equals_the_shared_heatmap_with_its_updates(presenter, show_values):
    rng = np.random.default_rng(0)
    z = rng.random((5, 7))
    z /= z.sum(1, keepdims=True)
    x, y = list("abcdefa"), list("vwxyz")  # a repeated word stays its own column
    old = base.heatmap(
        z,
        x,
        y,
        title="T",
        x_title="X",
        y_title="Y",
        presenter=presenter,
        zmin=0.0,
        zmax=1.0,
        show_values=show_values,
    )
    s = base.scale(presenter)
    old.update_layout(
        margin=dict(t=150 if presenter else 110),
        title=dict(yref="container", y=0.99, yanchor="top"),
        # fonts on the figure itself (Streamlit's theme overrides the template's), and on
        # the projector the word axis under the heatmap, away from the title
        font=dict(family=base.FONT_FAMILY, size=s.font),
        height=old.layout.height,
    )
    for axis in (old.layout.xaxis, old.layout.yaxis):
        axis.update(tickfont=dict(size=s.font), title_font=dict(size=s.font + 2))
    if presenter:
        old.update_xaxes(side="bottom")
    old.update_traces(
        customdata=np.repeat(z.sum(1, keepdims=True), 7, axis=1),
        hovertemplate=("r: %{y}<br>c: %{x}<br>w: %{z:.3f}<br>s: %{customdata:.3f}<extra></extra>"),
        colorbar=dict(title=dict(text="w")),
    )
    old.add_shape(
        type="rect",
        xref="x",
        yref="y",
        x0=-0.5,
        x1=6.5,
        y0=1.5,
        y1=2.5,
        line=dict(color=base.HIGHLIGHT, width=s.line + 1),
    )
    new = F.attention_heatmap(
        z,
        x,
        y,
        title="T",
        x_title="X",
        y_title="Y",
        hover=HOVER,
        presenter=presenter,
        highlight_row=2,
        show_values=show_values,
    )
    assert _json(new) == _json(old)


def test_bars_ceiling_is_the_dashed_line_add_hline_draws():
    w = np.array([0.1, 0.6, 0.3])
    old = F.weight_bars(list("abc"), w, title="T", x_title="X", y_title="Y")
    old.add_hline(y=np.log2(3), line_dash="dash", line_color="#888888")
    new = F.weight_bars(list("abc"), w, title="T", x_title="X", y_title="Y", ceiling=np.log2(3))
    assert _json(new) == _json(old)


def test_lines_view_title_broken_for_a_narrow_column_gets_room():
    z = np.full((3, 3), 1 / 3)
    one = F.attention_lines(z, list("abc"), title="one line")
    two = F.attention_lines(z, list("abc"), title="two<br>lines")
    top = base.template_of(False).layout.margin.t
    # room above the plot for the left/right column titles, and more for a broken title
    assert _json(one)["layout"]["margin"]["t"] > top
    assert _json(two)["layout"]["margin"]["t"] > _json(one)["layout"]["margin"]["t"]


# --- figures of several panels: one chart for the browser to redraw per click -----------


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
        title="T",
        x_title="X",
        y_title="Y",
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
        assert axis["tickfont"]["size"] >= base.MIN_PROJECTOR_FONT
    # the rows are at least as tall as their labels; the step slider fits under the chart
    rows_px = lay["height"] - lay["margin"]["t"] - lay["margin"]["b"]
    assert rows_px / 12 >= lay["yaxis"]["tickfont"]["size"]
    assert lay["height"] < base.SLIDE_HEIGHT


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
            title="T",
            x_title="X",
            y_title="Y",
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
    assert base.SLIDE_HEIGHT - 100 <= big["layout"]["height"] <= base.SLIDE_HEIGHT


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
            title="",
            x_title="",
            y_title="",
            row_title="",
            row_y_title="",
            hover={},
        )
    with pytest.raises(ValueError, match="x_labels"):
        _align(z, step=0, x=list("abc"))


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
    single = _json(F.weight_bars(long_, w, title="t", x_title="x", y_title="y"))["layout"]
    assert single["xaxis"]["tickangle"] == -45
    assert (
        _json(F.weight_bars(short, w, title="t", x_title="x", y_title="y"))["layout"]["xaxis"][
            "tickangle"
        ]
        == 0
    )
