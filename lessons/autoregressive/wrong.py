"""Part ``wrong``: force one plausible wrong word and watch the rest ("一步错步步错"), beside
how often the model recovers from one forced wrong word on held-out sentences.

The part's controls and display are all here; its cached computations (the searched default
slip, the statistic) are the "one wrong step" section of ``lessons.autoregressive.data``.
"""

from __future__ import annotations

import streamlit as st

import ui
from core.analysis import autoregressive as analysis
from core.evaluate import max_output_len
from core.figures import autoregressive as figures
from lessons.autoregressive import data
from lessons.autoregressive.common import (
    DEFAULT_SOURCE,
    k,
    part_end,
    pick_translator,
    read_source,
    zh,
)
from ui.models import get_vocabs, require

t = ui.t


@ui.fragment  # its controls rerun only this part
def show() -> None:
    s = ui.slide(t(k("wrong.lead")))
    with s.more:
        name = pick_translator()
    if not require(name, "gru_attention"):
        return
    seed = data.corpus_seed()
    with s.chart, st.spinner(t(k("wrong.searching"))):
        slip = data.slip("gru_attention", seed)  # the default model's clearest plausible slip
    default = (slip[0], slip[1], slip[2]) if slip else (DEFAULT_SOURCE, 2, "")
    source = read_source(s, "wsrc", default[0], "ar_wsrc", ("fpos", "ftok"))
    if source is None:
        return
    base = data.translate(name, tuple(source))
    fpos, forced, probs = pick_wrong_step(s.control, base, source, default)
    new = data.translate(name, tuple(source), (*base.ids[: fpos - 1], forced))
    with st.spinner(t(k("wrong.stat.spinner"), n=data.WRONG_SAMPLE)):
        res = data.wrong_stats(name, seed)
    model = ui.model_name(name)
    with s.chart:
        left, right = st.columns([5, 4])
        with left:
            show_sentences(base, new, fpos, forced, probs[forced], model)
        with right:
            show_statistic(res, model)
    with s.words:
        if res.n_correct:
            lo, hi = min(res.rest_exact), max(res.rest_exact)
            ui.mixed(t(k("wrong.mixed"), model=model, lo=f"{lo:.0%}", hi=f"{hi:.0%}"))
    part_end("wrong")
    with ui.curious():
        show_method(slip, res, model)


def show_sentences(
    base: analysis.Decoded, new: analysis.Decoded, fpos: int, forced: int, p: float, model: str
) -> None:
    """The model's own output, the output after the forced word (the words that changed
    later marked), and how many later words changed."""
    edits, fresh = analysis.later_changes(base.ids, new.ids, fpos - 1)
    later = max(len(base.ids), len(new.ids)) - fpos
    st.markdown(t(k("wrong.before")))
    st.markdown(figures.sentence_row(zh(base.ids), None))
    st.markdown(t(k("wrong.after")))
    st.markdown(figures.sentence_row(zh(new.ids), fpos - 1, fresh))
    st.markdown(
        t(
            k("wrong.changed"),
            changed=edits,
            later=max(later, 0),
            pos=fpos,
            token=zh([forced])[0],
            p=f"{p:.1%}",
            model=model,
        )
    )


def show_statistic(res: analysis.WrongStepResult, model: str) -> None:
    """How often the rest stays right after one forced wrong word, by position."""
    if res.n_correct == 0:
        st.warning(t(k("wrong.stat.none"), model=model))
        return
    fig = figures.wrong_step_chart(
        res.positions,
        {
            t(k("wrong.stat.exact")): res.rest_exact,
            t(k("wrong.stat.edit")): res.rest_edit,
        },
        title=t(k("wrong.stat.title"), model=model, n=res.n_correct),
        x_title=t(k("wrong.stat.x")),
        y_title=t(k("wrong.stat.y")),
        presenter=ui.presenter(),
    )
    ui.chart(fig, key="ar_wrong_chart", width=0.45)


def show_method(slip: tuple | None, res: analysis.WrongStepResult, model: str) -> None:
    """For the curious: how the default slip was searched and what the statistic sampled."""
    if slip:
        st.markdown(
            t(
                k("wrong.search"),
                threshold=f"{analysis.SLIP_THRESHOLD:.0%}",
                lo=data.SLIP_LENGTHS[0],
                hi=data.SLIP_LENGTHS[1],
                model=ui.model_name("gru_attention"),
                src=slip[0],
                pos=slip[1],
                token=slip[2],
                p=f"{slip[3]:.1%}",
                edits=slip[4],
            )
        )
    st.markdown(
        t(
            k("wrong.stat.caption"),
            sampled=res.n_sentences,
            lo=data.WRONG_LENGTHS[0],
            hi=data.WRONG_LENGTHS[1],
            correct=res.n_correct,
            model=model,
            counts=", ".join(f"{p + 1}: {c}" for p, c in zip(res.positions, res.n)),
        )
    )


# --- where to force a wrong word, and which one --------------------------------------------------


def _on_fpos() -> None:
    st.query_params["fpos"] = str(st.session_state["ar_fpos"])
    st.query_params.pop("ftok", None)  # the alternatives differ at another position


def _on_ftok() -> None:
    st.query_params["ftok"] = zh([st.session_state["ar_ftok"]])[0]


def _linked_step(
    base: analysis.Decoded, source: list[str], default: tuple[str, int, str]
) -> tuple[int, int]:
    """The step and forced word the link asks for (``fpos``, ``ftok``; a bad word falls back
    with a notice), else the searched slip while the sentence is its own, else the first
    alternative: (1-based step, forced id)."""
    _, tv = get_vocabs()
    default_src, default_pos, default_tok = default
    own_default = " ".join(source) == default_src
    fpos = ui.params.get_int(
        "fpos",
        1,
        max_output_len(len(source) + 1),
        default_pos if own_default else min(2, len(base.ids)),
    )
    fpos = min(fpos, len(base.ids))
    options = analysis.alternatives(base, fpos)
    raw_tok = ui.params.get_text("ftok", "", max_len=40) if st.query_params.get("ftok") else ""
    forced = next((i for i in options if tv.tokens[i] == raw_tok), None)
    if raw_tok and forced is None:
        ui.params.notice("ftok", raw_tok, tv.tokens[options[0]])
    if forced is None and own_default:
        forced = next((i for i in options if tv.tokens[i] == default_tok), None)
    return fpos, options[0] if forced is None else forced


def pick_wrong_step(
    control, base: analysis.Decoded, source: list[str], default: tuple[str, int, str]
) -> tuple[int, int, dict[int, float]]:
    """Where to force a wrong word and which one, from the URL (``fpos``, ``ftok``), with two
    pickers drawn in ``control``. ``default`` is the searched slip (sentence, 1-based step,
    word): used while the sentence is its own. Returns (1-based step, forced id, the
    probabilities the model gave its alternatives at that step)."""
    fpos, forced = _linked_step(base, source, default)
    out = zh(base.ids)
    with control:
        c1, c2 = st.columns(2)
        st.session_state["ar_fpos"] = fpos
        fpos = c1.selectbox(
            t(k("wrong.pos")),
            list(range(1, len(base.ids) + 1)),
            format_func=lambda i: f"{i}: {out[i - 1]}",
            key="ar_fpos",
            on_change=_on_fpos,
        )
        options = analysis.alternatives(base, fpos)
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
