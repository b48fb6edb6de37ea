"""A coreference set for a self-attention encoder: which noun does "it" name?

"the [black] cat drank the milk [in the kitchen] because it was hungry / sweet": the
predicate decides. (antecedent, predicate) pairs are split so that every held-out sentence
puts a predicate with a noun never seen with it in training (the lesson's own pairs too).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from core.corpus import lesson
from core.corpus.phrases import _attrs, _nouns
from core.corpus.words import _PREDS, PLACES, STATE_PREDS

__all__ = [
    "COREF_SPLIT_SEED",
    "LESSON_COREF",
    "CorefCase",
    "coref_pair_split",
    "coref_case",
    "coref_cases",
    "lesson_coref_cases",
]

COREF_SPLIT_SEED = 38  # which (antecedent, predicate) pairs are held out
COREF_HELD_OUT_SHARE = 0.25  # of the pairs, besides the lesson's own two
# the lesson's pair is held out: the encoder never reads a hungry cat or a sweet milk
LESSON_COREF: tuple[tuple[str, str], ...] = (("cat", "hungry"), ("milk", "sweet"))


@dataclass(frozen=True)
class CorefCase:
    """One sentence whose "it" names one of its two nouns, the predicate deciding which."""

    tokens: tuple[str, ...]  # English tokens
    it: int  # index of "it"
    antecedent: int  # index of the noun "it" names
    other: int  # index of the other noun (the wrong answer)
    predicate: str  # the adjective that decides
    reading: str  # "subject" (a state: the animal) or "object" (a quality: the food)


def coref_pair_split(seed: int = COREF_SPLIT_SEED) -> tuple[frozenset, frozenset]:
    """All (antecedent noun, predicate) pairs, split into (training, held-out) sets.

    The held-out set takes a seeded quarter of the pairs of each reading and the lesson's
    own pairs: every held-out sentence puts a predicate with a noun never seen with it.
    """
    rng = random.Random(seed)
    subject = [(a.en, p) for a in _nouns("animal") for p, _ in STATE_PREDS]
    obj = [
        (f.en, p)
        for kind in ("food", "drink")
        for f in _nouns(kind)
        if not f.plural
        for p, _ in _PREDS[kind]
    ]
    held: set[tuple[str, str]] = set(LESSON_COREF)
    for pairs in (subject, obj):
        held |= set(rng.sample(pairs, round(COREF_HELD_OUT_SHARE * len(pairs))))
    everything = set(subject) | set(obj)
    return frozenset(everything - held), frozenset(held)


def coref_case(
    rng: random.Random, allowed: frozenset, reading: str | None = None, plain: bool = False
) -> CorefCase:
    """ "the [black] cat drank the milk [in the kitchen] because it was hungry": a random
    sentence whose (antecedent, predicate) pair is in ``allowed``. Optional adjectives and
    places (unless ``plain``) move the nouns, so position alone cannot tell which is which.
    """
    while True:
        reading_ = reading or rng.choice(("subject", "object"))
        animal = rng.choice(_nouns("animal"))
        kind = rng.choice(("food", "drink"))
        food = rng.choice([x for x in _nouns(kind) if not x.plural])
        preds = STATE_PREDS if reading_ == "subject" else _PREDS[kind]
        pred = rng.choice(preds)[0]
        if ((animal.en if reading_ == "subject" else food.en), pred) in allowed:
            break
    present = rng.random() < 0.25
    verb = "likes" if present else ("ate" if kind == "food" else "drank")
    attr = [] if plain or rng.random() < 0.5 else [rng.choice(_attrs("animal"))[0]]
    place = [] if plain or rng.random() < 0.5 else rng.choice(PLACES)[0].split()
    head = ["the", *attr, animal.en, verb, "the", food.en, *place, "because"]
    tokens = (*head, "it", "is" if present else "was", pred)
    subj_i, obj_i = 1 + len(attr), 4 + len(attr)
    ante, other = (subj_i, obj_i) if reading_ == "subject" else (obj_i, subj_i)
    return CorefCase(tuple(tokens), len(head), ante, other, pred, reading_)


def coref_cases(seed: int, n: int, held_out: bool) -> list[CorefCase]:
    """``n`` distinct seeded cases, half of each reading, from the held-out pairs or from
    the training pairs (:func:`coref_pair_split`)."""
    train, held = coref_pair_split()
    allowed = held if held_out else train
    rng = random.Random(seed)
    out: list[CorefCase] = []
    seen: set[tuple[str, ...]] = set()
    while len(out) < n:
        case = coref_case(rng, allowed, ("subject", "object")[len(out) % 2])
        if case.tokens not in seen:
            seen.add(case.tokens)
            out.append(case)
    return out


def lesson_coref_cases() -> tuple[CorefCase, CorefCase]:
    """The lesson's pair: "the cat drank the milk because it was hungry / sweet"."""

    def case(sentence: lesson.LessonSentence, other: str, reading: str) -> CorefCase:
        words = sentence.en_words
        it, noun = sentence.pair
        pos = words.index
        return CorefCase(words, pos(it), pos(noun), pos(other), words[-1], reading)

    return (
        case(lesson.CAT_HUNGRY, "milk", "subject"),
        case(lesson.CAT_SWEET, "cat", "object"),
    )
