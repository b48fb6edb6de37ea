"""Part 3, what the fading does to learning: the probes' held-out accuracy by distance and
their training curves, as the training runs recorded them in the manifest."""

from __future__ import annotations

import streamlit as st

import ui
from charts import rnn_gradients as figures
from charts.common import Titles
from core import probes_data, zoo
from core.analysis import rnn_gradients as analysis
from lessons.rnn_gradients import data
from lessons.rnn_gradients.common import (
    PROBE_DISTANCE_AXIS,
    both_numbers,
    choice,
    names,
    probe_sizes,
)
from serve import jobs
from ui.models import get_manifest, require, show_zoo_error

t = ui.t
CURVES = ("loss", "acc")  # training curve shown: loss or accuracy


@ui.fragment  # the loss/accuracy switch reruns only this part
def show() -> None:
    st.header(t("rnn_gradients.learn.header"))
    s = ui.slide(t("rnn_gradients.learn.lead"))
    entries = probe_records()
    if not entries:
        return
    acc = analysis.recorded_accuracy(entries, probes_data.EVAL_DISTANCES)
    sizes = probe_sizes(next(iter(entries.values())))
    chance = 1 / probes_data.N_KEYS
    present = ui.presenter()
    if acc:
        with s.chart:
            ui.chart(
                figures.accuracy_figure(
                    list(probes_data.EVAL_DISTANCES),
                    {ui.model_name(n): v for n, v in acc.items()},
                    chance=chance,
                    chance_label=t("rnn_gradients.learn.chance"),
                    titles=Titles(
                        t("rnn_gradients.learn.acc_chart", **sizes),
                        t("rnn_gradients.trained.distance_axis"),
                        t("rnn_gradients.learn.acc_axis"),
                    ),
                    presenter=present,
                    looks=names(acc),
                    note=overlap_note(acc),
                    # a phone's layout where ui.chart fits a phone (not the projector)
                    phone=ui.on_a_phone() and not present,
                    x_axis=PROBE_DISTANCE_AXIS,
                ),
                key="rnng_acc",
            )
    with s.control:
        curve_col = choice(
            t("rnn_gradients.learn.curve"),
            CURVES,
            param="curve",
            default="acc",
            key="rnng_curve",
            format_func=ui.labeler("rnn_gradients.learn.curve."),
        )
    with s.words:
        if "probe_rnn" in acc and require(*data.PROBES.values(), vocabs=False):
            with st.spinner(t("rnn_gradients.computing")):
                trained = jobs.result_of(data.trained_job)
            st.caption(t("rnn_gradients.both", **both_numbers(trained, entries["probe_rnn"])))
        learning_curves(entries, acc, curve_col, chance)
    if "probe_rnn" in acc:
        learn_takeaway(acc)
    with ui.curious():
        st.markdown(t("rnn_gradients.learn.intro", **sizes))


def learning_curves(entries: dict, acc: dict, curve_col: str, chance: float) -> None:
    """The probes' training curves (loss or accuracy by step) and the caption of both charts."""
    sizes = probe_sizes(next(iter(entries.values())))
    ui.chart(
        figures.curves_figure(
            {ui.model_name(n): e["curve"] for n, e in entries.items()},
            column={"loss": 1, "acc": 2}[curve_col],
            titles=Titles(
                t("rnn_gradients.learn.curve_chart", **sizes),
                t("rnn_gradients.learn.step_axis"),
                t(f"rnn_gradients.learn.curve.{curve_col}.axis"),
            ),
            presenter=ui.presenter(),
            looks=names(entries),
        ),
        key="rnng_curves",
    )
    steps = sorted({int(e.get("steps", 0)) for e in entries.values()})
    st.caption(
        t(
            "rnn_gradients.learn.caption",
            steps=" / ".join(str(x) for x in steps),
            d=str(probes_data.EVAL_DISTANCES[-1]),
            accs=", ".join(f"{ui.model_name(n)} {v[-1]:.0%}" for n, v in acc.items()),
            chance=f"{chance:.0%}",
            max_d=sizes["max_d"],
        )
    )


def learn_takeaway(acc: dict[str, list[float]]) -> None:
    """The plain RNN near and far against the gated cells far."""
    far = {n: f"{v[-1]:.0%}" for n, v in acc.items()}
    ui.takeaway(
        t(
            "rnn_gradients.learn.takeaway",
            d=str(probes_data.EVAL_DISTANCES[-1]),
            near=f"{acc['probe_rnn'][0]:.0%}",
            d0=str(probes_data.EVAL_DISTANCES[0]),
            rnn=far["probe_rnn"],
            gated=" / ".join(far[n] for n in far if n != "probe_rnn") or "—",
        )
    )


def probe_records() -> dict[str, dict]:
    """The manifest entries of the probes that carry a training curve ({} after saying what
    is missing)."""
    try:
        manifest = get_manifest()
    except zoo.ZooError as err:
        show_zoo_error(err)
        return {}
    entries = {n: manifest["models"].get(n) for n in data.PROBES.values()}
    missing = [n for n, e in entries.items() if not e or not e.get("curve")]
    if missing:
        st.warning(
            t("rnn_gradients.learn.missing", models=", ".join(ui.model_name(m) for m in missing)),
            icon=":material/inventory_2:",
        )
    return {n: e for n, e in entries.items() if n not in missing}


def overlap_note(acc: dict[str, list[float]]) -> str | None:
    """A label for lines drawn exactly on top of each other (no legend entry hidden)."""
    same = [n for n in acc if n != "probe_rnn" and acc[n] == acc.get("probe_lstm")]
    if len(same) < 2:
        return None
    return t("rnn_gradients.learn.overlap", models=" / ".join(ui.model_name(n) for n in same))
