"""Part ``read``: watch the encoder read, word by word, into its last state C."""

from __future__ import annotations

import streamlit as st

import ui
from charts import bottleneck as figures
from charts.common import Titles
from core import lexicon
from core.analysis import bottleneck as analysis
from lessons.bottleneck import data
from lessons.bottleneck.common import close_part, sentence_part
from ui import models
from ui.slide import Slide

t = ui.t


@ui.fragment  # the sentence reruns only this part, the model switch only the chart and words
def show() -> None:
    if sentence_part("bottleneck.read.header", "bottleneck.read.lead", main="plain", draw=draw):
        lengths = analysis.EXAMPLE_LENGTHS  # the example buttons' shortest and longest
        close_part(
            "bottleneck.read.takeaway",
            "bottleneck.read.try",
            short=str(lengths[0]),
            long=str(lengths[-1]),
        )


def draw(s: Slide, plain: str, tokens: tuple[str, ...] | None) -> None:
    """The states heatmap of ``plain`` reading ``tokens`` (C its last column), the sizes."""
    if tokens is None:
        return
    presenter = ui.presenter()
    ids = tuple(models.get_vocabs()[0].encode(tokens, eos=True))
    words = lexicon.show_tokens([*tokens, "<eos>"])
    hidden, context = data.encoder_view(plain, ids)
    size = context.size  # the model's own C, not its name
    with s.chart:
        ui.chart(
            lambda: figures.states_heatmap(
                hidden,
                words,
                titles=Titles(
                    t("bottleneck.read.title", model=ui.model_name(plain), n=len(tokens)),
                    t("bottleneck.read.x"),
                    t("bottleneck.read.y"),  # one title for every model: the plot stays put
                ),
                context_label="C",
                # on the projector one heatmap, big: C is its framed last column
                context=None if presenter else context,
                strip_title=t("bottleneck.read.strip_title", size=size, n=len(tokens)),
                strip_x_title=t("bottleneck.read.strip_x"),
                presenter=presenter,
                # the labels of the widest model's dimensions: the plot stays put on a switch
                label_digits=max(len(data.plain_size(name)) for name in data.PLAIN),
            ),
            key="bn_states",
            memo=(plain, tuple(tokens)),  # the states: that model reading these words
        )
    with s.words:
        m1, m2, m3 = st.columns(3)
        m1.metric(t("bottleneck.read.words"), len(tokens))
        m2.metric(t("bottleneck.read.states"), f"{len(words)} × {hidden.shape[1]}")
        m3.metric(t("bottleneck.read.c_size"), size)
        st.caption(t("bottleneck.read.caption", size=size))
