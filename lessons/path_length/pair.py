"""Part 2, two words, four paths: the path between two words of a sentence in each
architecture, drawn and counted."""

from __future__ import annotations

import streamlit as st

import ui
from charts import path_length as figures
from core.analysis import path_length as analysis
from core.analysis import receptive_field
from lessons.path_length.common import K_MAX, arch_names, header, kernel_slider
from ui import word_pair

t = ui.t


def show() -> None:
    header("path_length.pair.header")
    pair_section()
    ui.takeaway(t("path_length.pair.takeaway"))
    ui.try_this(t("path_length.pair.try"))


def pair_controls(s) -> tuple[int, tuple[str, ...], int, int]:
    """The sentence, k (folded) and the two words (the slide's control ``s``), read from the
    link and written back: (k, tokens, a, b)."""
    lang = ui.current_lang()
    kind = ui.params.get_choice(
        "sent", receptive_field.SENTENCE_KINDS, default="zh" if lang == "zh" else "en"
    )
    text = ui.params.get_text("text", "", max_len=word_pair.MAX_CHARS)
    k = ui.params.get_int("k", 2, K_MAX, default=3)
    with s.more:
        kind, text = word_pair.sentence_controls(
            "path_length.", kind, text, key="path", clear=("a", "b")
        )
        k = kernel_slider(k)
        tokens, pair, problem = word_pair.sentence_tokens("path_length.", kind, text)
        count = len(tokens)
        if count < 2:
            st.warning(t("path_length.own_short"), icon=":material/edit_off:")
            tokens, pair, _ = word_pair.sentence("zh", "")
            count = len(tokens)
    a = ui.params.get_int("a", 0, count - 1, default=pair[0])
    b = ui.params.get_int("b", 0, count - 1, default=pair[1])
    with s.control:
        a, b = word_pair.pair_selects("path_length.", tokens, a, b, key="path")
    ui.params.set_params(sent=kind, a=a, b=b, k=k)
    if kind == "own":
        ui.params.set_params(text=text)
    return k, tokens, a, b


@ui.fragment  # the sentence, the two words and k rerun only this section
def pair_section() -> None:
    """The paths between two words of a sentence in each architecture."""
    s = ui.slide(t("path_length.pair.lead"))
    k, tokens, a, b = pair_controls(s)
    if a == b:
        with s.chart:
            st.info(t("path_length.same_word"), icon=":material/info:")
        return
    names = arch_names()
    steps = analysis.pair_steps(a, b, k)
    paths = analysis.pair_paths(a, b, k)
    titles = {
        arch: t(f"path_length.panel.{arch}", steps=steps[arch], k=k)
        for arch in analysis.ARCHITECTURES
    }
    with s.chart:
        ui.chart(
            figures.paths_figure(
                tokens,
                paths,
                titles,
                (a, b),
                title=t(
                    "path_length.pair.title", first=tokens[min(a, b)], second=tokens[max(a, b)]
                ),
                layer_title=t("path_length.pair.y"),
                colors={arch: figures.arch_look(arch).color for arch in analysis.ARCHITECTURES},
                presenter=ui.presenter(),
                # a phone's layout where ui.chart fits a phone (not the projector)
                phone=ui.on_a_phone() and not ui.presenter(),
            ),
            key="path_pair_chart",
        )
    with s.words:
        cols = st.columns(len(analysis.ARCHITECTURES))
        for col, arch in zip(cols, analysis.ARCHITECTURES, strict=True):
            col.metric(t("path_length.steps_label", arch=names[arch]), steps[arch])
        st.caption(t("path_length.pair.caption", gap=abs(a - b), k=k))
