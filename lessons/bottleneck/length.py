"""Part ``length``: accuracy against sentence length, from the training runs' manifest
(the analogue of Bahdanau et al. 2015, Figure 2)."""

from __future__ import annotations

import streamlit as st

import ui
from charts import bottleneck as figures
from charts.common import Titles
from core import corpus
from core.analysis import bottleneck as analysis
from lessons import controls
from lessons.bottleneck import data
from lessons.bottleneck.common import close_part, part_header
from ui import models

t = ui.t


@ui.fragment  # the metric switch reruns only this part
def show() -> None:
    part_header("bottleneck.length.header")
    s = ui.slide(t("bottleneck.length.lead"))
    manifest = models.get_manifest()
    metric = ui.params.get_choice("metric", analysis.METRICS, default="exact")
    with s.control:
        metric = controls.segmented(
            t("bottleneck.length.metric"),
            analysis.METRICS,
            metric,
            param="metric",
            key="bn_metric",
            format_func=ui.labeler("bottleneck.metric."),
        )
    names = (*data.PLAIN, data.ATTN, *data.OTHERS)
    curves = analysis.length_curves(manifest, names, metric)
    if not curves:
        s.chart.warning(t("bottleneck.length.missing"), icon=":material/hourglass_empty:")
        return
    with s.chart:
        ui.chart(
            figures.length_figure(
                corpus.BUCKETS,
                curves,
                focus=(*data.PLAIN, data.ATTN),
                names={n: ui.model_name(n) for n in names},
                titles=Titles(
                    t("bottleneck.length.title", metric=t(f"bottleneck.metric.{metric}")),
                    t("bottleneck.length.x"),
                    t(f"bottleneck.metric.{metric}"),
                ),
                presenter=ui.presenter(),
            ),
            key="bn_length",
        )
    counts = analysis.bucket_counts(manifest, data.ATTN)
    with s.words:
        st.caption(t("bottleneck.length.caption"))
    close_part("bottleneck.length.takeaway", "bottleneck.length.try")
    with ui.curious():  # the bucket sizes the manifest recorded, never typed
        even = len(set(counts)) == 1
        per = min(counts) if counts else 0
        key = "bottleneck.length.curious" if even else "bottleneck.length.curious_uneven"
        st.markdown(t(key, n=sum(counts), per=per))
