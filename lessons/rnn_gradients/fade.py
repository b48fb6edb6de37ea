"""Part 1, early words fade in a plain RNN: a sentence modelled on the lesson's cicada
sentence, read by two trained translation encoders without attention, a plain tanh RNN and a
GRU, ‖∂C/∂e_j‖ per word; then the same measurement by distance over long test sentences, as
evidence."""

from __future__ import annotations

import numpy as np
import streamlit as st

import ui
from charts import rnn_gradients as figures
from charts.common import Titles
from core.analysis import influence
from lessons.rnn_gradients import data
from lessons.rnn_gradients.common import names
from serve import jobs
from ui.models import require

t = ui.t
FAR = 30  # words back: where the evidence's caption reads the curves


@ui.fragment
def show() -> None:
    st.header(t("rnn_gradients.fade.header"))
    s = ui.slide(t("rnn_gradients.fade.lead"))
    if not require(data.FADING, data.GATED, vocabs=True):
        return
    data.fade_job()  # started when the part opens
    with st.spinner(t("rnn_gradients.computing")):
        result = jobs.result_of(data.fade_job)
    cmp, evidence, middle = result["compare"], result["evidence"], result["middle"]
    rnn, gru = cmp.curves[data.FADING], cmp.curves[data.GATED]
    looks = names((data.FADING, data.GATED))
    with s.chart:
        ui.chart(
            figures.fade_words_figure(
                rnn["tokens"],
                {ui.model_name(m): cmp.curves[m]["influence"] for m in (data.FADING, data.GATED)},
                titles=Titles(
                    t("rnn_gradients.fade.chart"),
                    t("rnn_gradients.fade.x"),
                    t("rnn_gradients.fade.y"),
                ),
                presenter=ui.presenter(),
                looks=looks,
            ),
            key="rnng_fade",
        )
    with s.words:
        st.caption(t("rnn_gradients.fade.caption", **sentence_numbers(rnn, gru)))
    ui.takeaway(t("rnn_gradients.fade.takeaway"))
    ui.try_this(t("rnn_gradients.try.fade"))
    evidence_section(evidence, middle, looks)
    with ui.curious():
        st.markdown(t("rnn_gradients.fade.curious", **choice_numbers(cmp)))


def sentence_numbers(rnn: dict, gru: dict) -> dict:
    """The caption's numbers for the default sentence, from the two curves."""
    return {
        "rnn": ui.model_name(data.FADING),
        "gru": ui.model_name(data.GATED),
        "rnn_ratio": f"{rnn['ratio']:.2f}",
        "gru_ratio": f"{gru['ratio']:.2f}",
    }


def evidence_numbers(evidence: dict, middle: influence.FadeEvidence) -> dict:
    """The evidence caption's numbers: median fade, the influence 30+ words back, and the
    plain RNN's median fade on shorter sentences (``middle``)."""
    rnn, gru = evidence[data.FADING], evidence[data.GATED]
    far = min(FAR, rnn.curve.size - 1)
    _, lo, hi = influence.FADE_MIDDLE
    return {
        "mid_words": f"{lo}–{hi}",
        "mid_n": middle.n,
        "rnn_fade_mid": f"{middle.median_fade:.1f}",
        "n": rnn.n,
        "words": data.MIN_WORDS,
        "rnn_fade": f"{rnn.median_fade:.1f}",
        "gru_fade": f"{gru.median_fade:.1f}",
        "far": far,
        "rnn_far": f"{float(np.max(rnn.curve[far:])):.2f}",
        "gru_far": f"{float(np.min(gru.curve[far:])):.2f}",
    }


def evidence_section(evidence: dict, middle: influence.FadeEvidence, looks: dict) -> None:
    """The curve by distance over long test sentences, with its numbers."""
    rnn = evidence[data.FADING]
    st.subheader(t("rnn_gradients.fade.evidence_header"))
    ui.chart(
        figures.decay_figure(
            np.arange(rnn.curve.size),
            {ui.model_name(m): evidence[m].curve for m in (data.FADING, data.GATED)},
            titles=Titles(
                t("rnn_gradients.fade.evidence_chart", n=rnn.n, words=data.MIN_WORDS),
                t("rnn_gradients.fade.evidence_x"),
                t("rnn_gradients.fade.evidence_y"),
            ),
            presenter=ui.presenter(),
            looks=looks,
        ),
        key="rnng_fade_distance",
    )
    st.caption(t("rnn_gradients.fade.evidence_caption", **evidence_numbers(evidence, middle)))


def choice_numbers(cmp) -> dict:
    """How the default sentence was chosen: each model's verdicts over the candidates."""
    rnn, gru = cmp.choices[data.FADING], cmp.choices[data.GATED]
    return {
        "n": len(rnn.ratios),
        "k_rnn": sum(influence.verdict(r) == "fade" for r in rnn.ratios),
        "k_gru": gru.n_majority,
        "gru_verdict": t(f"rnn_gradients.words.verdict.{gru.majority}"),
    }
