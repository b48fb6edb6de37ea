"""Part "score" (lesson 3.2, how a score becomes a weight): a worked example by hand (a
query, keys and values a student edits; they live in the URL as tq, tk, tv), the same steps
inside a trained model, and why the scores are divided by sqrt(d).

One module a section, drawn in this order: ``score_toy`` (the worked example by hand, the
part's picture), ``score_coref`` (the real scores of "it" in the lesson's sentence),
``score_model`` (the same steps inside a trained model, and the temperature) and
``score_sqrt`` (why divide by sqrt(d)). Each section that reruns alone is its own fragment,
nested in :func:`show`."""

from __future__ import annotations

import streamlit as st

import ui
from core.analysis import attention as analysis
from core.corpus.lesson import CAT_HUNGRY
from lessons.attention import common, score_coref, score_model, score_toy

t = ui.t  # reads the visitor's language on every call


@ui.fragment
def show() -> None:
    """The worked example by hand (the picture), the same steps inside a trained model,
    why divide by sqrt(d)."""
    s = ui.slide(t("attention.part.score.lead"))
    with s.control:
        kind = common.choice(
            "score",
            analysis.SCORE_KINDS,
            "scaled",
            t("attention.score.kind"),
            "attention.score.kind.",
        )
        temp = score_model.temperature()
    if st.session_state.get(score_toy.TOY_SEEN) not in (None, score_toy.toy_raw()):
        score_toy.new_editors()  # the link changed under the editors: show what it says now
    q, k, v = score_toy.read_toy()
    with s.more:
        score_toy.size_controls(q, k)
    with s.words:
        st.subheader(t("attention.toy.header"))
        st.markdown(t("attention.toy.intro", word=analysis.TOY_QUERY_WORD, sentence=CAT_HUNGRY.en))
        edited = score_toy.toy_editors(q, k, v)
        if edited is not None:
            q, k, v = edited
        score_toy.write_toy(q, k, v)  # the last complete numbers, so a copied link reopens them
        ex = analysis.worked_example(q, k, v, temp)
        words = list(analysis.TOY_WORDS[: k.shape[0]])
        score_toy.toy_steps(ex, words, kind)
        ui.try_this(t("attention.toy.try"))
    with s.chart:
        fig = score_toy.toy_figure(ex, words, kind, ui.presenter())
        ui.chart(fig, key="attention_toy_weights")
    score_coref.in_coref()
    score_model.in_model(kind, temp)
    ui.takeaway(t("attention.score.takeaway"))
    ui.try_this(t("attention.score.try"))
