"""Part ``cost``: the serial cost of writing and of reading -- n words take n model calls to
write; to read them the GRU still steps through them one by one inside a single call, while a
Transformer's encoder takes them all at once, layer by layer (the lesson's 难以并行). Steps are
counted; the milliseconds those calls took are measured live on this server (noisy)."""

from __future__ import annotations

import streamlit as st

import ui
from charts import autoregressive as figures
from charts.common import Titles
from core.analysis import autoregressive as analysis
from lessons.autoregressive import data
from ui.models import get_model, require

TIMING_LENGTHS = (4, 8, 16, 32, 64)
PARALLEL = "transformer"  # its encoder reads the same words: all at once in each layer
t = ui.t


@ui.fragment  # its controls rerun only this part
def show() -> None:
    s = ui.slide(t("autoregressive.cost.lead"))
    if not require(data.LM, PARALLEL):
        return
    model, parallel = ui.model_name(data.LM), ui.model_name(PARALLEL)
    with s.control:
        st.button(t("autoregressive.cost.again"), icon=":material/timer:", key="ar_cost_again")
    with s.chart, st.spinner(t("autoregressive.cost.spinner")):
        timing = analysis.time_generation(
            get_model(data.LM), TIMING_LENGTHS, repeats=5, encoder=get_model(PARALLEL)
        )
    lines = {  # series name -> (steps counted, milliseconds measured)
        t("autoregressive.cost.write", model=model): (timing.generate_calls, timing.generate_ms),
        t("autoregressive.cost.read", model=model): (timing.read_steps, timing.read_ms),
        t("autoregressive.cost.read_parallel", model=parallel): (
            timing.parallel_steps,
            timing.parallel_ms,
        ),
    }
    with s.chart:  # first: the steps that wait for one another, counted (the same every run)
        chart(timing.lengths, {k: v[0] for k, v in lines.items()}, "steps", model, parallel)
    n_first, n_full = timing.lengths[0], timing.lengths[-1]
    with s.words:
        if timing.read_steps == timing.generate_calls:  # drawn on top of each other
            st.caption(t("autoregressive.cost.same_line", model=model))
        c1, c2, c3, c4 = st.columns(4)
        c1.metric(t("autoregressive.cost.calls_write", n=n_full), timing.generate_calls[-1])
        c2.metric(t("autoregressive.cost.steps_read", n=n_full, model=model), timing.read_steps[-1])
        c3.metric(
            t("autoregressive.cost.steps_read", n=n_full, model=parallel),
            timing.parallel_steps[-1],
        )
        c4.metric(t("autoregressive.cost.per_token"), f"{timing.generate_ms[-1] / n_full:.2f} ms")
        # second: the milliseconds, measured just now (they move from run to run)
        chart(timing.lengths, {k: v[1] for k, v in lines.items()}, "ms", model, parallel)
        st.caption(
            t(
                "autoregressive.cost.noise",
                a=n_first,
                b=n_full,
                model=model,
                parallel=parallel,
                write=f"{timing.generate_ms[-1] / max(timing.generate_ms[0], 1e-6):.1f}",
                read=f"{timing.read_ms[-1] / max(timing.read_ms[0], 1e-6):.1f}",
                par=f"{timing.parallel_ms[-1] / max(timing.parallel_ms[0], 1e-6):.1f}",
                words=f"{n_full / n_first:.0f}",
            )
        )
    ui.takeaway(t("autoregressive.cost.takeaway", model=model, parallel=parallel))
    ui.try_this(t("autoregressive.cost.try"))
    with ui.curious():
        st.markdown(
            t(
                "autoregressive.cost.caption",
                model=model,
                parallel=parallel,
                repeats=timing.repeats,
                layers=timing.parallel_steps[-1],
            )
        )


def chart(lengths, series: dict, unit: str, model: str, parallel: str) -> None:
    """Writing against reading N words, in steps that wait for one another (``unit``
    "steps") or in milliseconds ("ms"); the Transformer's line in its family's look."""
    steps = unit == "steps"
    ui.chart(
        figures.cost_chart(
            lengths,
            series,
            titles=Titles(
                t(
                    "autoregressive.cost.calls_title" if steps else "autoregressive.cost.title",
                    model=model,
                    parallel=parallel,
                ),
                t("autoregressive.cost.x"),
                t("autoregressive.cost.calls_y" if steps else "autoregressive.cost.y"),
            ),
            families={t("autoregressive.cost.read_parallel", model=parallel): "self_attention"},
            presenter=ui.presenter(),
        ),
        key="ar_cost_calls" if steps else "ar_cost_chart",
    )
