"""Clauses of an exact length: declaratives (English S V O place time -> Chinese S time
place V O), questions (吗, 哪里, 什么, 为什么) and clauses joined by and / but / because / so.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from core.corpus.phrases import (
    _EMPTY,
    _P,
    _be,
    _cat,
    _do,
    _np,
    _np_lengths,
    _p,
    _places,
    _split,
    _time_lengths,
    _times,
)
from core.corpus.words import (
    _NOUN_KINDS,
    _PREDS,
    _STATES,
    CONNECTIVES,
    LONG_FILLER,
    VERBS,
    Verb,
)

_TRANSITIVE: tuple[Verb, ...] = tuple(v for v in VERBS if v.obj)
_INTRANSITIVE: tuple[Verb, ...] = tuple(v for v in VERBS if not v.obj)

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
# Joined clauses
# ---------------------------------------------------------------------------------------


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
