"""Part 3, the probes: the CNN distance probes ``probe_cnnL`` (L layers), their accuracy by
distance on the one probe chart the path-length lesson draws too; it collapses where the
receptive field ends."""

from __future__ import annotations

import streamlit as st

import ui
from charts.common import Titles
from core.analysis import receptive_field as analysis
from lessons import probe_chart

t = ui.t
CNN_PROBES = ("probe_cnn2", "probe_cnn4", "probe_cnn8")
SOLVED = 0.5  # a distance counts as solved at this accuracy (chance is 1 / N_KEYS)


def show() -> None:
    # Imported here: it imports torch, which part 1 (the formula) never needs.
    from core.probes_data import N_KEYS

    st.header(t("cnn_receptive_field.probes.header"))
    s = ui.slide(t("cnn_receptive_field.probes.lead"))
    curves = probe_chart.read_curves(CNN_PROBES)
    if curves.missing:
        with s.words:
            names = ", ".join(ui.model_name(m) for m in curves.missing)
            st.info(
                t("cnn_receptive_field.probes.missing", models=names), icon=":material/hourglass:"
            )
    if not (curves.series and curves.distances):
        return
    chance = 1 / N_KEYS
    shown = {ui.model_name(m): m for m in CNN_PROBES if ui.model_name(m) in curves.series}
    with s.chart:  # the one probe chart, shared with path length
        probe_chart.draw(
            curves,
            key="cnn_rf_probes",
            models=shown,
            titles=Titles(
                t("cnn_receptive_field.probes.title"),
                t("cnn_receptive_field.probes.x"),
                t("cnn_receptive_field.probes.y"),
            ),
            field_label=t("cnn_receptive_field.probes.field"),
            chance_label=t("cnn_receptive_field.probes.chance"),
        )
    with s.words:
        probe_words(curves, chance)
    ui.takeaway(t("cnn_receptive_field.probes.takeaway"))
    ui.try_this(t("cnn_receptive_field.probes.try"))
    with ui.curious():
        st.markdown(
            t("cnn_receptive_field.probes.curious", chance=f"{chance:.0%}", solved=f"{SOLVED:.0%}")
        )


def probe_words(curves, chance: float) -> None:
    """Where each probe stops solving the task, and which fail inside their own field."""
    items, early = [], []
    for label, accs in curves.series.items():
        if label not in curves.fields:
            continue
        reach = analysis.probe_reach(curves.distances, accs, curves.fields[label], SOLVED)
        solved = reach.solved if reach.solved is not None else t("cnn_receptive_field.probes.none")
        items.append(
            t("cnn_receptive_field.probes.item", name=label, solved=solved, seen=reach.sees)
        )
        if reach.fails_inside(curves.distances):
            early.append(label)
    st.markdown(t("cnn_receptive_field.probes.caption", chance=f"{chance:.0%}"))
    if early:
        st.markdown(t("cnn_receptive_field.probes.early", names=", ".join(early)))
    st.caption(t("cnn_receptive_field.probes.summary", summary=" · ".join(items)))
