"""Coreference sentences that vary, so "it" must be understood rather than pattern-matched.

The base corpus has one frame, "the cat drank the milk because it was hungry": the animal
is always the subject, the other noun always food or drink. A model can then learn "a state
adjective → the sentence's subject". These frames move the animal and bring in other nouns:

- ``template``: the animal first, the object food, drink or a thing, optional words
  between (an adjective, a place, a time): "the black cat drank the milk in the kitchen
  yesterday because it was hungry".
- ``person_first``: a person first, the animal or thing second; "it" cannot be the person
  (English says he / she): "the girl fed the dog because it was hungry".
- ``object_relative``: a person, a thing, then the animal in a relative clause:
  "the boy bought the milk that the cat liked because it was hungry / sweet".
- ``subject_relative``: the animal with a person inside its relative clause:
  "the cat that the boy saw drank the milk because it was hungry / sweet".

Chinese repeats the noun "it" names after 因为, as the base corpus does. Held out of every
training set: the whole ``subject_relative`` frame, the nouns :data:`HELD_OUT_NOUNS` (in
every frame) and the noun/predicate pairs of :func:`core.corpus.coref.coref_pair_split`.
Each generator has its own seeded ``random.Random``: the base corpus is untouched.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache

from core.corpus.clauses import _declare
from core.corpus.coref import coref_pair_split
from core.corpus.phrases import _EMPTY, _P, _attrs, _nouns, _p
from core.corpus.words import (
    _PREDS,
    PLACES,
    STATE_PREDS,
    TIMES,
    VERBS,
    Noun,
    Pair,
)

__all__ = [
    "FRAMES",
    "HELD_OUT_FRAMES",
    "HELD_OUT_NOUNS",
    "FrameCase",
    "frame_case",
    "frame_cases",
    "frame_pairs",
    "held_out_frame_cases",
    "is_trainable",
    "held_out_description",
]

FRAMES: tuple[str, ...] = ("template", "person_first", "object_relative", "subject_relative")
HELD_OUT_FRAMES: tuple[str, ...] = ("subject_relative",)
# An animal, a food and a drink never in a generated sentence: in training they occur only
# in the base corpus's one frame ("the panda drank the juice because it was thirsty"), so
# the test asks whether the models carry them into frames they never saw them in.
HELD_OUT_NOUNS: tuple[str, ...] = ("panda", "cookie", "juice")
# Things take only predicates an animal cannot have ("the dog found the ball because it was
# big" could mean either); food and drink predicates never fit an animal.
_THING_PREDS: tuple[tuple[str, str], ...] = tuple(
    p for p in _PREDS["thing"] if p[0] in ("new", "cheap")
)


def _preds(kind: str) -> tuple[tuple[str, str], ...]:
    return _THING_PREDS if kind == "thing" else _PREDS[kind]


def _verbs(subj: str, obj: str) -> tuple:
    # "want"/"like" a cat, "love" food: fine in the grammar but odd here; keep verbs a
    # newcomer would say of these two kinds
    odd = {("person", "animal"): ("want", "love")}.get((subj, obj), ())
    return tuple(v for v in VERBS if subj in v.subj and obj in v.obj and v.base not in odd)


@dataclass(frozen=True)
class FrameCase:
    """One sentence of a frame: English and Chinese tokens, where "it" and the nouns are."""

    tokens: tuple[str, ...]  # English
    zh: tuple[str, ...]  # Chinese; the noun "it" names follows 因为
    it: int  # index of "it"
    antecedent: int  # index of the noun "it" names
    other: int  # index of the wrong candidate the head must not pick
    predicate: str
    reading: str  # "animal" (a state) or "object" (a quality of food, drink or a thing)
    frame: str
    nouns: tuple[str, ...]  # every noun of the sentence (English)

    @property
    def antecedent_zh(self) -> str:
        return self.zh[self.zh.index("因为") + 1]

    def pair(self) -> Pair:
        """The translation pair; ``check`` points at the noun after 因为."""
        at = self.zh.index("因为") + 1
        info = (("frame", self.frame), ("reading", self.reading))
        return Pair(self.tokens, self.zh, "coref", ((at, self.zh[at]),), info)


def _noun(rng: random.Random, kind: str) -> Noun:
    return rng.choice([n for n in _nouns(kind) if not n.plural])


def _np(noun: Noun, attr: tuple[str, str] | None = None) -> _P:
    if attr is None:
        return _p(f"the {noun.en}", noun.zh)
    return _p(f"the {attr[0]} {noun.en}", f"{attr[1]} {noun.zh}")


def _rel(head: _P, subj: Noun, verb, tense: str) -> _P:
    """ "the milk that the cat liked" -> 猫 喜欢 的 牛奶 (the corpus' relative clauses)."""
    form = verb.past if tense == "past" else verb.s3
    return _P((*head.en, "that", "the", subj.en, form), (subj.zh, verb.zh, "的", *head.zh))


def frame_case(rng: random.Random, frame: str, reading: str | None = None) -> FrameCase:
    """One random sentence of ``frame`` (any nouns; :func:`is_trainable` filters)."""
    if frame not in FRAMES:
        raise ValueError(f"frame must be one of {FRAMES}, got {frame!r}")
    reading = reading or rng.choice(("animal", "object"))
    tense = "past" if rng.random() < 0.75 else "pres"
    animal, person = _noun(rng, "animal"), _noun(rng, "person")
    kind = rng.choice(("food", "drink", "thing"))
    thing = _noun(rng, kind)
    place, time = _EMPTY, _EMPTY
    if frame == "template":
        attr = rng.choice(_attrs("animal")) if rng.random() < 0.4 else None
        subj, obj = _np(animal, attr and attr[:2]), _np(thing)
        verb = rng.choice(_verbs("animal", kind))
        if rng.random() < 0.5:
            place = _p(*rng.choice(PLACES))
        if rng.random() < 0.4:
            time = _p(*rng.choice([t[:2] for t in TIMES if tense in t[2].split()]))
        main = _declare(subj, verb, tense, obj, place, time)
        cands = {"animal": len(subj.en) - 1, "object": len(subj.en) + 1 + len(obj.en) - 1}
        nouns = (animal.en, thing.en)
    elif frame == "person_first":
        # the person is the subject; "it" names the object, an animal or a thing
        obj_kind = "animal" if reading == "animal" else kind
        other = animal if reading == "animal" else thing
        attr = rng.choice(_attrs(obj_kind)) if _attrs(obj_kind) and rng.random() < 0.3 else None
        subj, obj = _np(person), _np(other, attr and attr[:2])
        verb = rng.choice(_verbs("person", obj_kind))
        if rng.random() < 0.3:
            time = _p(*rng.choice([t[:2] for t in TIMES if tense in t[2].split()]))
        main = _declare(subj, verb, tense, obj, place, time)
        at = len(subj.en) + 1 + len(obj.en) - 1
        cands = {"animal": at, "object": at, "person": 1}
        nouns = (person.en, other.en)
    elif frame == "object_relative":
        verb = rng.choice(_verbs("person", kind))
        rel_verb = rng.choice(_verbs("animal", kind))
        obj = _rel(_np(thing), animal, rel_verb, tense)
        main = _declare(_np(person), verb, tense, obj, place, time)
        cands = {"object": 4, "animal": 7, "person": 1}
        nouns = (person.en, thing.en, animal.en)
    else:  # subject_relative
        rel_verb = rng.choice(_verbs("person", "animal"))
        subj = _rel(_np(animal), person, rel_verb, tense)
        verb = rng.choice(_verbs("animal", kind))
        main = _declare(subj, verb, tense, _np(thing), place, time)
        cands = {"animal": 1, "person": 4, "object": 8}
        nouns = (animal.en, person.en, thing.en)
    if frame == "person_first":
        pred_en, pred_zh = rng.choice(STATE_PREDS if reading == "animal" else _preds(kind))
        ante_zh = (animal if reading == "animal" else thing).zh
        other_i = cands["person"]
    else:
        pred_en, pred_zh = rng.choice(STATE_PREDS if reading == "animal" else _preds(kind))
        ante_zh = animal.zh if reading == "animal" else thing.zh
        other_i = cands["object" if reading == "animal" else "animal"]
    be = "was" if tense == "past" else "is"
    tokens = (*main.en, "because", "it", be, pred_en)
    zh = (*main.zh, "因为", ante_zh, *pred_zh.split())
    it = len(main.en) + 1
    return FrameCase(tokens, zh, it, cands[reading], other_i, pred_en, reading, frame, nouns)


def _pair_key(case: FrameCase) -> tuple[str, str]:
    return case.tokens[case.antecedent], case.predicate


@cache
def _held_pairs() -> frozenset:
    return coref_pair_split()[1]


def is_trainable(case: FrameCase) -> bool:
    """Whether a case may be trained on: not the held-out frame, no held-out noun, and its
    (antecedent, predicate) pair not held out (core.corpus.coref.coref_pair_split)."""
    return (
        case.frame not in HELD_OUT_FRAMES
        and not set(case.nouns) & set(HELD_OUT_NOUNS)
        and _pair_key(case) not in _held_pairs()
    )


def frame_cases(seed: int, n: int, frames: tuple[str, ...] | None = None) -> list[FrameCase]:
    """``n`` distinct trainable cases, frames and readings in turn (training frames only)."""
    frames = tuple(f for f in (frames or FRAMES) if f not in HELD_OUT_FRAMES)
    rng = random.Random(seed)
    out: list[FrameCase] = []
    seen: set[tuple[str, ...]] = set()
    i = 0
    while len(out) < n:
        frame = frames[len(out) % len(frames)]
        case = frame_case(rng, frame, ("animal", "object")[(len(out) // len(frames)) % 2])
        i += 1
        if i > 1000 * (n + 1):  # pragma: no cover - the frames have far more sentences
            raise RuntimeError(f"could not find {n} distinct trainable cases")
        if case.tokens in seen or not is_trainable(case):
            continue
        seen.add(case.tokens)
        out.append(case)
    return out


def held_out_frame_cases(seed: int = 5, n_per: int = 100) -> list[FrameCase]:
    """The held-out test: ``n_per`` distinct cases of each frame that no model trained on
    (the held-out frame with any nouns; the other frames with a held-out noun or pair),
    half of each reading."""
    rng = random.Random(seed)
    out: list[FrameCase] = []
    for frame in FRAMES:
        seen: set[tuple[str, ...]] = set()
        tries = 0
        while len(seen) < n_per:
            tries += 1
            if tries > 2000 * n_per:  # pragma: no cover
                raise RuntimeError(f"could not find {n_per} held-out {frame} cases")
            reading = ("animal", "object")[len(seen) % 2]
            case = frame_case(rng, frame, reading)
            if frame not in HELD_OUT_FRAMES:
                # draw until a held-out noun appears: swap one in at random
                case = _with_held_noun(rng, frame, reading) or case
            if is_trainable(case) or case.tokens in seen or _base_form(case):
                continue
            seen.add(case.tokens)
            out.append(case)
    return out


def _base_form(case: FrameCase) -> bool:
    """A sentence the base corpus's one frame can also write ("the A ate the F because it
    was P", 9 words) whose noun/predicate pair is not held out: trained, not a test."""
    return (
        case.frame == "template" and len(case.tokens) == 9 and _pair_key(case) not in _held_pairs()
    )


def _with_held_noun(rng: random.Random, frame: str, reading: str) -> FrameCase | None:
    """A case of ``frame`` that contains a held-out noun (tries a few draws)."""
    for _ in range(200):
        case = frame_case(rng, frame, reading)
        if set(case.nouns) & set(HELD_OUT_NOUNS):
            return case
    return None


def frame_pairs(seed: int, n: int, exclude: frozenset = frozenset()) -> list[Pair]:
    """``n`` distinct trainable translation pairs whose sources are not in ``exclude``
    (a model's dev / test / probe sources), frames and readings in turn."""
    out: list[Pair] = []
    k = 0
    while len(out) < n:
        batch = frame_cases(seed * 1000 + k, 2 * n)
        k += 1
        seen = {p.src for p in out}
        for case in batch:
            if case.tokens not in exclude and case.tokens not in seen and len(out) < n:
                seen.add(case.tokens)
                out.append(case.pair())
    return out


def held_out_description() -> dict:
    """What the manifest names as kept out of training."""
    return {
        "frames": list(HELD_OUT_FRAMES),
        "nouns": list(HELD_OUT_NOUNS),
        "noun_predicate_pairs": sorted(" ".join(p) for p in _held_pairs()),
    }
