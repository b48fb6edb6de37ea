"""Part "score", the same steps inside a trained model: the softmax temperature, one query's
scores (additive in the GRU, dot-product in the Transformer) and their softmax against the
weights the model used; then why divide by sqrt(d) (:mod:`score_sqrt`) for that many keys."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import streamlit as st

import ui
from charts import attention as figures
from core.analysis import attention as analysis
from lessons.attention import common, data, score_sqrt, score_toy

t = ui.t  # reads the visitor's language on every call

ADDITIVE_MODEL = "gru_attention"  # the model whose additive (Bahdanau) scores are shown
DOT_MODEL = "transformer"  # the model whose dot-product scores are shown


def temperature() -> float:
    """The softmax temperature τ, tied to the URL parameter ``temp``."""
    temp = ui.params.get_float("temp", 0.1, 5.0, default=1.0)
    temp = st.slider(
        t("attention.score.temp"),
        0.1,
        5.0,
        step=0.1,
        help=t("attention.score.temp_help"),
        **ui.params.bound("temp", temp, key="attention_temp"),
    )
    ui.params.set_params(temp=temp)
    return temp


@ui.fragment  # the sentence and the query's controls rerun this section and sqrt(d), not the toy
def in_model(kind: str, temp: float) -> None:
    """The same steps inside a trained model: the scores of one query and their softmax,
    one figure; then why divide by sqrt(d), for that many keys."""
    st.subheader(t("attention.score.model.header"))
    chart, controls, words = st.container(), st.container(), st.container()
    with controls:
        tokens = common.sentence_picker(common.EXAMPLES[2], "q")
    # no sentence: as many keys as the example
    n_keys = score_toy.read_toy(notify=False)[1].shape[0]
    if tokens is not None:
        run, _ = data.run_model(ADDITIVE_MODEL if kind == "additive" else DOT_MODEL, tokens)
        with controls:  # the query: a decoding step (additive), or a layer, head and word
            ms = model_scores(kind, run, tokens)
        weights = analysis.softmax(ms.scores, temp)
        with words:
            score_numbers(kind, ms, weights)
        with chart:
            fig = score_figure(run.source, ms, weights, temp)
            ui.chart(fig, key="attention_score_model")
        n_keys = len(run.source)
        ui.params.set_params(q=" ".join(tokens))
    st.subheader(t("attention.score.sqrt.header"))
    score_sqrt.sqrt_d(n_keys)


@dataclass(frozen=True)
class ModelScores:
    """One query's scores inside a trained model, and the weights the model used."""

    scores: np.ndarray  # (S,)
    used: np.ndarray  # (S,) the model's own attention row
    query: str  # the query, in words
    formula: str  # LaTeX


def model_scores(kind: str, run: analysis.AttentionRun, tokens: tuple[str, ...]) -> ModelScores:
    """Pick the query (a decoding step for additive scores, else a layer, head and word of
    the transformer's encoder) and compute its scores of ``kind`` over the source."""
    if kind == "additive":
        step = common.step_picker(run, t("attention.score.step"))
        return ModelScores(
            data.energies(tokens, run.out_ids, step),
            run.cross[0, 0, step],
            t("attention.score.query_gru", step=step + 1, token=run.output[step]),
            figures.model_score_latex(kind),
        )
    layer, head = common.layer_head_picker(run, allow_avg=False)
    word = common.word_picker(run, tokens, t("attention.score.query"))
    qs, ks = data.query_keys(DOT_MODEL, tokens, layer)
    head = 0 if head is None else head
    return ModelScores(
        analysis.scores(qs[head, word], ks[head], kind),
        run.enc_self[layer, head, word],
        t("attention.score.query_tr", word=run.source[word], layer=layer + 1, head=head + 1),
        figures.model_score_latex(kind, qs.shape[-1]),
    )


def score_numbers(kind: str, ms: ModelScores, weights: np.ndarray) -> None:
    """How spread out the weights are (their entropy), the largest weight and the sum; for
    the curious what the spread is, the formula and how close the softmax of the scores
    comes to the model's own row."""
    c1, c2, c3 = st.columns(3)
    c1.metric(t("attention.score.entropy"), f"{analysis.entropy_bits(weights):.2f}")
    c2.metric(t("attention.score.max"), f"{weights.max():.2f}")
    c3.metric(t("attention.score.sum"), f"{weights.sum():.3f}")
    st.caption(t("attention.score.entropy_help", max=f"{math.log2(len(weights)):.2f}"))
    match = float(np.abs(analysis.softmax(ms.scores) - ms.used).max())
    with ui.curious():
        n = len(weights)
        st.caption(t("attention.spread.curious", n=n, max=f"{math.log2(n):.2f}"))
        st.latex(ms.formula)
        if kind == "dot":
            st.caption(t("attention.score.caption_dot", gap=f"{match:.2f}"))
        else:
            st.caption(t("attention.score.caption_same", gap=f"{match:.1e}"))


def score_figure(labels, ms: ModelScores, weights: np.ndarray, temp: float):
    """The scores on top, their softmax under them: each key's weight under its score."""
    return figures.bar_panels(
        [
            figures.BarPanel(labels, ms.scores, title="", y_title=t("attention.score.scores_y")),
            figures.BarPanel(
                labels,
                weights,
                title=t("attention.score.weights_title", temp=f"{temp:g}"),
                y_title=t("attention.hover.weight"),
                x_title=t("attention.score.keys"),
                reference=ms.used,
                reference_name=t("attention.score.used"),
                bars_name=t("attention.score.softmax"),
            ),
        ],
        title=t("attention.score.scores_title", query=ms.query),
        presenter=ui.presenter(),
        share_x=True,
    )
