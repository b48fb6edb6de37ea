"""The attention page's computations, cached: the models' runs, the searches for the
clearest example, the scores inside a model and the sqrt(d) curves.

Every cache is keyed by the model's checksum (a new model, a new entry); a cache whose
key comes from a visitor (a sentence, a step, a layer) is bounded (``max_entries``), so a
public link cannot grow the server's memory without end."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core import zoo
from core.analysis import attention as A
from core.translate import translate_tokens
from ui import models as M

DIMS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)  # the d of the sqrt(d) curves


def vocabs():
    """(source vocabulary, target vocabulary) of the zoo."""
    return M.get_vocabs()


def sha(name: str) -> str:
    """The checksum of model ``name`` in the manifest (part of every cache key)."""
    return str(M.get_manifest().get("models", {}).get(name, {}).get("sha256", ""))


def _ids(tokens: tuple[str, ...]) -> list[int]:
    return vocabs()[0].encode(tokens, eos=True)


@st.cache_data(show_spinner=False, max_entries=128)
def _run_model(name: str, sha: str, tokens: tuple[str, ...]) -> tuple[A.AttentionRun, float]:
    model = M.get_model(name)
    ids = _ids(tokens)
    run = A.run_attention(model, ids, tokens, vocabs()[1].tokens)
    return run, A.logit_gap(model, ids, run)


def run_model(name: str, tokens: tuple[str, ...]) -> tuple[A.AttentionRun, float]:
    """Greedy translation + its attention, and the replay check (max |Δ logit|)."""
    return _run_model(name, sha(name), tokens)


@st.cache_data(show_spinner=False)  # one entry per model checksum
def _it_view(sha: str) -> A.ItChoice:
    return A.it_view_search(M.get_model("transformer"), *vocabs())


def it_view() -> A.ItChoice:
    """The encoder view that shows best what "it" reads (searched once per model)."""
    return _it_view(sha("transformer"))


@st.cache_data(show_spinner=False)  # one entry per model checksum
def _best_pair(sha: str) -> A.PairEvidence:
    return A.pairs_search(M.get_model("transformer"), *vocabs())


def best_pair() -> A.PairEvidence:
    """The "transformer" pair whose ambiguous word reads its context most."""
    return _best_pair(sha("transformer"))


@st.cache_data(show_spinner=False, max_entries=64)
def _query_keys(sha: str, tokens: tuple[str, ...], layer: int) -> tuple[np.ndarray, np.ndarray]:
    return A.transformer_qk(M.get_model("transformer"), _ids(tokens), layer)


def query_keys(tokens: tuple[str, ...], layer: int) -> tuple[np.ndarray, np.ndarray]:
    """The transformer encoder's queries and keys in ``layer``: (H, S, d_head) each."""
    return _query_keys(sha("transformer"), tokens, layer)


@st.cache_data(show_spinner=False, max_entries=64)
def _energies(sha: str, tokens: tuple[str, ...], out_ids: tuple[int, ...], step: int) -> np.ndarray:
    return A.additive_energy(M.get_model("gru_attention"), _ids(tokens), out_ids, step)


def energies(tokens: tuple[str, ...], out_ids: tuple[int, ...], step: int) -> np.ndarray:
    """The additive (Bahdanau) scores of decoding ``step`` over the source: (S,)."""
    return _energies(sha("gru_attention"), tokens, out_ids, step)


@st.cache_data(show_spinner=False, max_entries=64)  # n_keys follows the visitor's sentence
def saturation(n_keys: int) -> dict[str, np.ndarray]:
    """Entropy and largest weight against d (:data:`DIMS`) for ``n_keys`` random keys."""
    return A.saturation_curve(DIMS, n_keys)


@st.cache_data(show_spinner=False, max_entries=64)
def _translate_with(name: str, sha: str, tokens: tuple[str, ...]) -> str:
    return translate_tokens(M.get_model(name), tokens, *vocabs()).text


def translate_with(name: str, tokens: tuple[str, ...]) -> str | None:
    """Model ``name``'s translation of ``tokens``, or ``None`` if the model is missing."""
    try:
        return _translate_with(name, sha(name), tokens)
    except zoo.ZooError:
        return None
