"""Part ``wrong``: force one plausible wrong word and watch the rest ("一步错步步错"), beside
how many later words one forced slip changes, per model, on grammatical test sentences.

The part's controls and display are all here; its computations (the searched default slip,
the forced-slip study) are background jobs in the "one wrong step" section of
``lessons.autoregressive.data``, started when the part opens.
"""

from __future__ import annotations

import inspect

import streamlit as st

import ui
from charts import autoregressive as figures
from charts.common import Titles
from core.analysis import autoregressive as analysis
from core.analysis import slips
from core.corpus import lesson
from core.evaluate import max_output_len
from core.lexicon import EOS
from lessons import controls
from lessons.autoregressive import data
from lessons.autoregressive.common import read_source, zh
from ui.models import get_vocabs, require

t = ui.t
# the sentence view's models: the translators, and the language model on the lesson's example
PICKABLE = ("gru_plain_256", "gru_attention", "transformer", data.LM)
STUDY = (*data.SLIP_LMS, *data.SLIP_TRANSLATORS)  # the chart's models, in its legend order
ATTENTION = "gru_attention"  # the model the words compare the plain GRU with


@ui.fragment  # its controls rerun only this part
def show() -> None:
    s = ui.slide(t("autoregressive.wrong.lead"))
    if not require(*STUDY):
        return
    seed = data.corpus_seed()
    data.slip_table_job(seed)  # both jobs start now, beside the page
    data.default_slip_job(seed)
    with s.more:
        name = pick_model()
    if name == data.LM:
        slip = None
        draw_sentences = lm_view(s)
    else:
        with s.chart, st.spinner(t("autoregressive.wrong.searching")):
            slip = data.default_slip(seed)  # the plain GRU's clearest plausible slip
        if slip is None:  # the shipped plain GRU always has one (zoo test); a retrain may not
            st.warning(t("autoregressive.wrong.noslip", model=ui.model_name(data.SLIP_MODEL)))
            return
        draw_sentences = translation_view(s, name, slip)
    if draw_sentences is None:
        return
    with s.chart:
        left, right = st.columns([2, 3])
        with left:
            draw_sentences()
        with right, st.spinner(t("autoregressive.wrong.stat.spinner", n=data.SLIP_SAMPLE)):
            table = data.slip_table(seed)
            show_distribution(table)
    with s.words:
        say_where_it_carries(table)
    ui.takeaway(t("autoregressive.wrong.takeaway"))
    ui.try_this(t("autoregressive.wrong.try"))
    with ui.curious():
        show_method(slip, table)


def translation_view(s, name: str, slip: slips.DefaultSlip):
    """A translation model's slip: the sentence (the searched default unless the link gives
    another), where and which word to force, in ``s``'s controls; returns what draws the two
    outputs, or None after saying what is wrong with the sentence."""
    source = read_source(s, "wsrc", slip.text, "ar_wsrc", ("fpos", "ftok"))
    if source is None:
        return None
    base = data.translate(name, tuple(source))
    fpos, forced, probs = pick_wrong_step(s.control, base, source, slip)
    new = data.translate(name, tuple(source), (*base.ids[: fpos - 1], forced))
    return lambda: show_sentences(base, new, fpos, forced, probs[forced], ui.model_name(name))


def lm_view(s):
    """The language model on the lesson's own example: it reads "you should" and writes
    "wear shoes"; a word is forced in place of "wear" ("buy" unless the link picks another of
    the words it considered) and it writes on by itself. Returns what draws the outputs."""
    prompt = lesson.AUTOREGRESSION_PROMPT.split()
    own = data.lm_slip(tuple(prompt), data.LM_FORCED)  # its own course, and "buy" forced
    options = [data.LM_FORCED, *(w for w in own.considered if w != data.LM_FORCED)]
    word = ui.params.get_choice("lmword", options, data.LM_FORCED)
    with s.control:
        word = st.selectbox(
            t("autoregressive.wrong.lm_word", word=own.own_words[0]),
            options,
            **ui.params.bound("lmword", word, key="ar_lmword"),
        )
    ui.params.set_params(lmword=word)
    slip = own if word == data.LM_FORCED else data.lm_slip(tuple(prompt), word)
    return lambda: show_lm_sentences(prompt, slip)


def show_lm_sentences(prompt: list[str], slip) -> None:
    """The language model's own words after the lesson's prompt, its words after the forced
    one (the new later words marked), and how far it drifted."""
    n = len(prompt)
    st.markdown(t("autoregressive.wrong.lm_before", prompt=" ".join(prompt)))
    st.markdown(figures.sentence_row([*prompt, *slip.own_words], None))
    st.markdown(t("autoregressive.wrong.after"))
    st.markdown(
        figures.sentence_row(
            [*prompt, *slip.forced_words], n + slip.result.pos, [n + i for i in slip.result.new]
        )
    )
    r = slip.result
    st.markdown(
        t(
            "autoregressive.wrong.lm_changed",
            model=ui.model_name(data.LM),
            token=slip.forced_words[r.pos],
            own=slip.own_words[r.pos],
            p=f"{r.word_prob:.2%}",
            changed=r.edits,
            later=r.later,
            share=f"{r.changed_share:.0%}",
            follow=slip.own_words[r.pos + 1] if len(slip.own_words) > r.pos + 1 else EOS,
            p_own=f"{r.next_own:.0%}",
            p_forced=f"{r.next_forced:.0%}",
        )
    )


def pick_model() -> str:
    """The model whose output is shown, tied to the URL parameter ``wmodel``."""
    name = ui.params.get_choice("wmodel", PICKABLE, data.SLIP_MODEL)
    return controls.segmented(
        t("autoregressive.wrong.model"),
        PICKABLE,
        name,
        param="wmodel",
        key="ar_wmodel",
        format_func=ui.model_name,
    )


def show_sentences(
    base: analysis.Decoded, new: analysis.Decoded, fpos: int, forced: int, p: float, model: str
) -> None:
    """The model's own output, the output after the forced word (the words that changed
    later marked), and how many later words changed."""
    edits, fresh = analysis.later_changes(base.ids, new.ids, fpos - 1)
    later = len(analysis.strip_eos(base.ids)) - fpos  # its own words after the forced one
    st.markdown(t("autoregressive.wrong.before"))
    st.markdown(figures.sentence_row(zh(base.ids), None))
    st.markdown(t("autoregressive.wrong.after"))
    st.markdown(figures.sentence_row(zh(new.ids), fpos - 1, fresh))
    st.markdown(
        t(
            "autoregressive.wrong.changed",
            changed=edits,
            later=max(later, 0),
            pos=fpos,
            token=zh([forced])[0],
            p=f"{p:.1%}",
            model=model,
        )
    )


def show_distribution(table: dict[str, dict]) -> None:
    """How many later words one forced slip changed: one line per model."""
    names = {ui.model_name(m): m for m in STUDY}
    fig = figures.slip_distribution(
        {n: table[m]["histogram"] for n, m in names.items()},
        names,
        titles=Titles(
            t("autoregressive.wrong.stat.title"),
            t("autoregressive.wrong.stat.x"),
            t("autoregressive.wrong.stat.y"),
        ),
        presenter=ui.presenter(),
    )
    ui.chart(fig, key="ar_wrong_chart", width=0.6)


def say_where_it_carries(table: dict[str, dict]) -> None:
    """The chart in words, from the study's numbers: where a slip carries, where models
    recover, and why (the mixed evidence said as such)."""
    lm, plain, att = table[data.SLIP_LMS[0]], table[data.SLIP_MODEL], table[ATTENTION]
    ui.mixed(
        t(
            "autoregressive.wrong.mixed",
            lm=ui.model_name(data.SLIP_LMS[0]),
            lm_derailed=f"{lm['derailed']:.0%}",
            plain=ui.model_name(data.SLIP_MODEL),
            plain_recovered=f"{plain['recovered']:.0%}",
            plain_derailed=f"{plain['derailed']:.0%}",
            att=ui.model_name(ATTENTION),
            att_recovered=f"{att['recovered']:.0%}",
            att_derailed=f"{att['derailed']:.0%}",
        )
    )


def show_method(slip: slips.DefaultSlip | None, table: dict[str, dict]) -> None:
    """For the curious: how the default slip was searched (``None``: the language model's
    view, which has no search), what the study sampled, and the study's numbers per model."""
    if slip is not None:
        say_search(slip)
    lo, hi = (inspect.signature(slips.grammatical).parameters[p].default for p in ("lo", "hi"))
    prompt, most = (
        inspect.signature(slips.lm_slips).parameters[p].default for p in ("prompt", "max_new")
    )
    lm = ui.model_name(data.SLIP_LMS[0])
    st.markdown(
        t(
            "autoregressive.wrong.stat.caption",
            n=data.SLIP_SAMPLE,
            pos=data.SLIP_POS + 1,
            lo=lo,
            hi=hi,
            lm=lm,
            prompt=prompt,
            most=most,
        )
    )
    head = [
        t(f"autoregressive.wrong.table.{c}")
        for c in ("model", "n", "recovered", "derailed", "mean")
    ]
    rows = [
        [
            ui.model_name(m),
            str(table[m]["n"]),
            f"{table[m]['recovered']:.0%}",
            f"{table[m]['derailed']:.0%}",
            f"{table[m]['mean_edits']:.1f}",
        ]
        for m in STUDY
    ]
    lines = ["| " + " | ".join(r) + " |" for r in [head, ["---"] * len(head), *rows]]
    st.markdown("\n".join(lines))


def say_search(slip: slips.DefaultSlip) -> None:
    """How the default translation slip was searched, and what it found."""
    st.markdown(
        t(
            "autoregressive.wrong.search",
            threshold=f"{analysis.SLIP_THRESHOLD:.0%}",
            lo=data.SLIP_LENGTHS[0],
            hi=data.SLIP_LENGTHS[1],
            model=ui.model_name(data.SLIP_MODEL),
            src=slip.text,
            pos=slip.pos + 1,
            token=slip.word,
            p=f"{slip.prob:.1%}",
            edits=slip.edits,
            rest=slip.rest,
        )
    )


# --- where to force a wrong word, and which one --------------------------------------------------


def _on_fpos() -> None:
    st.query_params["fpos"] = str(st.session_state["ar_fpos"])
    st.query_params.pop("ftok", None)  # the alternatives differ at another position


def _on_ftok() -> None:
    st.query_params["ftok"] = zh([st.session_state["ar_ftok"]])[0]


def _linked_step(
    base: analysis.Decoded, source: list[str], default: slips.DefaultSlip
) -> tuple[int, int]:
    """The step and forced word the link asks for (``fpos``, ``ftok``; a bad word falls back
    with a notice), else the searched slip while the sentence is its own, else the first
    alternative: (1-based step, forced id)."""
    _, tv = get_vocabs()
    default_src, default_pos, default_tok = default.text, default.pos + 1, default.word
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
    control, base: analysis.Decoded, source: list[str], default: slips.DefaultSlip
) -> tuple[int, int, dict[int, float]]:
    """Where to force a wrong word and which one, from the URL (``fpos``, ``ftok``), with two
    pickers drawn in ``control``. ``default`` is the searched slip: its step and word are
    used while the sentence is its own. Returns (1-based step, forced id, the
    probabilities the model gave its alternatives at that step)."""
    fpos, forced = _linked_step(base, source, default)
    out = zh(base.ids)
    with control:
        c1, c2 = st.columns(2)
        st.session_state["ar_fpos"] = fpos
        fpos = c1.selectbox(
            t("autoregressive.wrong.pos"),
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
            t("autoregressive.wrong.token"),
            options,
            format_func=lambda i: f"{zh([i])[0]} ({probs[i]:.1%})",
            key="ar_ftok",
            on_change=_on_ftok,
        )
    ui.params.set_params(fpos=fpos, ftok=zh([forced])[0])
    return fpos, forced, probs
