"""The poll room through AppTest: join form, teacher and student views, bad input."""

from __future__ import annotations

import pytest

from core.i18n import translate
from core.poll import questions as pq
from core.poll import store as ps
from tests.conftest import main_text, make_app

QID = "cnn_layers"


def _room(lang: str = "en", **params: str):
    at = make_app("pages/poll.py", lang=lang, present="1", **params)
    at.run(timeout=120)
    assert not at.exception, [e.message for e in at.exception]
    return at


def _buttons(at) -> dict[str, object]:
    return {b.label: b for b in at.main.button}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_room_shows_the_join_form(lang):
    at = _room(lang)
    assert at.main.text_input[0].label == translate("poll.join.code", lang)
    assert translate("poll.join.lead", lang) in main_text(at)


@pytest.mark.parametrize(
    "raw, reason",
    [
        ("<script>alert(1)</script>", "bad_code"),
        ("A" * 5000, "bad_code"),
        ("ZZZZZZZ", "bad_code"),
        ("ZZZZZZZZ", "no_poll"),
    ],
)
def test_bad_room_codes_get_a_clear_message(raw, reason):
    at = _room("zh", room=raw)
    assert translate(f"poll.error.{reason}", "zh") in [w.value for w in at.warning]
    assert at.main.text_input  # and the join form again


def test_unknown_question_gets_the_usual_notice():
    at = _room(ask="no_such_question")
    assert any("no_such_question" in w.value for w in at.warning)


def test_teacher_opens_a_poll_and_a_student_votes_and_cannot_reveal():
    teacher = _room("en", ask=QID)
    room = teacher.query_params["room"]
    code = room[0] if isinstance(room, list) else room
    assert ps.valid_code(code) and "ask" not in teacher.query_params
    assert translate("poll.reveal", "en") in _buttons(teacher)
    text = main_text(teacher)
    assert translate(f"poll.q.{QID}.text", "en") in text
    store = ps.PollStore()
    key = teacher.session_state["poll_teacher_keys"][code]  # in the session, not the URL
    assert key not in str(dict(teacher.query_params))

    student = _room("en", room=code)
    labels = _buttons(student)
    q = pq.BY_ID[QID]
    assert set(q.answers) <= set(labels)
    assert translate("poll.reveal", "en") not in labels  # no teacher control
    labels["20"].click().run(timeout=120)
    assert not student.exception
    assert store.tally(code).counts == (0, 0, 1, 0)
    assert "✓ 20" in _buttons(student)

    _buttons(teacher)[translate("poll.reveal", "en")].click().run(timeout=120)
    assert not teacher.exception
    right = q.answers[q.solve().correct]  # recomputed here
    shown = [s.value for s in teacher.success]
    assert any(right in s for s in shown), shown
    assert store.get(code).state == "revealed"

    student.run(timeout=120)  # the student's next refresh shows the reveal
    assert any(right in s.value for s in student.success)
    assert all(b.disabled for b in student.main.button if b.label.endswith(tuple(q.answers)))


@pytest.mark.parametrize("qid", [q.id for q in pq.QUESTIONS])
def test_every_question_reveals_the_answer_the_models_give(qid):
    """What the room sees at the reveal is the answer recomputed here from the models."""
    teacher = _room("zh", ask=qid)
    _buttons(teacher)[translate("poll.reveal", "zh")].click().run(timeout=240)
    assert not teacher.exception, [e.message for e in teacher.exception]
    q = pq.BY_ID[qid]
    right = q.answer_labels(lambda key: translate(key, "zh"))[q.solve().correct]
    shown = [s.value for s in teacher.success]
    assert any(right in s for s in shown), (qid, right, shown)
