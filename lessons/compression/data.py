"""Cached computations of the compression lesson.

The corpus, its n-gram table and counts and the default prompt are computed once per
process by ``core``'s own caches, shared with the server's warm-up (``serve.warmup``): the
first visitor no longer counts them (~10 s on one core) while the class waits. What depends
on a visitor's prompt or settings goes through ``ui.cache.data``, bounded.
"""

from __future__ import annotations

from core import lexicon
from core.analysis import autoregressive, ngram
from core.analysis import compression as analysis
from ui import cache
from ui.models import get_manifest, get_model, get_vocabs

LM = "lm_gru"
NGRAM_MAX = ngram.CORPUS_MAX_N  # n = 1..6 counted
MAX_NEW = 12  # words each model may add


def corpus_seed() -> int:
    return int(get_manifest().get("corpus", {}).get("seed", 1234))


def ngram_stats(seed: int) -> ngram.NGramStats:
    return ngram.corpus_stats(seed, NGRAM_MAX)


def ngram_table(seed: int) -> ngram.Coded:
    return ngram.corpus_table(seed)


def default_prompt(seed: int) -> str:
    """The held-out prompt on which the default n-gram model has to back off (searched)."""
    return " ".join(analysis.corpus_window_example(seed).prompt)


@cache.data(max_entries=64)
def neural(prefix: tuple[str, ...]) -> list[tuple[str, float]]:
    """The neural language model's greedy words after ``prefix``, with their probabilities."""
    sv, _ = get_vocabs()
    steps = autoregressive.lm_generate(
        get_model(LM), sv.encode(prefix), max_new=MAX_NEW, mode="greedy"
    )
    return [(lexicon.show_token(sv.tokens[s.chosen]), s.chosen_prob) for s in steps]


@cache.data(max_entries=64)
def counted(seed: int, prefix: tuple[str, ...], n: int) -> list[ngram.NGramStep]:
    """The order-``n`` count table's words after ``prefix`` (backing off where unseen)."""
    return ngram.ngram_continue(ngram_table(seed), prefix, n, MAX_NEW)


@cache.data(max_entries=64)
def checked(n: int, d: int, k: int) -> dict[str, tuple[int, int]]:
    """(formula, PyTorch module) parameter counts of each layer, for the fold."""
    return {
        a: (analysis.weights(a, n, d, k=k), analysis.torch_params(a, n, d, k=k))
        for a in analysis.ARCHITECTURES
    }
