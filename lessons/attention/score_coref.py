"""Part "score", the real scores of "it" in the lesson's sentence: the coreference encoder's
named head, its scaled scores q·k/√d and the softmax weights the model used."""

from __future__ import annotations

import numpy as np
import streamlit as st

import ui
from charts import attention as figures
from core.analysis import attention as analysis
from core.analysis import coref
from lessons import controls
from lessons.attention import data
from ui import models

t = ui.t  # reads the visitor's language on every call


@ui.fragment  # the sentence reruns only this section
def in_coref() -> None:
    """The coreference encoder's named head at "it" (part 3's view): the real scaled
    scores q·k/√d over the lesson's sentence; the softmax weights the model used are part
    3's picture, linked back to."""
    st.subheader(t("attention.score.coref.header"))
    if not models.require(data.COREF):
        return
    pair = data.coref_pair()
    chart = st.container()
    predicate = ui.params.get_choice("cs", tuple(pair), default=next(iter(pair)))
    predicate = controls.segmented(
        t("attention.score.coref.sentence"),
        tuple(pair),
        predicate,
        param="cs",
        key="attention_cs",
        format_func=lambda p: f"… it was {p}",
    )
    sw = pair[predicate]
    # the weights are part 3's picture, shown before this part on either path: the scores
    # here, and a line back to it
    seen = ui.shown_before(*WEIGHTS_PICTURE, here=("attention", "score"))
    with chart:
        ui.chart(coref_figure(sw), key="attention_score_coref")
    st.caption(coref_caption(sw))
    if seen:
        st.markdown(t("attention.score.coref.seen", slide=seen))
        ui.page_link(
            "pages/attention.py",
            label=t("attention.part.self"),
            icon=":material/arrow_back:",
            query_params={"part": WEIGHTS_PICTURE[1]},
        )


WEIGHTS_PICTURE = ("attention", "self")  # where "it"'s weights are drawn


def coref_figure(sw):
    """The real scores, one bar per word (their softmax weights are part 3's picture)."""
    sentence = " ".join(sw.tokens)
    scores = figures.BarPanel(
        sw.tokens,
        sw.scores,
        "",
        t("attention.score.coref.scores_y"),
        x_title=t("attention.score.keys"),
    )
    return figures.bar_panels(
        [scores],
        title=t("attention.score.coref.title", sentence=sentence, d=sw.query.size),
        presenter=ui.presenter(),
        share_x=True,
    )


def coref_caption(sw) -> str:
    """The largest score, its lead over the next, the weight it gets after softmax, and how
    close the softmax of the scores is to the weights the model used."""
    order = np.argsort(-sw.scores)
    top, second = int(order[0]), int(order[1])
    check = float(np.abs(analysis.softmax(sw.scores) - sw.weights).max())
    return t(
        "attention.score.coref.caption",
        where=t("attention.self.coref.where", layer=coref.LAYER + 1, head=coref.HEAD + 1),
        d=sw.query.size,
        top=sw.tokens[top],
        score=f"{sw.scores[top]:.2f}",
        second=sw.tokens[second],
        score2=f"{sw.scores[second]:.2f}",
        gap=f"{sw.scores[top] - sw.scores[second]:.2f}",
        weight=f"{sw.weights[top]:.2f}",
        rest=f"{1 - sw.weights[top]:.2f}",
        check=f"{check:.1e}",
    )
