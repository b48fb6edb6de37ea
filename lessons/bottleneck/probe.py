"""Part ``probe``: what C remembers -- a linear probe per position recovers the word there
from each model's context (computed once per server, in a thread of its own)."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

import ui
from charts import bottleneck as figures
from charts.common import Titles
from core.analysis import bottleneck as analysis
from lessons.bottleneck import data
from lessons.bottleneck.common import close_part, part_header

t = ui.t


def kept_text(probes: dict, names: Sequence[str]) -> str:
    """Where in the sentence each model of ``names`` still recovers the word from C (the
    caption), one phrase per model."""
    return "; ".join(
        t(
            "bottleneck.probe.kept",
            model=ui.model_name(name),
            where=analysis.ranges_text(analysis.kept_positions(probes[name]))
            or t("bottleneck.probe.none"),
        )
        for name in names
    )


def show() -> None:
    part_header("bottleneck.probe.header")
    # the probes start now, in their thread, while the lead is drawn
    data.probe_job(*data.PROBE_ARGS)
    s = ui.slide(t("bottleneck.probe.lead"))
    with s.chart, st.spinner(t("bottleneck.probe.spinner")):
        probes = data.probe_curves(*data.PROBE_ARGS)
    first = probes[data.PLAIN[0]]
    with s.chart:
        ui.chart(
            figures.lines_by_position(
                first.positions,
                {name: r.accuracy for name, r in probes.items()},
                names={n: ui.model_name(n) for n in probes},
                titles=Titles(
                    t("bottleneck.probe.title", length=data.PROBE_LEN),
                    t("bottleneck.probe.x"),
                    t("bottleneck.probe.y"),
                ),
                presenter=ui.presenter(),
                baseline=first.chance,
                baseline_name=t("bottleneck.probe.chance"),
            ),
            key="bn_probe",
        )
    with s.words:
        st.caption(t("bottleneck.probe.caption", kept=kept_text(probes, (*data.PLAIN, data.ATTN))))
    close_part("bottleneck.probe.takeaway", "bottleneck.probe.try")
    with ui.curious():
        st.markdown(t("bottleneck.probe.intro", length=data.PROBE_LEN))
        st.markdown(
            t(
                "bottleneck.probe.curious",
                n_train=first.n_train,
                n_test=first.n_test,
                length=data.PROBE_LEN,
            )
        )
