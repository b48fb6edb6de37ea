"""The concept check: a short test a teacher runs on the same phones before and after the
lesson, and the class's normalized gain (Hake 1998): ⟨g⟩ = (post − pre) / (100 − pre), from
the class's average scores in percent, with the spread of the students' own gains and the
gain question by question.

Each question states one of the lesson's claims; its right answer is what the lesson and
our models say, and where a model or the page's formula can answer it, ``solve()`` lets it
answer (as the poll's questions do). Texts are catalogue keys ``poll.concept.<id>.text`` and
``.a<i>``. No streamlit here; students are matched before and after only by the voter digest
the store keeps, which names nobody.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from core.corpus import lesson
from poll import questions as pq

# Hake (1998), 6,000 introductory physics students: interactive-engagement courses averaged
# ⟨g⟩ ≈ 0.48, traditional lectures ≈ 0.23 (his Fig. 1 and abstract). Cited, not computed.
HAKE_INTERACTIVE, HAKE_LECTURE = 0.48, 0.23


@dataclass(frozen=True)
class Item:
    id: str
    n_answers: int
    solve: Callable[[], int]  # the right answer's index, from the lesson or a model
    by_model: bool  # whether a model or the page's formula computes the answer
    quotes: tuple[tuple[str, str], ...] = ()

    def text(self, translate: Callable[..., str]) -> str:
        return translate(f"poll.concept.{self.id}.text", **dict(self.quotes))

    def answer_labels(self, translate: Callable[..., str]) -> list[str]:
        return [translate(f"poll.concept.{self.id}.a{i}") for i in range(self.n_answers)]


def _one_word() -> int:
    """Lesson 1.3: each step writes one token and appends it to the input of the next (a
    claim about how generation works; no model measures it)."""
    return 2  # a0 all at once, a1 a stored sentence, a2 one word at a time


def _one_vector() -> int:
    """Lesson 1.5: the plain GRU's summary C has one size for a short and a long sentence."""
    from core import zoo
    from core.analysis import bottleneck

    vocab = zoo.load_vocabs()[0]
    model = zoo.load_model(pq.BUCKET_MODEL)
    words = lesson.CAT_HUNGRY.en.split()
    sizes = {
        bottleneck.encoder_states(model, vocab.encode(words * n, eos=True))[1].shape for n in (1, 4)
    }
    return 0 if len(sizes) == 1 else 1  # a0 one fixed-length vector, a1 a vector per word


def _cnn_far() -> int:
    """Lesson 2.2: kernel 3, the layers until one window holds both words grow with distance."""
    from core.analysis import receptive_field as rf

    near, far = rf.first_shared_layer(0, 9, 3), rf.first_shared_layer(0, 39, 3)
    if near == 1 and far == 1:
        return 0  # one layer sees them both
    return 1 if far is not None and near is not None and far > near else 2


def _rnn_fade() -> int:
    """Lesson 2.3: the page's fresh plain RNN, what is left of the gradient by distance."""
    norms = pq.rnn_norms()
    near, far = float(norms[1]), float(norms[pq.RNN_DISTANCE])
    return 2 if far < near else 1 if far > near else 0  # a0 stays, a1 grows, a2 fades


def _path() -> int:
    """Lesson 2.4: the longest signal path between word 1 and word 50 (the page's table)."""
    q = pq.BY_ID["path_longest"]
    return PATH_OPTIONS.index(q.answers[q.solve().correct])


PATH_OPTIONS: tuple[str, ...] = ("recurrent", "conv", "self_attention")


def _weights() -> int:
    """Lesson 3.1: GRU + attention's weights while it writes 猫 and 牛奶: each row sums to 1
    and the two sentences' rows differ (the context decides)."""
    hungry, _ = pq.attention_row(lesson.CAT_HUNGRY.en, "猫")
    sweet, _ = pq.attention_row(lesson.CAT_SWEET.en, "牛奶")
    if not hungry or not sweet:
        raise ValueError(f"{pq.ATTENTION_MODEL} does not write 猫 / 牛奶 for the lesson's pair")
    sums_to_one = all(abs(sum(row.values()) - 1.0) < 1e-3 for row in (hungry, sweet))
    differ = max(abs(hungry.get(w, 0.0) - sweet.get(w, 0.0)) for w in hungry) > 0.05
    if sums_to_one and differ:
        return 1  # they add up to 1 and follow the context
    return 2 if not differ else 0


IT_OPTIONS: tuple[str, ...] = ("cat", "sweet", "because", "milk")


def _it_refers() -> int:
    """Lesson 3.1 (self-attention): where the trained coreference encoder's "it" looks in
    the lesson's "sweet" sentence (its one-head last layer)."""
    from core import zoo
    from core.analysis import coref

    rows = coref.lesson_pair(zoo.load_model("coref_encoder"), zoo.load_vocabs()[0])
    row = rows["sweet"]
    weight = {w: float(x) for w, x in zip(row.tokens, row.weights, strict=True)}
    return max(range(len(IT_OPTIONS)), key=lambda i: weight.get(IT_OPTIONS[i], 0.0))


ITEMS: tuple[Item, ...] = (
    Item("one_word", 3, _one_word, by_model=False),
    Item("one_vector", 3, _one_vector, by_model=True),
    Item("cnn_far", 3, _cnn_far, by_model=True),
    Item("rnn_fade", 3, _rnn_fade, by_model=True),
    Item("path", 3, _path, by_model=True),
    Item("weights", 3, _weights, by_model=True),
    Item(
        "it_refers",
        len(IT_OPTIONS),
        _it_refers,
        by_model=True,
        quotes=(("sentence", lesson.CAT_SWEET.en),),
    ),
)


# --- the gain ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Gain:
    """The class's gain from its matched students (answered both before and after)."""

    answered: dict[str, int]  # phase -> students who answered at least one question
    matched: int  # students in both phases: the ones the gain is computed from
    pre: float | None  # their average score before (0-1: the share of questions right)
    post: float | None  # ... and after
    g: float | None  # (post - pre) / (1 - pre); None without students or with pre = 1
    item_pre: tuple[float | None, ...]  # share right, question by question, before
    item_post: tuple[float | None, ...]  # ... after
    item_gain: tuple[float | None, ...]  # each question's own gain
    individual: int  # matched students with a gain of their own (pre score below 1)
    spread: tuple[float, float] | None  # quartiles of those students' own gains


def normalized_gain(pre: float | None, post: float | None) -> float | None:
    """Hake's g = (post − pre) / (1 − pre) on shares (the same as on percent); ``None``
    when nothing was measured or nothing was left to gain."""
    if pre is None or post is None or pre >= 1.0:
        return None
    return (post - pre) / (1.0 - pre)


def gain(answers: Mapping[str, Mapping[str, Mapping[int, int]]], correct: list[int]) -> Gain:
    """The class's gain from ``{phase: {student digest: {question: answer}}}`` and the right
    answers; a question a student left out counts as wrong."""
    n = len(correct)
    pre_all, post_all = answers.get("pre", {}), answers.get("post", {})
    both = sorted(pre_all.keys() & post_all.keys())

    def score(mine: Mapping[int, int]) -> float:
        return sum(mine.get(i) == right for i, right in enumerate(correct)) / n

    def mean(xs: list[float]) -> float | None:
        return sum(xs) / len(xs) if xs else None

    pre = mean([score(pre_all[s]) for s in both])
    post = mean([score(post_all[s]) for s in both])
    item_pre = tuple(
        mean([float(pre_all[s].get(i) == c) for s in both]) for i, c in enumerate(correct)
    )
    item_post = tuple(
        mean([float(post_all[s].get(i) == c) for s in both]) for i, c in enumerate(correct)
    )
    own = [
        g for s in both if (g := normalized_gain(score(pre_all[s]), score(post_all[s]))) is not None
    ]
    spread = None
    if len(own) == 1:
        spread = (own[0], own[0])
    elif own:
        q1, _, q3 = statistics.quantiles(own, n=4, method="inclusive")
        spread = (q1, q3)
    return Gain(
        answered={"pre": len(pre_all), "post": len(post_all)},
        matched=len(both),
        pre=pre,
        post=post,
        g=normalized_gain(pre, post),
        item_pre=item_pre,
        item_post=item_post,
        item_gain=tuple(normalized_gain(a, b) for a, b in zip(item_pre, item_post, strict=True)),
        individual=len(own),
        spread=spread,
    )
