"""``t()``: the catalogue text of a key in the language of the current session."""

from __future__ import annotations

import streamlit as st

from core import lexicon
from core.i18n import DEFAULT_LANG, LANGS, translate

LANG_KEY = "ui_lang_value"  # canonical language of this session, set by the shell each run
PRESENT_KEY = "ui_present_value"  # canonical presenter flag of this session
PATH_KEY = "ui_path_value"  # the deck's path this session walks ("class" or "full")


def current_lang() -> str:
    """``"en"`` or ``"zh"``: the language the shell resolved for this run."""
    lang = st.session_state.get(LANG_KEY, DEFAULT_LANG)
    return lang if lang in LANGS else DEFAULT_LANG


def presenter() -> bool:
    """Whether classroom presenter mode is on for this run."""
    return bool(st.session_state.get(PRESENT_KEY, False))


def deck_path() -> str:
    """``"class"`` or ``"full"``: the path through the deck the shell resolved for this run
    (``ui.nav.PATHS``)."""
    path = st.session_state.get(PATH_KEY, "class")
    return path if path in ("class", "full") else "class"


def t(key: str, **fmt: object) -> str:
    """Translate ``key`` into the session's language (``fmt`` fills ``{placeholders}``)."""
    return translate(key, current_lang(), **fmt)


def labeler(prefix: str):
    """A ``format_func`` for widgets: option ``k`` -> ``t(prefix + k)``.

    The language is fixed when the widget is made, so the function also works when
    Streamlit (or AppTest) calls it outside the script run.
    """
    lang = current_lang()
    return lambda option: translate(f"{prefix}{option}", lang)


def model_name(model: str) -> str:
    """The one display name of a model or probe, in the session's language."""
    return lexicon.name(model, current_lang())
