"""A sentence and two of its words, for the pages that draw the path between two words
(CNN receptive field, path length).

The sentence is the lesson's Chinese one, its English counterpart from the corpus, or the
user's own text in any script (split into words, not translated). URL parameters: ``sent``
(``zh`` / ``en`` / ``own``), ``text``, ``a`` and ``b`` (the two word positions); i18n keys
under the page's prefix: ``sentence``, ``sentence.<kind>``, ``own_text``,
``own_placeholder``, ``own_empty``, ``own_truncated``, ``own_shown``, ``word_a``, ``word_b``.
The page reads the parameters itself: see :func:`sentence_controls` for the typical use.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import streamlit as st

from core.analysis import receptive_field as rf
from core.corpus.lesson import CAT_HUNGRY
from ui import params
from ui.i18n import labeler, t

MAX_CHARS = 300  # characters of an own sentence (box and URL)


@st.cache_data(show_spinner=False, max_entries=256)  # keyed on the visitor's text
def sentence(kind: str, text: str) -> tuple[tuple[str, ...], tuple[int, int], str]:
    """``rf.choose_sentence``, cached: (tokens, default pair, problem code)."""
    return rf.choose_sentence(kind, text)


def _write_and_clear(name: str, key: str, clear: Sequence[str], flag: str | None = None) -> None:
    """A new sentence: its own default pair (stale word positions would mislead)."""
    st.query_params[name] = st.session_state[key]
    for stale in clear:
        if stale in st.query_params:
            del st.query_params[stale]
    if flag:
        st.session_state[flag] = True


def sentence_controls(
    prefix: str,
    kind: str,
    text: str,
    *,
    key: str,
    clear: Sequence[str],
    flag: str | None = None,
) -> tuple[str, str]:
    """The sentence choice and, for an own sentence, its text box (widget keys
    ``{key}_sent`` and ``{key}_text``). Changing either removes the URL parameters
    ``clear`` and, if given, sets ``st.session_state[flag]`` (a fragment that shows these
    controls but is not the only reader of the sentence reruns the page when it finds it
    set). Returns the (kind, text) shown.

    Typical use, each step where the page shows it::

        kind = ui.params.get_choice("sent", rf.SENTENCE_KINDS, default="en")
        text = ui.params.get_text("text", "", max_len=word_pair.MAX_CHARS)
        with ui.secondary():
            kind, text = word_pair.sentence_controls(P, kind, text, key="x", clear=("a", "b"))
        tokens, pair, problem = word_pair.sentence_tokens(P, kind, text)
        a = ui.params.get_int("a", 0, len(tokens) - 1, default=pair[0])
        b = ui.params.get_int("b", 0, len(tokens) - 1, default=pair[1])
        a, b = word_pair.pair_selects(P, tokens, a, b, key="x")
        ui.params.set_params(sent=kind, a=a, b=b)
    """
    kw = params.bound("sent", kind, key=f"{key}_sent")
    kw.update(on_change=_write_and_clear, args=("sent", f"{key}_sent", tuple(clear), flag))
    kind = st.segmented_control(
        t(prefix + "sentence"),
        rf.SENTENCE_KINDS,
        format_func=labeler(prefix + "sentence."),
        required=True,
        **kw,
    )
    if kind == "own":
        kw = params.bound("text", text, key=f"{key}_text")
        kw.update(on_change=_write_and_clear, args=("text", f"{key}_text", tuple(clear), flag))
        text = st.text_input(
            t(prefix + "own_text"),
            max_chars=MAX_CHARS,
            placeholder=t(prefix + "own_placeholder", example=CAT_HUNGRY.en),
            **kw,
        )
    return kind, text


def sentence_tokens(
    prefix: str, kind: str, text: str
) -> tuple[tuple[str, ...], tuple[int, int], str]:
    """The words to draw, the default pair and the problem code (see ``sentence``); an
    empty or cut own sentence is explained, and an own sentence is echoed as read."""
    tokens, pair, problem = sentence(kind, text if kind == "own" else "")
    if problem == "empty":
        st.warning(t(prefix + "own_empty"), icon=":material/edit_off:")
    elif problem == "truncated":
        st.info(t(prefix + "own_truncated", limit=rf.MAX_TOKENS), icon=":material/content_cut:")
    if kind == "own" and problem != "empty":
        st.caption(t(prefix + "own_shown", words=params.safe_value(" ".join(tokens))))
    return tokens, pair, problem


def word_labeler(tokens: Sequence[str]) -> Callable[[int], str]:
    """A ``format_func`` for a word position: ``"3 · cat"``."""
    return lambda i: f"{i + 1} · {tokens[i]}"


def pair_selects(
    prefix: str, tokens: Sequence[str], a: int, b: int, *, key: str
) -> tuple[int, int]:
    """Two word pickers side by side (widget keys ``{key}_a`` and ``{key}_b``)."""
    word_label = word_labeler(tokens)
    c1, c2 = st.columns(2)
    with c1:
        a = st.selectbox(
            t(prefix + "word_a"),
            range(len(tokens)),
            format_func=word_label,
            **params.bound("a", a, key=f"{key}_a"),
        )
    with c2:
        b = st.selectbox(
            t(prefix + "word_b"),
            range(len(tokens)),
            format_func=word_label,
            **params.bound("b", b, key=f"{key}_b"),
        )
    return a, b
