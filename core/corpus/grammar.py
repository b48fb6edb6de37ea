"""The grammar's sentences: one construction (short, simple, reorder, relative, question,
coreference, word sense, long range, compound) planned to an exact source length, padded
with joined clauses; :func:`sample_pair` and :func:`generate` draw them.

The parts live beside it: ``phrases`` (the phrase type, noun phrases), ``clauses``
(declaratives, questions, joined clauses) and ``phenomena`` (coreference, word sense, the
long-range example). Randomness only comes from the ``random.Random`` passed in, so the
same seed gives the same sentences on every machine.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from core.corpus.clauses import _SEG_MIN, _clause, _question, _segments
from core.corpus.phenomena import _coref, _longrange, _sense
from core.corpus.phrases import _P, _cat, _p
from core.corpus.words import CONNECTIVES, SENSES, SHORT, Pair

__all__ = ["MAX_LEN", "sample_pair", "generate"]

MAX_LEN = 55  # default longest source sentence

# ---------------------------------------------------------------------------------------
# Sentences
# ---------------------------------------------------------------------------------------


def _ok_rest(r: int) -> bool:
    return r == 0 or r >= _SEG_MIN


def _pad(
    rng: random.Random,
    core: _P,
    length: int,
    *,
    before: bool = True,
    after: bool = True,
    conns: Sequence[tuple[str, str]] = CONNECTIVES,
) -> _P | None:
    """Join clauses before and/or after ``core`` until the source has ``length`` tokens."""
    rest = length - len(core.en)
    if rest < 0 or not _ok_rest(rest):
        return None
    if rest == 0:
        return core
    choices = [
        b
        for b in range(rest + 1)
        if _ok_rest(b) and _ok_rest(rest - b) and (before or b == 0) and (after or b == rest)
    ]
    if not choices:
        return None
    b = rng.choice(choices)
    head = _segments(rng, b, lead=True, conns=conns)
    tail = _segments(rng, rest - b)
    if head is None or tail is None:
        return None
    return _cat(head, core, tail)


# A question comes last, after "… but" / "… so" ("i like tea but do you like tea").
_QUESTION_CONNECTIVES: tuple[tuple[str, str], ...] = (("but", "但是"), ("so", "所以"))
# How often each construction is picked (among those that can have the requested length).
_KIND_WEIGHTS: tuple[tuple[str, int], ...] = (
    ("short", 3),
    ("simple", 2),
    ("reorder", 3),
    ("relative", 3),
    ("question", 3),
    ("coref", 2),
    ("sense", 2),
    ("longrange", 2),
    ("compound", 3),
)


def _feasible(kind: str, n: int) -> bool:
    if kind == "short":
        return any(len(en.split()) == n for en, _ in SHORT)
    lo, hi = {
        "simple": (2, 8),
        "reorder": (3, 14),
        "relative": (5, 10**6),
        "question": (3, 10**6),
        "coref": (9, 10**6),
        "sense": (4, 10**6),
        "longrange": (12, 10**6),
        "compound": (5, 10**6),
    }[kind]
    return lo <= n <= hi


def _core_length(rng: random.Random, n: int, lo: int, hi: int) -> int | None:
    options = [c for c in range(lo, min(hi, n) + 1) if _ok_rest(n - c)]
    return rng.choice(options) if options else None


def _build(rng: random.Random, kind: str, n: int) -> tuple[_P, tuple[tuple[str, str], ...]] | None:
    """One attempt at a sentence of ``kind`` with exactly ``n`` source tokens."""
    info: tuple[tuple[str, str], ...] = ()
    if kind == "short":
        en, zh = rng.choice([s for s in SHORT if len(s[0].split()) == n])
        return _p(en, zh), info
    if kind == "simple":
        core = _clause(rng, n, adjunct="none")
        return (core, info) if core else None
    if kind == "reorder":
        core = _clause(rng, n, adjunct="need")
        return (core, info) if core else None
    if kind == "relative":
        c = _core_length(rng, n, 5, 28)
        core = c and _clause(rng, c, depth=2 if c > 10 else 1, need_rel=True)
        out = core and _pad(rng, core, n)
    elif kind == "question":
        c = _core_length(rng, n, 3, 24)
        core = c and _question(rng, c, depth=2 if c > 12 else 1)
        out = core and _pad(rng, core, n, after=False, conns=_QUESTION_CONNECTIVES)
    elif kind == "coref":
        reading = rng.choice(("subject", "object"))
        core = _coref(rng, reading)
        info = (("reading", reading), ("antecedent", core.check[0][1]))
        out = _pad(rng, core, n)
    elif kind == "sense":
        core = _sense(rng)
        ante = core.check[0][1]
        word = next(s[0] for s in SENSES if s[2] == ante)
        info = (("word", word), ("sense", ante))
        out = _pad(rng, core, n)
    elif kind == "longrange":
        reading = rng.choice(("song", "shade"))
        # core length = distance + (tokens outside the span, at least 8); the lower bound
        # grows with n so that long sentences mostly carry long distances
        hi = max(4, min(45, n - 8))
        distance = rng.randint(min(hi, max(4, (n - 8) // 3)), hi)
        core = _longrange(rng, distance, reading)
        ante = core.check[0][1]
        info = (("antecedent", ante), ("distance", str(distance)), ("reading", reading))
        out = _pad(rng, core, n)
    else:  # compound: two or more clauses joined by connectives
        c = _core_length(rng, n - _SEG_MIN, 2, 14)
        core = c and _clause(rng, c, depth=1 if c > 6 else 0)
        out = core and _pad(rng, core, n, before=False)
    return (out, info) if out else None


def sample_pair(rng: random.Random, length: int | None = None) -> Pair:
    """One sentence pair drawn from the grammar.

    With ``length`` the source has exactly that many tokens (any length >= 1 is possible;
    sentences longer than about 15 tokens are clauses joined by and / but / because / so);
    without it the length is uniform over 1..55.
    """
    n = rng.randint(1, MAX_LEN) if length is None else int(length)
    if n < 1:
        raise ValueError(f"length must be at least 1 source token, got {length}")
    kinds = [(k, w) for k, w in _KIND_WEIGHTS if _feasible(k, n)]
    for _ in range(50):
        kind = rng.choices([k for k, _ in kinds], weights=[w for _, w in kinds])[0]
        built = _build(rng, kind, n)
        if built is not None:
            phrase, info = built
            return Pair(phrase.en, phrase.zh, kind, phrase.check, info)
    raise RuntimeError(f"could not build a sentence of {n} tokens")  # pragma: no cover


def generate(n: int, seed: int, *, min_len: int = 1, max_len: int = MAX_LEN) -> list[Pair]:
    """``n`` pairs with source lengths uniform over ``min_len..max_len`` (seeded)."""
    if not 1 <= min_len <= max_len:
        raise ValueError(f"need 1 <= min_len <= max_len, got {min_len}..{max_len}")
    rng = random.Random(seed)
    return [sample_pair(rng, rng.randint(min_len, max_len)) for _ in range(n)]
