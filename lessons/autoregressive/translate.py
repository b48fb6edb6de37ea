"""Part ``translate``: a translator writes the same way, one word a step, looking back at the
source (each step's attention row beside its next-word bars)."""

from __future__ import annotations

import streamlit as st

import ui
from charts import autoregressive as figures
from charts.common import Titles
from charts.screen.sizes import STEP_SLIDE_HEIGHT
from core import lexicon
from core.analysis import autoregressive as analysis
from core.corpus import lesson
from core.vocab import detokenize_zh
from lessons.autoregressive import data
from lessons.autoregressive.common import (
    DEFAULT_SOURCE,
    animate,
    big,
    chart_key,
    pick_translator,
    read_source,
    stepper,
    zh,
)
from ui.models import require

BOS_SHOW = lexicon.show_token("<bos>")  # special tokens in their one display spelling
t = ui.t


@ui.fragment  # its controls rerun only this part
def show() -> None:
    s = ui.slide(t("autoregressive.tr.lead"))
    with s.more:
        name = pick_translator()
        if not require(name):
            return
    source = read_source(s, "src", DEFAULT_SOURCE, "ar_src", ("tstep",))
    if source is None:
        return
    model = ui.model_name(name)
    dec = data.translate(name, tuple(source))
    with s.control:
        step, play = stepper("tstep", len(dec.ids))
    with s.chart:
        view = (st.empty if play else st.container)()  # see lessons.autoregressive.lm

    def draw(n: int) -> None:
        with view.container():
            draw_step(name, dec, [*source, lexicon.EOS], n, play)

    if play:
        animate(draw, step, len(dec.ids), "tstep")  # ends in a rerun
    draw(step)
    with s.words:
        st.caption(t("autoregressive.tr.caption", model=model))
        text = detokenize_zh(zh(analysis.strip_eos(dec.ids))) or "∅"
        st.markdown(t("autoregressive.tr.full", text=text, n=len(dec.ids)))
    ui.takeaway(t("autoregressive.tr.takeaway"))
    ui.try_this(t("autoregressive.tr.try", sentence=lesson.CAT_SWEET.en))
    with ui.curious():
        st.markdown(t("autoregressive.tr.curious"))


def draw_step(name: str, dec: analysis.Decoded, src_labels: list[str], n: int, play: bool):
    """Step ``n``: the next-word bars and the step's attention row, side by side, then the
    output so far with the new word marked."""
    presenter = ui.presenter()
    model = ui.model_name(name)
    step = dec.steps[n - 1]
    out = zh(dec.ids)
    left, right = st.columns(2)
    with left:
        fig = figures.next_token_bars(
            zh(step.top_ids),
            step.top_probs,
            step.top_ids.index(step.chosen) if step.chosen in step.top_ids else None,
            titles=Titles(
                t("autoregressive.tr.chart.title", model=model, step=n),
                t("autoregressive.tr.chart.x"),
                t("autoregressive.tr.chart.y", k=len(step.top_ids)),
            ),
            presenter=presenter,
        )
        ui.chart(fig, key=chart_key("ar_tr_bars", play), width=0.5, height=STEP_SLIDE_HEIGHT)
    with right:
        if dec.attention is not None:
            fig = figures.attention_row(
                src_labels,
                dec.attention[n - 1],
                titles=Titles(
                    t("autoregressive.tr.attn.title", model=model, token=out[n - 1]),
                    t("autoregressive.tr.attn.x"),
                    t("autoregressive.tr.attn.y"),
                ),
                presenter=presenter,
            )
            ui.chart(fig, key=chart_key("ar_tr_attn", play), width=0.5, height=STEP_SLIDE_HEIGHT)
        else:
            st.caption(t("autoregressive.tr.no_attention", model=model))
    big(
        t("autoregressive.tr.step_of", step=n, total=len(dec.ids))
        + " · "
        + figures.marked([BOS_SHOW, *out[:n]], 1, n, sep=" ")
    )
