"""The lesson's phenomena as sentence cores: coreference ("… because it was hungry"), a word
sense decided by context (transformer, bank) and the long-range "秋蝉 … 它们" dependency
whose distance is a parameter.
"""

from __future__ import annotations

import random

from core.corpus.clauses import _SEG_MIN, _segments
from core.corpus.phrases import _P, _cat, _nouns, _p
from core.corpus.words import (
    _PREDS,
    CONNECTIVES,
    LONG_INTROS,
    LONG_SINGERS,
    LONG_TAILS,
    LONG_TREES,
    SENSE_CONTEXT,
    SENSE_INTERNAL,
    SENSE_NEUTRAL,
    SENSES,
    STATE_PREDS,
    VERBS,
)

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
