"""Autoregressive generation (lesson 1.2–1.3, 1.6): one token at a time, each fed back in.

Four parts, one idea each: step through a language model; the same for translation with
the attention row of each step; force one plausible wrong word ("一步错步步错", and how often
the model recovers); the serial cost of writing. (Counting n-grams is on the compression
page.)
"""

from __future__ import annotations

import streamlit as st

import ui
from core import lexicon
from core.analysis import autoregressive as ar
from core.figures import autoregressive as figs
from core.figures.autoregressive import marked, sentence_row
from core.vocab import detokenize_zh
from ui import autoregressive_data as data
from ui.autoregressive_data import LM, en, zh
from ui.autoregressive_parts import (
    animate,
    big,
    chart_key,
    k,
    part_end,
    pick_translator,
    pick_wrong_step,
    read_text,
    sampling_controls,
    show_table,
    stepper,
)
from ui.models import get_model, require

SLUG = "autoregressive"
BOS_SHOW = lexicon.show_token("<bos>")  # special tokens in their one display spelling
ui.begin_page(SLUG)
t = ui.t
P = ui.presenter()

PARTS = ("lm", "translate", "wrong", "cost")
DEFAULT_PREFIX = "you should"
DEFAULT_SOURCE = "the cat drank the milk because it was hungry"
TIMING_LENGTHS = (4, 8, 16, 32, 64)

part = ui.part_selector(k(""), PARTS, key="ar_part")


# --- 1. a language model writes one word at a time --------------------------------------------


@ui.fragment  # its controls rerun only this part
def lm_part() -> None:
    s = ui.slide(t(k("lm.lead")))
    if not require(LM):
        return
    with s.more:
        prefix = read_text(
            "prefix", DEFAULT_PREFIX, t(k("lm.prefix")), "ar_prefix", ("step",), s.chart
        )
        if prefix is None:
            return
        if not prefix:
            st.caption(t(k("input.empty_prefix")))
        mode, temp, topk, seed = sampling_controls()
    ui.params.set_params(mode=mode, temp=temp, topk=topk, seed=seed)
    steps = data.lm_run(tuple(prefix), mode, round(float(temp), 2), int(topk), int(seed))
    with s.control:
        step, play = stepper("step", len(steps))
    # Placeholders that Play redraws in place; otherwise plain containers, so a rerun
    # updates the chart instead of replacing the whole block (a remount costs the browser).
    slot = st.empty if play else st.container
    with s.chart:
        view = slot()
    with s.words:
        record = slot()
    model = ui.model_name(LM)

    def draw(n: int) -> None:
        s_ = steps[n - 1]
        chosen = en([s_.chosen])[0]
        read = en(s_.context)
        with view.container():
            tokens = en(s_.top_ids)
            idx = s_.top_ids.index(s_.chosen) if s_.chosen in s_.top_ids else None
            what = t(k(f"lm.dist.{mode}"), temp=f"{temp:.1f}", topk=topk or t(k("lm.all")))
            fig = figs.next_token_bars(
                tokens,
                s_.top_probs,
                idx,
                title=t(k("lm.chart.title"), model=model, context=" ".join(read[-6:])),
                x_title=what,
                y_title=t(k("lm.chart.y"), k=len(tokens)),
                presenter=P,
                color=lexicon.look(LM).color,
            )
            ui.chart(fig, key=chart_key("ar_lm_chart", play))
            big(
                t(k("lm.step_of"), step=n, total=len(steps))
                + " · "
                + marked([*read, chosen], len(prefix) + 1, len(read))
            )
        header = [t(k(f"lm.col.{c}")) for c in ("step", "read", "chose", "p")]
        rows = [
            [i, " ".join(en(r.context)), en([r.chosen])[0], f"{r.chosen_prob:.1%}"]
            for i, r in enumerate(steps[:n], 1)
        ]
        with record.container():
            st.caption(
                t(k("lm.chose"), token=chosen, p=f"{s_.chosen_prob:.1%}")
                + " "
                + t(k(f"lm.caption.{mode}"), seed=seed, model=model)
            )
            st.markdown(f"**{t(k('lm.record'))}**")
            show_table(header, rows)

    if play:
        animate(draw, step, len(steps), "step")  # ends in a rerun
    draw(step)
    part_end("lm")
    expected = data.lm_recorded()
    with ui.curious():
        st.markdown(t(k("lm.curious"), model=model))
        if expected:
            shown = " ".join(lexicon.show_tokens(expected))
            st.markdown(t(k("lm.recorded"), tokens=shown, model=model))


# --- 2. a translator writes the same way, looking back at the source ---------------------------


@ui.fragment  # its controls rerun only this part
def translate_part() -> None:
    s = ui.slide(t(k("tr.lead")))
    with s.more:
        name = pick_translator()
        if not require(name):
            return
        source = read_text("src", DEFAULT_SOURCE, t(k("tr.source")), "ar_src", ("tstep",), s.chart)
    if not source:
        if source == []:
            with s.chart:
                st.error(t(k("input.empty")))
        return
    model = ui.model_name(name)
    color = lexicon.look(name).color
    dec = data.translate(name, tuple(source))
    with s.control:
        step, play = stepper("tstep", len(dec.ids))
    with s.chart:
        view = (st.empty if play else st.container)()  # see lm_part
    src_labels = [*source, lexicon.EOS]

    def draw(n: int) -> None:
        s_ = dec.steps[n - 1]
        out = zh(dec.ids)
        with view.container():
            left, right = st.columns(2)
            with left:
                fig = figs.next_token_bars(
                    zh(s_.top_ids),
                    s_.top_probs,
                    s_.top_ids.index(s_.chosen) if s_.chosen in s_.top_ids else None,
                    title=t(k("tr.chart.title"), model=model, step=n),
                    x_title=t(k("tr.chart.x")),
                    y_title=t(k("tr.chart.y"), k=len(s_.top_ids)),
                    presenter=P,
                    color=color,
                )
                ui.chart(fig, key=chart_key("ar_tr_bars", play), width=0.5)
            with right:
                if dec.attention is not None:
                    fig = figs.attention_row(
                        src_labels,
                        dec.attention[n - 1],
                        title=t(k("tr.attn.title"), model=model, token=out[n - 1]),
                        x_title=t(k("tr.attn.x")),
                        y_title=t(k("tr.attn.y")),
                        presenter=P,
                        color=color,
                    )
                    ui.chart(fig, key=chart_key("ar_tr_attn", play), width=0.5)
                else:
                    st.caption(t(k("tr.no_attention"), model=model))
            big(
                t(k("tr.step_of"), step=n, total=len(dec.ids))
                + " · "
                + marked([BOS_SHOW, *out[:n]], 1, n, sep=" ")
            )

    if play:
        animate(draw, step, len(dec.ids), "tstep")  # ends in a rerun
    draw(step)
    with s.words:
        st.caption(t(k("tr.caption"), model=model))
        text = detokenize_zh(zh(ar.strip_eos(dec.ids))) or "∅"
        st.markdown(t(k("tr.full"), text=text, n=len(dec.ids)))
    part_end("tr")
    with ui.curious():
        st.markdown(t(k("tr.curious")))


# --- 3. one wrong step: force a plausible wrong word and watch the rest ------------------------


@ui.fragment  # its controls rerun only this part
def wrong_part() -> None:
    s = ui.slide(t(k("wrong.lead")))
    with s.more:
        name = pick_translator()
    if not require(name, "gru_attention"):
        return
    seed = data.corpus_seed()
    with s.chart, st.spinner(t(k("wrong.searching"))):
        slip = data.slip("gru_attention", seed)  # the default model's clearest plausible slip
    default = (slip[0], slip[1], slip[2]) if slip else (DEFAULT_SOURCE, 2, "")
    with s.more:
        source = read_text(
            "wsrc", default[0], t(k("tr.source")), "ar_wsrc", ("fpos", "ftok"), s.chart
        )
    if not source:
        if source == []:
            with s.chart:
                st.error(t(k("input.empty")))
        return
    model = ui.model_name(name)
    base = data.translate(name, tuple(source))
    out = zh(base.ids)
    fpos, forced, probs = pick_wrong_step(s.control, base, source, default)
    new = data.translate(name, tuple(source), (*base.ids[: fpos - 1], forced))
    edits, fresh = ar.later_changes(base.ids, new.ids, fpos - 1)
    later = max(len(base.ids), len(new.ids)) - fpos

    with st.spinner(t(k("wrong.stat.spinner"), n=data.WRONG_SAMPLE)):
        res = data.wrong_stats(name, seed)
    with s.chart:
        left, right = st.columns([5, 4])
        with left:
            st.markdown(t(k("wrong.before")))
            st.markdown(sentence_row(out, None))
            st.markdown(t(k("wrong.after")))
            st.markdown(sentence_row(zh(new.ids), fpos - 1, fresh))
            st.markdown(
                t(
                    k("wrong.changed"),
                    changed=edits,
                    later=max(later, 0),
                    pos=fpos,
                    token=zh([forced])[0],
                    p=f"{probs[forced]:.1%}",
                    model=model,
                )
            )
        with right:
            if res.n_correct == 0:
                st.warning(t(k("wrong.stat.none"), model=model))
            else:
                fig = figs.wrong_step_chart(
                    res.positions,
                    {
                        t(k("wrong.stat.exact")): res.rest_exact,
                        t(k("wrong.stat.edit")): res.rest_edit,
                    },
                    title=t(k("wrong.stat.title"), model=model, n=res.n_correct),
                    x_title=t(k("wrong.stat.x")),
                    y_title=t(k("wrong.stat.y")),
                    presenter=P,
                )
                ui.chart(fig, key="ar_wrong_chart", width=0.45)
    with s.words:
        if res.n_correct:
            lo, hi = min(res.rest_exact), max(res.rest_exact)
            ui.mixed(t(k("wrong.mixed"), model=model, lo=f"{lo:.0%}", hi=f"{hi:.0%}"))
    part_end("wrong")
    with ui.curious():
        if slip:
            st.markdown(
                t(
                    k("wrong.search"),
                    threshold=f"{ar.SLIP_THRESHOLD:.0%}",
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


# --- 4. the serial cost: writing n words takes n steps, reading them takes one -----------------


@ui.fragment  # its controls rerun only this part
def cost_part() -> None:
    s = ui.slide(t(k("cost.lead")))
    if not require(LM):
        return
    model = ui.model_name(LM)
    with s.control:
        st.button(t(k("cost.again")), icon=":material/timer:", key="ar_cost_again")
    with s.chart, st.spinner(t(k("cost.spinner"))):
        timing = ar.time_generation(get_model(LM), TIMING_LENGTHS, repeats=5)
    fig = figs.timing_chart(
        timing.lengths,
        {t(k("cost.write")): timing.generate_ms, t(k("cost.read")): timing.read_ms},
        title=t(k("cost.title"), model=model),
        x_title=t(k("cost.x")),
        y_title=t(k("cost.y")),
        presenter=P,
    )
    with s.chart:
        ui.chart(fig, key="ar_cost_chart")
    n_half, n_full = timing.lengths[-2], timing.lengths[-1]
    per_token = timing.generate_ms[-1] / n_full
    with s.words:
        c1, c2, c3 = st.columns(3)
        c1.metric(t(k("cost.per_token")), f"{per_token:.2f} ms")
        c2.metric(
            t(k("cost.ratio"), n=n_full),
            f"{timing.generate_ms[-1] / max(timing.read_ms[-1], 1e-6):.0f}×",
        )
        c3.metric(
            t(k("cost.double"), a=n_half, b=n_full),
            f"{timing.generate_ms[-1] / max(timing.generate_ms[-2], 1e-6):.1f}×",
        )
    part_end("cost")
    with ui.curious():
        st.markdown(t(k("cost.caption"), model=model, repeats=timing.repeats))


PART_VIEWS = {
    "lm": lm_part,
    "translate": translate_part,
    "wrong": wrong_part,
    "cost": cost_part,
}
PART_VIEWS[part]()
