"""Model latency and zoo loading, measured in this process: importing ``core`` first caps
the BLAS/OpenMP pools at one thread, as in the server."""

from __future__ import annotations

import random
import time

import core  # noqa: F401  (thread caps before torch)
from bench.stats import median

LENGTHS = (10, 30, 50)  # source sentence lengths in words
SEED = 20260  # fixed seed for core.corpus.sample_pair: the same sentences every run


def sentences(seed: int = SEED) -> dict[int, tuple[str, ...]]:
    """One grammar sentence per length in ``LENGTHS`` (deterministic for a seed)."""
    from core.corpus import sample_pair

    rng = random.Random(seed)
    return {n: sample_pair(rng, length=n).src for n in LENGTHS}


def zoo_load_s() -> tuple[float, dict[str, str]]:
    """Seconds to load every model of the zoo (checksums included); the failures' reasons."""
    import torch  # noqa: F401  (imported before the clock: the app imports it once too)

    from core import zoo

    errors: dict[str, str] = {}
    t0 = time.perf_counter()
    for name in zoo.MODEL_NAMES:
        try:
            zoo.load_model(name)
        except zoo.ZooError as exc:
            errors[name] = str(exc)
    return round(time.perf_counter() - t0, 3), errors


def model_ms(reps: int = 10, seed: int = SEED) -> tuple[dict[str, dict[str, float]], dict]:
    """Median ms of a greedy translation per model and length (after a warm-up call each)."""
    from core import zoo
    from core.translate import translate_tokens

    src_vocab, tgt_vocab = zoo.load_vocabs()
    sents = sentences(seed)
    out: dict[str, dict[str, float]] = {}
    errors: dict[str, str] = {}
    for name in zoo.TRANSLATION_MODELS:
        try:
            model = zoo.load_model(name)
        except zoo.ZooError as exc:
            errors[name] = str(exc)
            continue
        out[name] = {}
        for n, tokens in sents.items():
            translate_tokens(model, tokens, src_vocab, tgt_vocab)  # warm-up
            times = []
            for _ in range(reps):
                t0 = time.perf_counter()
                translate_tokens(model, tokens, src_vocab, tgt_vocab)
                times.append(1000.0 * (time.perf_counter() - t0))
            out[name][str(n)] = round(median(times), 2)
    info = {"seed": seed, "sentences": {str(n): " ".join(s) for n, s in sents.items()}}
    if errors:
        info["errors"] = errors
    return out, info
