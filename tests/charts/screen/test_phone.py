"""charts.screen.phone: a figure fitted to a phone's narrow screen."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from charts import base
from charts.screen.phone import fit_phone, take_title
from charts.screen.sizes import MIN_PHONE_FONT, PHONE_BAR, PHONE_BAR_PAD, PHONE_WIDTH


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
    assert take_title(fig) == plain
    lay = fig.to_dict()["layout"]
    assert not lay["title"].get("text") and 10 <= lay["margin"]["t"] < 100
    assert take_title(fig) == ""  # nothing left to take

    zh = "第 1 步：写出“老师”时用到的权重"
    long = "Step 1: the weights the decoder used to write the word " + "very " * 12
    fig = make_subplots(rows=3, cols=1, subplot_titles=(zh, "short", long))
    for ann in fig.layout.annotations:
        ann.update(font=dict(size=16), yanchor="bottom")
    fit_phone(fig)
    anns = fig.to_dict()["layout"]["annotations"]
    assert MIN_PHONE_FONT <= anns[0]["font"]["size"] < 16 and "<br>" not in anns[0]["text"]
    assert anns[1]["font"]["size"] == 16 and anns[1]["text"] == "short"
    assert anns[2]["font"]["size"] == MIN_PHONE_FONT and "<br>" in anns[2]["text"]
    # subplot titles are centred: their lines stay centred; a title anchored on the panel's
    # left edge (charts.attention's panels) gets its wrapped lines from that edge
    assert "align" not in anns[2]
    fig = make_subplots(rows=2, cols=1)
    fig.add_annotation(text=long, x=0, xref="paper", xanchor="left", y=1, yref="paper",
                       yanchor="bottom", showarrow=False, font=dict(size=16))  # fmt: skip
    fit_phone(fig)
    (ann,) = fig.to_dict()["layout"]["annotations"]
    assert "<br>" in ann["text"] and ann["align"] == "left"


def test_on_a_phone_a_right_legend_lies_above_the_plot_and_colour_bars_are_thin():
    """A legend right of the plot took 200-290 px of a phone's 360 (the bottleneck's
    probe curves were drawn 3 px wide, measured in Chromium at 390x844): on a phone it lies
    above the plot in rows, and the margins are set for it there; colour bars are thin. A
    legend the figure placed elsewhere, and a laptop's figure, are left alone."""
    from charts.screen import margins

    names = [f"GRU + attention, model {i}" for i in range(6)]
    fig = base.line_chart(list(range(10)), {n: list(range(10)) for n in names}, title="t")
    wide = fig.to_dict()["layout"]
    before = margins.preset(go.Figure(fig), width_px=PHONE_WIDTH)
    assert PHONE_WIDTH - before["l"] - before["r"] < 150  # the sliver it was
    fit_phone(fig)
    legend = fig.to_dict()["layout"]["legend"]
    placed = (legend["orientation"], legend["x"], legend["y"], legend["yanchor"])
    assert placed == ("h", 0.0, 1.02, "bottom")
    after = margins.preset(fig, width_px=PHONE_WIDTH)
    assert PHONE_WIDTH - after["l"] - after["r"] > 250
    assert after["t"] > before["t"]  # the rows of the legend above the plot
    assert wide.get("legend", {}).get("orientation") is None  # the laptop's figure: as it was

    below = base.line_chart([1, 2], {"a": [1, 2], "b": [2, 1]}, title="t")
    below.update_layout(legend=dict(orientation="h", y=-0.3))
    fit_phone(below)
    assert below.to_dict()["layout"]["legend"]["y"] == -0.3

    heat = base.heatmap(np.ones((3, 4)), list("abcd"), list("xyz"), title="t")
    fit_phone(heat)
    bar = heat.to_dict()["data"][0]["colorbar"]
    assert bar["thickness"] == PHONE_BAR and bar["xpad"] == PHONE_BAR_PAD
