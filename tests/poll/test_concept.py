"""The concept check: each question's right answer is the lesson's claim as our models and
formulas compute it, the class's normalized gain from pre and post answers, and the CSVs
that keep the evidence without naming a student."""

from __future__ import annotations

import csv
import io

import pytest

from core.i18n import translate
from poll import concept as pc
from poll import export
from poll import store as ps

# What the lesson claims, in words each question's right answer must say (English).
CLAIMS = {
    "one_word": "One word at a time",  # 1.3 autoregression
    "one_vector": "One vector of fixed size",  # 1.5 the encoder's C
    "cnn_far": "the more layers",  # 2.2 depth makes the window
    "rnn_fade": "It fades",  # 2.3 the gradient shrinks with distance
    "path": "recurrent",  # 2.4 the longest path
    "weights": "add up to 1",  # 3.1 resource allocation, context decides
    "it_refers": "milk",  # 3.1 self-attention: "it" takes "milk" when sweet
}


def test_the_check_has_five_to_eight_questions_with_answers_in_both_languages():
    assert 5 <= len(pc.ITEMS) <= ps.MAX_ITEMS and set(CLAIMS) == {i.id for i in pc.ITEMS}
    for item in pc.ITEMS:
        assert 2 <= item.n_answers <= ps.MAX_ANSWERS
        for lang in ("en", "zh"):
            text = item.text(lambda k, **kw: translate(k, lang, **kw))
            labels = item.answer_labels(lambda k: translate(k, lang))
            assert "poll.concept" not in text + "".join(labels), (item.id, lang)
            assert len(set(labels)) == item.n_answers


@pytest.mark.parametrize("item", pc.ITEMS, ids=lambda i: i.id)
def test_each_right_answer_is_the_lessons_claim_as_the_models_compute_it(item):
    right = item.solve()
    label = item.answer_labels(lambda k: translate(k, "en"))[right]
    assert CLAIMS[item.id] in label, (item.id, label)


def test_the_right_answers_are_not_all_in_one_place():
    """A student who always taps the same position must not score: the right answers sit
    in at least three different positions."""
    assert len({item.solve() for item in pc.ITEMS}) >= 3


def test_the_class_gain_from_pre_and_post_answers():
    correct = [0, 1, 2]
    answers = {
        "pre": {"A": {0: 0, 1: 0, 2: 0}, "B": {0: 1}, "C": {0: 0, 1: 1, 2: 2}, "D": {0: 0}},
        "post": {"A": {0: 0, 1: 1, 2: 2}, "B": {0: 0, 1: 1}, "C": {0: 0, 1: 1, 2: 2}, "E": {}},
    }
    g = pc.gain(answers, correct)
    assert g.answered == {"pre": 4, "post": 4} and g.matched == 3  # A, B, C
    assert g.pre == pytest.approx(4 / 9) and g.post == pytest.approx(8 / 9)
    assert g.g == pytest.approx((8 / 9 - 4 / 9) / (1 - 4 / 9))  # 0.8
    assert g.item_pre == pytest.approx((2 / 3, 1 / 3, 1 / 3))
    assert g.item_post == pytest.approx((1.0, 1.0, 2 / 3))
    assert g.item_gain == pytest.approx((1.0, 1.0, 0.5))
    assert g.individual == 2  # C had everything right before: no gain of its own
    assert g.spread == pytest.approx((0.75, 11 / 12))  # quartiles of A's 1 and B's 2/3


def test_no_gain_without_matched_students_or_room_to_gain():
    assert pc.gain({"pre": {"A": {0: 0}}, "post": {"B": {0: 0}}}, [0]).g is None
    full = pc.gain({"pre": {"A": {0: 0}}, "post": {"A": {0: 1}}}, [0])
    assert (full.pre, full.post, full.g, full.spread) == (1.0, 0.0, None, None)
    assert pc.normalized_gain(0.5, 0.25) == pytest.approx(-0.5)  # a class can lose ground


def _rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def test_the_rounds_csv_has_every_round_and_the_models_answer():
    history = [
        ps.RoundRow(1, "q1", 2, 1, 0.0, (3, 1)),
        ps.RoundRow(2, "q1", 2, 2, 0.0, (1, 3)),
        ps.RoundRow(3, "gone", 2, 1, 0.0, (0, 0)),
    ]
    text = export.rounds_csv(
        history,
        lambda qid: ("Which?", ["A", "B"]) if qid == "q1" else None,
        lambda r: 1,
    )
    rows = _rows(text)
    assert [
        (r["round"], r["stage"], r["answer"], r["votes"], r["models_answer"]) for r in rows
    ] == [
        ("1", "1", "A", "3", "no"),
        ("1", "1", "B", "1", "yes"),
        ("2", "2", "A", "1", "no"),
        ("2", "2", "B", "3", "yes"),
        ("3", "1", "0", "0", ""),
        ("3", "1", "1", "0", ""),
    ]
    assert rows[1]["share"] == "0.250" and rows[4]["share"] == ""


def test_the_gain_csv_keeps_each_question_and_the_class():
    answers = {"pre": {"A": {0: 1, 1: 1}}, "post": {"A": {0: 0, 1: 1}}}
    g = pc.gain(answers, [0, 1])
    rows = _rows(export.gain_csv(g, ["Q one", "Q two"], ["a", "b"]))
    assert [r["item"] for r in rows] == ["1", "2", "class", "students_q1", "students_q3"]
    assert (rows[0]["pre_right"], rows[0]["post_right"], rows[0]["gain"]) == (
        "0.000",
        "1.000",
        "1.000",
    )
    assert rows[1]["gain"] == ""  # right before already: nothing to gain
    assert (rows[2]["pre_right"], rows[2]["post_right"], rows[2]["gain"]) == (
        "0.500",
        "1.000",
        "1.000",
    )
    assert "A" not in {v for r in rows for v in r.values()}  # no student key in the file
