"""Cached computation of the RNN-gradients page (streamlit caching over ``core``).

The caches keyed on what a visitor picks (radius, length, drive, seed, quantity) or types
(a sentence, as token ids) are bounded; the trained probes' measurements, the default
sentence and the one-step explosion experiment are computed once per server (keyed on
nothing a visitor sends) in threads of their own where they are slow.
"""

from __future__ import annotations

from concurrent.futures import Future

import numpy as np
import streamlit as st
import torch

from core import probes_data
from core.analysis import explosion as ex
from core.analysis import rnn_gradients as rg
from core.analysis.influence import context_influence
from serve import jobs
from ui import model_name
from ui.models import get_model, get_vocabs

CELLS = rg.KINDS  # vanilla tanh RNN, LSTM, GRU
PROBES = {"rnn": "probe_rnn", "lstm": "probe_lstm", "gru": "probe_gru"}
HIDDEN = 64  # hidden size of the fresh cells (the probes' size)
N_SEQ = 32  # task sequences averaged for the trained probes (input gradients)
N_STATE = 8  # of which the first 8 for the state Jacobians (a Jacobian per position each)
FAR = 40  # the distance parts 2 read their numbers at


def clip_threshold() -> float:
    """The gradient-norm clipping every shipped model was trained with (core.train)."""
    from core.train import SPECS

    return float(SPECS["probe_rnn"].clip)


def sci(x: float) -> str:
    return f"{x:.2g}" if 1e-2 <= abs(x) < 1e4 else f"{x:.1e}"


def names(models) -> dict[str, str]:
    """{display name: model} for a figure's ``looks``."""
    return {model_name(m): m for m in models}


@st.cache_data(show_spinner=False, max_entries=64)
def fresh_curves(radius: float, length: int, drive: float, seed: int, quantity: str) -> dict:
    """The shown quantity ("state" or "input") of each fresh cell, and W_hh's spectrum."""
    measure = rg.state_jacobian_norms if quantity == "state" else rg.input_gradient_norms
    out = {}
    for kind in CELLS:
        cell = rg.fresh_cell(kind, radius, hidden=HIDDEN, seed=seed)
        xs = rg.sequence_inputs(length, cell.w_ih.shape[1], seed) * drive
        out[kind] = measure(cell, xs)
    w = rg.recurrent_matrix(HIDDEN, radius, seed * 10)  # the vanilla RNN's W_hh
    out["eig"] = rg.eigenvalues(w)
    out["sigma1"] = rg.largest_singular_value(w)
    return out


def _trained_curves(loaded: dict) -> dict:
    """The decay measured in each trained probe (no Streamlit call: a thread of its own)."""
    x, y, _ = probes_data.make_batch(torch.Generator().manual_seed(7), N_SEQ)
    return {k: rg.probe_decay(model, x, y, n_state=N_STATE) for k, model in loaded.items()}


@st.cache_resource(show_spinner=False)
def trained_job() -> Future:
    """Part 2's measurements, once per server, in a thread of their own."""
    loaded = {k: get_model(PROBES[k]) for k in CELLS}  # here, in the script thread
    return jobs.in_thread("rnn-gradients-probes", _trained_curves, loaded)


@st.cache_data(show_spinner=False, max_entries=64)
def influence(name: str, ids: tuple[int, ...]) -> np.ndarray:
    return context_influence(get_model(name), ids)


@st.cache_resource(show_spinner=False)
def words_default() -> rg.WordsChoice:
    """Part 4's default sentence: the candidate that reads like the model usually does."""
    return rg.typical_sentence(get_model("gru_plain_256"), get_vocabs()[0])


def _explosion(probe, clip: float) -> ex.Explosion:
    return ex.explosion_sweep(probe, clip=clip)


@st.cache_resource(show_spinner=False)
def explosion_job(clip: float) -> Future:
    """Part 5's one-step experiment on a private copy of the Vanilla RNN, once per server
    (keyed only on the training runs' clipping threshold)."""
    probe = get_model("probe_rnn")
    return jobs.in_thread("rnn-gradients-explosion", _explosion, probe, clip)
