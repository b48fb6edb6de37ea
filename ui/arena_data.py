"""The model arena's data: streamlit caches over ``core`` and the zoo check the page opens
with (``pages/arena.py`` draws the lesson).

Every model's output on a sentence, its live timing, its size and the grammar's sentences
are cached per process (shared by every visitor); nothing per session lives here.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

import streamlit as st

import core.zoo as zoo
import ui
import ui.models
from core import corpus, lexicon
from core.analysis import arena as A
from core.translate import translate_tokens
from core.vocab import Vocab

# Latency: one timed decode right after the translation run; "Measure again" takes the
# median of more runs.
LATENCY_RUNS = 1
REMEASURE_RUNS = 5


# Keyed on the visitor's sentence: six entries (one per model) a sentence. An entry is small:
# a sentence has at most core.translate.MAX_WORDS = 60 words, so an output at most
# max_output_len(60) = 100 tokens with their probabilities: 1.35 KB pickled at that budget,
# 0.4-0.9 KB measured on random 60-word sentences. 2048 entries (341 sentences: a class of
# 60 trying five or six each) therefore hold under 4 MB with the cache's own bookkeeping.
@st.cache_data(show_spinner=False, max_entries=2048)
def translate(name: str, tokens: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """Greedy output tokens (special tokens as shown) and their probabilities."""
    sv, tv = ui.models.get_vocabs()
    result = translate_tokens(ui.models.get_model(name), tokens, sv, tv)
    return tuple(lexicon.show_tokens(result.output)), result.probs


@st.cache_data(show_spinner=False, max_entries=512)  # ~0.3 KB an entry
def latency(name: str, tokens: tuple[str, ...], nonce: int) -> dict[str, object]:
    """Live timing of the greedy decode; ``nonce`` changes when the user asks to re-measure
    (then over ``REMEASURE_RUNS`` runs, else ``LATENCY_RUNS``)."""
    sv, _ = ui.models.get_vocabs()
    timing = A.greedy_latency(  # no warm-up: translate has just run this very decode
        ui.models.get_model(name),
        sv.encode(tokens, eos=True),
        runs=REMEASURE_RUNS if nonce else LATENCY_RUNS,
        warmup=0,
    )
    return {**timing, "at": dt.datetime.now(dt.UTC).strftime("%H:%M:%S")}


@st.cache_data(show_spinner=False)  # keyed on a model name: a closed set
def params(name: str) -> int:
    return A.count_params(ui.models.get_model(name))


@st.cache_data(show_spinner=False, max_entries=64)
def grammar(seed: int, length: int) -> corpus.Pair:
    return A.grammar_pair(seed, length)


def open_zoo(models: Sequence[str], prefix: str) -> tuple[list[str], dict[str, Any], Vocab]:
    """The ``models`` that are on disk (the others named in a warning, ``prefix +
    "missing"``), the manifest and the source vocabulary. Stops the page with the rebuild
    command when no model (or no vocabulary) is there."""
    try:
        src_vocab, _ = ui.models.get_vocabs()
    except zoo.ZooError as err:
        ui.models.show_zoo_error(err)
        st.stop()
    available, missing = [], []
    for name in models:
        try:
            ui.models.get_model(name)
            available.append(name)
        except zoo.ZooError:
            missing.append(name)
    if not available:
        ui.models.require(*models)  # names the first missing file and the rebuild command
        st.stop()
    if missing:
        st.warning(
            ui.t(
                prefix + "missing",
                models=", ".join(map(ui.model_name, missing)),
                command=zoo.REBUILD_COMMAND,
            ),
            icon=":material/inventory_2:",
        )
    try:
        manifest = ui.models.get_manifest()
    except zoo.ZooError:
        manifest = {"models": {}}
    return available, manifest, src_vocab
