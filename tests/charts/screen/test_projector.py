"""charts.screen.projector: any figure made readable on the projector, whoever built it."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from charts import base
from charts.common import Titles
from charts.screen.projector import fit_projector
from charts.screen.sizes import (
    MIN_PROJECTOR_FONT,
    PROJECTOR_FRAME_PX,
    PROJECTOR_WIDTH,
    SLIDE_HEIGHT,
)
from charts.screen.text import rough_width


def _font_sizes(node, key: str = "") -> list[float]:
    """Every font size in a figure dict (under any key ending in "font")."""
    out: list[float] = []
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "size" and key.endswith("font") and isinstance(v, (int, float)):
                out.append(v)
            else:
                out += _font_sizes(v, k)
    elif isinstance(node, list):
        for v in node:
            out += _font_sizes(v, key)
    return out


def test_fit_projector_raises_every_font_and_caps_height():
    fig = base.heatmap(np.eye(40), list(range(40)), list(range(40)), title="x", presenter=False)
    fig.update_layout(annotations=[dict(text="note", font=dict(size=9))], height=900)
    fig.update_xaxes(tickfont=dict(size=8))
    fit_projector(fig)
    d = fig.to_dict()
    d["layout"].pop("template")  # the laptop template: every size it sets is overridden
    sizes = _font_sizes(d["layout"]) + _font_sizes(d["data"])
    assert sizes and min(sizes) >= MIN_PROJECTOR_FONT
    assert d["layout"]["xaxis"]["tickfont"]["size"] == MIN_PROJECTOR_FONT  # was 8
    assert d["layout"]["yaxis"]["tickfont"]["size"] == base.PRESENTER.font  # was unset
    assert d["layout"]["height"] == SLIDE_HEIGHT


def test_fit_projector_wraps_stacked_y_titles_to_their_own_axes():
    """Bottleneck's part 1 on a projector, in Chinese: two stacked subplots whose y titles
    ran into each other. Each title now fits its own axis and half the gap to the next."""
    from charts.bottleneck import latent_figure
    from charts.screen.text import text_width

    states = np.linspace(-1, 1, 5 * 256).reshape(5, 256)
    fig = latent_figure(
        states,
        ["<bos>", "you", "should", "wear", "shoes"],
        ["the", "will", "wear", "shoes", "<eos>"],
        [0.41, 0.13, 0.95, 0.86, 0.43],
        titles=Titles(
            "GRU 语言模型：每个词后的状态 h_t 及其对下一个词的首选",
            "刚读入的词",
            "h_t 的单元（1–256）",
        ),
        bar_title="最可能的词",
        presenter=True,
    )
    fit_projector(fig)
    lay = fig.to_dict()["layout"]
    plot = lay["height"] - PROJECTOR_FRAME_PX
    spans = []
    for name in ("yaxis", "yaxis2"):
        title = lay[name]["title"]
        lines = title["text"].split("<br>")
        longest = max(text_width(line, title["font"]["size"]) for line in lines)
        lo, hi = lay[name]["domain"]
        mid = plot * (lo + hi) / 2
        spans.append((mid - longest / 2, mid + longest / 2))
    assert "<br>" in lay["yaxis"]["title"]["text"]  # the long one is wrapped
    assert lay["yaxis2"]["title"]["text"] == "最可能的词"  # the short one fits as it is
    (lo2, hi2), (lo1, hi1) = sorted(spans)
    assert hi2 <= lo1, spans  # the two titles no longer overlap
    # a figure with one axis keeps a title that fits
    fig = base.line_chart([1, 2], {"a": [1, 2]}, title="t", y_title="exact match")
    fit_projector(fig)
    assert fig.layout.yaxis.title.text == "exact match"


def test_fit_projector_wraps_a_long_title_and_keeps_a_top_legend_under_it():
    title = "Exact match by source length for every translation model of the zoo, greedy"
    fig = base.line_chart([1, 2], {"a": [1, 2], "b": [2, 1], "c": [1, 1]}, title=title)
    fig.update_layout(legend=dict(orientation="h", y=1.15))
    fit_projector(fig, width=0.5)
    lay = fig.to_dict()["layout"]
    lines = lay["title"]["text"].split("<br>")
    assert len(lines) >= 2 and " ".join(lines) == title
    size = lay["title"]["font"]["size"]
    limit = PROJECTOR_WIDTH * 0.5 - 40
    assert all(rough_width(line, size) <= limit for line in lines[:-1])
    # the legend sits on the plot's top edge; the title stands on it, pushed up by a gap as
    # tall as the legend's row, and plotly's automargin gives the title's lines their room
    assert lay["legend"]["y"] == 1.0 and lay["legend"]["yanchor"] == "bottom"
    assert lay["title"]["yanchor"] == "bottom" and lay["title"]["automargin"] is True
    assert lay["title"]["pad"]["b"] >= lay["legend"]["font"]["size"] * 1.5


def test_fit_projector_keeps_the_title_clear_of_top_ticks_and_subplot_titles():
    from plotly.subplots import make_subplots

    fig = base.heatmap(np.eye(3), list("abc"), list("xyz"), title="a heatmap", presenter=True)
    assert fig.layout.xaxis.side == "top"
    fit_projector(fig)
    assert fig.to_dict()["layout"]["xaxis"]["side"] == "bottom"  # ticks no longer under it

    fig = make_subplots(rows=1, cols=2, subplot_titles=("left panel", "right panel"))
    fig.update_layout(title_text="two panels")
    fit_projector(fig)
    lay = fig.to_dict()["layout"]
    size = lay["annotations"][0]["font"]["size"]
    assert lay["title"]["pad"]["b"] >= size * 1.4  # the title stands above the panel titles


def test_fit_projector_spreads_the_fixed_steps_of_stacked_panels_capped_to_a_slide():
    """Four stacked panels built 1,100 px tall (path_length's two words, four paths), each
    axis with a fixed step: capped to a slide, each axis's labels stand at least 1.3 font
    sizes apart, a step of 1, 2 or 5 times a power of ten, and a roomy axis keeps its own."""
    layout = {"height": 1100}
    tops = [1, 1, 13, 3]
    edge = 1.0
    for i, top in enumerate(tops, start=1):
        share = 0.6 * (top + 1.5) / sum(t + 1.5 for t in tops)
        layout[f"yaxis{i if i > 1 else ''}"] = dict(
            domain=[edge - share, edge], range=[-0.5, top + 0.5], tickmode="linear", dtick=1
        )
        edge -= share + 0.1
    layout["yaxis5"] = dict(domain=[0, 0.05], range=[0, 100], dtick=0.5, type="log")
    fig = go.Figure(layout=layout)
    fit_projector(fig)
    lay = fig.to_dict()["layout"]
    plot = lay["height"] - PROJECTOR_FRAME_PX
    for name in ("yaxis", "yaxis2", "yaxis3", "yaxis4"):
        axis = lay[name]
        lo, hi = axis["domain"]
        apart = axis["dtick"] * plot * (hi - lo) / (axis["range"][1] - axis["range"][0])
        assert apart >= 1.3 * axis["tickfont"]["size"], (name, axis["dtick"], apart)
        mantissa = axis["dtick"] / 10 ** np.floor(np.log10(axis["dtick"]))
        assert round(mantissa, 6) in (1, 2, 5), (name, axis["dtick"])
    assert lay["yaxis5"]["dtick"] == 0.5  # a log axis's steps mean something else

    roomy = go.Figure(layout=dict(yaxis=dict(range=[0, 4], dtick=1)))
    fit_projector(roomy)
    assert roomy.layout.yaxis.dtick == 1

    open_end = go.Figure(layout=dict(yaxis=dict(range=[-0.6, None], dtick=1), height=900))
    fit_projector(open_end)  # plotly chooses the top: nothing to measure, nothing changed
    assert open_end.layout.yaxis.dtick == 1
