"""Cached computations of the autoregressive lesson (``ui.cache.data`` over ``core``).

Every cache keyed on what a visitor types or picks (a prompt, a sentence, a forced word,
the sampling settings) is bounded; the searched default slip and the "one wrong step"
statistic are keyed only on a model name and the corpus seed.
"""

from __future__ import annotations

import random

import streamlit as st

from core import corpus
from core.analysis import autoregressive as analysis
from core.evaluate import max_output_len
from ui import cache
from ui.models import get_manifest, get_model, get_vocabs

LM = "lm_gru"
MAX_NEW = 12  # tokens the language model may add
K_SHOW = 8  # alternatives shown per step
SLIP_LENGTHS = (4, 12)  # source lengths searched for the default slip (fits on a slide)
WRONG_SAMPLE = 120  # held-out sentences in the "one wrong step" statistic
WRONG_POSITIONS = (0, 1, 2, 4, 8)  # output positions where a wrong token is forced
WRONG_LENGTHS = (8, 16)  # source lengths of the sampled sentences


@st.cache_resource(show_spinner=False)
def splits(seed: int) -> corpus.Splits:
    return corpus.shared_splits(seed)  # one copy per process, warmed up in the background


def corpus_seed() -> int:
    return int(get_manifest().get("corpus", {}).get("seed", 1234))


def lm_recorded() -> list[str] | None:
    """The language model's greedy words after "you should", as its training run recorded."""
    return (get_manifest().get("models", {}).get(LM, {}).get("metrics") or {}).get("you_should")


@cache.data(max_entries=256)
def lm_run(prefix: tuple[str, ...], mode: str, temp: float, topk: int, seed: int):
    """The language model's steps after ``prefix`` (see analysis.lm_generate)."""
    sv, _ = get_vocabs()
    return analysis.lm_generate(
        get_model(LM),
        sv.encode(prefix),
        max_new=MAX_NEW,
        mode=mode,
        temperature=temp,
        top_k=topk,
        seed=seed,
        k_show=K_SHOW,
    )


@cache.data(max_entries=256)
def translate(name: str, tokens: tuple[str, ...], forced: tuple[int, ...] = ()) -> analysis.Decoded:
    """Greedy output after a forced prefix of ids (empty: plain greedy), explained."""
    sv, _ = get_vocabs()
    model = get_model(name)
    src = sv.encode(tokens, eos=True)
    out = analysis.continue_greedy(model, src, list(forced), max_output_len(len(src)))
    return analysis.explain_output(model, src, out, K_SHOW)


# --- one wrong step ----------------------------------------------------------------------------


@cache.data(max_entries=4)
def slip(name: str, seed: int) -> tuple[str, int, str, float, int] | None:
    """The default of "one wrong step", searched once from the model (see analysis.find_slip):
    (English sentence, 1-based step, forced Chinese word, its probability, later edits)."""
    sv, tv = get_vocabs()
    lo, hi = SLIP_LENGTHS
    pool = [p for p in splits(seed).test if lo <= len(p.src) <= hi]
    found = analysis.find_slip(
        get_model(name),
        [sv.encode(p.src, eos=True) for p in pool],
        [tv.encode(p.tgt) for p in pool],
    )
    if found is None:
        return None
    src = " ".join(pool[found.index].src)
    return src, found.pos + 1, tv.tokens[found.token], found.prob, found.edits


@cache.data(max_entries=8)
def wrong_stats(name: str, seed: int) -> analysis.WrongStepResult:
    """How often the rest survives one forced wrong word, on sampled held-out sentences."""
    sv, tv = get_vocabs()
    lo, hi = WRONG_LENGTHS
    pool = [p for p in splits(seed).test if lo <= len(p.src) <= hi]
    sample = random.Random(0).sample(pool, min(WRONG_SAMPLE, len(pool)))
    return analysis.wrong_step_effect(
        get_model(name),
        [sv.encode(p.src, eos=True) for p in sample],
        [tv.encode(p.tgt) for p in sample],
        WRONG_POSITIONS,
    )
