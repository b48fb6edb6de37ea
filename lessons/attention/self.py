"""Part "self" (lesson 3.1, self-attention): what each word of a sentence reads in the
Transformer's encoder, as a heatmap (one row per reading word) and as BertViz-style lines;
the default view is the one a tested search finds clearest for "it"."""

from __future__ import annotations

import numpy as np
import streamlit as st

import ui
from core.analysis import attention as analysis
from core.figures import attention as figures
from lessons.attention import common, data

t = ui.t  # reads the visitor's language on every call

MODEL = "transformer"  # the encoder whose self-attention is shown


@ui.fragment
def show() -> None:
    s = ui.slide(t("attention.part.self.lead"))
    with s.more:
        tokens = common.sentence_picker(common.EXAMPLES[2], "q")
    if tokens is None:
        return
    run, _ = data.run_model(MODEL, tokens)
    found = data.it_view(MODEL)
    with s.more:
        layer, head = common.layer_head_picker(run, default=(found.shown.layer, found.shown.head))
    with s.control:
        word = common.word_picker(run, tokens, t("attention.self.word"))
    weights = analysis.select_heads(run.enc_self, layer, head)
    with s.chart:
        fig = heatmap(run, weights, word, common.where(MODEL, layer, head, side="enc"))
        ui.chart(fig, key="attention_self_heatmap")
    with s.words:
        st.markdown(caption(run, weights, word))
        ui.chart(lines(run, weights, word), key="attention_self_lines")
    numbers = it_numbers(found)
    if found.separates:
        ui.takeaway(t("attention.self.takeaway_separates", **numbers))
    else:
        ui.mixed(t("attention.self.mixed", **numbers))
        ui.takeaway(t("attention.self.takeaway"))
    ui.try_this(t("attention.self.try"))
    with ui.curious():
        st.caption(t("attention.self.search", **numbers))
    ui.params.set_params(q=" ".join(tokens))


def heatmap(run: analysis.AttentionRun, weights: np.ndarray, word: int, where: str):
    """Every word's self-attention row, the row of ``word`` framed (``where``: which layer
    and head, in words)."""
    return figures.attention_heatmap(
        weights,
        run.source,
        run.source,
        title=t("attention.self.title", where=where),
        x_title=t("attention.self.x"),
        y_title=t("attention.self.y"),
        hover=common.hover(),
        presenter=ui.presenter(),
        highlight_row=word,
    )


def caption(run: analysis.AttentionRun, weights: np.ndarray, word: int) -> str:
    """The three words ``word`` reads most, with their weights."""
    row = weights[word]
    order = np.argsort(-row)[:3]
    top = ", ".join(f"`{run.source[j]}` {row[j]:.2f}" for j in order)
    return t("attention.self.caption", word=run.source[word], top=top)


def lines(run: analysis.AttentionRun, weights: np.ndarray, word: int):
    """The same weights as lines from each reading word to the words it reads."""
    return figures.attention_lines(
        weights,
        run.source,
        title=t("attention.self.lines", word=run.source[word]),
        presenter=ui.presenter(),
        selected=word,
        left_title=t("attention.self.y"),
        right_title=t("attention.self.x"),
    )


def it_numbers(found: analysis.ItChoice) -> dict[str, str]:
    """What the search for the clearest "it" view found, as the texts' arguments."""
    return dict(
        view=common.where(MODEL, found.shown.layer, found.shown.head, side="enc"),
        cat=f"{found.shown.a_right:.2f}",
        milk=f"{found.shown.b_right:.2f}",
        sep=f"{found.best.separation:+.2f}",
        min=f"{analysis.SEPARATION_MIN:.2f}",
    )
