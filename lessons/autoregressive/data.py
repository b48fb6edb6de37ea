"""Cached computations of the autoregressive lesson (``ui.cache.data`` over ``core``).

Every cache keyed on what a visitor types or picks (a prompt, a sentence, a forced word,
the sampling settings) is bounded; the searched default slip and the forced-slip study are
background jobs, once per server, keyed only on the corpus seed.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass

import streamlit as st

from core import corpus, lexicon
from core.analysis import autoregressive as analysis
from core.analysis import slips
from core.evaluate import max_output_len
from serve import jobs
from ui import cache
from ui.models import get_manifest, get_model, get_vocabs

LM = "lm_gru"
MAX_NEW = 12  # tokens the language model may add
K_SHOW = 8  # alternatives shown per step


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

# Forced in place of the lesson's "wear" after "you should": a verb that takes "shoes" as well,
# so the sentence could stay on course ("you should buy shoes"); whether it does is the model's.
LM_FORCED = "buy"


@dataclass(frozen=True)
class LMSlipWords:
    """:class:`core.analysis.slips.LMSlip` with its ids as the words a reader sees."""

    result: slips.LMSlip
    own_words: tuple[str, ...]  # EOS shown as the lexicon's end mark
    forced_words: tuple[str, ...]
    considered: tuple[str, ...]  # the other words it gave most in place of its own


@cache.data(max_entries=32)
def lm_slip(prompt: tuple[str, ...], word: str) -> LMSlipWords:
    """The language model after ``prompt``: what it writes, and what it writes with ``word``
    forced in place of its first word (:func:`core.analysis.slips.lm_slip`)."""
    sv, _ = get_vocabs()
    r = slips.lm_slip(get_model(LM), sv.encode(prompt), 0, sv.encode([word])[0], MAX_NEW, K_SHOW)

    def words(ids):
        return tuple(lexicon.show_token(sv.tokens[i]) for i in ids)

    return LMSlipWords(r, words(r.own), words(r.forced), words(r.considered))


SLIP_MODEL = "gru_plain_256"  # the default example's model: the tested search finds its slip
# The study's models, from "nothing pulls it back" to "re-reads the source at every step".
SLIP_LMS = ("lm_gru",)
SLIP_TRANSLATORS = ("rnn_plain_256", "gru_plain_256", "cnn_s2s", "transformer", "gru_attention")
SLIP_SAMPLE = 90  # grammatical test sentences (150 in the zoo test; the ordering holds at 60)
SLIP_POS = 1  # 0-based output step of the forced word: the second word written
SLIP_LENGTHS = (6, 12)  # English words of the sentences searched for the default example


def _slip_rows(translation: dict, lms: dict, src_vocab, pairs: list) -> list[dict]:
    return slips.slip_table(translation, lms, src_vocab, pairs, pos=SLIP_POS)


@st.cache_resource(show_spinner=False)  # a running job, shared: not a value to copy
def slip_table_job(seed: int) -> Future:
    """The forced-slip study on every model, once per server, in a thread of its own."""
    sv, _ = get_vocabs()  # models and vocabularies here, in the script thread
    translation = {n: get_model(n) for n in SLIP_TRANSLATORS}
    lms = {n: get_model(n) for n in SLIP_LMS}
    pairs = slips.sample_sentences(splits(seed).test, SLIP_SAMPLE, seed=0)
    return jobs.in_thread("autoregressive-slips", _slip_rows, translation, lms, sv, pairs)


@st.cache_resource(show_spinner=False)  # a running job, shared: not a value to copy
def default_slip_job(seed: int) -> Future:
    """The default example (:func:`core.analysis.slips.derailing_slip` on the plain GRU)."""
    sv, tv = get_vocabs()
    model = get_model(SLIP_MODEL)
    test = splits(seed).test
    lo, hi = SLIP_LENGTHS
    return jobs.in_thread("autoregressive-slip", slips.derailing_slip, model, sv, tv, test, lo, hi)


def slip_table(seed: int) -> dict[str, dict]:
    """{model: summary} of the study (waits for its job)."""
    return {row["model"]: row for row in jobs.result_of(slip_table_job, seed)}


def default_slip(seed: int) -> slips.DefaultSlip | None:
    """The searched default example (waits for its job)."""
    return jobs.result_of(default_slip_job, seed)
