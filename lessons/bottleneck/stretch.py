"""Part ``stretch``: a fresh batch of sentences of one length, translated live by a plain model
and the attention model: the share of outputs still on track at each position."""

from __future__ import annotations

import numpy as np
import streamlit as st

import ui
from charts import bottleneck as figures
from charts.common import Titles
from core import corpus
from core.analysis import bottleneck as analysis
from core.evaluate import score
from lessons.bottleneck import data
from lessons.bottleneck.common import close_part, marked, part_header, plain_picker
from ui import models

LEN_MIN, LEN_MAX, LEN_DEFAULT = 3, 60, analysis.STRETCH_LEN
t = ui.t


def new_batch() -> None:
    """The "new batch" button: the next seed in the URL."""
    st.query_params["seed"] = str((int(st.query_params.get("seed", "0") or 0) + 1) % 1_000_000)


@ui.fragment  # the length slider, the new-batch button and the model switch rerun this part
def show() -> None:
    part_header("bottleneck.stretch.header")
    s = ui.slide(t("bottleneck.stretch.lead"))
    length = ui.params.get_int("len", LEN_MIN, LEN_MAX, LEN_DEFAULT)
    seed = ui.params.get_int("seed", 0, 999_999, 0)
    with s.control:
        length = st.slider(
            t("bottleneck.stretch.length"),
            LEN_MIN,
            LEN_MAX,
            help=t("bottleneck.stretch.length_help"),
            **ui.params.bound("len", length, key="bn_len"),
        )
    with s.more:
        plain = plain_picker()
        st.button(
            t("bottleneck.stretch.new"), on_click=new_batch, icon=":material/casino:", key="bn_new"
        )
    ui.params.set_params(len=length, seed=seed)
    batch = data.stretch_batch(length, seed)
    src_vocab = models.get_vocabs()[0]
    rows = tuple(tuple(src_vocab.encode(src, eos=True)) for src, _ in batch)
    refs = [tgt for _, tgt in batch]
    outs = {name: data.translate_ids(name, rows) for name in (plain, data.ATTN)}
    max_pos = max(len(r) for r in refs)
    curves = {n: analysis.on_track(outs[n], refs, max_pos, analysis.STRETCH_MIN_N) for n in outs}
    with s.chart:
        ui.chart(
            figures.lines_by_position(
                np.arange(1, max_pos + 1),
                curves,
                names={n: ui.model_name(n) for n in curves},
                titles=Titles(
                    t("bottleneck.stretch.title", n=len(refs), length=length),
                    t("bottleneck.stretch.x"),
                    t("bottleneck.stretch.y"),
                ),
                presenter=ui.presenter(),
            ),
            key="bn_stretch",
        )
    with s.words:
        cols = st.columns(2)
        for col, name in zip(cols, outs):
            sc = score(outs[name], refs)
            col.metric(
                t("bottleneck.stretch.exact", model=ui.model_name(name)),
                f"{round(sc['exact'] * len(refs))} / {len(refs)}",
                help=t("bottleneck.stretch.edit", edit=f"{sc['edit_acc']:.0%}"),
            )
        st.caption(t("bottleneck.stretch.caption", min_n=analysis.STRETCH_MIN_N, n=len(refs)))
        if length > corpus.MAX_LEN:
            st.caption(t("bottleneck.stretch.beyond", max=corpus.MAX_LEN))
    close_part("bottleneck.stretch.takeaway", "bottleneck.stretch.try")
    show_sentences(batch, outs)


def show_sentences(batch: list, outs: dict[str, list[list[str]]]) -> None:
    """The batch's sentences, references and outputs, folded. Drawn only while open (a
    closed expander reruns nothing): the slider stays light."""
    sentences = st.expander(
        t("bottleneck.stretch.sentences"), icon=":material/list:", key="bn_sents", on_change="rerun"
    )
    with sentences:
        for i, (src, ref) in enumerate(batch if sentences.open else (), 1):  # one element each
            lines = [
                f"**{i}.** {figures.chip(' '.join(src))}",
                f"{t('bottleneck.side.reference')} {figures.chips(ref)}",
                *(f"{ui.model_name(n)}: {marked(out[i - 1], ref)}" for n, out in outs.items()),
            ]
            st.markdown("  \n".join(lines))
