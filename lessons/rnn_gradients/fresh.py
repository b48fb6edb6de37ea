"""Part 2, decay with distance in freshly initialised cells: the gradient norm of a plain
RNN, an LSTM and a GRU against distance, with the bound ρ^(T−t); the eigenvalues of the
plain RNN's W_hh and σ₁ for the curious. Quantity, length, drive and seed rerun the part;
the radius only its section."""

from __future__ import annotations

import numpy as np
import streamlit as st

import ui
from charts import rnn_gradients as figures
from charts.common import Titles
from core import zoo
from lessons.rnn_gradients import data
from lessons.rnn_gradients.common import QUANTITIES, choice, names, quantity_picker, sci
from serve import jobs
from ui.models import get_model

t = ui.t


@ui.fragment  # quantity, length, drive and seed rerun the part; the radius only its section
def show() -> None:
    st.header(t("rnn_gradients.fresh.header"))
    s = ui.slide(t("rnn_gradients.fresh.lead"))
    d = data.FRESH_DEFAULTS
    quantity = ui.params.get_choice("q", QUANTITIES, default=d["quantity"])
    length = ui.params.get_int("T", 20, 100, d["length"])
    drive = ui.params.get_choice("drive", data.DRIVES, default=d["drive"])
    seed = ui.params.get_int("seed", 0, 999, d["seed"])
    gates = ui.params.get_choice("gates", data.GATES, default=d["gates"])
    with s.more:
        quantity = quantity_picker()
        gates = choice(
            t("rnn_gradients.fresh.gates"),
            data.GATES,
            param="gates",
            default=d["gates"],
            key="rnng_gates",
            format_func=ui.labeler("rnn_gradients.fresh.gates."),
        )
        left, middle, right = st.columns(3)
        length = left.slider(
            t("rnn_gradients.fresh.length"), 20, 100, **ui.params.bound("T", length, key="rnng_T")
        )
        drive = middle.segmented_control(
            t("rnn_gradients.fresh.drive"),
            data.DRIVES,
            required=True,
            help=t("rnn_gradients.fresh.drive_help"),
            **ui.params.bound("drive", drive, key="rnng_drive"),
        )
        seed = right.number_input(
            t("rnn_gradients.fresh.seed"),
            0,
            999,
            help=t("rnn_gradients.fresh.seed_help"),
            **ui.params.bound("seed", seed, key="rnng_seed"),
        )
    ui.params.set_params(T=length, drive=drive, seed=seed)
    trained = trained_probes() if gates == "trained" else None
    with s.chart:
        radius_section(int(length), str(drive), int(seed), quantity, gates, trained)
    ui.try_this(t("rnn_gradients.try.radius") + " " + t("rnn_gradients.try.drive"))


def trained_probes() -> dict | None:
    """The trained probes' measurement (``data.trained_job``), or None with a word of why:
    without the zoo the part still draws its untrained plain RNN."""
    try:
        for name in data.PROBES.values():
            get_model(name)
    except zoo.ZooError:
        st.info(t("rnn_gradients.fresh.no_probes"), icon=":material/inventory_2:")
        return None
    with st.spinner(t("rnn_gradients.computing")):
        return jobs.result_of(data.trained_job)


@ui.fragment  # the radius reruns only this: the figure, its slider, the caption, the takeaway
def radius_section(
    length: int, drive: str, seed: int, quantity: str, gates: str, trained: dict | None
) -> None:
    chart_place = st.container()
    lo, hi = data.RADIUS_MIN, data.RADIUS_MAX
    radius = ui.params.get_float("rho", lo, hi, data.RADIUS_DEFAULT)
    radius = st.slider(
        t("rnn_gradients.fresh.radius"),
        lo,
        hi,
        step=data.RADIUS_STEP,
        help=t("rnn_gradients.fresh.radius_help"),
        **ui.params.bound("rho", radius, key="rnng_rho"),
    )
    ui.params.set_params(rho=radius)
    radius = round(float(radius), 2)
    fresh = data.fresh_curves(radius, length, float(drive), seed, quantity)
    lines = data.part2_lines(fresh, trained, gates, quantity)
    shown = "trained" if gates == "trained" and trained is not None else "untrained"
    # the curves: seeded cells of these (and the shipped probes, measured once per server)
    made_of = (radius, length, drive, seed, quantity, shown if "lstm" in lines else "plain")
    with chart_place:
        fresh_chart(lines, radius, length, quantity, made_of)
    far = length - 1
    numbers = {k: sci(float(v[min(far, len(v) - 1)])) for k, v in lines.items()}
    gated_far = min((len(v) for v in lines.values()), default=length) - 1
    st.caption(
        t(
            f"rnn_gradients.fresh.caption_{shown if len(lines) > 1 else 'plain'}",
            radius=radius,
            far=far,
            far_gated=min(far, gated_far),
            bound=sci(radius**far),
            drive=drive,
            **numbers,
        )
    )
    if radius < 1:
        ui.takeaway(t("rnn_gradients.fresh.takeaway_vanish", radius=radius))
    else:
        ui.takeaway(t("rnn_gradients.fresh.takeaway_grow", radius=radius))
    with ui.curious():  # the spectral view: the mechanism, the bound, the eigenvalues
        st.markdown(t("rnn_gradients.fresh.intro", hidden=data.HIDDEN))
        st.markdown(t("rnn_gradients.fresh.curious_bound", sigma=f"{fresh['sigma1']:.2f}"))
        eigen_chart(fresh, radius, made_of)


def _eig_labels(radius: float) -> tuple[str, str, str]:
    return (
        t("rnn_gradients.eig.points"),
        t("rnn_gradients.eig.unit"),
        t("rnn_gradients.eig.radius", radius=radius),
    )


def fresh_chart(lines: dict, radius: float, length: int, quantity: str, made_of: tuple) -> None:
    """The decay of each cell of ``lines`` ({cell: decay}, :func:`data.part2_lines`) with the
    guide ρ^(T−t), one chart (the eigenvalues wait in "for the curious"); ``made_of``: what
    ``lines`` were computed from."""
    distance = np.arange(length)
    trained = made_of[-1] == "trained"
    chart_key = "rnn_gradients.fresh.chart_trained" if trained else "rnn_gradients.fresh.chart"
    ui.chart(
        lambda: figures.decay_figure(
            distance,
            {ui.model_name(data.PROBES[k]): lines[k] for k in data.CELLS if k in lines},
            titles=Titles(
                t(chart_key, radius=radius, hidden=data.HIDDEN, length=length),
                t("rnn_gradients.distance_axis"),
                t(f"rnn_gradients.q.{quantity}.axis"),
            ),
            bound=(t("rnn_gradients.bound", radius=radius), radius ** distance.astype(float)),
            presenter=ui.presenter(),
            looks=names(data.PROBES.values()),
        ),
        key="rnng_decay",
        memo=made_of,
    )


def eigen_chart(fresh: dict, radius: float, made_of: tuple) -> None:
    """The plain RNN's eigenvalues, with the unit circle and the circle |λ| = ρ."""
    eig, unit, rad = _eig_labels(radius)
    ui.chart(
        lambda: figures.eigen_figure(
            fresh["eig"],
            radius=radius,
            titles=Titles(
                t("rnn_gradients.eig.chart", hidden=data.HIDDEN),
                t("rnn_gradients.eig.re"),
                t("rnn_gradients.eig.im"),
            ),
            eig_label=eig,
            unit_label=unit,
            radius_label=rad,
            presenter=ui.presenter(),
        ),
        key="rnng_eig",
        memo=made_of,
    )
