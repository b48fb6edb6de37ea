"""charts.base: one template for both modes, input checks that say how to fix the call."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import plotly.graph_objects as go
import pytest

from charts import base
from tests.conftest import ROOT


def test_presenter_scale_is_bigger_and_colour_blind_safe():
    n, p = base.scale(False), base.scale(True)
    assert p.font > n.font and p.title > n.title and p.line > n.line
    assert p.palette == base.OKABE_ITO
    tpl = base.template_of(True)
    assert tpl.layout.font.size == p.font
    assert "Noto Sans CJK SC" in tpl.layout.font.family
    assert list(tpl.layout.colorway) == list(base.OKABE_ITO)


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


# --- the projector -------------------------------------------------------------------------


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
    base.fit_projector(fig)
    d = fig.to_dict()
    d["layout"].pop("template")  # the laptop template: every size it sets is overridden
    sizes = _font_sizes(d["layout"]) + _font_sizes(d["data"])
    assert sizes and min(sizes) >= base.MIN_PROJECTOR_FONT
    assert d["layout"]["xaxis"]["tickfont"]["size"] == base.MIN_PROJECTOR_FONT  # was 8
    assert d["layout"]["yaxis"]["tickfont"]["size"] == base.PRESENTER.font  # was unset
    assert d["layout"]["height"] == base.SLIDE_HEIGHT


def test_fit_projector_wraps_stacked_y_titles_to_their_own_axes():
    """Bottleneck's part 1 on a projector, in Chinese: two stacked subplots whose y titles
    ran into each other. Each title now fits its own axis and half the gap to the next."""
    from charts.bottleneck import latent_figure
    from charts.margins import text_width

    states = np.linspace(-1, 1, 5 * 256).reshape(5, 256)
    fig = latent_figure(
        states,
        ["<bos>", "you", "should", "wear", "shoes"],
        ["the", "will", "wear", "shoes", "<eos>"],
        [0.41, 0.13, 0.95, 0.86, 0.43],
        title="GRU 语言模型：每个词后的状态 h_t 及其对下一个词的首选",
        x_title="刚读入的词",
        y_title="h_t 的单元（1–256）",
        bar_title="最可能的词",
        presenter=True,
    )
    base.fit_projector(fig)
    lay = fig.to_dict()["layout"]
    plot = lay["height"] - base.PROJECTOR_FRAME_PX
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
    base.fit_projector(fig)
    assert fig.layout.yaxis.title.text == "exact match"


def test_fit_projector_wraps_a_long_title_and_keeps_a_top_legend_under_it():
    title = "Exact match by source length for every translation model of the zoo, greedy"
    fig = base.line_chart([1, 2], {"a": [1, 2], "b": [2, 1], "c": [1, 1]}, title=title)
    fig.update_layout(legend=dict(orientation="h", y=1.15))
    base.fit_projector(fig, width=0.5)
    lay = fig.to_dict()["layout"]
    lines = lay["title"]["text"].split("<br>")
    assert len(lines) >= 2 and " ".join(lines) == title
    size = lay["title"]["font"]["size"]
    limit = base.PROJECTOR_WIDTH * 0.5 - 40
    assert all(base._text_width(line, size) <= limit for line in lines[:-1])
    # the legend sits on the plot's top edge; the title stands on it, pushed up by a gap as
    # tall as the legend's row, and plotly's automargin gives the title's lines their room
    assert lay["legend"]["y"] == 1.0 and lay["legend"]["yanchor"] == "bottom"
    assert lay["title"]["yanchor"] == "bottom" and lay["title"]["automargin"] is True
    assert lay["title"]["pad"]["b"] >= lay["legend"]["font"]["size"] * 1.5


def test_wrap_breaks_chinese_anywhere_and_latin_at_spaces():
    zh = base.wrap("编码器把整句话压进一个固定长度的向量长句子装不下", 20, 200)
    assert (
        "<br>" in zh
        and zh.replace("<br>", "") == "编码器把整句话压进一个固定长度的向量长句子装不下"
    )
    en = base.wrap("one two three four five six seven", 20, 120)
    assert all(" " not in (w[:1] + w[-1:]) for w in en.split("<br>"))
    assert en.replace("<br>", " ") == "one two three four five six seven"
    assert base.wrap("short", 20, 500) == "short"


def test_wrap_never_leaves_chinese_brackets_or_commas_at_the_wrong_end_of_a_line():
    text = "h_t 的单元（1–256）与句子，长句子。好（很好）"
    for width in range(40, 400, 7):
        lines = base.wrap(text, 24, width).split("<br>")
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")
        assert not any(line[-1:] in "（《“" for line in lines), (width, lines)
        assert not any(line[:1] in "）》”，。" for line in lines), (width, lines)


def test_fit_projector_keeps_the_title_clear_of_top_ticks_and_subplot_titles():
    from plotly.subplots import make_subplots

    fig = base.heatmap(np.eye(3), list("abc"), list("xyz"), title="a heatmap", presenter=True)
    assert fig.layout.xaxis.side == "top"
    base.fit_projector(fig)
    assert fig.to_dict()["layout"]["xaxis"]["side"] == "bottom"  # ticks no longer under it

    fig = make_subplots(rows=1, cols=2, subplot_titles=("left panel", "right panel"))
    fig.update_layout(title_text="two panels")
    base.fit_projector(fig)
    lay = fig.to_dict()["layout"]
    size = lay["annotations"][0]["font"]["size"]
    assert lay["title"]["pad"]["b"] >= size * 1.4  # the title stands above the panel titles


def test_on_a_phone_the_title_leaves_the_figure_and_panel_titles_fit():
    """At 390 px plotly cut a long title and ran it over the legend at the top: on a phone
    the page shows the title as text above the chart (``take_title``: plain text, the
    figure's title row given back); a long panel title is made smaller to fit the phone,
    not under MIN_PHONE_FONT, and wrapped only if that is not enough."""
    from plotly.subplots import make_subplots

    title = "Weight of each key for the query <b>'it'</b>,<br>three score functions &amp; more"
    fig = base.line_chart([1, 2], {"a": [1, 2], "b": [2, 1]}, title=title)
    fig.update_layout(margin=dict(t=100))
    plain = "Weight of each key for the query 'it', three score functions & more"
    assert base.take_title(fig) == plain
    lay = fig.to_dict()["layout"]
    assert not lay["title"].get("text") and 10 <= lay["margin"]["t"] < 100
    assert base.take_title(fig) == ""  # nothing left to take

    zh = "第 1 步：写出“老师”时用到的权重"
    long = "Step 1: the weights the decoder used to write the word " + "very " * 12
    fig = make_subplots(rows=3, cols=1, subplot_titles=(zh, "short", long))
    for ann in fig.layout.annotations:
        ann.update(font=dict(size=16), yanchor="bottom")
    base.fit_phone(fig)
    anns = fig.to_dict()["layout"]["annotations"]
    assert base.MIN_PHONE_FONT <= anns[0]["font"]["size"] < 16 and "<br>" not in anns[0]["text"]
    assert anns[1]["font"]["size"] == 16 and anns[1]["text"] == "short"
    assert anns[2]["font"]["size"] == base.MIN_PHONE_FONT and "<br>" in anns[2]["text"]
    # subplot titles are centred: their lines stay centred; a title anchored on the panel's
    # left edge (charts.attention's panels) gets its wrapped lines from that edge
    assert "align" not in anns[2]
    fig = make_subplots(rows=2, cols=1)
    fig.add_annotation(text=long, x=0, xref="paper", xanchor="left", y=1, yref="paper",
                       yanchor="bottom", showarrow=False, font=dict(size=16))  # fmt: skip
    base.fit_phone(fig)
    (ann,) = fig.to_dict()["layout"]["annotations"]
    assert "<br>" in ann["text"] and ann["align"] == "left"


def test_on_a_phone_a_right_legend_lies_above_the_plot_and_colour_bars_are_thin():
    """A legend right of the plot took 200-290 px of a phone's 360 (the bottleneck's
    probe curves were drawn 3 px wide, measured in Chromium at 390x844): on a phone it lies
    above the plot in rows, and the margins are set for it there; colour bars are thin. A
    legend the figure placed elsewhere, and a laptop's figure, are left alone."""
    from charts import margins

    names = [f"GRU + attention, model {i}" for i in range(6)]
    fig = base.line_chart(list(range(10)), {n: list(range(10)) for n in names}, title="t")
    wide = fig.to_dict()["layout"]
    before = margins.preset(go.Figure(fig), width_px=base.PHONE_WIDTH)
    assert base.PHONE_WIDTH - before["l"] - before["r"] < 150  # the sliver it was
    base.fit_phone(fig)
    legend = fig.to_dict()["layout"]["legend"]
    placed = (legend["orientation"], legend["x"], legend["y"], legend["yanchor"])
    assert placed == ("h", 0.0, 1.02, "bottom")
    after = margins.preset(fig, width_px=base.PHONE_WIDTH)
    assert base.PHONE_WIDTH - after["l"] - after["r"] > 250
    assert after["t"] > before["t"]  # the rows of the legend above the plot
    assert wide.get("legend", {}).get("orientation") is None  # the laptop's figure: as it was

    below = base.line_chart([1, 2], {"a": [1, 2], "b": [2, 1]}, title="t")
    below.update_layout(legend=dict(orientation="h", y=-0.3))
    base.fit_phone(below)
    assert below.to_dict()["layout"]["legend"]["y"] == -0.3

    heat = base.heatmap(np.ones((3, 4)), list("abcd"), list("xyz"), title="t")
    base.fit_phone(heat)
    bar = heat.to_dict()["data"][0]["colorbar"]
    assert bar["thickness"] == base.PHONE_BAR and bar["xpad"] == base.PHONE_BAR_PAD


@pytest.mark.parametrize("name", ["Cividis", "Viridis", "Blues", "RdBu"])
def test_sample_colors_is_plotlys_sample_colorscale_string_for_string(name):
    from plotly.colors import sample_colorscale

    rng = np.random.default_rng(7)
    # random values, both ends, every stop of the scale and 1,001 evenly spaced points
    stops = base._scale_colors(name)[0].tolist()
    values = np.concatenate([rng.random(5000), [0.0, 1.0, 0.5], stops, np.linspace(0, 1, 1001)])
    assert base.sample_colors(name, values) == sample_colorscale(name, values.tolist())
