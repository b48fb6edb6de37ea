"""What several parts of the autoregressive lesson share: the step player, the text boxes
tied to the URL, the translator choice and token display.

Nothing here keeps state between reruns: values live in the URL and ``st.session_state``,
and the language and presenter flag are read on every call.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import nullcontext

import streamlit as st

import ui
from core import lexicon
from core.corpus import lesson
from core.translate import InputError, prepare
from core.vocab import tokenize_en
from lessons import controls
from ui.models import get_vocabs
from ui.slide import Slide

TRANSLATORS = ("gru_attention", "transformer")
DEFAULT_SOURCE = lesson.CAT_HUNGRY.en
PLAY_DELAY = 0.7  # seconds per step when Play animates


def zh(ids) -> list[str]:
    """Chinese tokens of output ids, special tokens in their one display spelling."""
    _, tv = get_vocabs()
    return lexicon.show_tokens(tv.tokens[i] for i in ids)


# --- the step player --------------------------------------------------------------------------


def _go(param: str, value: int) -> None:
    st.query_params[param] = str(value)


def _play(flag: str) -> None:
    st.session_state[flag] = True


def stepper(param: str, n: int, default: int = 1) -> tuple[int, bool]:
    """Back / Next / Play / Restart over steps 1..n, kept in the URL as ``param``.

    Returns the current step and whether Play was pressed (the caller animates). A browser
    that asks for reduced motion sees "Last step" in Play's place (ui.style: the containers
    ``*_if_motion`` / ``*_if_still``): the same end, without the frames in between.
    """
    t = ui.t
    raw = ui.params.get_int(param, 1, 999, default)
    step = min(max(1, raw), n)  # a run that ends earlier than the link's step: its last step
    flag = f"ar_play_{param}"
    buttons = (  # name, icon, on_click, args, disabled (one of Play and Last is shown)
        ("back", "arrow_back", _go, (param, step - 1), step <= 1),
        ("next", "arrow_forward", _go, (param, step + 1), step >= n),
        ("play", "play_arrow", _play, (flag,), step >= n),
        ("last", "last_page", _go, (param, n), step >= n),
        ("restart", "restart_alt", _go, (param, 1), step <= 1),
    )
    places = {"play": f"ar_{param}_play_if_motion", "last": f"ar_{param}_last_if_still"}
    # one row (not columns: 4 blocks fewer at each click; it wraps on a phone)
    row = st.container(horizontal=True)
    for name, icon, on_click, args, disabled in buttons:
        with row, st.container(key=places[name]) if name in places else nullcontext():
            st.button(
                t(f"autoregressive.step.{name}"),
                key=f"ar_{param}_{name}",
                icon=f":material/{icon}:",
                on_click=on_click,
                args=args,
                disabled=disabled,
                width="stretch",
                type="primary" if name == "next" else "secondary",
            )
    ui.params.set_params(**{param: step})
    return step, bool(st.session_state.pop(flag, False))


def animate(draw: Callable[[int], None], step: int, n: int, param: str) -> None:
    """Play: draw steps ``step``..``n`` in place, one every PLAY_DELAY seconds, then rerun
    with the link at the last step (to redraw the buttons). Does not return."""
    for i in range(step, n + 1):
        draw(i)
        time.sleep(PLAY_DELAY)
    ui.params.set_params(**{param: n})
    st.rerun()


def chart_key(key: str, playing: bool) -> str:
    """A chart's key: fixed (a rerun updates the chart in place), fresh for every frame of
    Play (each frame is a new chart in the same placeholder)."""
    return f"{key}_{time.monotonic_ns()}" if playing else key


# --- text boxes -------------------------------------------------------------------------------


def _on_text(name: str, key: str, resets: tuple[str, ...]) -> None:
    st.query_params[name] = st.session_state[key]
    for r in resets:
        st.query_params.pop(r, None)


def text_param(name: str, default: str, label: str, key: str, resets: tuple[str, ...]) -> str:
    """A text box tied to the URL; an explicitly empty value stays empty (not the default)."""
    raw = st.query_params.get(name)
    value = "" if raw is not None and not raw.strip() else ui.params.get_text(name, default)
    st.session_state[key] = value
    st.text_input(label, key=key, on_change=_on_text, args=(name, key, resets), max_chars=300)
    ui.params.set_params(**{name: value})
    return value


def input_error(err: InputError) -> None:
    """Say why the text cannot be used, in the user's language, naming unknown words."""
    t = ui.t
    if err.reason == "unknown":
        lines = []
        for o in err.unknown:
            word = ui.params.safe_value(o.word)
            if o.suggestions:
                lines.append(
                    t("autoregressive.input.suggest", word=word, options=" / ".join(o.suggestions))
                )
            else:
                lines.append(t("autoregressive.input.no_suggest", word=word))
        st.error(t("autoregressive.input.unknown") + "\n\n" + "\n".join(f"- {x}" for x in lines))
    elif err.reason == "too_long":
        st.error(t("autoregressive.input.too_long", limit=err.limit))
    else:
        st.error(t("autoregressive.input.empty"))


def read_text(
    name: str, default: str, label: str, key: str, resets: tuple[str, ...], errors
) -> list[str] | None:
    """An English text box (in the current container) read as model tokens; ``[]`` for an
    empty text, ``None`` after explaining the problem in ``errors`` (above the controls)."""
    text = text_param(name, default, label, key, resets)
    if not tokenize_en(text):
        return []
    sv, _ = get_vocabs()
    try:
        return prepare(text, sv)
    except InputError as err:
        with errors:
            input_error(err)
        return None


def read_source(
    s: Slide, name: str, default: str, key: str, resets: tuple[str, ...]
) -> list[str] | None:
    """The sentence a translator reads (drawn in ``s.more``): its tokens, or None after
    saying in ``s.chart`` what is wrong (an empty sentence included)."""
    with s.more:
        source = read_text(name, default, ui.t("autoregressive.tr.source"), key, resets, s.chart)
    if not source:
        if source == []:
            with s.chart:
                st.error(ui.t("autoregressive.input.empty"))
        return None
    return source


# --- choices and words --------------------------------------------------------------------------


def pick_translator() -> str:
    """The translation model, tied to the URL parameter ``model``."""
    name = ui.params.get_choice("model", TRANSLATORS, "gru_attention")
    return controls.segmented(
        ui.t("autoregressive.tr.model"),
        TRANSLATORS,
        name,
        param="model",
        key="ar_model",
        format_func=ui.model_name,
    )


def big(text: str) -> None:
    st.markdown(f"### {text}")
