"""Part "score", why divide by sqrt(d): the entropy of the weights against d for random keys,
with and without the 1/sqrt(d)."""

from __future__ import annotations

import math

import numpy as np
import streamlit as st

import ui
from charts import attention as figures
from charts.common import Titles
from lessons.attention import data

t = ui.t  # reads the visitor's language on every call


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
            t("attention.score.kind.dot"): curves["ent_dot"],
            t("attention.score.kind.scaled"): curves["ent_scaled"],
        },
        titles=Titles(
            t("attention.score.sqrt.title", n=n_keys),
            t("attention.score.d"),
            t("attention.focus.y"),
        ),
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
