"""Part "score" (lesson 3.2, how a score becomes a weight): a worked example by hand (a
query, keys and values a student edits; they live in the URL as tq, tk, tv), the same steps
inside a trained model, and why the scores are divided by sqrt(d)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

import ui
from charts import attention as figures
from core.analysis import attention as analysis
from core.analysis import coref
from lessons.attention import common, data
from ui import models

t = ui.t  # reads the visitor's language on every call

ADDITIVE_MODEL = "gru_attention"  # the model whose additive (Bahdanau) scores are shown
DOT_MODEL = "transformer"  # the model whose dot-product scores are shown


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
        temp = temperature()
    if st.session_state.get(TOY_SEEN) not in (None, toy_raw()):
        new_editors()  # the link changed under the editors: show what it says now
    q, k, v = read_toy()
    with s.more:
        size_controls(q, k)
    with s.words:
        st.subheader(t("attention.toy.header"))
        st.markdown(t("attention.toy.intro", word=analysis.TOY_QUERY_WORD))
        edited = toy_editors(q, k, v)
        if edited is not None:
            q, k, v = edited
        write_toy(q, k, v)  # the last complete numbers, so a copied link reopens them
        ex = analysis.worked_example(q, k, v, temp)
        words = list(analysis.TOY_WORDS[: k.shape[0]])
        toy_steps(ex, words, kind)
        ui.try_this(t("attention.toy.try"))
    with s.chart:
        fig = toy_figure(ex, words, kind, ui.presenter())
        ui.chart(fig, key="attention_toy_weights")
    in_coref()
    in_model(kind, temp)
    ui.takeaway(t("attention.score.takeaway"))
    ui.try_this(t("attention.score.try"))


# --- the worked example by hand -----------------------------------------------------------

TOY_PARAMS = ("tq", "tk", "tv")
TOY_SEEN = "attention_toy_seen"  # the (tq, tk, tv) this session last wrote to the URL
TOY_VER = "attention_toy_ver"  # a new number = fresh editors (their edits are relative)


def toy_raw() -> tuple[str | None, ...]:
    return (st.query_params.get("tq"), st.query_params.get("tk"), st.query_params.get("tv"))


def read_toy(notify: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Query (d,), keys (S, d) and values (S, d_v) from the URL. A value that cannot be
    read falls back to the lesson's example with the usual notice; numbers beyond the
    limit are clipped to it, and the page says so."""
    defaults = (analysis.TOY_QUERY[None], analysis.TOY_KEYS, analysis.TOY_VALUES)
    rows = (
        (1, 1),
        (analysis.TOY_MIN_KEYS, analysis.TOY_MAX_KEYS),
        (analysis.TOY_MIN_KEYS, analysis.TOY_MAX_KEYS),
    )
    out = []
    for name, raw, default, (lo, hi) in zip(TOY_PARAMS, toy_raw(), defaults, rows):
        if raw is None:
            out.append(default)
            continue
        try:
            m, clipped = analysis.parse_vectors(raw, min_rows=lo, max_rows=hi)
        except ValueError:
            if notify:
                ui.params.notice(name, raw, analysis.format_vectors(default))
            out.append(default)
            continue
        if clipped and notify:
            st.warning(
                t("attention.toy.clipped", name=name, limit=f"{analysis.TOY_LIMIT:g}"),
                icon=":material/link_off:",
            )
        out.append(m)
    q, k, v = out
    if q.shape[1] != k.shape[1] or k.shape[0] != v.shape[0]:
        if notify:
            st.warning(t("attention.toy.mismatch"), icon=":material/link_off:")
        q, k, v = defaults
    return q[0], k, v


def write_toy(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> None:
    text = tuple(analysis.format_vectors(m) for m in (q, k, v))
    ui.params.set_params(**dict(zip(TOY_PARAMS, text)))
    st.session_state[TOY_SEEN] = text


def new_editors() -> None:
    st.session_state[TOY_VER] = st.session_state.get(TOY_VER, 0) + 1


def on_toy_size() -> None:
    q, k, v = read_toy(notify=False)
    n, d = st.session_state["attention_toy_n"], st.session_state["attention_toy_d"]
    write_toy(*analysis.resize_example(q, k, v, n_keys=n, dim=d))
    new_editors()


def on_toy_reset() -> None:
    write_toy(analysis.TOY_QUERY, analysis.TOY_KEYS, analysis.TOY_VALUES)
    new_editors()


def size_controls(q: np.ndarray, k: np.ndarray) -> None:
    """How many keys, how long the vectors, and a reset to the lesson's example (each
    rewrites the link and brings fresh editors); the reset has room for its whole label on
    the projector."""
    c1, c2, c3 = st.columns([3, 3, 2], vertical_alignment="bottom")
    st.session_state["attention_toy_n"] = k.shape[0]
    st.session_state["attention_toy_d"] = q.size
    c1.select_slider(
        t("attention.toy.n"),
        options=list(range(analysis.TOY_MIN_KEYS, analysis.TOY_MAX_KEYS + 1)),
        key="attention_toy_n",
        on_change=on_toy_size,
    )
    c2.select_slider(
        t("attention.toy.d"),
        options=list(range(1, analysis.TOY_MAX_DIM + 1)),
        key="attention_toy_d",
        on_change=on_toy_size,
    )
    c3.button(t("attention.toy.reset"), key="attention_toy_reset", on_click=on_toy_reset)


def toy_editors(
    q: np.ndarray, k: np.ndarray, v: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Two small tables to edit (query and keys; values). Returns the edited vectors, or
    ``None`` (with a message) while a cell is empty."""
    ver = st.session_state.get(TOY_VER, 0)
    words = analysis.TOY_WORDS[: k.shape[0]]
    qk = pd.DataFrame(
        np.vstack([q, k]),
        index=[f"q · {analysis.TOY_QUERY_WORD}", *(f"k · {w}" for w in words)],
        columns=[str(i + 1) for i in range(q.size)],
    )
    vv = pd.DataFrame(
        v, index=[f"v · {w}" for w in words], columns=[str(i + 1) for i in range(v.shape[1])]
    )

    def config(df: pd.DataFrame, index_label: str) -> dict[str, object]:
        number = {
            c: st.column_config.NumberColumn(
                c, min_value=-analysis.TOY_LIMIT, max_value=analysis.TOY_LIMIT
            )
            for c in df.columns
        }
        return {"_index": st.column_config.TextColumn(index_label), **number}

    left, right = st.columns([max(3, q.size + 1), max(2, v.shape[1] + 1)])
    with left:
        st.markdown(t("attention.toy.qk_label", d=q.size))
        e_qk = st.data_editor(
            qk,
            key=f"attention_toy_qk_{ver}",
            num_rows="fixed",
            column_config=config(qk, t("attention.toy.vector")),
            width="stretch",
        )
    with right:
        st.markdown(t("attention.toy.v_label"))
        e_v = st.data_editor(
            vv,
            key=f"attention_toy_v_{ver}",
            num_rows="fixed",
            column_config=config(vv, t("attention.toy.vector")),
            width="stretch",
        )
    empty = []
    tables = []
    for df in (e_qk, e_v):
        m = df.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)  # (rows, cols)
        for i, j in zip(*np.nonzero(~np.isfinite(m))):
            empty.append(f"`{df.index[i]}` [{df.columns[j]}]")
        tables.append(np.clip(m, -analysis.TOY_LIMIT, analysis.TOY_LIMIT))
    if empty:
        st.error(t("attention.toy.empty", cells=", ".join(empty)), icon=":material/edit_note:")
        return None
    return tables[0][0], tables[0][1:], tables[1]


def kind_names() -> dict[str, str]:
    return {k: t(f"attention.score.kind.{k}") for k in analysis.SCORE_KINDS}


def toy_figure(ex: analysis.WorkedExample, words: list[str], kind: str, presenter: bool):
    """The weight of every key under the three score functions (the part's picture)."""
    names = kind_names()

    def trace(c: str) -> str:
        return t("attention.toy.trace", kind=names[c], h=f"{ex.entropy[c]:.2f}")

    return figures.score_kinds_bars(
        words,
        {trace(c): ex.weights[c] for c in analysis.SCORE_KINDS},
        {trace(c): ex.scores[c] for c in analysis.SCORE_KINDS},
        title=t(
            "attention.toy.chart_title", word=analysis.TOY_QUERY_WORD, temp=f"{ex.temperature:g}"
        ),
        x_title=t("attention.toy.key"),
        y_title=t("attention.toy.weight"),
        hover={
            "key": t("attention.toy.key"),
            "score": t("attention.toy.score"),
            "weight": t("attention.toy.weight"),
        },
        presenter=presenter,
        selected=trace(kind),
        even_label=t("attention.toy.even", n=len(words)),
    )


def toy_steps(ex: analysis.WorkedExample, words: list[str], kind: str) -> None:
    """The three steps in numbers: scores, softmax, weighted sum of the values."""
    kinds, names = analysis.SCORE_KINDS, kind_names()
    q, k, v, temp = ex.query, ex.keys, ex.values, ex.temperature
    d = q.size
    st.markdown(t("attention.toy.step1", kind=names[kind]))
    st.latex(figures.score_latex(kind, q, k, ex.scores[kind], words))
    st.table(
        pd.DataFrame(
            {names[c]: [f"{x:.3f}" for x in ex.scores[c]] for c in kinds},
            index=pd.Index(words, name=t("attention.toy.key")),
        )
    )
    st.caption(t("attention.toy.scores_caption", d=d, sqrt=f"{math.sqrt(d):.3g}"))
    st.markdown(t("attention.toy.step2", temp=f"{temp:g}"))
    top = int(np.argmax(ex.weights[kind]))
    st.latex(figures.softmax_latex(ex.scores[kind], ex.weights[kind], words, temp, top))
    table = pd.DataFrame(
        {names[c]: [f"{x:.3f}" for x in ex.weights[c]] for c in kinds},
        index=pd.Index(words, name=t("attention.toy.key")),
    )
    table.loc[t("attention.toy.sum")] = [f"{ex.weights[c].sum():.3f}" for c in kinds]
    table.loc[t("attention.toy.entropy")] = [f"{ex.entropy[c]:.2f}" for c in kinds]
    st.table(table)
    st.caption(
        t(
            "attention.toy.entropy_caption",
            kind=names[kind],
            h=f"{ex.entropy[kind]:.2f}",
            max=f"{ex.max_entropy:.2f}",
            n=len(words),
        )
    )
    st.markdown(t("attention.toy.step3"))
    st.latex(figures.context_latex(ex.weights[kind], v, words))
    st.table(
        pd.DataFrame(
            [[f"{x:.3f}" for x in ex.context[c]] for c in kinds],
            index=pd.Index([names[c] for c in kinds], name=t("attention.score.kind")),
            columns=[f"o[{i + 1}]" for i in range(v.shape[1])],
        )
    )
    st.caption(
        t(
            "attention.toy.output_caption",
            word=analysis.TOY_QUERY_WORD,
            top=words[top],
            w=f"{ex.weights[kind][top]:.2f}",
            kind=names[kind],
        )
    )


# --- the real scores of "it" in the lesson's sentence -------------------------------------


@ui.fragment  # the sentence reruns only this section
def in_coref() -> None:
    """The coreference encoder's named head at "it" (part 3's view): the real scaled
    scores q·k/√d over the lesson's sentence and the softmax weights the model used."""
    st.subheader(t("attention.score.coref.header"))
    if not models.require(data.COREF):
        return
    pair = data.coref_pair()
    chart = st.container()
    predicate = ui.params.get_choice("cs", tuple(pair), default=next(iter(pair)))
    predicate = st.segmented_control(
        t("attention.score.coref.sentence"),
        tuple(pair),
        format_func=lambda p: f"… it was {p}",
        required=True,
        **ui.params.bound("cs", predicate, key="attention_cs"),
    )
    ui.params.set_params(cs=predicate)
    sw = pair[predicate]
    with chart:
        ui.chart(coref_figure(sw), key="attention_score_coref")
    st.caption(coref_caption(sw))


def coref_figure(sw):
    """The real scores on top, the model's weights under them, one bar per word."""
    sentence = " ".join(sw.tokens)
    return figures.bar_panels(
        [
            figures.BarPanel(sw.tokens, sw.scores, "", t("attention.score.coref.scores_y")),
            figures.BarPanel(
                sw.tokens,
                sw.weights,
                "",
                t("attention.hover.weight"),
                x_title=t("attention.score.keys"),
                highlight=int(np.argmax(sw.weights)),
            ),
        ],
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


# --- the same steps inside a trained model ------------------------------------------------


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
    n_keys = read_toy(notify=False)[1].shape[0]  # no sentence: as many keys as the example
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
    sqrt_d(n_keys)


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
    """Entropy, largest weight and sum; for the curious the formula and how close the
    softmax of the scores comes to the model's own row."""
    c1, c2, c3 = st.columns(3)
    c1.metric(t("attention.score.entropy"), f"{analysis.entropy_bits(weights):.2f}")
    c2.metric(t("attention.score.max"), f"{weights.max():.2f}")
    c3.metric(t("attention.score.sum"), f"{weights.sum():.3f}")
    st.caption(t("attention.score.entropy_help", max=f"{math.log2(len(weights)):.2f}"))
    match = float(np.abs(analysis.softmax(ms.scores) - ms.used).max())
    with ui.curious():
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


# --- why divide by sqrt(d) ----------------------------------------------------------------


@ui.fragment  # d reruns only its chart
def sqrt_d(n_keys: int) -> None:
    """Entropy against d for ``n_keys`` random keys, with and without the 1/sqrt(d)."""
    chart = st.container()
    d_now = ui.params.get_choice("d", data.DIMS, default=32)
    d_now = st.select_slider(
        t("attention.score.d"),
        options=list(data.DIMS),
        **ui.params.bound("d", d_now, key="attention_d"),
    )
    ui.params.set_params(d=d_now)
    curves = data.saturation(n_keys)
    with chart:
        fig = saturation_figure(curves, n_keys, d_now)
        ui.chart(fig, key="attention_score_sqrt")
    st.caption(saturation_caption(curves, n_keys, d_now))


def saturation_figure(curves: dict[str, np.ndarray], n_keys: int, d_now: int):
    return figures.saturation_figure(
        data.DIMS,
        {
            t("attention.score.sqrt.dot"): curves["ent_dot"],
            t("attention.score.sqrt.scaled"): curves["ent_scaled"],
        },
        title=t("attention.score.sqrt.title", n=n_keys),
        x_title=t("attention.score.d"),
        y_title=t("attention.focus.y"),
        presenter=ui.presenter(),
        marker_d=d_now,
        ceiling=math.log2(n_keys),
        ceiling_label=t("attention.score.sqrt.even"),
    )


def saturation_caption(curves: dict[str, np.ndarray], n_keys: int, d_now: int) -> str:
    i = data.DIMS.index(d_now)
    return t(
        "attention.score.sqrt.caption",
        d=d_now,
        n=n_keys,
        max_dot=f"{curves['max_dot'][i]:.2f}",
        max_scaled=f"{curves['max_scaled'][i]:.2f}",
        std=f"{math.sqrt(d_now):.1f}",
    )
