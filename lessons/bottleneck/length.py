"""Part ``length``: accuracy against sentence length, from the training runs' manifest
(the analogue of Bahdanau et al. 2015, Figure 2)."""

from __future__ import annotations

import streamlit as st

import ui
from charts import bottleneck as figures
from core import corpus
from core.analysis import bottleneck as analysis
from lessons.bottleneck import data
from lessons.bottleneck.common import P, close_part, part_header
from ui import models

t = ui.t


@ui.fragment  # the metric switch reruns only this part
def show() -> None:
    part_header("length")
    s = ui.slide(t(P + "length.lead"))
    manifest = models.get_manifest()
    metric = ui.params.get_choice("metric", analysis.METRICS, default="exact")
    with s.control:
        metric = st.segmented_control(
            t(P + "length.metric"),
            analysis.METRICS,
            format_func=ui.labeler(P + "metric."),
            required=True,
            **ui.params.bound("metric", metric, key="bn_metric"),
        )
    ui.params.set_params(metric=metric)
    names = (*data.PLAIN, data.ATTN, *data.OTHERS)
    curves = analysis.length_curves(manifest, names, metric)
    if not curves:
        s.chart.warning(t(P + "length.missing"), icon=":material/hourglass_empty:")
        return
    with s.chart:
        ui.chart(
            figures.length_figure(
                corpus.BUCKETS,
                curves,
                focus=(*data.PLAIN, data.ATTN),
                names={n: ui.model_name(n) for n in names},
                title=t(P + "length.title", metric=t(f"{P}metric.{metric}")),
                x_title=t(P + "length.x"),
                y_title=t(f"{P}metric.{metric}"),
                presenter=ui.presenter(),
            ),
            key="bn_length",
        )
    counts = analysis.bucket_counts(manifest, data.ATTN)
    with s.words:
        st.caption(t(P + "length.caption", n=sum(counts), per=min(counts) if counts else 0))
    close_part("length")
    with ui.curious():
        st.markdown(t(P + "length.curious"))
