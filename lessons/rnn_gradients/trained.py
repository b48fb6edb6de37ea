"""Part 2, the same measurement inside the trained distance probes (plain RNN, LSTM, GRU):
how the gradient falls with distance once training has had its say."""

from __future__ import annotations

import streamlit as st

import ui
from charts import rnn_gradients as figures
from charts.common import Titles
from core import probes_data
from lessons.rnn_gradients import data
from lessons.rnn_gradients.common import (
    FAR,
    PROBE_DISTANCE_AXIS,
    both_numbers,
    names,
    probe_sizes,
    quantity_picker,
    sci,
)
from serve import jobs
from ui.models import get_manifest, require

t = ui.t


@ui.fragment  # the quantity reruns only this part
def show() -> None:
    st.header(t("rnn_gradients.trained.header"))
    s = ui.slide(t("rnn_gradients.trained.lead"))
    with s.control:
        quantity = quantity_picker()
    if not require(*data.PROBES.values(), vocabs=False):
        return
    with st.spinner(t("rnn_gradients.computing")):
        trained = jobs.result_of(data.trained_job)
    last = probes_data.MAX_DISTANCE + 1  # the distances a key can lie at
    dist_t = trained["rnn"]["distance"][:last]
    n = data.N_STATE if quantity == "state" else data.N_SEQ
    with s.chart:
        ui.chart(
            figures.decay_figure(
                dist_t,
                {ui.model_name(data.PROBES[k]): trained[k][quantity][:last] for k in data.CELLS},
                titles=Titles(
                    t("rnn_gradients.trained.chart", n=n),
                    t("rnn_gradients.trained.distance_axis"),
                    t(f"rnn_gradients.q.{quantity}.axis_trained"),
                ),
                presenter=ui.presenter(),
                looks=names(data.PROBES.values()),
                x_axis=PROBE_DISTANCE_AXIS,
            ),
            key="rnng_trained",
        )
    d = min(FAR, int(dist_t[-1]))
    vals = {k: sci(float(trained[k][quantity][d])) for k in data.CELLS}
    with s.words:
        st.caption(t(f"rnn_gradients.trained.caption_{quantity}", d=d, n=n, **vals))
        entry = get_manifest()["models"].get(data.PROBES["rnn"], {})
        if entry.get("metrics", {}).get("distance"):
            st.caption(t("rnn_gradients.both", **both_numbers(trained, entry)))
    ui.takeaway(t("rnn_gradients.trained.takeaway", d=d, **vals))
    with ui.curious():
        entry = get_manifest()["models"].get(data.PROBES["rnn"], {})
        st.markdown(t("rnn_gradients.trained.intro", **probe_sizes(entry)))
