"""Part 1, Table 1 of Vaswani et al. 2017, interactive: cost per layer, sequential steps and
maximum path length of self-attention, recurrent and convolutional layers against n."""

from __future__ import annotations

import streamlit as st

import ui
from charts import path_length as figures
from charts.common import Titles
from core import mdtable
from core.analysis import path_length as analysis
from lessons.path_length import data
from lessons.path_length.common import (
    K_MAX,
    arch_looks,
    arch_names,
    header,
    kernel_slider,
)

t = ui.t
N_MAX, D_CHOICES = 2048, (16, 32, 64, 128, 256, 512, 1024)
COLUMNS = ("complexity", "sequential", "path")


def show() -> None:
    header("path_length.table.header")  # headers outside the fragments: sent once per page run
    table_section()
    ui.takeaway(t("path_length.table.takeaway"))
    ui.try_this(t("path_length.table.try"))


@ui.fragment  # n, the metric, d and k rerun only this section
def table_section() -> None:
    """Table 1 for the n, d, k in the link: the chart first, the table in the words."""
    n = ui.params.get_int("n", 2, N_MAX, default=50)
    d = ui.params.get_choice("d", D_CHOICES, default=512)
    k = ui.params.get_int("k", 2, K_MAX, default=3)
    metric = ui.params.get_choice("metric", analysis.METRICS, default="path")

    s = ui.slide(t("path_length.table.lead"))
    with s.control:
        c1, c2 = st.columns(2)
        with c1:
            metric = st.segmented_control(
                t("path_length.metric"),
                analysis.METRICS,
                format_func=ui.labeler("path_length.metric."),
                required=True,
                **ui.params.bound("metric", metric, key="path_metric"),
            )
        with c2:
            n = st.slider(t("path_length.n"), 2, N_MAX, **ui.params.bound("n", n, key="path_n"))
    with s.more:
        c1, c2 = st.columns(2)
        with c1:
            d = st.select_slider(
                t("path_length.d"), D_CHOICES, **ui.params.bound("d", d, key="path_d")
            )
        with c2:
            k = kernel_slider(k)
    ui.params.set_params(n=n, d=d, k=k, metric=metric)

    names = arch_names()
    ns, curves = data.table_curves(max(64, min(N_MAX, 4 * n)), d, k)
    with s.chart:
        ui.chart(
            lambda: figures.table_chart(
                ns,
                {names[a]: curves[metric][a] for a in analysis.ARCHITECTURES},
                current_n=n,
                current_label=t("path_length.chart.current", n=n),
                titles=Titles(
                    t(f"path_length.chart.title.{metric}", d=d, k=k),
                    t("path_length.chart.x"),
                    t(f"path_length.chart.y.{metric}"),
                ),
                log_y=metric == "complexity",
                looks=arch_looks(),
                presenter=ui.presenter(),
            ),
            key="path_table_chart",
            memo=(n, d, k, metric),  # the curves: a formula of these
        )
    with s.words:
        table_words(metric, n, d, k)


def table_words(metric: str, n: int, d: int, k: int) -> None:
    """The chart's caption, then Table 1 itself for this n, d, k."""
    names = arch_names()
    table = analysis.costs(n, d, k)
    rows = [
        [mdtable.escape(names[arch])]
        + [mdtable.escape(f"{analysis.BIG_O[arch][m]} = {table[arch][m]:,}") for m in COLUMNS]
        for arch in analysis.ARCHITECTURES
    ]
    if metric == "complexity":
        cheaper = t("path_length.cheaper.yes") if n < d else t("path_length.cheaper.no")
        st.caption(t("path_length.chart.caption.complexity", d=d, n=n, cheaper=cheaper))
    else:
        st.caption(t(f"path_length.chart.caption.{metric}", k=k))
    st.markdown(t("path_length.table.intro"))
    # a Markdown table: no pandas on the server, no table bundle in the browser
    st.markdown(
        mdtable.table(
            [t("path_length.col.layer"), *(t(f"path_length.col.{m}") for m in COLUMNS)], rows
        )
    )
    st.caption(t("path_length.table.caption", n=n, d=d, k=k))
