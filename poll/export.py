"""The room's evidence as CSV, for the teacher to keep: every round asked (its question, its
stage, the votes per answer and the models' answer), and the concept check's gain. Counts
only: no browser, digest or address is ever written. No streamlit here: the views hand in
the rounds, the translated words and the answers they computed."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence

from poll import store as ps

ROUND_COLUMNS = (
    "round",
    "stage",
    "question_id",
    "question",
    "answer",
    "votes",
    "share",
    "models_answer",
)
GAIN_COLUMNS = ("item", "question", "right_answer", "pre_right", "post_right", "gain", "students")


def _csv(columns: Sequence[str], rows: list[Sequence[object]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)
    return out.getvalue()


def rounds_csv(
    history: Sequence[ps.RoundRow],
    texts: Callable[[str], tuple[str, list[str]] | None],
    correct: Callable[[ps.RoundRow], int | None],
) -> str:
    """One row per round and answer. ``texts(question id)`` gives the question and its
    answers in the teacher's language (``None``: a question this version no longer has);
    ``correct(round)`` the models' answer (``None`` while unknown, e.g. a race not over)."""
    rows: list[Sequence[object]] = []
    for r in history:
        said = texts(r.question)
        question, answers = said if said else ("", [str(i) for i in range(r.n_answers)])
        right = correct(r) if said else None
        total = sum(r.counts)
        for i, n in enumerate(r.counts):
            mark = "" if right is None else "yes" if i == right else "no"
            share = f"{n / total:.3f}" if total else ""
            rows.append((r.round, r.stage, r.question, question, answers[i], n, share, mark))
    return _csv(ROUND_COLUMNS, rows)


def _fmt(x: float | None, digits: int = 3) -> str:
    return "" if x is None else f"{x:.{digits}f}"


def gain_csv(gain, questions: Sequence[str], answers: Sequence[str]) -> str:
    """One row per concept-check question (shares right before and after, its gain), then
    the class's ⟨g⟩ and the spread of the students' own gains (a ``concept.Gain``)."""
    rows: list[Sequence[object]] = [
        (i + 1, questions[i], answers[i], _fmt(pre), _fmt(post), _fmt(g), gain.matched)
        for i, (pre, post, g) in enumerate(
            zip(gain.item_pre, gain.item_post, gain.item_gain, strict=True)
        )
    ]
    rows.append(("class", "", "", _fmt(gain.pre), _fmt(gain.post), _fmt(gain.g), gain.matched))
    low, high = gain.spread if gain.spread else (None, None)
    rows.append(("students_q1", "", "", "", "", _fmt(low), gain.individual))
    rows.append(("students_q3", "", "", "", "", _fmt(high), gain.individual))
    return _csv(GAIN_COLUMNS, rows)
