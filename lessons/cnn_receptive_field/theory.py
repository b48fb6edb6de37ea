"""Part 1, the formula: the windows of one position layer by layer over a real sentence, and
the layer at which two distant words first share a window.

Two fragments, nested: kernel and depth rerun only ``formula_section`` (the chart, its two
knobs and the words under it); the sentence, the pair, the position and dilation (the folded
controls) rerun ``window_section``, which draws the formula again.
"""

from __future__ import annotations

import streamlit as st

import ui
from charts import cnn_receptive_field as figures
from charts.common import Titles
from core.analysis import receptive_field as analysis
from lessons.cnn_receptive_field.common import (
    KERNELS,
    MAX_DEPTH,
    kernel_in_link,
    pair_and_position,
    position_select,
    sentence_controls,
)
from ui import word_pair

t = ui.t


def show() -> None:
    st.header(
        t("cnn_receptive_field.theory.header")
    )  # headers outside the fragments: sent once per page run
    window_section()
    ui.takeaway(t("cnn_receptive_field.theory.takeaway"))
    ui.try_this(t("cnn_receptive_field.theory.try"))
    with ui.curious():
        st.markdown(
            t(
                "cnn_receptive_field.theory.curious",
                contiguous=analysis.FORMULAS[1],
                dilated=analysis.FORMULAS[2],
            )
        )


@ui.fragment  # the folded controls rerun this part (and the formula)
def window_section() -> None:
    """The slide of part 1: the lead, the formula (inner fragment), the folded controls."""
    lead = st.empty()  # the lead names the pair of the sentence below: filled once it is known
    s = ui.slide()
    with s.more:
        kind, text = sentence_controls()
        tokens, pair, _problem = word_pair.sentence_tokens("cnn_receptive_field.", kind, text)
    lead.markdown(theory_lead(kind))
    kernel, dilated = kernel_in_link()
    a, b, pos = pair_and_position(tokens, pair, kernel, dilated)
    with s.more:
        a, b = word_pair.pair_selects("cnn_receptive_field.", tokens, a, b, key="cnn_rf")
        pos = position_select(tokens, pos)
        dilated = st.toggle(
            t("cnn_receptive_field.dilation"),
            help=t("cnn_receptive_field.dilation_help"),
            **ui.params.bound("dil", dilated, key="cnn_rf_dil"),
        )
    ui.params.set_params(a=a, b=b, pos=pos, dil=dilated)
    with s.chart:
        formula_section(tokens, a, b, pos, dilated)


def theory_lead(kind: str) -> str:
    """The lesson's long dependency in the sentence on screen (the lesson's own Chinese
    sentence for a sentence of the visitor's own): its two words and their distance, the
    same numbers the "distance between the pair" metric shows for the default pair; for
    the English counterpart, the lesson's own pair and distance beside them."""
    lesson = word_pair.sentence("zh", "")
    tokens, (a, b), _ = word_pair.sentence(kind, "") if kind == "en" else lesson
    note = ""
    if kind == "en":
        z_tokens, (za, zb), _ = lesson
        note = t(
            "cnn_receptive_field.theory.lead_lesson",
            early=z_tokens[za],
            late=z_tokens[zb],
            gap=zb - za,
        )
    return t(
        "cnn_receptive_field.theory.lead",
        early=tokens[a],
        late=tokens[b],
        gap=abs(b - a),
        note=note,
    )


@ui.fragment  # kernel and depth rerun only the chart, their controls and the words under it
def formula_section(tokens: tuple[str, ...], a: int, b: int, pos: int, dilated: bool) -> None:
    """The windows of ``tokens[pos]`` layer by layer, the pair ``(a, b)`` marked, with the
    formula's two knobs (kernel, depth) under the chart. The arguments come from
    ``window_section``; the knobs are read from the link on every run."""
    kernel = kernel_in_link()[0]
    depth = ui.params.get_int("depth", 1, MAX_DEPTH, default=analysis.DEFAULT_DEPTH)
    v = ui.slide()
    with v.control:  # the formula's two knobs side by side, right under the chart
        c1, c2 = st.columns(2)
        with c1:
            depth = st.slider(
                t("cnn_receptive_field.depth"),
                1,
                MAX_DEPTH,
                **ui.params.bound("depth", depth, key="cnn_rf_depth"),
            )
        with c2:
            kernel = st.select_slider(
                t("cnn_receptive_field.kernel"),
                KERNELS,
                **ui.params.bound("k", kernel, key="cnn_rf_k"),
            )
    ui.params.set_params(k=kernel, depth=depth)

    dilation = 2 if dilated else 1
    wins = analysis.windows(pos, depth, kernel, len(tokens), base=dilation)
    shared = analysis.first_shared_layer(a, b, kernel, base=dilation, max_layers=MAX_DEPTH)
    present = ui.presenter()
    with v.chart:
        ui.chart(
            lambda: figures.window_figure(
                tokens,
                wins,
                (a, b),
                titles=Titles(
                    t("cnn_receptive_field.theory.title", word=tokens[pos], k=kernel, depth=depth),
                    t("cnn_receptive_field.theory.x"),
                    t("cnn_receptive_field.theory.y"),
                ),
                hover=t("cnn_receptive_field.theory.hover"),
                pair_label=t("cnn_receptive_field.theory.pair"),
                presenter=present,
                # presenter mode: ui.chart fits the projector
                phone=ui.on_a_phone() and not present,
            ),
            key="cnn_rf_windows",
            memo=(tokens, a, b, pos, dilated, kernel, depth),  # the windows: a formula of these
        )
    with v.words:
        formula_words(shared, depth, kernel, dilation, abs(a - b))


def formula_words(shared: int | None, depth: int, kernel: int, dilation: int, gap: int) -> None:
    """Whether the pair shares a window by ``depth``, and the three numbers behind it."""
    if shared is None:
        st.markdown(t("cnn_receptive_field.theory.never", gap=gap, max=MAX_DEPTH))
    elif shared <= depth:
        st.markdown(t("cnn_receptive_field.theory.shared_yes", layer=shared, gap=gap))
    else:
        st.markdown(
            t("cnn_receptive_field.theory.shared_later", layer=shared, depth=depth, gap=gap)
        )
    m1, m2, m3 = st.columns(3)
    m1.metric(
        t("cnn_receptive_field.metric.field", depth=depth),
        t(
            "cnn_receptive_field.metric.words",
            n=analysis.theoretical_field(depth, kernel, dilation),
        ),
    )
    m2.metric(
        t("cnn_receptive_field.metric.shared"),
        t("cnn_receptive_field.metric.layer", layer=shared)
        if shared is not None
        else t("cnn_receptive_field.metric.never", max=MAX_DEPTH),
    )
    m3.metric(t("cnn_receptive_field.metric.gap"), t("cnn_receptive_field.metric.words", n=gap))
    st.caption(t("cnn_receptive_field.theory.caption"))
