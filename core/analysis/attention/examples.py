"""The sentences the attention page shows, and the search for its clearest honest default.

Real corpus sentences (held-out test split, probes, the lesson's own) and minimal pairs
that need different Chinese; in the shipped models, the encoder view where "it" reads the
noun it means (:func:`it_view_search`) and the pair whose ambiguous word reads its context
most (:func:`pairs_search`).

Shapes: L layers, h heads, S sentence (EOS included).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from core import corpus
from core.analysis.attention.run import AttentionRun, run_attention, select_heads, token_step
from core.corpus import lesson

__all__ = [
    "EXAMPLES",
    "MinimalPair",
    "MINIMAL_PAIRS",
    "corpus_pair",
    "SEPARATION_MIN",
    "ItRow",
    "ItChoice",
    "it_rows",
    "choose_it_view",
    "it_view_search",
    "PairEvidence",
    "pair_evidence",
    "choose_pair",
    "pairs_search",
]

# ---------------------------------------------------------------------------------------
# Example sentences: real corpus sentences (held-out test split, probes, the lesson's own)
# ---------------------------------------------------------------------------------------

# (English, reference Chinese). Test-split sentences were never trained on; the lesson's
# two "it" sentences were (each 30 times), which the page says where it uses them.
EXAMPLES: tuple[tuple[str, str], ...] = (
    (
        "the teacher fed a white tiger at the station in the evening",
        "老师 晚上 在 车站 喂 了 一 只 白 老虎",
    ),
    (
        "the young woman will buy the red cup in the classroom in the morning",
        "年轻 的 女人 早上 会 在 教室 买 红 杯子",
    ),
    (lesson.CAT_HUNGRY.en, lesson.CAT_HUNGRY.zh),
    (lesson.CAT_SWEET.en, lesson.CAT_SWEET.zh),
    (lesson.BOY_BANANA.en, lesson.BOY_BANANA.zh),
    (
        "the car that a dog found is big now because they visited a woman",
        "一 条 狗 找到 的 车 现在 很 大 因为 他们 看望 了 一 个 女人",
    ),
    (  # a held-out test sentence of the long-range kind (willows): not the lesson's
        "the autumn cicadas sing in the old willows but the wind is strong in autumn so you "
        "hear their song and the kind girl worked",
        "秋蝉 在 老 柳树 上 唱歌 但是 秋天 的 风 很 大 所以 你 听见 秋蝉 的 啼唱 而且 善良 的 "
        "女孩 工作 了",
    ),
    (
        "we need a new transformer because the power went out",
        "我们 需要 一 个 新 变压器 因为 停电 了",
    ),
)


@dataclass(frozen=True)
class MinimalPair:
    """Two corpus sentences that differ in a few words and need different Chinese."""

    key: str  # URL value
    a: str  # English
    b: str
    source: str  # "lesson" (trained on) or "probe" (held out)


MINIMAL_PAIRS: tuple[MinimalPair, ...] = (
    MinimalPair("it_lesson", lesson.CAT_HUNGRY.en, lesson.CAT_SWEET.en, "lesson"),
    MinimalPair(
        "it_probe",
        "the dog drank the coffee because it was hungry",
        "the dog drank the coffee because it was sweet",
        "probe",
    ),
    MinimalPair(
        "transformer_clause",
        "we need a new transformer because the power went out",
        "we need a new transformer because the model learns language",
        "probe",
    ),
    MinimalPair(
        "transformer_phrase",
        "they tested the power transformer",
        "they tested the transformer model",
        "probe",
    ),
    MinimalPair(
        "bank",
        "i like the bank and the river was wide",
        "i like the bank and the loan was expensive",
        "probe",
    ),
)


@cache
def _probe_pairs() -> dict[tuple[str, ...], object]:
    pairs = (*corpus.coref_probe(), *corpus.sense_probe(), *corpus.LESSON_PAIRS)
    return {p.src: p for p in pairs}


def corpus_pair(english: str):
    """The corpus ``Pair`` (reference Chinese, ``check`` index, ``info``) of a lesson or
    probe sentence, or ``None`` if it is not one."""
    return _probe_pairs().get(tuple(english.split()))


# ---------------------------------------------------------------------------------------
# Defaults that show what a part claims, searched in the shipped models
# ---------------------------------------------------------------------------------------

# A view "separates" the pair when, in each sentence, "it" gives the noun it means at least
# this much more weight than the other noun.
SEPARATION_MIN = 0.05


@dataclass(frozen=True)
class ItRow:
    """What "it" reads in one encoder view (``head`` ``None`` = mean of heads), in the
    two sentences of a pair: its weight on the noun it means there (``right``) and on the
    other noun (``wrong``)."""

    layer: int  # 0-based
    head: int | None
    a_right: float
    a_wrong: float
    b_right: float
    b_wrong: float

    @property
    def separation(self) -> float:
        """The measure: min over the two sentences of (weight on the noun "it" means −
        weight on the other noun). Positive only if both sentences lean the right way."""
        return min(self.a_right - self.a_wrong, self.b_right - self.b_wrong)

    @property
    def reach(self) -> float:
        """The smaller of the two weights "it" gives the noun it means (A's, B's)."""
        return min(self.a_right, self.b_right)


@dataclass(frozen=True)
class ItChoice:
    """The view to show by default, and whether any view separates the pair."""

    shown: ItRow  # the most separating view if it separates, else the one that reaches most
    best: ItRow  # the most separating view
    separates: bool  # best.separation >= SEPARATION_MIN


def it_rows(
    enc_a: np.ndarray, enc_b: np.ndarray, word: int, noun_a: int, noun_b: int
) -> list[ItRow]:
    """Every encoder view (each layer: mean of heads, then each head) of the row of
    ``word`` in sentence A (``enc_a``, (L, h, S, S)) and B (same shape), where A's "it"
    means the noun at ``noun_a`` and B's the noun at ``noun_b``."""
    if enc_a.shape != enc_b.shape or enc_a.ndim != 4:
        raise ValueError(
            f"need two (L, h, S, S) maps of one shape, got {enc_a.shape}, {enc_b.shape}"
        )
    rows = []
    for layer in range(enc_a.shape[0]):
        for head in (None, *range(enc_a.shape[1])):
            a = select_heads(enc_a, layer, head)[word]
            b = select_heads(enc_b, layer, head)[word]
            rows.append(
                ItRow(
                    layer,
                    head,
                    float(a[noun_a]),
                    float(a[noun_b]),
                    float(b[noun_b]),
                    float(b[noun_a]),
                )
            )
    return rows


def choose_it_view(rows: Sequence[ItRow]) -> ItChoice:
    """The clearest honest default: the view with the largest separation (first on ties)
    if it reaches :data:`SEPARATION_MIN`; otherwise the view where "it" gives the noun it
    means the most weight (it reads it directly), and ``separates`` False."""
    if not rows:
        raise ValueError("no views to choose from")
    best = max(rows, key=lambda r: r.separation)  # max keeps the first of equal scores
    if best.separation >= SEPARATION_MIN:
        return ItChoice(best, best, True)
    return ItChoice(max(rows, key=lambda r: r.reach), best, False)


def it_view_search(model, src_vocab, tgt_vocab, pair: MinimalPair | None = None) -> ItChoice:
    """:func:`choose_it_view` for the transformer ``model`` on a "hungry / sweet" pair
    (the lesson's by default): "it" means the subject in A and the object in B."""
    pair = pair or MINIMAL_PAIRS[0]
    enc = []
    for english in (pair.a, pair.b):
        tokens = english.split()
        run = run_attention(model, src_vocab.encode(tokens, eos=True), tokens, tgt_vocab.tokens)
        enc.append(run.enc_self)
    tokens = pair.a.split()
    noun_a, noun_b = 1, tokens.index("because") - 1  # "the cat drank the milk because ..."
    return choose_it_view(it_rows(enc[0], enc[1], tokens.index("it"), noun_a, noun_b))


@dataclass(frozen=True)
class PairEvidence:
    """How one minimal pair shows "context decides" in the transformer's encoder."""

    key: str
    layer: int  # 0-based encoder layer where the ambiguous word reads its context most
    reads: float  # min over A and B of its largest weight on a word the sentences differ in
    senses_ok: bool  # the model wrote the expected Chinese word in both sentences


def pair_evidence(
    key: str, run_a: AttentionRun, run_b: AttentionRun, word: str, senses_ok: bool
) -> PairEvidence:
    """For the ambiguous ``word`` (e.g. "transformer"): in each encoder layer (mean of
    heads), its largest weight on a word that differs between A and B (itself excluded);
    the layer where the smaller of A's and B's is largest (first on ties)."""
    src_a, src_b = run_a.source, run_b.source
    best = (0, -1.0)
    for layer in range(run_a.enc_self.shape[0]):
        per = []
        for run, mine, other in ((run_a, src_a, src_b), (run_b, src_b, src_a)):
            i = mine.index(word)
            row = run.enc_self[layer].mean(0)[i]
            ctx = [j for j, tok in enumerate(mine) if j != i and tok != word and tok not in other]
            per.append(max((float(row[j]) for j in ctx), default=0.0))
        if min(per) > best[1]:
            best = (layer, min(per))
    return PairEvidence(key, best[0], best[1], senses_ok)


def choose_pair(evidence: Sequence[PairEvidence]) -> PairEvidence:
    """The pair whose ambiguous word reads its context most (first on ties), among the
    pairs the model translates with the right sense in both sentences."""
    ok = [e for e in evidence if e.senses_ok] or list(evidence)
    if not ok:
        raise ValueError("no pairs to choose from")
    return max(ok, key=lambda e: e.reads)


def pairs_search(model, src_vocab, tgt_vocab, word: str = "transformer") -> PairEvidence:
    """:func:`choose_pair` over the minimal pairs of the ambiguous ``word`` (the lesson's
    "transformer": 变压器 or Transformer), in the transformer ``model``."""
    evidence = []
    for pair in MINIMAL_PAIRS:
        cps = [corpus_pair(e) for e in (pair.a, pair.b)]
        if any(cp is None or dict(cp.info).get("word") != word for cp in cps):
            continue
        runs = []
        for english in (pair.a, pair.b):
            tokens = english.split()
            ids = src_vocab.encode(tokens, eos=True)
            runs.append(run_attention(model, ids, tokens, tgt_vocab.tokens))
        ok = all(
            token_step(run.output, cp.check[0][1], cp.check[0][0]) is not None
            for run, cp in zip(runs, cps)
        )
        evidence.append(pair_evidence(pair.key, runs[0], runs[1], word, ok))
    return choose_pair(evidence)
