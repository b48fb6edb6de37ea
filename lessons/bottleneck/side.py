"""Part ``side``: the plain encoder-decoder and the one with attention on the same sentence,
side by side, wrong words marked when the grammar's translation is known."""

from __future__ import annotations

import streamlit as st

import ui
from charts import bottleneck as figures
from core.analysis import bottleneck as analysis
from core.evaluate import score
from lessons.bottleneck import data
from lessons.bottleneck.common import close_part, marked, sentence_part
from ui import models
from ui.slide import Slide

t = ui.t


@ui.fragment  # the sentence reruns only this part, the model switch only the outputs
def show() -> None:
    if sentence_part("bottleneck.side.header", "bottleneck.side.lead", main="sentence", draw=draw):
        close_part("bottleneck.side.takeaway", "bottleneck.side.try")


def draw(s: Slide, plain: str, tokens: tuple[str, ...] | None) -> None:
    """``plain`` and the attention model on ``tokens``, side by side, wrong words marked."""
    if tokens is None:
        return
    ids = tuple(models.get_vocabs()[0].encode(tokens, eos=True))
    reference = data.reference_for(tokens)
    outs = {name: data.translate_ids(name, (ids,))[0] for name in (plain, data.ATTN)}
    with s.chart:
        left, right = st.columns(2)
        for col, name in zip((left, right), (plain, data.ATTN)):
            with col.container(border=True):
                model_output(name, outs[name], reference, len(ids))
        if reference is not None:
            st.markdown(f"{t('bottleneck.side.reference')} {figures.chips(reference)}")
    with s.words:
        key = "bottleneck.side.caption" if reference is not None else "bottleneck.side.no_reference"
        st.caption(t(key))


def model_output(name: str, out: list[str], reference: tuple[str, ...] | None, n: int) -> None:
    """One model's translation (wrong words marked), the size of what it reads from, and
    with a reference its score."""
    role = "bottleneck.side.attn" if name == data.ATTN else "bottleneck.side.plain"
    st.markdown(f"**{t(role)}** {ui.model_name(name)}")
    st.markdown(marked(out, reference))
    note = "bottleneck.side.attn_note" if name == data.ATTN else "bottleneck.side.plain_note"
    size = models.get_model(name).cfg.hidden
    st.caption(t(note, n=n, size=size))
    if reference is not None:
        wrong = sum(analysis.error_marks(out, reference))
        sc = score([out], [reference])
        edit = f"{sc['edit_acc']:.0%}"
        st.caption(t("bottleneck.side.score", wrong=wrong, n=len(out), edit=edit))
