"""What the formula and the measurement share: the sentence, the kernel, the word pair and
the followed position, each bound to its URL parameter (``sent``, ``text``, ``k``, ``dil``,
``a``, ``b``, ``pos``), so a choice made in one part holds in the other."""

from __future__ import annotations

import streamlit as st

import ui
from core.analysis import receptive_field as analysis
from ui import word_pair

MAX_DEPTH = 16
KERNELS = (2, 3, 4, 5, 7)
STALE = ("a", "b", "pos", "mpos")  # word positions a new sentence makes meaningless


def sentence_controls() -> tuple[str, str]:
    """The sentence in the link and its widgets (``sent``, ``text``): (kind, own text)."""
    lang = ui.current_lang()
    kind = ui.params.get_choice(
        "sent", analysis.SENTENCE_KINDS, default="zh" if lang == "zh" else "en"
    )
    text = ui.params.get_text("text", "", max_len=word_pair.MAX_CHARS)
    kind, text = word_pair.sentence_controls(
        "cnn_receptive_field.", kind, text, key="cnn_rf", clear=STALE
    )
    ui.params.set_params(sent=kind)
    if kind == "own":
        ui.params.set_params(text=text)
    return kind, text


def kernel_in_link() -> tuple[int, bool]:
    """The kernel size and the dilation switch in the link: (k, dilated)."""
    return ui.params.get_choice("k", KERNELS, default=analysis.DEFAULT_KERNEL), ui.params.get_bool(
        "dil", default=False
    )


def pair_and_position(
    tokens: tuple[str, ...], pair: tuple[int, int], kernel: int, dilated: bool
) -> tuple[int, int, int]:
    """The pair of words and the followed position in the link: (a, b, pos). By default the
    position is the node where the pair's two paths meet (the lesson's top window, C1)."""
    n = len(tokens)
    a = ui.params.get_int("a", 0, n - 1, default=pair[0])
    b = ui.params.get_int("b", 0, n - 1, default=pair[1])
    meet = analysis.meeting_path(a, b, kernel, base=2 if dilated else 1)
    pos = ui.params.get_int("pos", 0, n - 1, default=meet[0][-1] if meet else (a + b) // 2)
    return a, b, pos


def position_select(tokens: tuple[str, ...], pos: int) -> int:
    """The followed position (URL ``pos``), shown by parts 1 and 2."""
    return st.selectbox(
        ui.t("cnn_receptive_field.position"),
        range(len(tokens)),
        format_func=word_pair.word_labeler(tokens),
        **ui.params.bound("pos", pos, key="cnn_rf_pos"),
    )
