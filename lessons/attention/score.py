"""Part "score" (lesson 3.2, how a score becomes a weight): a worked example by hand (a
query, keys and values a student edits; they live in the URL as tq, tk, tv), the same steps
inside a trained model, and why the scores are divided by sqrt(d).

The part starts by naming the alignment's parts anew (query, keys, values) and links back
to it. One module a section, drawn in this order: ``score_toy`` (the worked example by hand:
its weights are the part's picture, its numbers and steps are for the curious),
``score_coref`` (the real scores of "it" in the lesson's sentence), ``score_model`` (the same
steps inside a trained model, and the temperature) and ``score_sqrt`` (why divide by
sqrt(d)). Each section that reruns alone is its own fragment, nested in :func:`show`."""

from __future__ import annotations

import streamlit as st

import ui
from core.analysis import attention as analysis
from core.corpus.lesson import CAT_HUNGRY
from lessons.attention import common, score_coref, score_model, score_toy

t = ui.t  # reads the visitor's language on every call


@ui.fragment
def show() -> None:
    """The bridge back to the alignment, the worked example by hand (the picture; its
    numbers and steps for the curious), the same steps inside a trained model, why divide
    by sqrt(d)."""
    st.markdown(t("attention.part.score.lead"))
    bridge()
    s = ui.slide()
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
    with s.words:
        # the slide keeps the picture; the numbers, the editors and the formulas fold away
        spread_note = st.empty()
        link_back()
        with ui.curious():
            st.subheader(t("attention.toy.header"))
            st.markdown(
                t("attention.toy.intro", word=analysis.TOY_QUERY_WORD, sentence=CAT_HUNGRY.en)
            )
            score_toy.size_controls(q, k)
            edited = score_toy.toy_editors(q, k, v)
            if edited is not None:
                q, k, v = edited
            score_toy.write_toy(q, k, v)  # the last complete numbers: a copied link reopens them
            ex = analysis.worked_example(q, k, v, temp)
            words = list(analysis.TOY_WORDS[: k.shape[0]])
            score_toy.toy_steps(ex, words, kind)
            ui.try_this(t("attention.toy.try"))
        spread_note.caption(
            t("attention.toy.spread_note", max=f"{ex.max_entropy:.2f}", n=len(words))
        )
    with s.chart:
        fig = score_toy.toy_figure(ex, words, kind, ui.presenter())
        ui.chart(fig, key="attention_toy_weights")
    score_coref.in_coref()
    score_model.in_model(kind, temp)
    ui.takeaway(t("attention.score.takeaway"))
    ui.try_this(t("attention.score.try"))


ALIGNMENT = ("attention", "align")  # where the budget over the source words was first drawn


def bridge() -> None:
    """Where the part starts: the query is (roughly) the decoder's state, the keys and values
    the encoder's states (lesson 3.1's closing comparison), naming the alignment's slide."""
    seen = ui.shown_before(*ALIGNMENT, here=("attention", "score"))
    if seen:
        st.markdown(t("attention.score.bridge", slide=seen))
    else:
        st.markdown(t("attention.score.bridge_part", part=t("attention.part.align")))


def link_back() -> None:
    """The alignment part the bridge names, one click away (under the picture: above it, a
    projector's first screen has no room left for the chart)."""
    ui.page_link(
        "pages/attention.py",
        label=t("attention.part.align"),
        icon=":material/arrow_back:",
        query_params={"part": ALIGNMENT[1]},
    )
