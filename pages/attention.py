"""Attention (lesson 3.1–3.2): alignment, context decides meaning, self-attention, and how a
score becomes a weight. Every heatmap shows the weights the decoder used for the output
shown: the models run teacher-forced on their own greedy output, and a replay from the
plotted weights alone reproduces the model's logits (the check is in the "curious" fold).

The cached computations are in ui/attention_data.py (D), the figures, notes and repeated
controls in ui/attention_parts.py (parts); this file keeps the lesson's order and layout.
"""

from __future__ import annotations

import math

import numpy as np
import streamlit as st

import ui
from core import zoo
from core.analysis import attention as A
from core.corpus import BUCKETS
from core.figures import attention as F
from ui import attention_data as D
from ui import attention_parts as parts
from ui import attention_toy as toy
from ui import models as M
from ui.attention_inputs import (
    ATTN_MODELS,
    EXAMPLES,
    layer_head_picker,
    model_picker,
    sentence_picker,
    step_picker,
    word_picker,
)

ui.begin_page("attention")
t = ui.t
P = ui.presenter()

PARTS = ("align", "pairs", "self", "score", "buys")
part = ui.part_selector("attention.", PARTS, key="attention_part")

if not M.require(*ATTN_MODELS):
    st.stop()
src_vocab, _ = D.vocabs()


# =========================================================================================
# 1. Alignment: each output word spreads a budget of 1 over the source words
# =========================================================================================
@ui.fragment  # its controls rerun only this part of the page
def align_part() -> None:
    top, choose = st.container(), st.container()
    with choose:  # under the picture: which sentence, which model
        name = model_picker()
        tokens = sentence_picker(src_vocab, EXAMPLES[0])
    if tokens is None:
        return
    run, gap = D.run_model(name, tokens)
    layer, head = parts.view_picker(name, run, choose)
    weights = A.select_heads(run.cross, layer, head)
    entropy = A.entropy_bits(weights)
    with top:
        align_step(name, run, weights, entropy)
    with choose:
        parts.model_note(name, run)
        parts.reference_note(tokens)
    # every step at once, outside the step fragment: not redrawn when the step moves
    ui.chart(parts.focus_figure(run, entropy), key="attention_align_focus")
    st.caption(t("attention.focus.caption", max=f"{math.log2(len(run.source)):.2f}"))
    ui.takeaway(t("attention.align.takeaway"))
    ui.try_this(t("attention.align.try"))
    with ui.curious():
        st.caption(t("attention.align.caption", where=parts.where(name, layer, head)))
        parts.check_note(run, gap)
    ui.params.set_params(s=" ".join(tokens))


@ui.fragment  # the decoding step reruns only what it moves: one figure (heatmap + row)
def align_step(name: str, run: A.AttentionRun, weights: np.ndarray, entropy: np.ndarray) -> None:
    """The alignment heatmap with the step's row framed and drawn as bars under it; the
    step slider under the chart."""
    s = ui.slide(t("attention.part.align.lead"))
    with s.control:
        step = step_picker(run, t("attention.step"))
    with s.more:
        values = parts.values_toggle()
    with s.chart:
        ui.chart(parts.alignment_figure(name, run, weights, step, values), key="attention_align")
    with s.words:
        st.markdown(parts.row_caption(run, weights, entropy, step))


# =========================================================================================
# 2. Minimal pairs: context decides
# =========================================================================================
PAIR_KEYS = tuple(p.key for p in A.MINIMAL_PAIRS)


@ui.fragment  # the pair reruns the part: the decoder's rows and the encoder's
def pairs_part() -> None:
    top, below = st.container(), st.container()
    found = D.best_pair()
    with below:
        key = parts.choice("pair", PAIR_KEYS, found.key, t("attention.pair"), "attention.pair.")
    pair = next(p for p in A.MINIMAL_PAIRS if p.key == key)
    with top:
        pairs_decoder(pair)
    with below:
        # Inside the encoder: what the ambiguous word itself reads (Transformer self-attention).
        st.subheader(t("attention.pairs.enc.header"))
        pairs_encoder(
            tuple((e, dict(A.corpus_pair(e).info).get("word", "it")) for e in (pair.a, pair.b)),
            found.layer,
        )
        ui.takeaway(t("attention.pairs.takeaway"))
        ui.try_this(t("attention.pairs.try"))
        with ui.curious():
            st.caption(t(f"attention.pairs.source.{pair.source}"))
            st.caption(
                t("attention.pairs.enc.found", layer=found.layer + 1, w=f"{found.reads:.2f}")
            )


@ui.fragment  # the model, layer and head rerun only the decoder's rows: one figure
def pairs_decoder(pair: A.MinimalPair) -> None:
    """The step that writes the deciding word in A and in B: the two rows of weights and
    A minus B, as three panels of one figure (position under position)."""
    s = ui.slide(t("attention.part.pairs.lead"))
    with s.control:
        name = model_picker()
    runs = [(e, A.corpus_pair(e), D.run_model(name, tuple(e.split()))[0]) for e in (pair.a, pair.b)]
    layer, head = parts.view_picker(name, runs[0][2], s)
    panels, rows = parts.decoder_rows(name, runs, layer, head, s.words.columns(2))
    a_run, b_run = runs[0][2], runs[1][2]
    same_length = len(a_run.source) == len(b_run.source)
    # the difference A - B is a third panel on a laptop; a slide keeps the two rows
    diff = same_length and all(r is not None for r in rows) and not P
    if diff:
        panels.append(parts.difference_panel(a_run, b_run, rows))
    if panels:
        with s.chart:
            ui.chart(F.bar_panels(panels, presenter=P), key="attention_pair_rows")
    with s.words:
        if diff:
            st.caption(t("attention.pairs.diff.caption", where=parts.where(name, layer, head)))
        elif not same_length and not P:  # (a row missing: its warning above says why)
            st.caption(t("attention.pairs.nodiff"))


@ui.fragment  # the encoder layer reruns only its figure
def pairs_encoder(sentences: tuple[tuple[str, str], ...], default_layer: int) -> None:
    """What the ambiguous word reads in each sentence of the pair, (english, word) each:
    its self-attention row in A and in B, two panels of one figure."""
    enc_runs = [D.run_model("transformer", tuple(e.split()))[0] for e, _ in sentences]
    n_enc = enc_runs[0].enc_self.shape[0]
    elayer = ui.params.get_int("elayer", 1, n_enc, default=min(default_layer + 1, n_enc))
    panels = parts.encoder_panels(sentences, enc_runs, elayer)
    ui.chart(F.bar_panels(panels, presenter=P), key="attention_pair_enc")
    elayer = st.select_slider(
        t("attention.pairs.enc.layer"),
        options=list(range(1, n_enc + 1)),
        **ui.params.bound("elayer", elayer, key="attention_elayer"),
    )
    ui.params.set_params(elayer=elayer)
    st.caption(t("attention.pairs.enc.caption", layer=elayer))


# =========================================================================================
# 3. Self-attention
# =========================================================================================
@ui.fragment
def self_part() -> None:
    s = ui.slide(t("attention.part.self.lead"))
    with s.more:
        tokens = sentence_picker(src_vocab, EXAMPLES[2], "q")
    if tokens is None:
        return
    run, _ = D.run_model("transformer", tokens)
    found = D.it_view()
    with s.more:
        layer, head = layer_head_picker(run, default=(found.shown.layer, found.shown.head))
    with s.control:
        word = word_picker(run, tokens, t("attention.self.word"))
    weights = A.select_heads(run.enc_self, layer, head)
    title_where = parts.where("transformer", layer, head, side="enc")
    with s.chart:
        fig = parts.self_heatmap(run, weights, word, title_where)
        ui.chart(fig, key="attention_self_heatmap")
    with s.words:
        st.markdown(parts.self_caption(run, weights, word))
        ui.chart(parts.self_lines(run, weights, word), key="attention_self_lines")
    numbers = parts.it_numbers(found)
    if found.separates:
        ui.takeaway(t("attention.self.takeaway_separates", **numbers))
    else:
        ui.mixed(t("attention.self.mixed", **numbers))
        ui.takeaway(t("attention.self.takeaway"))
    ui.try_this(t("attention.self.try"))
    with ui.curious():
        st.caption(t("attention.self.search", **numbers))
    ui.params.set_params(q=" ".join(tokens))


# =========================================================================================
# 4. How a score becomes a weight
# =========================================================================================
@ui.fragment
def score_part() -> None:
    """4a. A worked example by hand (the picture), 4b. the same steps inside a trained
    model, 4c. why divide by sqrt(d)."""
    s = ui.slide(t("attention.part.score.lead"))
    with s.control:
        kind = parts.choice(
            "score", A.SCORE_KINDS, "scaled", t("attention.score.kind"), "attention.score.kind."
        )
        temp = parts.temperature()
    if st.session_state.get(toy.TOY_SEEN) not in (None, toy.toy_raw()):
        toy.new_editors()  # the link changed under the editors: show what it says now
    q, k, v = toy.read_toy()
    with s.more:
        toy.size_controls(q, k)
    with s.words:
        st.subheader(t("attention.toy.header"))
        st.markdown(t("attention.toy.intro", word=A.TOY_QUERY_WORD))
        edited = toy.toy_editors(q, k, v)
        if edited is not None:
            q, k, v = edited
        toy.write_toy(q, k, v)  # the last complete numbers, so a copied link reopens them
        ex = A.worked_example(q, k, v, temp)
        words = list(A.TOY_WORDS[: k.shape[0]])
        toy.toy_steps(ex, words, kind)
        ui.try_this(t("attention.toy.try"))
    with s.chart:
        ui.chart(toy.toy_figure(ex, words, kind, P), key="attention_toy_weights")
    score_model(kind, temp)
    ui.takeaway(t("attention.score.takeaway"))
    ui.try_this(t("attention.score.try"))


@ui.fragment  # the sentence and the query's controls rerun this section and 4c, not 4a
def score_model(kind: str, temp: float) -> None:
    """4b. The same steps inside a trained model: the scores of one query and their
    softmax, one figure; then 4c (why divide by sqrt(d)) for that many keys."""
    st.subheader(t("attention.score.model.header"))
    chart, controls, words = st.container(), st.container(), st.container()
    with controls:
        tokens = sentence_picker(src_vocab, EXAMPLES[2], "q")
    n_keys = toy.read_toy(notify=False)[1].shape[0]  # no sentence: as many keys as the example
    if tokens is not None:
        name = "gru_attention" if kind == "additive" else "transformer"
        run, _ = D.run_model(name, tokens)
        with controls:  # the query: a decoding step (additive), or a layer, head and word
            ms = parts.model_scores(kind, run, tokens)
        weights = A.softmax(ms.scores, temp)
        with words:
            parts.score_numbers(kind, ms, weights)
        with chart:
            ui.chart(parts.score_figure(run.source, ms, weights, temp), key="attention_score_model")
        n_keys = len(run.source)
        ui.params.set_params(q=" ".join(tokens))
    st.subheader(t("attention.score.sqrt.header"))
    score_sqrt(n_keys)


@ui.fragment  # d reruns only its chart
def score_sqrt(n_keys: int) -> None:
    """Entropy against d for ``n_keys`` random keys, with and without the 1/sqrt(d)."""
    chart = st.container()
    d_now = ui.params.get_choice("d", D.DIMS, default=32)
    d_now = st.select_slider(
        t("attention.score.d"),
        options=list(D.DIMS),
        **ui.params.bound("d", d_now, key="attention_d"),
    )
    ui.params.set_params(d=d_now)
    curves = D.saturation(n_keys)
    with chart:
        ui.chart(parts.saturation_figure(curves, n_keys, d_now), key="attention_score_sqrt")
    st.caption(parts.saturation_caption(curves, n_keys, d_now))


# =========================================================================================
# 5. What attention buys
# =========================================================================================
BUYS_MODELS = ("gru_plain_256", "gru_attention", "transformer")


def buys_part() -> None:
    """The shipped models' accuracy by length (the picture, which no control changes),
    then every model on one sentence (a fragment: the sentence reruns only the table)."""
    s = ui.slide(t("attention.part.buys.lead"))
    series = A.length_series(M.get_manifest(), BUYS_MODELS, BUCKETS)
    with s.chart:
        if series:
            ui.chart(parts.lengths_figure(BUCKETS, series), key="attention_buys_lengths")
        else:
            st.caption(t("attention.buys.no_metrics"))
    with s.words:
        if series:
            st.caption(t("attention.buys.caption"))
    buys_table()
    ui.takeaway(t("attention.buys.takeaway"))


@ui.fragment  # the sentence reruns only the table: the curves above do not depend on it
def buys_table() -> None:
    tokens = sentence_picker(src_vocab, EXAMPLES[6])
    if tokens is None:
        return
    st.table(parts.models_rows(zoo.TRANSLATION_MODELS, tokens))
    parts.reference_note(tokens)
    ui.params.set_params(s=" ".join(tokens))


{
    "align": align_part,
    "pairs": pairs_part,
    "self": self_part,
    "score": score_part,
    "buys": buys_part,
}[part]()
