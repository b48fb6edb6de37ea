"""The model arena's cached computations (``ui.cache.data``: keyed on the models' checksums
too): every model's output on a sentence, its live timing, its size and the grammar's
sentences, shared by every visitor."""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass

from core import corpus, lexicon, zoo
from core.analysis import arena as analysis
from core.translate import InputError, prepare, translate_tokens
from ui import cache, models

MODELS = zoo.TRANSLATION_MODELS  # the models the arena runs, in the order it shows them
DEFAULT_VIEW = "edit"  # the part's alignment view unless the visitor picks "position"

# Latency: the translation's own decode, timed (no second decode on a new sentence: it was
# half the model work of a click); "Measure again" takes the median of more runs.
REMEASURE_RUNS = 5


def _stamp() -> str:
    return dt.datetime.now(dt.UTC).strftime("%H:%M:%S")


# Keyed on the visitor's sentence: seven entries (one per model) a sentence. An entry is small:
# a sentence has at most core.translate.MAX_WORDS = 60 words, so an output at most
# max_output_len(60) = 100 tokens with their probabilities: 1.35 KB pickled at that budget,
# 0.4-0.9 KB measured on random 60-word sentences. 2048 entries (292 sentences: a class of
# 60 trying about five each) therefore hold under 4 MB with the cache's own bookkeeping.
@cache.data(max_entries=2048)
def translate(
    name: str, tokens: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[float, ...], float]:
    """Greedy output tokens (special tokens as shown), their probabilities, and the
    translation's wall-clock time in ms (one thread, inference mode)."""
    import torch

    sv, tv = models.get_vocabs()
    start = time.perf_counter()
    with torch.inference_mode():
        result = translate_tokens(models.get_model(name), tokens, sv, tv)
    ms = (time.perf_counter() - start) * 1000
    return tuple(lexicon.show_tokens(result.output)), result.probs, ms


@cache.data(max_entries=512)  # ~0.3 KB an entry
def latency(name: str, tokens: tuple[str, ...], nonce: int) -> dict[str, object]:
    """Live timing of the greedy decode: the translation's own time, or, once ``nonce``
    changes (the user asked to re-measure), the median of ``REMEASURE_RUNS`` new decodes."""
    if not nonce:
        ms = translate(name, tokens)[2]
        return {"median_ms": ms, "min_ms": ms, "max_ms": ms, "runs": 1.0, "at": _stamp()}
    sv, _ = models.get_vocabs()
    timing = analysis.greedy_latency(
        models.get_model(name), sv.encode(tokens, eos=True), runs=REMEASURE_RUNS, warmup=0
    )
    return {**timing, "at": _stamp()}


@dataclass(frozen=True)
class Result:
    """One model on one sentence: its output tokens and their probabilities, its timing
    (:func:`latency`), its size, and, with a reference, the output aligned to it
    (``verdict``: edit distance or position by position) and its scores."""

    out: tuple[str, ...]
    probs: tuple[float, ...]
    latency: dict[str, object]
    params: int
    verdict: analysis.Verdict | None
    scores: dict[str, float] | None


# One lookup a rerun: the part's controls rerun it (a new sentence length, a view) and
# Streamlit hashes a cached call's arguments each time (~0.5 ms a call here): the seven
# models' outputs, timings and sizes, called one by one, were ~28 lookups a rerun. Keyed on
# the sentence like translate(); an entry holds seven results (~7 KB at the 60-word limit).
@cache.data(max_entries=256)
def sentence(
    models: tuple[str, ...],
    tokens: tuple[str, ...],
    reference: tuple[str, ...] | None,
    view: str,
    nonce: int,
) -> dict[str, Result]:
    """Every model in ``models`` on ``tokens``, scored against ``reference`` (if any) with
    ``view``'s alignment ("edit" or "position"); ``nonce``: see :func:`latency`."""
    compare = analysis.edit_alignment if view == "edit" else analysis.positionwise
    out = {}
    for name in models:
        tokens_out, probs, _ = translate(name, tokens)
        out[name] = Result(
            out=tokens_out,
            probs=probs,
            latency=latency(name, tokens, nonce),
            params=params(name),
            verdict=compare(tokens_out, reference) if reference else None,
            scores=analysis.sentence_scores(tokens_out, reference) if reference else None,
        )
    return out


@cache.data  # keyed on a model name: a closed set
def params(name: str) -> int:
    return analysis.count_params(models.get_model(name))


@cache.data(max_entries=64)
def grammar(seed: int, length: int) -> corpus.Pair:
    return analysis.grammar_pair(seed, length)


def grammar_key(seed: int, length: int) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The sentence the grammar draws for ``(seed, length)`` as the part passes it to
    :func:`sentence`: its source tokens (checked against the vocabulary, as the page
    checks them) and its reference; None if the vocabulary cannot read it."""
    pair = grammar(seed, length)
    try:
        tokens = prepare(" ".join(pair.src), models.get_vocabs()[0])
    except InputError:
        return None
    return tuple(tokens), tuple(pair.tgt)


def warm(
    models_: tuple[str, ...], seed: int = analysis.DEFAULT_SEED, lengths: range | None = None
) -> int:
    """At the server's warm-up (``serve.warmup``): every model on the default seed's sentence
    of every length, in the part's default view, so the "Length" slider a teacher drags
    answers from the cache (a new length was seven translations, ~110 ms of a click at 40
    words; all 55 lengths take ~2.6 s of one thread, once a process). ``models_``: the
    models the part would show (those whose weights load). Returns the sentences warmed."""
    from serve.warmup import stopping

    done = 0
    for length in lengths or range(1, corpus.MAX_LEN + 1):
        if stopping():  # the process is exiting (serve.warmup)
            break
        key = grammar_key(seed, length)
        if key is not None:
            sentence(models_, key[0], key[1], DEFAULT_VIEW, 0)
            done += 1
    return done


def warm_default() -> int:
    """:func:`warm` for the models the part shows (``serve.warmup.SLIDERS``)."""
    return warm(loadable(MODELS))


def loadable(names: tuple[str, ...]) -> tuple[str, ...]:
    """The models of ``names`` whose weights load, in order (the part's ``available``)."""
    out = []
    for name in names:
        try:
            models.get_model(name)
            out.append(name)
        except zoo.ZooError:
            continue
    return tuple(out)
