"""The sentence builders of the synthetic grammar: noun phrases, clauses, questions,
coreference, word senses and the long-range example, each planned to an exact source length.

Randomness only comes from the ``random.Random`` passed in, so the same seed gives the same
sentences on every machine.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from core.corpus.words import (
    _NOUN_KINDS,
    _PREDS,
    _STATES,
    ATTRS,
    CONNECTIVES,
    LONG_FILLER,
    LONG_INTROS,
    LONG_SINGERS,
    LONG_TAILS,
    LONG_TREES,
    NOUNS,
    PLACES,
    POSSESSIVES,
    PRONOUNS,
    SENSE_CONTEXT,
    SENSE_INTERNAL,
    SENSE_NEUTRAL,
    SENSES,
    SHORT,
    STATE_PREDS,
    TIMES,
    VERBS,
    Noun,
    Pair,
    Verb,
)

__all__ = ["MAX_LEN", "sample_pair", "generate"]

MAX_LEN = 55  # default longest source sentence

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
_TRANSITIVE: tuple[Verb, ...] = tuple(v for v in VERBS if v.obj)
_INTRANSITIVE: tuple[Verb, ...] = tuple(v for v in VERBS if not v.obj)


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


# ---------------------------------------------------------------------------------------
# Clauses
# ---------------------------------------------------------------------------------------

_TENSES: tuple[str, ...] = ("pres", "past", "prog", "fut")


def _verb_en(verb: Verb, tense: str, agr: str) -> tuple[str, ...]:
    if tense == "pres":
        return (verb.s3 if agr == "3s" else verb.base,)
    if tense == "past":
        return (verb.past,)
    if tense == "prog":
        return (_be(agr, "pres"), verb.ing)
    return ("will", verb.base)


def _verb_zh(verb: Verb, tense: str, place: _P, obj: _P | None, time: _P) -> tuple[str, ...]:
    """Chinese predicate: [time] [会] [place | 在] V [了] [O] [了].

    Progressive 在 merges with a place phrase (我 在 家 吃 米饭); past 了 follows the verb
    when there is an object (吃 了 米饭) and ends the clause otherwise (哭 了).
    """
    out: list[str] = list(time.zh)
    if tense == "fut":
        out.append("会")
    out.extend(place.zh)
    if tense == "prog" and not place.zh:
        out.append("在")
    out.append(verb.zh)
    if obj is not None:
        # states (喜欢, 爱, 想要) take no perfective 了: 我 喜欢 猫 for "i liked the cat"
        if tense == "past" and verb.base not in _STATES:
            out.append("了")
        out.extend(obj.zh)
    elif tense == "past":
        out.append("了")
    return tuple(out)


def _declare(subj: _P, verb: Verb, tense: str, obj: _P | None, place: _P, time: _P) -> _P:
    """English S V [O] [place] [time] -> Chinese S [time] [place] V [O]."""
    en = (*subj.en, *_verb_en(verb, tense, subj.agr), *(obj.en if obj else ()))
    zh = (*subj.zh, *_verb_zh(verb, tense, place, obj, time))
    return _P((*en, *place.en, *time.en), zh)


def _ask(q: str, subj: _P, verb: Verb, tense: str, obj: _P | None, place: _P, time: _P) -> _P:
    """A question with a verb; q is "yn", "where", "what" (object gap) or "why".

    English inverts with do / does / did / is / will; Chinese keeps statement order and
    adds 吗 or puts the question word where the answer would be (在 哪里 before the verb,
    什么 as the object, 为什么 after the subject and time).
    """
    verb_en = _verb_en(verb, tense, subj.agr)
    if tense in ("pres", "past"):
        aux, main = _do(subj.agr, tense), verb.base
    else:
        aux, main = verb_en[0], verb_en[1]
    tail = (*(obj.en if obj else ()), *place.en, *time.en)
    lead = () if q == "yn" else (q,)
    en = (*lead, aux, *subj.en, main, *tail)
    if q == "yn":
        zh = (*subj.zh, *_verb_zh(verb, tense, place, obj, time), "吗")
    elif q == "where":
        zh = (*subj.zh, *_verb_zh(verb, tense, _p("", "在 哪里"), obj, time))
    elif q == "what":
        zh = (*subj.zh, *_verb_zh(verb, tense, place, _p("", "什么"), time))
    else:
        why = _verb_zh(verb, tense, place, obj, _EMPTY)
        zh = (*subj.zh, *time.zh, "为什么", *why)
    return _P(en, zh)


def _place(rng: random.Random, n: int) -> _P:
    if n == 0:
        return _EMPTY
    en, zh = rng.choice(_places(n))
    return _p(en, zh)


def _time(rng: random.Random, tense: str, n: int) -> _P:
    if n == 0:
        return _EMPTY
    en, zh, _ = rng.choice(_times(tense, n))
    return _p(en, zh)


def _opt_lengths(lengths: Sequence[int], mode: str) -> tuple[int, ...]:
    """Lengths of an optional slot: mode 'none' forbids it, 'need' requires it."""
    if mode == "none":
        return (0,)
    if mode == "need":
        return tuple(x for x in lengths if x > 0)
    return (0, *lengths)


def _clause(
    rng: random.Random,
    n: int,
    *,
    depth: int = 0,
    adjunct: str = "any",
    need_rel: bool = False,
) -> _P | None:
    """A declarative clause of exactly ``n`` English tokens, or None if none was found.

    adjunct: "any", "need" (a place or time phrase, i.e. Chinese reordering) or "none".
    depth: how deeply relative clauses may nest inside its noun phrases.
    need_rel: at least one noun phrase is a relative clause (needs depth >= 1).
    """
    for _ in range(150):  # a failed plan is cheap; extreme lengths need many tries
        ctype = rng.choices(("T", "I", "A", "L"), weights=(6, 3, 2, 1))[0]
        if need_rel and ctype != "T" and rng.random() < 0.5:
            ctype = "T"
        if ctype in ("T", "I"):
            verb = rng.choice(_TRANSITIVE if ctype == "T" else _INTRANSITIVE)
            tense = rng.choice([t for t in _TENSES if t != "prog" or verb.ing])
            subj_kind = rng.choice(verb.subj)
            obj_kind = rng.choice(verb.obj) if verb.obj else ""
            fixed = 1 if tense in ("pres", "past") else 2
        else:
            verb = None
            tense = rng.choice(("pres", "past"))
            subj_kind = rng.choice(("person", "animal", "thing") if ctype == "L" else _NOUN_KINDS)
            obj_kind = ""
            fixed = 2 if ctype == "A" else 1
        # Which of place / time carries the required adjunct.
        place_mode, time_mode = adjunct, adjunct
        if adjunct == "need":
            if ctype == "A" or ctype == "L" or rng.random() < 0.5:
                place_mode, time_mode = "any", "need"
            else:
                place_mode, time_mode = "need", "any"
        if ctype == "A":
            place_mode = "none"
        rel_subj = need_rel and (not obj_kind or rng.random() < 0.5)
        rel_obj = need_rel and not rel_subj
        slots: list[Sequence[int]] = [_np_lengths(subj_kind, "subj", depth, rel_subj)]
        if obj_kind:
            slots.append(_np_lengths(obj_kind, "obj", depth, rel_obj))
        if ctype == "L":
            slots.append((2, 3))
        else:
            slots.append(_opt_lengths((2, 3), place_mode))
        slots.append(_opt_lengths(_time_lengths("pres" if tense == "pres" else tense), time_mode))
        plan = _split(rng, n - fixed, slots)
        if plan is None:
            continue
        subj = _np(rng, subj_kind, "subj", depth, plan[0], rel_subj)
        obj = _np(rng, obj_kind, "obj", depth, plan[1], rel_obj) if obj_kind else None
        place = _place(rng, plan[-2])
        time = _time(rng, tense, plan[-1])
        if verb is not None:
            return _declare(subj, verb, tense, obj, place, time)
        be = _be(subj.agr, tense)
        if ctype == "A":
            kind = subj_kind
            adj_en, adj_zh = rng.choice(_PREDS[kind])
            return _P(
                (*subj.en, be, adj_en, *time.en),
                (*subj.zh, *time.zh, *adj_zh.split()),
            )
        # "the cat is in the garden" -> 猫 在 花园
        return _P((*subj.en, be, *place.en, *time.en), (*subj.zh, *time.zh, *place.zh))
    return None


# ---------------------------------------------------------------------------------------
# Questions
# ---------------------------------------------------------------------------------------


def _question(rng: random.Random, n: int, depth: int = 1) -> _P | None:
    """A question of exactly ``n`` tokens: yes/no (吗), where (哪里), what (什么), why (为什么)."""
    for _ in range(40):
        q = rng.choice(("yn", "yn", "yn_be", "where_be", "where", "what", "why", "why_be", "how"))
        if q in ("yn", "where", "what", "why"):
            pool = _TRANSITIVE if q == "what" else VERBS
            verb = rng.choice(pool)
            tenses = ["pres", "past"]
            if q in ("yn", "what") and verb.ing:
                tenses.append("prog")
            if q == "yn":
                tenses.append("fut")
            tense = rng.choice(tenses)
            subj_kind = rng.choice(verb.subj)
            obj_kind = rng.choice(verb.obj) if verb.obj and q != "what" else ""
            if q == "what" and not set(verb.obj) & {"food", "drink", "thing"}:
                continue
            fixed = {"yn": 2, "where": 3, "what": 3, "why": 3}[q]
            slots: list[Sequence[int]] = [_np_lengths(subj_kind, "subj", depth)]
            if obj_kind:
                slots.append(_np_lengths(obj_kind, "obj", depth))
            slots.append((0,) if q == "where" else (0, 2, 3))
            slots.append((0, *_time_lengths(tense)))
            plan = _split(rng, n - fixed, slots)
            if plan is None:
                continue
            subj = _np(rng, subj_kind, "subj", depth, plan[0])
            obj = _np(rng, obj_kind, "obj", depth, plan[1]) if obj_kind else None
            place = _place(rng, plan[-2])
            time = _time(rng, tense, plan[-1])
            return _ask(q, subj, verb, tense, obj, place, time)
        # Questions about the subject with "be".
        tense = "pres" if q == "how" else rng.choice(("pres", "past"))
        subj_kind = rng.choice(("person", "animal") if q == "how" else _NOUN_KINDS)
        if q == "where_be" and subj_kind in ("food", "drink"):
            subj_kind = "thing"
        fixed = {"yn_be": 1, "where_be": 2, "why_be": 2, "how": 2}[q]
        if q == "yn_be" and rng.random() < 0.3 and subj_kind != "food" and subj_kind != "drink":
            pred_opts: tuple[int, ...] = (2, 3)  # "is the cat at home"
        elif q in ("yn_be", "why_be"):
            pred_opts = (1,)
        else:
            pred_opts = (0,)
        time_opts = (0,) if q == "how" else (0, *_time_lengths(tense))
        plan = _split(rng, n - fixed, [_np_lengths(subj_kind, "subj", depth), pred_opts, time_opts])
        if plan is None:
            continue
        subj = _np(rng, subj_kind, "subj", depth, plan[0])
        time = _time(rng, tense, plan[2])
        be = _be(subj.agr, tense)
        if plan[1] >= 2:
            pred = _place(rng, plan[1])
        elif plan[1] == 1:
            adj_en, adj_zh = rng.choice(_PREDS[subj_kind])
            pred = _p(adj_en, adj_zh)
        else:
            pred = _EMPTY
        if q == "yn_be":
            return _P((be, *subj.en, *pred.en, *time.en), (*subj.zh, *time.zh, *pred.zh, "吗"))
        if q == "where_be":
            return _P(("where", be, *subj.en, *time.en), (*subj.zh, *time.zh, "在", "哪里"))
        if q == "why_be":
            return _P(
                ("why", be, *subj.en, *pred.en, *time.en),
                (*subj.zh, *time.zh, "为什么", *pred.zh),
            )
        return _P(("how", be, *subj.en), (*subj.zh, "好", "吗"))
    return None


# ---------------------------------------------------------------------------------------
# Coreference, word sense, long range
# ---------------------------------------------------------------------------------------


def _coref(rng: random.Random, reading: str | None = None) -> _P:
    """ "the cat drank the milk because it was hungry" -> 猫 喝 了 牛奶 因为 猫 饿 了.

    The predicate decides the antecedent: a state (hungry) needs the animal subject, a
    quality (sweet) belongs to the food, and Chinese repeats the noun it refers to.
    Subjects are animals only: with people English says he / she, and the ordinary
    grammar's "… because he was hungry" (Chinese 他) would give one English sentence two
    translations.
    """
    reading = reading or rng.choice(("subject", "object"))
    subj = rng.choice(_nouns("animal"))
    obj_kind = rng.choice(("food", "drink"))
    obj = rng.choice([x for x in _nouns(obj_kind) if not x.plural])
    eat = "eat" if obj_kind == "food" else "drink"
    verb = next(v for v in VERBS if v.base == eat)
    if rng.random() < 0.25:  # present: "the cat likes the milk because it is sweet"
        verb = next(v for v in VERBS if v.base == "like")
        verb_en, verb_zh, be = verb.s3, (verb.zh,), "is"
    else:
        verb_en, verb_zh, be = verb.past, (verb.zh, "了"), "was"
    pron = "it"
    if reading == "subject":
        adj_en, adj_zh = rng.choice(STATE_PREDS)
        ante = subj.zh
    else:
        adj_en, adj_zh = rng.choice(_PREDS[obj_kind])
        ante = obj.zh
    zh = (subj.zh, *verb_zh, obj.zh, "因为", ante, *adj_zh.split())
    return _P(
        ("the", subj.en, verb_en, "the", obj.en, "because", pron, be, adj_en),
        zh,
        ((len(verb_zh) + 3, ante),),
    )


def _sense(rng: random.Random, sense: str | None = None, where: str | None = None) -> _P:
    """A sentence whose ambiguous word (transformer, bank) is decided by one context.

    where: "before" / "after" (context clause before or after the word's clause) or
    "internal" (context next to the word in the same clause: "the transformer model").
    """
    word, sense, zh_word = (
        rng.choice(SENSES) if sense is None else next(s for s in SENSES if s[1] == sense)
    )
    if where is None:
        where = rng.choice(("before", "after", "after", "internal"))
    if where == "internal" and not SENSE_INTERNAL[sense]:
        where = rng.choice(("before", "after"))
    neutral_en, neutral_zh = rng.choice(SENSE_NEUTRAL[word])
    if where == "internal":
        inner_en, inner_zh, _ = rng.choice(SENSE_INTERNAL[sense])
        neutral_en = neutral_en.replace(word, inner_en)
    else:
        inner_zh = zh_word
    zh = tuple(neutral_zh.replace("X", inner_zh).split())
    clause = _P(tuple(neutral_en.split()), zh, ((zh.index(zh_word), zh_word),))
    if where == "internal":
        return clause
    ctx_en, ctx_zh = rng.choice(SENSE_CONTEXT[sense])
    conn_en, conn_zh = rng.choice(CONNECTIVES)
    context = _p(ctx_en, ctx_zh)
    if where == "after":
        return _cat(clause, _p(conn_en, conn_zh), context)
    return _cat(context, _p(conn_en, conn_zh), clause)


_SEG_MIN, _SEG_MAX = 3, 15  # a joined clause: connective + 2..14 tokens


def _segment_lengths(rng: random.Random, total: int) -> list[int] | None:
    """Split ``total`` tokens into connective+clause segments of 3..15 tokens."""
    if total == 0:
        return []
    if total < _SEG_MIN:
        return None
    out: list[int] = []
    while total > _SEG_MAX:
        x = rng.randint(_SEG_MIN, min(_SEG_MAX, total - _SEG_MIN))
        out.append(x)
        total -= x
    out.append(total)
    return out


def _segments(
    rng: random.Random,
    total: int,
    *,
    filler: bool = False,
    lead: bool = False,
    conns: Sequence[tuple[str, str]] = CONNECTIVES,
) -> _P | None:
    """``total`` tokens of "and / but / because / so + clause" segments (None if impossible).

    filler: sometimes use the long-range example's clauses about Beiping.
    lead: segments come before the main part, so each is "clause + connective".
    """
    lengths = _segment_lengths(rng, total)
    if lengths is None:
        return None
    parts: list[_P] = []
    for seg in lengths:
        conn_en, conn_zh = rng.choice(conns)
        clause = None
        if filler and rng.random() < 0.5:
            fits = [f for f in LONG_FILLER if len(f[0].split()) == seg - 1]
            if fits:
                clause = _p(*rng.choice(fits))
        if clause is None:
            clause = _clause(rng, seg - 1, depth=1 if seg > 6 else 0)
        if clause is None:
            return None
        conn = _p(conn_en, conn_zh)
        parts.extend((clause, conn) if lead else (conn, clause))
    return _cat(*parts)


def _longrange_options(
    distance: int, reading: str, singer: str, tree: str
) -> list[tuple[int, int, int]]:
    """(intro index, tail index, filler length) choices that give exactly ``distance``."""
    head = (singer if reading == "song" else tree).split()[-1]
    out = []
    for i, (intro_en, _) in enumerate(LONG_INTROS):
        words = intro_en.format(s=singer, t=tree).split()
        ante_at = words.index(head)
        for j, (tail_en, _) in enumerate(LONG_TAILS[reading]):
            their_at = tail_en.split().index("their")
            filler = distance - (len(words) + their_at - ante_at)
            if filler == 0 or filler >= _SEG_MIN:
                out.append((i, j, filler))
    return out


def _longrange(rng: random.Random, distance: int, reading: str) -> _P:
    """The autumn cicadas … so you can hear their song / see their shade.

    reading: "song" (their = the singer, 秋蝉) or "shade" (their = the trees, 树).
    ``distance`` is the number of source tokens from the antecedent's head word in the
    opening clause to "their"; any distance >= 4 is possible. Chinese repeats the noun.
    """
    if reading not in LONG_TAILS:
        raise ValueError(f"reading must be 'song' or 'shade', got {reading!r}")
    singer_en, singer_zh = rng.choice(LONG_SINGERS)
    tree_en, tree_zh = rng.choice(LONG_TREES)
    options = _longrange_options(distance, reading, singer_en, tree_en)
    if not options:
        raise ValueError(f"long-range distance must be at least 4 tokens, got {distance}")
    for _ in range(20):
        i, j, filler_len = rng.choice(options)
        filler = _segments(rng, filler_len, filler=True)
        if filler is not None:
            break
    else:  # pragma: no cover - the clause grammar covers every segment length
        raise RuntimeError(f"could not build {filler_len} tokens of filler")
    antecedent = singer_zh if reading == "song" else tree_zh
    intro_en, intro_zh = LONG_INTROS[i]
    tail_en, tail_zh = LONG_TAILS[reading][j]
    intro = _p(intro_en.format(s=singer_en, t=tree_en), intro_zh.format(s=singer_zh, t=tree_zh))
    tail = tuple(tail_zh.format(a=antecedent).split())
    tail_p = _P(tuple(tail_en.split()), tail, ((tail.index(antecedent), antecedent),))
    return _cat(intro, filler, tail_p)


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
