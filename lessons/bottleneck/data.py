"""Cached computations of the bottleneck lesson (``ui.cache.data`` over ``core.analysis``).

Keys are plain values. A cache keyed on what a visitor sends (a sentence's ids, a stretch
length and seed) keeps at most ``max_entries`` of them; the others are keyed on a closed
set (the lesson's example lengths, its fixed words, its probe settings).
"""

from __future__ import annotations

from concurrent.futures import Future

import numpy as np
import streamlit as st

from core.analysis import bottleneck as analysis
from core.analysis import latent
from core.corpus import lesson
from core.evaluate import decode_ids
from serve import jobs
from ui import cache, models

LM = "lm_gru"  # the language model of part 1 (the latent state)
LATENT_WORDS = lesson.WEAR_SHOES.en_words  # the lesson's own example (1.3-1.4)
PLAIN = ("gru_plain_32", "gru_plain_128", "gru_plain_256")
ATTN = "gru_attention"
OTHERS = ("cnn_s2s", "transformer")  # on the length chart, paler: for comparison
PROBE_LEN = 25  # probe every word of 25-word sentences: the start, the middle, the end
# 600 training sentences: the curves differ from 1000 by less than between two samples
# of 1000 (mean 0.01-0.02 against 0.02-0.03 per position); about 0.2 s per model
PROBE_TRAIN, PROBE_TEST = 600, 300
PROBE_ARGS = ((*PLAIN, ATTN), PROBE_TRAIN, PROBE_TEST, PROBE_LEN)


def plain_size(name: str) -> str:
    """The size of C a plain model of :data:`PLAIN` is named after ("gru_plain_32" -> "32")."""
    return name.rsplit("_", 1)[1]


@cache.data
def examples() -> dict[int, tuple[tuple[str, ...], tuple[str, ...]]]:
    """A fixed grammar sentence of each example length: {length: (English, Chinese)}."""
    out = {}
    for n in analysis.EXAMPLE_LENGTHS:
        pair = analysis.example_pair(n)
        out[n] = (pair.src, pair.tgt)
    return out


def reference_for(tokens: tuple[str, ...]) -> tuple[str, ...] | None:
    """The grammar's translation when the sentence is one of the lesson's pairs."""
    return analysis.reference_for(tokens, examples().values())


@cache.data(max_entries=64)
def encoder_view(name: str, ids: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    return analysis.encoder_states(models.get_model(name), ids)


@cache.data(max_entries=64)
def translate_ids(name: str, rows: tuple[tuple[int, ...], ...]) -> list[list[str]]:
    outputs = decode_ids(models.get_model(name), [list(r) for r in rows])
    tgt_vocab = models.get_vocabs()[1]
    return [tgt_vocab.decode(o) for o in outputs]


@cache.data(max_entries=8)
def latent_view(ids: tuple[int, ...]) -> latent.LatentSteps:
    return latent.latent_steps(models.get_model(LM), ids)


@cache.data(max_entries=64)
def stretch_batch(length: int, seed: int) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    return [(p.src, p.tgt) for p in analysis.stretch_pairs(length, seed)]


@st.cache_resource(show_spinner=False)
def probe_job(names: tuple[str, ...], n_train: int, n_test: int, length: int) -> Future:
    """The probes, computed once per server in a thread of their own: started when the probe
    part opens, they run on the second core while its header and intro are drawn (and finish
    for the next visit if the reader switches away meanwhile)."""
    loaded = {n: models.get_model(n) for n in names}  # here, in the script thread
    vocab = models.get_vocabs()[0]
    return jobs.in_thread(
        "bottleneck-probes", analysis.probe_on_grammar, loaded, vocab, n_train, n_test, length
    )


def probe_curves(names: tuple[str, ...], n_train: int, n_test: int, length: int) -> dict:
    """The probes' results, waiting for :func:`probe_job` if they are not ready yet (a
    failed run is not kept: the next visit tries again)."""
    return jobs.result_of(probe_job, names, n_train, n_test, length)
