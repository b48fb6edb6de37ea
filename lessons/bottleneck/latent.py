"""Part ``latent``: a latent state, carried forward word by word (lesson 1.4)."""

from __future__ import annotations

import streamlit as st

import ui
from charts import bottleneck as figures
from charts.common import Titles
from core import lexicon
from core.analysis import latent
from core.corpus import lesson
from lessons.bottleneck import data
from lessons.bottleneck.common import close_part, part_header
from ui import models

t = ui.t


def show() -> None:
    part_header("bottleneck.latent.header")
    shoes = lesson.WEAR_SHOES
    s = ui.slide(t("bottleneck.latent.lead", sentence=shoes.en))
    with s.chart:
        if not models.require(data.LM):
            return
    src_vocab = models.get_vocabs()[0]
    ids = tuple(src_vocab.encode(data.LATENT_WORDS))
    steps = data.latent_view(ids)
    # the start and end tokens in plain words, as the language-model slide shows them
    plain = {"<bos>": t("bottleneck.latent.start"), "<eos>": t("bottleneck.latent.end")}
    read = [plain["<bos>"], *lexicon.show_tokens(data.LATENT_WORDS)]
    guesses = [
        plain.get(tok) or lexicon.show_token(tok)
        for tok in (src_vocab.decode([i], strip_special=False)[0] for i in steps.top_ids)
    ]
    with s.chart:
        ui.chart(
            figures.latent_figure(
                steps.states,
                read,
                guesses,
                steps.top_probs,
                titles=Titles(
                    t("bottleneck.latent.title", model=ui.model_name(data.LM)),
                    t("bottleneck.latent.x"),
                    t("bottleneck.latent.y", size=steps.states.shape[1]),
                ),
                bar_title=t("bottleneck.latent.bar"),
                presenter=ui.presenter(),
                # a phone's layout where ui.chart fits a phone (not the projector)
                phone=ui.on_a_phone() and not ui.presenter(),
            ),
            key="bn_latent",
        )
    with s.words:  # a plain guide for a newcomer; the maths is for the curious
        st.markdown(t("bottleneck.latent.guide", n=len(read), size=steps.states.shape[1]))
    close_part(
        "bottleneck.latent.takeaway",
        "bottleneck.latent.try",
        prompt=lesson.AUTOREGRESSION_PROMPT,
        next1=shoes.en_words[2],
        next2=shoes.en_words[3],
    )
    with ui.curious():
        st.caption(t("bottleneck.latent.caption", size=steps.states.shape[1]))
        hits = latent.hits(steps, ids)
        st.markdown(
            t(
                "bottleneck.latent.curious",
                hits=hits,
                n=len(ids) + 1,
                change=", ".join(f"{c:.1f}" for c in steps.change),
            )
        )
