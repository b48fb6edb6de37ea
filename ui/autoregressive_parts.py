"""The autoregressive page's controls, written once: the step player, text boxes tied to
the URL, the translator choice, the sampling settings and the forced-word pickers.

Nothing here keeps state between reruns: values live in the URL and ``st.session_state``,
and the language and presenter flag are read on every call.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import streamlit as st

import ui
from core import mdtable as md
from core.analysis import autoregressive as ar
from core.evaluate import max_output_len
from core.translate import InputError, prepare
from core.vocab import tokenize_en
from ui.autoregressive_data import zh
from ui.models import get_vocabs

SLUG = "autoregressive"
TRANSLATORS = ("gru_attention", "transformer")
PLAY_DELAY = 0.7  # seconds per step when Play animates


def k(key: str) -> str:
    return f"{SLUG}.{key}"


# --- the step player --------------------------------------------------------------------------


def _go(param: str, value: int) -> None:
    st.query_params[param] = str(value)


def _play(flag: str) -> None:
    st.session_state[flag] = True


def stepper(param: str, n: int, default: int = 1) -> tuple[int, bool]:
    """Back / Next / Play / Restart over steps 1..n, kept in the URL as ``param``.

    Returns the current step and whether Play was pressed (the caller animates).
    """
    t = ui.t
    raw = ui.params.get_int(param, 1, 999, default)
    step = min(max(1, raw), n)  # a run that ends earlier than the link's step: its last step
    flag = f"ar_play_{param}"
    cols = st.columns(4)
    cols[0].button(
        t(k("step.back")),
        key=f"ar_{param}_back",
        icon=":material/arrow_back:",
        on_click=_go,
        args=(param, step - 1),
        disabled=step <= 1,
        width="stretch",
    )
    cols[1].button(
        t(k("step.next")),
        key=f"ar_{param}_next",
        icon=":material/arrow_forward:",
        on_click=_go,
        args=(param, step + 1),
        disabled=step >= n,
        width="stretch",
        type="primary",
    )
    cols[2].button(
        t(k("step.play")),
        key=f"ar_{param}_play",
        icon=":material/play_arrow:",
        on_click=_play,
        args=(flag,),
        disabled=step >= n,
        width="stretch",
    )
    cols[3].button(
        t(k("step.restart")),
        key=f"ar_{param}_restart",
        icon=":material/restart_alt:",
        on_click=_go,
        args=(param, 1),
        disabled=step <= 1,
        width="stretch",
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
                lines.append(t(k("input.suggest"), word=word, options=" / ".join(o.suggestions)))
            else:
                lines.append(t(k("input.no_suggest"), word=word))
        st.error(t(k("input.unknown")) + "\n\n" + "\n".join(f"- {x}" for x in lines))
    elif err.reason == "too_long":
        st.error(t(k("input.too_long"), limit=err.limit))
    else:
        st.error(t(k("input.empty")))


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


# --- choices ----------------------------------------------------------------------------------


def pick_translator() -> str:
    """The translation model, tied to the URL parameter ``model``."""
    name = ui.params.get_choice("model", TRANSLATORS, "gru_attention")
    name = st.segmented_control(
        ui.t(k("tr.model")),
        TRANSLATORS,
        format_func=ui.model_name,
        required=True,
        **ui.params.bound("model", name, key="ar_model"),
    )
    ui.params.set_params(model=name)
    return name


def sampling_controls() -> tuple[str, float, int, int]:
    """Greedy or sampling, with temperature, top-k and seed (disabled for greedy), each tied
    to its URL parameter. Returns (mode, temperature, top-k, seed)."""
    t = ui.t
    mode = ui.params.get_choice("mode", ar.MODES, "greedy")
    mode = st.segmented_control(
        t(k("lm.mode")),
        ar.MODES,
        format_func=ui.labeler(k("lm.mode.")),
        required=True,
        **ui.params.bound("mode", mode, key="ar_mode"),
    )
    temp = ui.params.get_float("temp", 0.1, 3.0, 1.0)
    topk = ui.params.get_int("topk", 0, 50, 5)
    seed = ui.params.get_int("seed", 0, 9999, 0)
    c1, c2, c3 = st.columns(3)
    off = mode == "greedy"
    temp = c1.slider(
        t(k("lm.temp")),
        0.1,
        3.0,
        step=0.1,
        disabled=off,
        help=t(k("lm.temp_help")),
        **ui.params.bound("temp", temp, key="ar_temp"),
    )
    topk = c2.slider(
        t(k("lm.topk")),
        0,
        50,
        disabled=off,
        help=t(k("lm.topk_help")),
        **ui.params.bound("topk", topk, key="ar_topk"),
    )
    seed = c3.number_input(
        t(k("lm.seed")),
        0,
        9999,
        disabled=off,
        help=t(k("lm.seed_help")),
        **ui.params.bound("seed", seed, key="ar_seed"),
    )
    return mode, temp, topk, seed


def _on_fpos() -> None:
    st.query_params["fpos"] = str(st.session_state["ar_fpos"])
    st.query_params.pop("ftok", None)  # the alternatives differ at another position


def _on_ftok() -> None:
    st.query_params["ftok"] = zh([st.session_state["ar_ftok"]])[0]


def pick_wrong_step(
    control, base: ar.Decoded, source: list[str], default: tuple[str, int, str]
) -> tuple[int, int, dict[int, float]]:
    """Where to force a wrong word and which one, from the URL (``fpos``, ``ftok``), with two
    pickers drawn in ``control``. ``default`` is the searched slip (sentence, 1-based step,
    word): used while the sentence is its own. Returns (1-based step, forced id, the
    probabilities the model gave its alternatives at that step)."""
    t = ui.t
    _, tv = get_vocabs()
    default_src, default_pos, default_tok = default
    n = len(base.ids)
    out = zh(base.ids)
    own_default = " ".join(source) == default_src
    fpos = ui.params.get_int(
        "fpos", 1, max_output_len(len(source) + 1), default_pos if own_default else min(2, n)
    )
    fpos = min(fpos, n)
    options = ar.alternatives(base, fpos)
    raw_tok = ui.params.get_text("ftok", "", max_len=40) if st.query_params.get("ftok") else ""
    forced = next((i for i in options if tv.tokens[i] == raw_tok), None)
    if raw_tok and forced is None:
        ui.params.notice("ftok", raw_tok, tv.tokens[options[0]])
    if forced is None and own_default:
        forced = next((i for i in options if tv.tokens[i] == default_tok), None)
    forced = options[0] if forced is None else forced

    with control:
        c1, c2 = st.columns(2)
        st.session_state["ar_fpos"] = fpos
        fpos = c1.selectbox(
            t(k("wrong.pos")),
            list(range(1, n + 1)),
            format_func=lambda i: f"{i}: {out[i - 1]}",
            key="ar_fpos",
            on_change=_on_fpos,
        )
        options = ar.alternatives(base, fpos)
        if forced not in options:
            forced = options[0]
        probs = dict(zip(base.steps[fpos - 1].top_ids, base.steps[fpos - 1].top_probs))
        st.session_state["ar_ftok"] = forced
        forced = c2.selectbox(
            t(k("wrong.token")),
            options,
            format_func=lambda i: f"{zh([i])[0]} ({probs[i]:.1%})",
            key="ar_ftok",
            on_change=_on_ftok,
        )
    ui.params.set_params(fpos=fpos, ftok=zh([forced])[0])
    return fpos, forced, probs


# --- words ------------------------------------------------------------------------------------


def show_table(header: list[str], rows: list[list[object]]) -> None:
    """A small Markdown table: no pandas on the server, no table bundle in the browser."""
    st.markdown(md.table(header, [[md.escape(cell) for cell in row] for row in rows]))


def big(text: str) -> None:
    st.markdown(f"### {text}")


def part_end(key: str) -> None:
    """The part's takeaway and "try this", in the app's one style."""
    ui.takeaway(ui.t(k(f"{key}.takeaway")))
    ui.try_this(ui.t(k(f"{key}.try")))
