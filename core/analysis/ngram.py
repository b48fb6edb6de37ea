"""Why not just count? N-gram statistics of the corpus (lesson 1.6), in pure numpy.

An n-gram model predicts the next word from the previous n−1 words by looking them up in a
table of counts. The table's possible size is V^n; the corpus fills a vanishing part of it,
and most longer n-grams of new sentences were never seen. Sentences are coded as one id
array with a separator between sentences, so every n-gram is a window of the array that
does not cross a separator, and an n-gram is one integer (base-V digits) for n ≤ 6.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

SEP = 0  # separator between sentences in the coded array
BOS = 1  # sentence start, so a context can say "at the start of a sentence"
EOS = 2  # sentence end: the n-gram model's "<eos>"
_FIRST_WORD = 3  # word ids start here


@dataclass(frozen=True)
class Coded:
    """Sentences as one int64 array: ``SEP BOS w w w EOS SEP BOS w ... EOS SEP``."""

    ids: np.ndarray  # (L,) int64
    words: tuple[str, ...]  # word of id ``_FIRST_WORD + i``

    @property
    def n_words(self) -> int:
        """V: the number of distinct words (no BOS/EOS)."""
        return len(self.words)

    def id(self, word: str) -> int | None:
        try:
            return _FIRST_WORD + self.words.index(word)
        except ValueError:
            return None


def code(sentences: Sequence[Sequence[str]], words: Sequence[str] | None = None) -> Coded:
    """Code sentences (lists of word tokens) with a word list (default: theirs, sorted).

    Words missing from ``words`` are coded as -1, which never matches a known n-gram.
    """
    vocab = tuple(sorted({w for s in sentences for w in s})) if words is None else tuple(words)
    index = {w: _FIRST_WORD + i for i, w in enumerate(vocab)}
    out: list[int] = [SEP]
    for s in sentences:
        out.append(BOS)
        out.extend(index.get(w, -1) for w in s)
        out.extend((EOS, SEP))
    return Coded(np.asarray(out, dtype=np.int64), vocab)


def _word_windows(coded: Coded, n: int) -> np.ndarray:
    """Every n-gram of words only (no BOS/EOS/SEP/unknown inside) as one integer. (M,) int64."""
    V = coded.n_words
    if V**n >= 2**63:
        raise ValueError(f"V^n = {V}^{n} does not fit in int64; use n <= 6 or a smaller vocab")
    ids = coded.ids
    L = ids.size - n + 1
    if L <= 0:
        return np.zeros(0, dtype=np.int64)
    digits = ids - _FIRST_WORD  # word ids become 0..V-1; specials and unknown negative
    valid = np.ones(L, dtype=bool)
    value = np.zeros(L, dtype=np.int64)
    for j in range(n):
        d = digits[j : j + L]
        valid &= d >= 0
        value = value * V + np.where(d >= 0, d, 0)
    return value[valid]


@dataclass(frozen=True)
class NGramStats:
    """Distinct n-grams seen in training against the V^n possible, and test coverage."""

    n: tuple[int, ...]  # n = 1 ... n_max
    vocab: int  # V, distinct training words
    train_tokens: int  # word tokens in training (an upper bound on windows per n)
    seen: tuple[int, ...]  # distinct training n-grams
    possible: tuple[float, ...]  # V^n (float: it overflows nothing on a log axis)
    test_unseen: tuple[float, ...]  # share of test n-gram occurrences absent from training
    test_windows: tuple[int, ...]  # test n-gram occurrences per n


CORPUS_MAX_N = 6  # the compression page counts n = 1..6 (an n-gram is one int64 for V^6)


_STATS_LOCK = threading.Lock()


def corpus_stats(seed: int, n_max: int = CORPUS_MAX_N) -> NGramStats:
    """:func:`ngram_stats` of the shared corpus split for ``seed`` (train against test):
    computed once per process (~6 s on one core) and shared by every session; a visitor
    who comes while it is being counted waits for that count instead of starting a second
    one (a class opening the page together). The result is never mutated (tuples, ints)."""
    with _STATS_LOCK:
        return _corpus_stats(seed, n_max)


@functools.lru_cache(maxsize=2)
def _corpus_stats(seed: int, n_max: int) -> NGramStats:
    from core import corpus

    sp = corpus.shared_splits(seed)
    return ngram_stats([p.src for p in sp.train], [p.src for p in sp.test], n_max)


_TABLE_LOCK = threading.Lock()


def corpus_table(seed: int) -> Coded:
    """The shared corpus's training sentences for ``seed``, coded (:func:`code`): once per
    process, shared by every session and the server's warm-up (``serve.warmup``)."""
    with _TABLE_LOCK:
        return _corpus_table(seed)


@functools.lru_cache(maxsize=2)
def _corpus_table(seed: int) -> Coded:
    from core import corpus

    return code([p.src for p in corpus.shared_splits(seed).train])


def ngram_stats(
    train: Sequence[Sequence[str]], test: Sequence[Sequence[str]], n_max: int = 6
) -> NGramStats:
    """Count distinct word n-grams in ``train`` (n = 1…n_max) and how many of ``test``'s
    n-gram occurrences never occur in ``train`` (a word unknown to training counts unseen)."""
    tr = code(train)
    te = code(test, tr.words)
    seen, unseen, windows = [], [], []
    for n in range(1, n_max + 1):
        uniq = np.unique(_word_windows(tr, n))
        seen.append(int(uniq.size))
        # test windows with an unknown word are unseen too: count them via all-windows total
        total = _count_windows(te, n)
        known = _word_windows(te, n)
        hit = int(np.isin(known, uniq, assume_unique=False).sum())
        windows.append(total)
        unseen.append(round(1 - hit / total, 4) if total else 0.0)
    return NGramStats(
        n=tuple(range(1, n_max + 1)),
        vocab=tr.n_words,
        train_tokens=int((tr.ids >= _FIRST_WORD).sum()),
        seen=tuple(seen),
        possible=tuple(float(tr.n_words) ** n for n in range(1, n_max + 1)),
        test_unseen=tuple(unseen),
        test_windows=tuple(windows),
    )


def _count_windows(coded: Coded, n: int) -> int:
    """Windows of n tokens inside sentences (unknown words included)."""
    ids = coded.ids
    L = ids.size - n + 1
    if L <= 0:
        return 0
    inside = (ids >= _FIRST_WORD) | (ids == -1)
    ok = np.ones(L, dtype=bool)
    for j in range(n):
        ok &= inside[j : j + L]
    return int(ok.sum())


@dataclass(frozen=True)
class NGramStep:
    context: tuple[str, ...]  # the words actually used as context (after backing off)
    word: str  # the chosen next word ("<eos>" at the end)
    count: int  # how often the context was followed by the word in training
    total: int  # how often the context occurred in training (followed by anything)


def next_counts(coded: Coded, context: Sequence[int]) -> np.ndarray:
    """Counts of each next id after ``context`` (ids, BOS allowed) in the coded corpus.

    Returns an array indexed by id (length ``_FIRST_WORD + V``); all zero if unseen.
    """
    ids = coded.ids
    k = len(context)
    size = _FIRST_WORD + coded.n_words
    if k == 0:
        nxt = ids[(ids >= _FIRST_WORD) | (ids == EOS)]
        return np.bincount(nxt, minlength=size)
    L = ids.size - k
    match = np.ones(L, dtype=bool)
    for j, c in enumerate(context):
        match &= ids[j : j + L] == c
    nxt = ids[k:][match]
    nxt = nxt[nxt > SEP]
    return np.bincount(nxt, minlength=size)


def ngram_continue(
    coded: Coded, prefix: Sequence[str], n: int = 3, max_new: int = 12
) -> list[NGramStep]:
    """Greedy continuation with an n-gram count table and "stupid backoff".

    The context is the last n−1 tokens (BOS included at the start of a sentence); if that
    context never occurred in training, the oldest word is dropped until it did. The most
    frequent follower is chosen (ties: the first word in the sorted vocabulary).
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    seq = [BOS] + [coded.id(w) if coded.id(w) is not None else -1 for w in prefix]
    out: list[NGramStep] = []
    for _ in range(max_new):
        ctx = seq[max(0, len(seq) - (n - 1)) :] if n > 1 else []
        while True:
            counts = next_counts(coded, ctx)
            total = int(counts.sum())
            if total or not ctx:
                break
            ctx = ctx[1:]
        best = int(counts.argmax())
        word = "<eos>" if best == EOS else coded.words[best - _FIRST_WORD]
        names = tuple(
            "<bos>" if c == BOS else coded.words[c - _FIRST_WORD] if c >= _FIRST_WORD else "?"
            for c in ctx
        )
        out.append(NGramStep(names, word, int(counts[best]), total))
        if best == EOS:
            break
        seq.append(best)
    return out
