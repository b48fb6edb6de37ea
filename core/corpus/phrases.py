"""Phrases under construction: the phrase type and its agreement, the word tables by kind,
and noun phrases (a pronoun, "the N", relative clauses) planned to an exact length.

Randomness only comes from the ``random.Random`` passed in, so the same seed gives the same
phrases on every machine.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from core.corpus.words import (
    _NOUN_KINDS,
    _STATES,
    ATTRS,
    NOUNS,
    PLACES,
    POSSESSIVES,
    PRONOUNS,
    TIMES,
    VERBS,
    Noun,
)

# ---------------------------------------------------------------------------------------
# Phrases under construction
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _P:
    """A phrase: English and Chinese tokens, probe checks (indices into zh), agreement."""

    en: tuple[str, ...]
    zh: tuple[str, ...]
    check: tuple[tuple[int, str], ...] = ()
    agr: str = "3s"  # 1s, 2, 3s, 1p, 3p: picks am/is/are, eat/eats


_EMPTY = _P((), ())


def _p(en: str, zh: str, agr: str = "3s") -> _P:
    return _P(tuple(en.split()), tuple(zh.split()), (), agr)


def _cat(*parts: _P) -> _P:
    """Concatenate phrases, shifting their checks; agreement comes from the first part."""
    en: list[str] = []
    zh: list[str] = []
    check: list[tuple[int, str]] = []
    for part in parts:
        check.extend((i + len(zh), tok) for i, tok in part.check)
        en.extend(part.en)
        zh.extend(part.zh)
    return _P(tuple(en), tuple(zh), tuple(check), parts[0].agr if parts else "3s")


def _be(agr: str, tense: str) -> str:
    if tense == "past":
        return "was" if agr in ("1s", "3s") else "were"
    return {"1s": "am", "3s": "is"}.get(agr, "are")


def _do(agr: str, tense: str) -> str:
    if tense == "past":
        return "did"
    return "does" if agr == "3s" else "do"


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _nouns(kind: str) -> tuple[Noun, ...]:
    return _NOUNS_BY_KIND[kind]


_NOUNS_BY_KIND: dict[str, tuple[Noun, ...]] = {
    k: tuple(n for n in NOUNS if n.kind == k) for k in _NOUN_KINDS
}


@cache
def _attrs(kind: str) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    return tuple(a for a in ATTRS if kind in a[2])


@cache
def _places(n: int) -> tuple[tuple[str, str], ...]:
    return tuple(p for p in PLACES if len(p[0].split()) == n)


@cache
def _times(tense: str, n: int) -> tuple[tuple[str, str, str], ...]:
    return tuple(t for t in TIMES if tense in t[2].split() and len(t[0].split()) == n)


@cache
def _time_lengths(tense: str) -> tuple[int, ...]:
    return tuple(sorted({len(t[0].split()) for t in TIMES if tense in t[2].split()}))


# ---------------------------------------------------------------------------------------
# Exact-length planning
# ---------------------------------------------------------------------------------------


@cache
def _reach(total: int, options: tuple[tuple[int, ...], ...]) -> tuple[frozenset[int], ...]:
    """reach[i]: the totals (<= total) that slots i.. can sum to."""
    reach: list[frozenset[int]] = [frozenset((0,))]
    for opts in reversed(options):
        prev = reach[-1]
        reach.append(frozenset(a + b for a in opts for b in prev if a + b <= total))
    reach.reverse()
    return tuple(reach)


def _split(rng: random.Random, total: int, options: Sequence[Sequence[int]]) -> list[int] | None:
    """Pick one length per slot from ``options`` so that they sum to ``total``.

    A backward pass records which totals the remaining slots can reach (cached: the same
    plans recur constantly); the forward pass then draws uniformly among the lengths that
    keep the rest reachable.
    """
    opts_t = tuple(tuple(sorted(set(o))) for o in options)
    reach = _reach(total, opts_t)
    if total not in reach[0]:
        return None
    out: list[int] = []
    rem = total
    for i, opts in enumerate(opts_t):
        x = rng.choice([x for x in opts if rem - x in reach[i + 1]])
        out.append(x)
        rem -= x
    return out


_MAX_NP = 22  # longest noun phrase (with nested relative clauses)


@cache
def _np_lengths(kind: str, role: str, depth: int, rel_only: bool = False) -> tuple[int, ...]:
    """All lengths a noun phrase of ``kind`` can have (depth = allowed relative nesting)."""
    out: set[int] = set()
    if not rel_only:
        if kind == "person":
            out.add(1)  # pronoun
        if role == "obj" and any(n.mass for n in _nouns(kind)):
            out.add(1)  # bare mass noun: "rice", "shoes"
        out.add(2)
        if _attrs(kind):
            out.add(3)
    if depth > 0:
        adjs = (0, 1) if _attrs(kind) else (0,)
        for adj in adjs:
            for verb in VERBS:
                if kind in verb.obj:  # the cat that [subject] saw
                    for sk in verb.subj:
                        out.update(4 + adj + s for s in _np_lengths(sk, "subj", depth - 1))
                if kind in verb.subj:  # the boy who cried / who eats rice
                    if not verb.obj:
                        out.add(4 + adj)
                    for ok in verb.obj:
                        out.update(4 + adj + o for o in _np_lengths(ok, "obj", depth - 1))
    return tuple(sorted(x for x in out if x <= _MAX_NP))


def _np(rng: random.Random, kind: str, role: str, depth: int, n: int, rel_only: bool = False) -> _P:
    """A noun phrase of ``kind`` with exactly ``n`` English tokens."""
    form = rng.choice(_np_forms(kind, role, depth, n, rel_only))
    return _np_build(rng, form, kind, role, depth, n)


@cache
def _np_forms(kind: str, role: str, depth: int, n: int, rel_only: bool) -> tuple[tuple, ...]:
    """The noun-phrase shapes that give exactly ``n`` tokens (pronoun, "the N", relative …)."""
    forms: list[tuple] = []
    if not rel_only:
        if n == 1 and kind == "person":
            forms.append(("pron",))
        if n == 1 and role == "obj" and any(x.mass for x in _nouns(kind)):
            forms.append(("bare",))
        if n == 2:
            forms.append(("det",))
        if n == 3 and _attrs(kind):
            forms.append(("det_adj",))
    if depth > 0 and n >= 4:
        adjs = (0, 1) if _attrs(kind) else (0,)
        for adj in adjs:
            m = n - 4 - adj
            for verb in VERBS:
                if kind in verb.obj:
                    for sk in verb.subj:
                        if m in _np_lengths(sk, "subj", depth - 1):
                            forms.append(("objrel", adj, verb, sk))
                if kind in verb.subj:
                    if not verb.obj and m == 0:
                        forms.append(("subjrel", adj, verb, ""))
                    for ok in verb.obj:
                        if m in _np_lengths(ok, "obj", depth - 1):
                            forms.append(("subjrel", adj, verb, ok))
    if not forms:
        raise ValueError(f"no {kind} noun phrase of length {n} at depth {depth}")
    return tuple(forms)


def _np_build(rng: random.Random, form: tuple, kind: str, role: str, depth: int, n: int) -> _P:
    tag = form[0]
    if tag == "pron":
        opts = [p for p in PRONOUNS if role == "subj" or p[1]]
        en_s, en_o, zh, agr = rng.choice(opts)
        return _p(en_s if role == "subj" else en_o, zh, agr)
    if tag == "bare":
        noun = rng.choice([x for x in _nouns(kind) if x.mass])
        return _p(noun.en, noun.zh, "3p" if noun.plural else "3s")
    if tag in ("det", "det_adj"):
        noun = rng.choice(_nouns(kind))
        agr = "3p" if noun.plural else "3s"
        adj_en, adj_zh = "", ""
        if tag == "det_adj":
            adj_en, adj_zh, _ = rng.choice(_attrs(kind))
        word = f"{adj_en} {noun.en}".strip()
        named = f"{adj_zh} {noun.zh}".strip()
        choice = rng.random()
        if choice < 0.5 or (choice < 0.8 and noun.mass):
            return _p(f"the {word}", named, agr)
        if choice < 0.8:
            return _p(f"{_article(word)} {word}", f"一 {noun.cls} {named}", agr)
        poss_en, poss_zh = rng.choice(POSSESSIVES)
        return _p(f"{poss_en} {word}", f"{poss_zh} {named}", agr)
    # Relative clauses: the head noun is singular and always "the"; Chinese puts the
    # clause before the noun with 的 (我 看见 的 猫, 吃 米饭 的 男孩).
    _, adj, verb, other = form
    noun = rng.choice([x for x in _nouns(kind) if not x.plural])
    head_en, head_zh = noun.en, noun.zh
    if adj:
        a_en, a_zh, _ = rng.choice(_attrs(kind))
        head_en, head_zh = f"{a_en} {noun.en}", f"{a_zh} {noun.zh}"
    m = n - 4 - adj
    past = rng.random() < 0.5
    if tag == "objrel":
        subj = _np(rng, other, "subj", depth - 1, m)
        form_en = verb.past if past else (verb.s3 if subj.agr == "3s" else verb.base)
        return _P(
            ("the", *head_en.split(), "that", *subj.en, form_en),
            (*subj.zh, verb.zh, "的", *head_zh.split()),
        )
    rel = "who" if kind == "person" else "that"
    form_en = verb.past if past else verb.s3
    if not other:
        return _P(("the", *head_en.split(), rel, form_en), (verb.zh, "的", *head_zh.split()))
    obj = _np(rng, other, "obj", depth - 1, m)
    le = ("了",) if past and verb.base not in _STATES else ()
    return _P(
        ("the", *head_en.split(), rel, form_en, *obj.en),
        (verb.zh, *le, *obj.zh, "的", *head_zh.split()),
        tuple((i + 1 + len(le), t) for i, t in obj.check),
    )
