"""The lesson's long dependency (2.1: 秋蝉 … 它们) as the translation models meet it: on the
long-range probe (``core.corpus.longrange_probe``: the autumn singers … "so you can hear
their song", or the trees … "see their shade", at fixed distances between the noun and
"their"), which models write the right noun where "their" stands, by distance and reading.

The score is the manifest's ``longrange`` metric (``core.evaluate.check_accuracy`` on the
greedy translations), taken per cell of distance × reading; no second scorer. Pure: models
in, numpy out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from core import corpus, lexicon
from core import evaluate as ev
from core.analysis.attention import run_attention
from core.corpus.words import LONG_SINGERS, LONG_TREES
from core.vocab import Vocab

READINGS: tuple[str, ...] = ("song", "shade")  # their = the singers (秋蝉…), the trees (树…)
ATTENTION_FAMILIES = ("rnn_attention", "self_attention")  # core.lexicon.FAMILY


def attends(model: str) -> bool:
    """Whether ``model`` reads the source through attention (its lexicon family)."""
    return lexicon.FAMILY.get(model) in ATTENTION_FAMILIES


@dataclass(frozen=True)
class LongRange:
    """Share of sentences whose translation repeats the right noun for "their".

    ``right[model]`` is (R, D): reading × distance; ``counts`` (R, D) the sentences in each
    cell; ``distances`` (D,) the words from the noun to "their"."""

    distances: tuple[int, ...]
    readings: tuple[str, ...]
    counts: np.ndarray  # (R, D) sentences per cell
    right: dict[str, np.ndarray]  # model -> (R, D) share right per cell

    def by_distance(self, model: str, reading: str | None = None) -> np.ndarray:
        """(D,) share right at each distance: one reading, or both (weighted by count)."""
        r = self.right[model]
        if reading is not None:
            return r[self.readings.index(reading)]
        return (r * self.counts).sum(0) / self.counts.sum(0)

    def overall(self, model: str) -> float:
        """Share right over every sentence: the manifest's ``longrange`` figure."""
        return float((self.right[model] * self.counts).sum() / self.counts.sum())

    def farthest(self) -> tuple[dict[str, float], tuple[str, float] | None]:
        """At the farthest distance: {attention model: share right}, and the best model
        without attention with its share (None if every model attends)."""
        at_far = {m: float(self.by_distance(m)[-1]) for m in self.right}
        attn = {m: v for m, v in at_far.items() if attends(m)}
        rest = {m: v for m, v in at_far.items() if not attends(m)}
        best = max(rest, key=rest.__getitem__) if rest else None
        return attn, ((best, rest[best]) if best is not None else None)

    def per_distance(self) -> int:
        """Sentences at each distance (both readings), when every distance has as many."""
        per = self.counts.sum(0)
        if len(set(per.tolist())) != 1:
            raise ValueError(f"distances hold different numbers of sentences: {per.tolist()}")
        return int(per[0])


def _cell(pair: corpus.Pair) -> tuple[str, int]:
    info = dict(pair.info)
    return info["reading"], int(info["distance"])


def cells(pairs: Sequence[corpus.Pair]) -> tuple[tuple[int, ...], dict[tuple[str, int], list]]:
    """The distances in the probe (sorted) and the pairs' indices by (reading, distance)."""
    index: dict[tuple[str, int], list[int]] = {}
    for i, p in enumerate(pairs):
        index.setdefault(_cell(p), []).append(i)
    unknown = {r for r, _ in index} - set(READINGS)
    if unknown:
        raise ValueError(f"readings {sorted(unknown)} are not among {READINGS}")
    return tuple(sorted({d for _, d in index})), index


def resolution(
    models: Mapping[str, object],
    src_vocab: Vocab,
    tgt_vocab: Vocab,
    pairs: Sequence[corpus.Pair] | None = None,
) -> LongRange:
    """Translate the long-range probe (``pairs``: ``corpus.longrange_probe()`` by default)
    with each of ``models`` (name -> translation model) and score each cell."""
    pairs = list(pairs if pairs is not None else corpus.longrange_probe())
    distances, index = cells(pairs)
    counts = np.array([[len(index.get((r, d), ())) for d in distances] for r in READINGS])
    right = {}
    for name, model in models.items():
        outputs = ev.translate(model, pairs, src_vocab, tgt_vocab)
        right[name] = np.array(
            [
                [
                    ev.check_accuracy(
                        [pairs[i] for i in index.get((r, d), ())],
                        [outputs[i] for i in index.get((r, d), ())],
                    )
                    for d in distances
                ]
                for r in READINGS
            ],
            dtype=float,
        )
    return LongRange(distances, READINGS, counts, right)


# --- one sentence in the alignment: the row that writes the noun for "their" --------------


@dataclass(frozen=True)
class FarRow:
    """In one long-range sentence's alignment (T, S): the decoding ``step`` that writes the
    noun "their" stands for, the source positions of that noun's words (``noun``: "autumn
    cicadas") and of "their", and the step's weight on them."""

    step: int
    noun: tuple[int, ...]
    their: int
    on_noun: float
    on_their: float

    @property
    def distance(self) -> int:
        """Words from the noun's last word to "their" (the probe's distance)."""
        return self.their - self.noun[-1]


def _noun_words(pair: corpus.Pair) -> tuple[str, ...]:
    info = dict(pair.info)
    nouns = LONG_SINGERS if info["reading"] == "song" else LONG_TREES
    return next(en for en, zh in nouns if zh == info["antecedent"]).split()


def far_row(weights: np.ndarray, output: Sequence[str], pair: corpus.Pair) -> FarRow | None:
    """The row of ``weights`` (T, S) whose output word (``output``, T) is the antecedent
    written for "their" (its last occurrence), or None if the translation never repeats it."""
    ante = dict(pair.info)["antecedent"]
    steps = [i for i, tok in enumerate(output) if tok == ante]
    if len(steps) < 2:  # the opening clause names it once; "their" repeats it
        return None
    src = list(pair.src)
    their = src.index("their")
    words = _noun_words(pair)
    end = max(i for i in range(their) if src[i] == words[-1])  # the noun nearest "their"
    noun = tuple(range(end - len(words) + 1, end + 1))
    row = weights[steps[-1]]
    return FarRow(steps[-1], noun, their, float(row[list(noun)].sum()), float(row[their]))


def far_row_search(
    model, src_vocab: Vocab, tgt_itos: Sequence[str], antecedent: str
) -> tuple[corpus.Pair, FarRow]:
    """Among the long-range sentences whose "their" means ``antecedent`` at the farthest
    distance, the one where the row writing it puts most weight on the noun's words, with
    that row also peaking on them (the clearest honest example; ``model``: one with
    attention, its additive or last-layer mean weights)."""
    pairs = corpus.longrange_probe()
    far = max(int(dict(p.info)["distance"]) for p in pairs)
    best: tuple[corpus.Pair, FarRow] | None = None
    for p in pairs:
        info = dict(p.info)
        if info["antecedent"] != antecedent or int(info["distance"]) != far:
            continue
        run = run_attention(model, src_vocab.encode(p.src, eos=True), p.src, tgt_itos)
        weights = run.cross[-1].mean(0)  # (T, S): the GRU's one map, a Transformer's mean
        row = far_row(weights, run.output, p)
        if row is None or int(np.argmax(weights[row.step])) not in row.noun:
            continue
        if best is None or row.on_noun > best[1].on_noun:
            best = (p, row)
    if best is None:
        raise ValueError(f"no sentence {far} words long puts the row of {antecedent} on it")
    return best
