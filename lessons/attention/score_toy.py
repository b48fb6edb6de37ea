"""Part "score", its picture: the worked example by hand. A query, keys and values a student
edits (they live in the URL as tq, tk, tv), their weights under the three score functions,
and the three steps in numbers (scores, softmax, weighted sum of the values)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

import ui
from charts import attention as figures
from charts.common import Titles
from core.analysis import attention as analysis

t = ui.t  # reads the visitor's language on every call

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

    def editor(df: pd.DataFrame, key: str) -> pd.DataFrame:
        """``df`` to edit: its row names in a text column, each number within the limit."""
        number = {
            c: st.column_config.NumberColumn(
                c, min_value=-analysis.TOY_LIMIT, max_value=analysis.TOY_LIMIT
            )
            for c in df.columns
        }
        config = {"_index": st.column_config.TextColumn(t("attention.toy.vector")), **number}
        return st.data_editor(df, key=key, num_rows="fixed", column_config=config, width="stretch")

    left, right = st.columns([max(3, q.size + 1), max(2, v.shape[1] + 1)])
    with left:
        st.markdown(t("attention.toy.qk_label", d=q.size))
        e_qk = editor(qk, f"attention_toy_qk_{ver}")
    with right:
        st.markdown(t("attention.toy.v_label"))
        e_v = editor(vv, f"attention_toy_v_{ver}")
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
        titles=Titles(
            t(
                "attention.toy.chart_title",
                word=analysis.TOY_QUERY_WORD,
                temp=f"{ex.temperature:g}",
            ),
            t("attention.toy.key"),
            t("attention.toy.weight"),
        ),
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
