"""Part "sentence" of the model arena, its controls: the sentence's main control (a lesson
sentence, a grammar sentence by length, or typed text) with the grammar sentence's seed, the
reveal buttons of predict mode and "Measure again"."""

from __future__ import annotations

import random

import streamlit as st

import ui
import ui.inputs
from core import corpus
from core.analysis import arena as analysis
from core.corpus import lesson
from core.vocab import Vocab, detokenize_zh
from lessons.arena import data
from ui.params import bound, get_int, set_params

LESSON_LABELS = tuple(" ".join(p.src) for p in corpus.LESSON_PAIRS)
DEFAULT_LESSON = lesson.TRANSLATION_PAIRS.index(lesson.CAT_HUNGRY)  # the lesson's "it"
DEFAULT_TEXT = lesson.CAT_SWEET.en
MAX_SEED = 999_999


def _draw() -> None:
    # a new sentence of the same length; the URL keeps the seed, so the link reproduces it
    st.query_params["seed"] = str(random.randint(0, MAX_SEED))


def seed_row() -> int:
    """The grammar sentence's seed (in the URL) and the button that draws a new one."""
    t = ui.t
    seed = get_int("seed", 0, MAX_SEED, analysis.DEFAULT_SEED)
    with st.container(horizontal=True, vertical_alignment="bottom"):
        seed = st.number_input(
            t("arena.input.seed"),
            0,
            MAX_SEED,
            step=1,
            help=t("arena.input.seed_help"),
            width=180,
            **bound("seed", seed, key="arena_seed"),
        )
        st.button(t("arena.input.draw"), on_click=_draw, icon=":material/casino:")
    set_params(seed=seed)
    return int(seed)


def pick_sentence(
    source: str, seed: int | None, src_vocab: Vocab
) -> tuple[list[str] | None, corpus.Pair | None]:
    """The sentence's main control for ``source`` (a grammar sentence: of ``seed``): the
    tokens (``None`` with a message when it cannot be translated) and the reference, if any."""
    t = ui.t
    reference: corpus.Pair | None = None
    tokens: list[str] | None = None
    if source == "lesson":
        idx = get_int("lesson", 0, len(LESSON_LABELS) - 1, DEFAULT_LESSON)
        idx = st.selectbox(
            t("arena.input.lesson"),
            range(len(LESSON_LABELS)),
            format_func=LESSON_LABELS.__getitem__,
            **bound("lesson", idx, key="arena_lesson"),
        )
        set_params(lesson=idx)
        reference = corpus.LESSON_PAIRS[idx]
        raw_text = LESSON_LABELS[idx]
    elif source == "grammar":
        length = get_int("len", 1, corpus.MAX_LEN, analysis.DEFAULT_LENGTH)
        length = st.slider(
            t("arena.input.length"), 1, corpus.MAX_LEN, **bound("len", length, key="arena_len")
        )
        set_params(len=length)
        reference = data.grammar(int(seed or 0), int(length))
        raw_text = " ".join(reference.src)
    else:
        raw_text, tokens = ui.inputs.sentence_input(
            t("arena.input.text"),
            param="text",
            default=DEFAULT_TEXT,
            key="arena_text",
            src_vocab=src_vocab,
            help=t("arena.input.text_help"),
        )
    if source != "typed":
        # lesson and grammar sentences go through the same check (a word missing from the
        # training vocabulary is named, not silently turned into <unk>)
        tokens = ui.inputs.check(raw_text, src_vocab)
    if tokens is not None and source == "typed":
        reference = analysis.find_reference(tokens)
    if tokens is not None:
        st.markdown(
            t("arena.input.source_line", text=ui.inputs.plain(" ".join(tokens)), n=len(tokens))
        )
        if reference is not None:
            st.markdown(
                t("arena.input.reference", text=ui.inputs.plain(detokenize_zh(reference.tgt)))
            )
        else:
            st.info(t("arena.input.no_reference"), icon=":material/help:")
    return tokens, reference


def _set_reveal(k: int) -> None:
    st.session_state["arena_reveal"] = k
    st.query_params["reveal"] = str(k)


def reveal_row(revealed: int, total: int) -> None:
    """Predict mode: "reveal the next model" and "hide all", with how many are shown."""
    t = ui.t
    with st.container(horizontal=True, vertical_alignment="center"):
        st.button(
            t("arena.reveal_next"),
            on_click=_set_reveal,
            args=(min(revealed + 1, total),),
            disabled=revealed >= total,
            type="primary",
            icon=":material/visibility:",
        )
        st.button(
            t("arena.hide_all"),
            on_click=_set_reveal,
            args=(0,),
            disabled=revealed == 0,
            icon=":material/visibility_off:",
        )
        st.caption(t("arena.predict_note", shown=revealed, total=total))


def remeasure() -> None:
    st.session_state["arena_measure"] = int(st.session_state.get("arena_measure", 0)) + 1
