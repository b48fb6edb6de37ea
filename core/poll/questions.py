"""The class-poll questions: a fixed list of answers, and the answer computed at reveal time.

Every question belongs to a part of the lesson (``slug``, ``part``: where the teacher asks
it and where students go after the reveal). Its texts are catalogue keys
(``poll.q.<id>.text`` for the question, ``poll.q.<id>.why`` for the explanation shown with
the answer, filled with the solution's ``values``); answers are either catalogue keys
(``poll.q.<id>.a<i>``) or literal labels (numbers, English words, model names by
``core.lexicon``). ``solve()`` computes the answer from the shipped models or from the
formula the page draws -- never a typed-in result -- and returns the numbers behind it
(``evidence``: one bar per answer or per model, drawn next to the class's histogram).
No streamlit here: the UI caches ``solve`` per question.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Solution:
    correct: int  # index into the question's answers
    evidence: dict[str, float]  # label -> value: the chart that proves the answer
    evidence_key: str  # catalogue key of the evidence chart's title
    values: dict[str, object] = field(default_factory=dict)  # fills poll.q.<id>.why
    log_y: bool = False  # draw the evidence on a log scale


@dataclass(frozen=True)
class Question:
    id: str
    slug: str  # the lesson page that asks it
    part: str | None  # its part (the deep link after the reveal)
    answers: tuple[str, ...]  # literal labels, or catalogue keys when ``keyed``
    solve: Callable[[], Solution]
    keyed: bool = False  # answers are catalogue keys poll.q.<id>.a<i>

    def answer_labels(self, translate: Callable[[str], str]) -> list[str]:
        if self.keyed:
            return [translate(f"poll.q.{self.id}.a{i}") for i in range(len(self.answers))]
        return list(self.answers)


# --- formulas: what the pages draw -----------------------------------------------------------


def _cnn_layers() -> Solution:
    """Kernel 3, words 1 and 40: the stack's receptive field 1 + L(k-1) must reach 40."""
    from core.analysis import receptive_field as rf

    options = (5, 10, 20, 39)
    fields = {f"{layers}": float(rf.theoretical_field(layers, 3)) for layers in options}
    fewest = rf.first_shared_layer(0, 39, 3)  # the page's own reading: one window holds both
    return Solution(
        correct=min(i for i, layers in enumerate(options) if layers >= fewest),
        evidence=fields,
        evidence_key="poll.evidence.field",
        values={"layers": fewest, "field": rf.theoretical_field(fewest, 3)},
    )


def _path_rnn() -> Solution:
    """Maximum path length between word 1 and word 50 in each layer type (Vaswani Table 1)."""
    from core.analysis import path_length as pl

    n, k = 50, 3
    steps = {arch: pl.max_path(arch, n, k) for arch in pl.ARCHITECTURES}
    options = ("self_attention", "recurrent", "conv")
    values = [steps[a] for a in options]
    return Solution(
        correct=values.index(max(values)),
        evidence={a: float(steps[a]) for a in options},
        evidence_key="poll.evidence.steps",
        values={"n": n, "k": k, **{a: steps[a] for a in options}},
    )


QUESTIONS: tuple[Question, ...] = (
    Question("cnn_layers", "cnn_receptive_field", "theory", ("5", "10", "20", "39"), _cnn_layers),
    Question(
        "path_longest",
        "path_length",
        "table",
        ("self_attention", "recurrent", "conv"),
        _path_rnn,
        keyed=True,
    ),
)

BY_ID: dict[str, Question] = {q.id: q for q in QUESTIONS}


def for_part(slug: str, part: str | None) -> list[Question]:
    """The questions a teacher can ask on this part of the lesson."""
    return [q for q in QUESTIONS if q.slug == slug and q.part == part]
