"""Part 2, the same measurement inside the trained distance probes (plain RNN, LSTM, GRU):
how the gradient falls with distance once training has had its say."""

from __future__ import annotations

import streamlit as st

import ui
from charts import rnn_gradients as figures
from charts.common import Titles
from lessons.rnn_gradients import data
from lessons.rnn_gradients.common import names, quantity_picker, sci
from serve import jobs
from ui.models import require

t = ui.t
FAR = 40  # the distance the part reads its numbers at


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
    dist_t = trained["rnn"]["distance"]
    n = data.N_STATE if quantity == "state" else data.N_SEQ
    with s.chart:
        ui.chart(
            figures.decay_figure(
                dist_t,
                {ui.model_name(data.PROBES[k]): trained[k][quantity] for k in data.CELLS},
                titles=Titles(
                    t("rnn_gradients.trained.chart", n=n),
                    t("rnn_gradients.trained.distance_axis"),
                    t(f"rnn_gradients.q.{quantity}.axis_trained"),
                ),
                presenter=ui.presenter(),
                looks=names(data.PROBES.values()),
            ),
            key="rnng_trained",
        )
    d = min(FAR, int(dist_t[-1]))
    vals = {k: sci(float(trained[k][quantity][d])) for k in data.CELLS}
    with s.words:
        st.caption(t(f"rnn_gradients.trained.caption_{quantity}", d=d, n=n, **vals))
    ui.takeaway(t("rnn_gradients.trained.takeaway", d=d, **vals))
    with ui.curious():
        st.markdown(t("rnn_gradients.trained.intro"))
