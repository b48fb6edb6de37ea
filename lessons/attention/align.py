"""Part "align" (lesson 3.1): each output word spreads a budget of 1 over the source words.
The alignment heatmap with one decoding step's row framed and drawn as bars under it, then
how spread out every step's weights are (their entropy, for the curious)."""

from __future__ import annotations

import math

import numpy as np
import streamlit as st

import ui
from charts import attention as figures
from charts.common import Titles
from core.analysis import attention as analysis
from core.analysis import longrange
from lessons import far_example
from lessons.attention import common, data
from ui.inputs import plain

t = ui.t  # reads the visitor's language on every call


@ui.fragment  # its controls rerun only this part of the page
def show() -> None:
    top, choose = st.container(), st.container()
    far = far_example.sentence()
    with choose:  # under the picture: which sentence, which model
        name = common.model_picker()
        extra = (" ".join(far.src),) if far is not None else ()
        tokens = common.sentence_picker(common.EXAMPLES[0], extra=extra)
    if tokens is None:
        return
    run, gap = data.run_model(name, tokens)
    layer, head = common.view_picker(name, run, choose)
    weights = analysis.select_heads(run.cross, layer, head)
    entropy = analysis.entropy_bits(weights)
    row = longrange.far_row(weights, run.output, far) if far and tokens == far.src else None
    with top:
        step_view(name, run, weights, entropy, row)
    with choose:
        common.model_note(name, run)
        common.reference_note(tokens)
    # every step at once, outside the step fragment: not redrawn when the step moves
    ui.chart(focus_figure(run, entropy), key="attention_align_focus")
    st.caption(t("attention.focus.caption", max=f"{math.log2(len(run.source)):.2f}"))
    ui.takeaway(t("attention.align.takeaway"))
    ui.try_this(t("attention.align.try"))
    with ui.curious():
        st.caption(t("attention.align.caption", where=common.where(name, layer, head)))
        n = len(run.source)
        st.caption(t("attention.spread.curious", n=n, max=f"{math.log2(n):.2f}"))
        check_note(run, gap)
    ui.params.set_params(s=" ".join(tokens))


@ui.fragment  # the decoding step reruns only what it moves: one figure (heatmap + row)
def step_view(
    name: str,
    run: analysis.AttentionRun,
    weights: np.ndarray,
    entropy: np.ndarray,
    row: longrange.FarRow | None = None,
) -> None:
    """The alignment heatmap with the step's row framed and drawn as bars under it; the
    step slider under the chart (``row``: in a long-range sentence, the row that writes the
    noun for "their", where the slider starts)."""
    s = ui.slide(t("attention.part.align.lead"))
    with s.control:
        step = common.step_picker(run, t("attention.step"), default=row.step if row else 0)
    with s.more:
        values = st.toggle(
            t("attention.values"),
            **ui.params.bound("values", ui.params.get_bool("values", False), key="attention_v"),
        )
    with s.chart:
        # what the figure is drawn from, exactly (the sentence's weights as bytes)
        made_of = (name, tuple(run.source), tuple(run.output), weights.shape, weights.tobytes())
        ui.chart(
            lambda: alignment_figure(name, run, weights, step, values),
            key="attention_align",
            memo=(*made_of, step, values),
        )
    with s.words:
        st.markdown(row_caption(run, weights, entropy, step))
        if row is not None:
            st.markdown(far_words(run, row, step))


def alignment_figure(
    name: str, run: analysis.AttentionRun, weights: np.ndarray, step: int, values: bool
):
    """The heatmap of every step's weights with ``step``'s row framed and drawn as bars."""
    return figures.alignment_figure(
        weights,
        run.source,
        common.numbered(run.output),
        step=step,
        titles=Titles(
            t("attention.align.title", model=ui.model_name(name)),
            t("attention.align.x"),
            t("attention.align.y"),
        ),
        row_title=t("attention.row.title", step=step + 1, token=run.output[step]),
        row_y_title=t("attention.hover.weight"),
        hover=common.hover(),
        presenter=ui.presenter(),
        show_values=values,
    )


def far_words(run: analysis.AttentionRun, row: longrange.FarRow, step: int) -> str:
    """What the row writing the noun for "their" reads, or where to find that row."""
    noun = " ".join(run.source[i] for i in row.noun)
    if step != row.step:
        return t(
            "attention.align.far_go",
            step=f"{row.step + 1} · {plain(run.output[row.step])}",
            d=row.distance,
        )
    return t(
        "attention.align.far",
        d=row.distance,
        noun=plain(noun),
        zh=plain(run.output[row.step]),
        w=f"{row.on_noun:.2f}",
        w_their=f"{row.on_their:.2f}",
    )


def row_caption(
    run: analysis.AttentionRun, weights: np.ndarray, entropy: np.ndarray, step: int
) -> str:
    row = weights[step]
    top = int(np.argmax(row))
    return t(
        "attention.row.caption",
        token=plain(run.output[step]),
        top=plain(run.source[top]),
        w=f"{row[top]:.2f}",
        total=f"{row.sum():.2f}",
        h=f"{entropy[step]:.2f}",
    )


def focus_figure(run: analysis.AttentionRun, entropy: np.ndarray):
    """The entropy of every step's weights (bits), under the ceiling log2(S)."""
    return figures.weight_bars(
        common.numbered(run.output),
        entropy,
        titles=Titles(t("attention.focus.title"), t("attention.align.y"), t("attention.focus.y")),
        presenter=ui.presenter(),
        highlight=False,
        ceiling=math.log2(len(run.source)),
    )


def check_note(run: analysis.AttentionRun, gap: float) -> None:
    """The check that the plotted weights are the ones used (for the curious)."""
    ok = run.consistent and gap < 1e-3
    st.caption(t("attention.check.ok" if ok else "attention.check.bad", gap=f"{gap:.1e}"))
