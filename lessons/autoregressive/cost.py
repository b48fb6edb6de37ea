"""Part ``cost``: the serial cost of writing -- n words take n model steps, reading them one
(measured live on this server)."""

from __future__ import annotations

import streamlit as st

import ui
from core.analysis import autoregressive as analysis
from core.figures import autoregressive as figures
from lessons.autoregressive import data
from lessons.autoregressive.common import k, part_end
from ui.models import get_model, require

TIMING_LENGTHS = (4, 8, 16, 32, 64)
t = ui.t


@ui.fragment  # its controls rerun only this part
def show() -> None:
    s = ui.slide(t(k("cost.lead")))
    if not require(data.LM):
        return
    model = ui.model_name(data.LM)
    with s.control:
        st.button(t(k("cost.again")), icon=":material/timer:", key="ar_cost_again")
    with s.chart, st.spinner(t(k("cost.spinner"))):
        timing = analysis.time_generation(get_model(data.LM), TIMING_LENGTHS, repeats=5)
    fig = figures.timing_chart(
        timing.lengths,
        {t(k("cost.write")): timing.generate_ms, t(k("cost.read")): timing.read_ms},
        title=t(k("cost.title"), model=model),
        x_title=t(k("cost.x")),
        y_title=t(k("cost.y")),
        presenter=ui.presenter(),
    )
    with s.chart:
        ui.chart(fig, key="ar_cost_chart")
    n_half, n_full = timing.lengths[-2], timing.lengths[-1]
    per_token = timing.generate_ms[-1] / n_full
    with s.words:
        c1, c2, c3 = st.columns(3)
        c1.metric(t(k("cost.per_token")), f"{per_token:.2f} ms")
        c2.metric(
            t(k("cost.ratio"), n=n_full),
            f"{timing.generate_ms[-1] / max(timing.read_ms[-1], 1e-6):.0f}×",
        )
        c3.metric(
            t(k("cost.double"), a=n_half, b=n_full),
            f"{timing.generate_ms[-1] / max(timing.generate_ms[-2], 1e-6):.1f}×",
        )
    part_end("cost")
    with ui.curious():
        st.markdown(t(k("cost.caption"), model=model, repeats=timing.repeats))
