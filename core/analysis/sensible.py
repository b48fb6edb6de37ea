"""Sentences a person would say: the criteria every search for a default sentence applies.

The grammar (:mod:`core.corpus`) picks each clause's words by type (a person eats food, an
animal jumps), but it joins clauses with a connective drawn at random and lets a time phrase
sit beside a verb of another tense. It thus writes sentences no one would say: "you slept and
my account was empty so i like the bank" (a reason that is none), "the hat that you took
tomorrow" (a past verb read with a future time). A model may translate them, but a default
sentence is shown to newcomers as an example of language: the searches choose among those
that pass :func:`problems`.

The rules read the words only (lower case tokens, as the models read them):

- a statement, not a question (the grammar glues questions after "so" / "but");
- no clause given as the reason or the result of another ("so", "because"): the grammar
  draws the two clauses independently, so the cause it states is almost never a cause. A
  reason about "it" is kept ("the cat drank the milk because it was hungry"): the corpus
  writes those as one piece, the reason naming a noun of the first clause;
- no relative clause opens inside another before its verb ("the man that the boy who
  visits her visits loves"): a centre-embedded clause is grammatical, but no one says it;
- in each clause, every verb agrees with the clause's time phrase ("yesterday" with a past
  verb, "tomorrow" with "will"), the verbs of its relative clauses included: a reader
  attaches a time phrase to the verb beside it.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.corpus.words import TIMES, VERBS

CAUSAL = frozenset({"so", "because"})  # joins that claim one clause makes the other happen
JOINS = frozenset({"and", "but"}) | CAUSAL  # the grammar's clause connectives
# words that open a question (at the start of the sentence or of a joined clause)
QUESTION_OPENERS = frozenset(
    {"do", "does", "did", "is", "are", "am", "was", "were", "will", "can"}
    | {"what", "where", "who", "how", "why", "when"}
)

RELATIVES = frozenset({"that", "who"})
_PAST = frozenset({v.past for v in VERBS} | {"was", "were"})
_PRESENT = frozenset({v.s3 for v in VERBS} | {"is", "are", "am"})
_BASE = frozenset(v.base for v in VERBS)
# time phrase -> the tenses it reads with ("prog", the progressive, is a present)
_TIME_TENSES: dict[tuple[str, ...], frozenset[str]] = {
    tuple(en.split()): frozenset(t.replace("prog", "pres") for t in tenses.split())
    for en, _, tenses in TIMES
}
_LONGEST_TIME = max(len(k) for k in _TIME_TENSES)


def clauses(words: Sequence[str]) -> list[list[str]]:
    """The words split at the clause connectives (the connectives left out)."""
    out: list[list[str]] = [[]]
    for w in words:
        if w in JOINS:
            out.append([])
        else:
            out[-1].append(w)
    return [c for c in out if c]


def verb_tenses(clause: Sequence[str]) -> list[str]:
    """The tense of each verb of a clause, in order: "past", "pres" or "fut" ("will" and
    the base verb after it count once)."""
    out = []
    for i, w in enumerate(clause):
        if w == "will":
            out.append("fut")
        elif w in _PAST:
            out.append("past")
        elif w in _PRESENT or (w in _BASE and (i == 0 or clause[i - 1] != "will")):
            out.append("pres")
    return out


def time_phrases(clause: Sequence[str]) -> list[tuple[str, ...]]:
    """The time phrases of a clause (longest match first: "tomorrow morning", not
    "tomorrow")."""
    found, i = [], 0
    while i < len(clause):
        for size in range(min(_LONGEST_TIME, len(clause) - i), 0, -1):
            phrase = tuple(clause[i : i + size])
            if phrase in _TIME_TENSES:
                found.append(phrase)
                i += size
                break
        else:
            i += 1
    return found


def _is_verb(clause: Sequence[str], i: int) -> bool:
    w = clause[i]
    return w == "will" or w in _PAST or w in _PRESENT or w in _BASE


def nested(clause: Sequence[str]) -> bool:
    """Whether a relative clause opens inside another before that one's verb."""
    for i, w in enumerate(clause):
        if w in RELATIVES:
            for j in range(i + 1, len(clause)):
                if _is_verb(clause, j):
                    break
                if clause[j] in RELATIVES:
                    return True
    return False


def problems(words: Sequence[str]) -> list[str]:
    """Why a person would not say this sentence, as short reasons ("question", "cause",
    "nested", "tense: yesterday / pres"); empty when it passes every rule."""
    words = [w.lower() for w in words]
    out = []
    parts = clauses(words)
    if any(c[0] in QUESTION_OPENERS for c in parts):
        out.append("question")
    if any(w in CAUSAL and words[i + 1 : i + 2] != ["it"] for i, w in enumerate(words)):
        out.append("cause")
    if any(nested(c) for c in parts):
        out.append("nested")
    for clause in parts:
        tenses = set(verb_tenses(clause))
        for phrase in time_phrases(clause):
            for tense in sorted(tenses - _TIME_TENSES[phrase]):
                out.append(f"tense: {' '.join(phrase)} / {tense}")
    return out


def sensible(words: Sequence[str]) -> bool:
    """Whether a person would say this sentence (:func:`problems` finds nothing)."""
    return not problems(words)
