"""Part ``grad``: how much each source word still counts for C (the gradient of C with
respect to each word's embedding), early against late words."""

from __future__ import annotations

import streamlit as st

import ui
from charts import bottleneck as figures
from charts.common import Titles
from core import lexicon
from core.analysis import bottleneck as analysis
from core.analysis.influence import verdict
from lessons.bottleneck import data
from lessons.bottleneck.common import close_part, sentence_part
from ui import models
from ui.slide import Slide

t = ui.t


@ui.fragment  # the sentence reruns only this part, the model switch and the log toggle only
# the chart and its caption
def show() -> None:
    if sentence_part("bottleneck.grad.header", "bottleneck.grad.lead", main="sentence", draw=draw):
        close_part("bottleneck.grad.takeaway", "bottleneck.grad.try")


def draw(s: Slide, plain: str, tokens: tuple[str, ...] | None) -> None:
    """The log-scale toggle, then how much each word of ``tokens`` moves ``plain``'s C."""
    with s.more:
        log_y = ui.params.get_bool("log", False)
        log_y = st.toggle(t("bottleneck.grad.log"), **ui.params.bound("log", log_y, key="bn_log"))
    ui.params.set_params(log=log_y)
    if tokens is None:
        return
    ids = tuple(models.get_vocabs()[0].encode(tokens, eos=True))
    with s.chart, st.spinner(t("bottleneck.grad.spinner")):
        norms = data.influence(plain, ids)
    with s.chart:
        ui.chart(
            figures.influence_bars(
                lexicon.show_tokens([*tokens, "<eos>"]),
                norms,
                titles=Titles(
                    t("bottleneck.grad.title", model=ui.model_name(plain)),
                    t("bottleneck.grad.x"),
                    t("bottleneck.grad.y"),
                ),
                color=lexicon.look(plain).color,
                presenter=ui.presenter(),
                log_y=log_y,
            ),
            key="bn_grad",
        )
    ratio = analysis.early_late_ratio(norms)
    with s.words:
        st.caption(t(f"bottleneck.grad.caption_{verdict(ratio)}", ratio=f"{ratio:.2g}"))
