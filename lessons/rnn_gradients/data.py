"""Cached computations of the RNN-gradients lesson. The caches keyed on what a visitor picks
or types are bounded; the trained probes' measurements and the one-step explosion experiment
run once per server in threads of their own (``serve.jobs``)."""

from __future__ import annotations

from concurrent.futures import Future

import numpy as np
import streamlit as st
import torch

from core import probes_data
from core.analysis import explosion, influence
from core.analysis import rnn_gradients as analysis
from serve import jobs
from ui import cache
from ui.models import get_model, get_vocabs

CELLS = analysis.KINDS  # plain tanh RNN, LSTM, GRU
PROBES = {"rnn": "probe_rnn", "lstm": "probe_lstm", "gru": "probe_gru"}
HIDDEN = 64  # hidden size of the fresh cells (the probes' size)
N_SEQ = 32  # task sequences averaged for the trained probes (input gradients)
N_STATE = 8  # of which the first 8 for the state Jacobians (a Jacobian per position each)
FADING, GATED = influence.FADE_MODELS  # part 1: the plain tanh RNN beside the GRU
N_LONG, MIN_WORDS = influence.FADE_LONG  # part 1's evidence: test sentences of 40+ words
# Part 2's controls: the spectral radius slider (its range, step and default) and the defaults
# of length, drive, seed, quantity and gated cells (the page and the server's warm-up read them
# here). Radius, drive and gates are what ``headline_search`` picks on the shipped probes (a
# test keeps them equal): the plain RNN on its guide, the trained gates far above it.
RADIUS_MIN, RADIUS_MAX, RADIUS_STEP, RADIUS_DEFAULT = 0.5, 1.5, 0.05, 0.85
DRIVES = ("0.1", "0.3", "1.0")  # standard deviation of the random inputs
GATES = ("trained", "untrained")  # the LSTM and GRU drawn in part 2
FRESH_DEFAULTS = {
    "length": 60,
    "drive": "0.1",
    "seed": 0,
    "quantity": "state",
    "gates": "trained",
}


@cache.data(max_entries=64)
def fresh_curves(radius: float, length: int, drive: float, seed: int, quantity: str) -> dict:
    """The shown quantity ("state" or "input") of each fresh cell, and W_hh's spectrum."""
    measure = (
        analysis.state_jacobian_norms if quantity == "state" else analysis.input_gradient_norms
    )
    out = {}
    for kind in CELLS:
        cell = analysis.fresh_cell(kind, radius, hidden=HIDDEN, seed=seed)
        xs = analysis.sequence_inputs(length, cell.w_ih.shape[1], seed) * drive
        out[kind] = measure(cell, xs)
    w = analysis.recurrent_matrix(HIDDEN, radius, seed * 10)  # the plain RNN's W_hh
    out["eig"] = analysis.eigenvalues(w)
    out["sigma1"] = analysis.largest_singular_value(w)
    return out


def radii() -> list[float]:
    """Every value the radius slider can take, rounded as the part rounds it."""
    n = round((RADIUS_MAX - RADIUS_MIN) / RADIUS_STEP)
    return [round(RADIUS_MIN + i * RADIUS_STEP, 2) for i in range(n + 1)]


def warm_fresh() -> int:
    """At the server's warm-up (``serve.warmup``): part 2's curves at every radius with the
    other controls at their defaults, so the radius a teacher drags answers from the cache
    (a new radius was ~40-80 ms of a click; all 21 take ~0.9 s of one thread, once)."""
    from serve.warmup import stopping

    d = FRESH_DEFAULTS
    for radius in radii():
        if stopping():  # the process is exiting (serve.warmup)
            return 0
        fresh_curves(radius, d["length"], float(d["drive"]), d["seed"], d["quantity"])
    return len(radii())


def part2_lines(fresh: dict, trained: dict | None, gates: str, quantity: str) -> dict:
    """Part 2's curves {cell: decay by distance}: the untrained plain RNN, and the LSTM and
    GRU untrained (``fresh``) or trained (``trained``, the probes' measurement: None when the
    probes are missing draws the plain RNN alone). The input gradient is drawn relative to
    its value at distance 0, since the trained probes' is a loss's gradient, not the fresh
    cells' read-out's."""
    out = {"rnn": fresh["rnn"]}
    if gates == "untrained":
        out.update(lstm=fresh["lstm"], gru=fresh["gru"])
    elif trained is not None:
        length = len(fresh["rnn"])  # the probes' sequences may be longer or shorter
        out.update(lstm=trained["lstm"][quantity][:length], gru=trained["gru"][quantity][:length])
    if quantity == "input":
        out = {k: analysis.relative_to_last(v) for k, v in out.items()}
    return out


def headline_search(trained: dict) -> tuple | None:
    """Part 2's default (gates, radius, drive): of every weight scale below 1 the slider
    offers, every input strength and both kinds of gates, at the other defaults, the one
    :func:`core.analysis.rnn_gradients.clearest_default` picks (``trained``: the probes'
    measurement, :func:`trained_curves`)."""
    d = FRESH_DEFAULTS
    candidates = {}
    for radius in (r for r in radii() if r < 1):
        for drive in DRIVES:
            fresh = fresh_curves(radius, d["length"], float(drive), d["seed"], d["quantity"])
            guide = radius ** np.arange(d["length"], dtype=float)
            for gates in GATES:
                lines = part2_lines(fresh, trained, gates, d["quantity"])
                gated = {k: v for k, v in lines.items() if k != "rnn"}
                candidates[(gates, radius, drive)] = (lines["rnn"], guide, gated)
    return analysis.clearest_default(candidates)


def trained_curves(loaded: dict) -> dict:
    """The decay measured in each trained probe (no Streamlit call: a thread of its own)."""
    x, y, _ = probes_data.make_batch(torch.Generator().manual_seed(7), N_SEQ)
    return {k: analysis.probe_decay(model, x, y, n_state=N_STATE) for k, model in loaded.items()}


@st.cache_resource(show_spinner=False)  # a running job, shared: not a value to copy
def trained_job() -> Future:
    """Part 2's measurements, once per server, in a thread of their own."""
    loaded = {k: get_model(PROBES[k]) for k in CELLS}  # here, in the script thread
    return jobs.in_thread("rnn-gradients-probes", trained_curves, loaded)


@st.cache_resource(show_spinner=False)  # a running job, shared: not a value to copy
def fade_job() -> Future:
    """Part 1: the lesson's sentence read by the plain RNN and the GRU, and how their
    influence falls with distance on long test sentences (``influence.fade_study``, which
    the server's warm-up has usually computed already); once per server, in a thread."""
    return jobs.in_thread("rnn-gradients-fade", influence.fade_study)


@cache.data(max_entries=64)  # keyed on the visitor's sentence
def context_influence(name: str, ids: tuple[int, ...]) -> np.ndarray:
    """‖∂C/∂e_j‖ of model ``name``'s encoder for the source ids ``ids`` (EOS last)."""
    return influence.context_influence(get_model(name), ids)


@cache.data
def words_default() -> influence.WordsChoice:
    """Part 4's default sentence: the candidate the plain tanh RNN usually reads like."""
    return influence.typical_sentence(get_model(FADING), get_vocabs()[0])


def clip_threshold() -> float:
    """The gradient-norm clipping every shipped model was trained with (core.train)."""
    from core.train import SPECS

    return float(SPECS["probe_rnn"].clip)


def _explosion(probe, clip: float) -> explosion.Explosion:
    return explosion.explosion_sweep(probe, clip=clip)


@st.cache_resource(show_spinner=False)  # a running job, shared: not a value to copy
def explosion_job(clip: float) -> Future:
    """Part 5's one-step experiment on a private copy of the plain RNN, once per server
    (keyed only on the training runs' clipping threshold)."""
    probe = get_model("probe_rnn")
    return jobs.in_thread("rnn-gradients-explosion", _explosion, probe, clip)
