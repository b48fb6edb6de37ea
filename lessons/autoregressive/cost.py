"""Part ``cost``: the serial cost of writing -- n words take n model calls, reading them one
(counted), then the milliseconds those calls took (measured live on this server: noisy)."""

from __future__ import annotations

import streamlit as st

import ui
from charts import autoregressive as figures
from charts.common import Titles
from core.analysis import autoregressive as analysis
from lessons.autoregressive import data
from ui.models import get_model, require

TIMING_LENGTHS = (4, 8, 16, 32, 64)
t = ui.t


@ui.fragment  # its controls rerun only this part
def show() -> None:
    s = ui.slide(t("autoregressive.cost.lead"))
    if not require(data.LM):
        return
    model = ui.model_name(data.LM)
    with s.control:
        st.button(t("autoregressive.cost.again"), icon=":material/timer:", key="ar_cost_again")
    with s.chart, st.spinner(t("autoregressive.cost.spinner")):
        timing = analysis.time_generation(get_model(data.LM), TIMING_LENGTHS, repeats=5)
    with s.chart:  # first: the model calls, counted (exact, the same on every run)
        chart(timing.lengths, timing.generate_calls, timing.read_calls, "calls", model)
    n_half, n_full = timing.lengths[-2], timing.lengths[-1]
    with s.words:
        c1, c2, c3 = st.columns(3)
        c1.metric(t("autoregressive.cost.calls_write", n=n_full), timing.generate_calls[-1])
        c2.metric(t("autoregressive.cost.calls_read", n=n_full), timing.read_calls[-1])
        c3.metric(t("autoregressive.cost.per_token"), f"{timing.generate_ms[-1] / n_full:.2f} ms")
        # second: the milliseconds, measured just now (they move from run to run)
        chart(timing.lengths, timing.generate_ms, timing.read_ms, "ms", model)
        st.caption(
            t(
                "autoregressive.cost.noise",
                a=n_half,
                b=n_full,
                calls=f"{timing.generate_calls[-1] / timing.generate_calls[-2]:.0f}",
                time=f"{timing.generate_ms[-1] / max(timing.generate_ms[-2], 1e-6):.1f}",
                read_a=f"{timing.read_ms[-2]:.1f}",
                read_b=f"{timing.read_ms[-1]:.1f}",
            )
        )
    ui.takeaway(t("autoregressive.cost.takeaway"))
    ui.try_this(t("autoregressive.cost.try"))
    with ui.curious():
        st.markdown(t("autoregressive.cost.caption", model=model, repeats=timing.repeats))


def chart(lengths, write, read, unit: str, model: str) -> None:
    """The cost of writing against reading N words, in model calls (``unit`` "calls") or in
    milliseconds ("ms")."""
    calls = unit == "calls"
    ui.chart(
        figures.cost_chart(
            lengths,
            {t("autoregressive.cost.write"): write, t("autoregressive.cost.read"): read},
            titles=Titles(
                t(
                    "autoregressive.cost.calls_title" if calls else "autoregressive.cost.title",
                    model=model,
                ),
                t("autoregressive.cost.x"),
                t("autoregressive.cost.calls_y" if calls else "autoregressive.cost.y"),
            ),
            presenter=ui.presenter(),
        ),
        key="ar_cost_calls" if calls else "ar_cost_chart",
    )
