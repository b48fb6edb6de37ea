"""The poll room through AppTest: join form, teacher and student views, bad input, a new
session of the same browser (the id its cookie carries), a teacher's second device."""

from __future__ import annotations

import pytest

from core.i18n import translate
from poll import questions as pq
from poll import store as ps
from poll.views import BROWSER
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


def _same_browser(at, page_params: dict, lang: str = "en"):
    """A new session of the browser behind ``at`` (a reload, a phone after its session
    expired, another replica): the browser id the cookie carries is seeded into it."""
    again = make_app("pages/poll.py", lang=lang, present="1", **page_params)
    again.session_state[BROWSER] = at.session_state[BROWSER]
    again.run(timeout=120)
    assert not again.exception, [e.message for e in again.exception]
    return again


def test_teacher_opens_a_poll_and_a_student_votes_and_cannot_reveal():
    teacher = _room("en", ask=QID)
    room = teacher.query_params["room"]
    code = room[0] if isinstance(room, list) else room
    assert ps.valid_code(code) and "ask" not in teacher.query_params
    assert translate("poll.reveal", "en") in _buttons(teacher)
    text = main_text(teacher)
    assert translate(f"poll.q.{QID}.text", "en") in text
    store = ps.PollStore()
    browser = teacher.session_state[BROWSER]
    assert browser not in str(dict(teacher.query_params)) and browser not in text
    assert store.is_teacher(code, browser)

    student = _room("en", room=code)
    labels = _buttons(student)
    q = pq.BY_ID[QID]
    assert set(q.answers) <= set(labels)
    assert translate("poll.reveal", "en") not in labels  # no teacher control
    labels["20"].click().run(timeout=120)
    assert not student.exception
    assert store.tally(code).counts == (0, 0, 1, 0)
    assert "✓ 20" in _buttons(student)

    # the student reloads (a new session of the same browser) and changes the vote
    again = _same_browser(student, {"room": code})
    assert "✓ 20" in _buttons(again)  # the vote is still the browser's
    _buttons(again)["39"].click().run(timeout=120)
    assert store.tally(code).counts == (0, 0, 0, 1) and store.tally(code).voters == 1

    # the teacher reloads: still the teacher's view, and the reveal works from it
    reloaded = _same_browser(teacher, {"room": code})
    _buttons(reloaded)[translate("poll.reveal", "en")].click().run(timeout=120)
    assert not reloaded.exception
    right = q.answers[q.solve().correct]  # recomputed here
    shown = [s.value for s in reloaded.success]
    assert any(right in s for s in shown), shown
    assert store.get(code).state == "revealed"

    student.run(timeout=120)  # the student's next refresh shows the reveal
    assert any(right in s.value for s in student.success)
    assert all(b.disabled for b in student.main.button if b.label.endswith(tuple(q.answers)))


def test_a_second_device_takes_over_with_a_one_time_code():
    teacher = _room("en", ask=QID)
    code = teacher.query_params["room"]
    code = code[0] if isinstance(code, list) else code
    phone = _room("en", room=code)
    assert translate("poll.reveal", "en") not in _buttons(phone)
    make = translate("poll.handover.make", "en")
    next(b for b in teacher.sidebar.button if b.label == make).click().run(timeout=120)
    shown = [c.value for c in teacher.sidebar.code]
    assert len(shown) == 1, shown
    token = shown[0].replace(" ", "")
    assert ps.valid_code(token) and token not in main_text(teacher)  # the sidebar only
    assert token not in str(dict(teacher.query_params))

    def take(at, typed: str) -> None:
        at.sidebar.text_input(key="poll_takeover_code").input(typed)
        go = translate("poll.takeover.go", "en")
        next(b for b in at.sidebar.button if b.label == go).click().run(timeout=120)
        assert not at.exception, [e.message for e in at.exception]

    wrong = "ZZZZZZZZ" if token != "ZZZZZZZZ" else "YYYYYYYY"
    take(phone, wrong)
    assert translate("poll.error.bad_handover", "en", minutes=2) in [w.value for w in phone.warning]
    assert translate("poll.reveal", "en") not in _buttons(phone)
    take(phone, token.lower())
    assert translate("poll.reveal", "en") in _buttons(phone)  # the phone is a teacher now
    other = _room("en", room=code)  # replayed by another browser: refused
    take(other, token)
    assert translate("poll.reveal", "en") not in _buttons(other)
    teacher.run(timeout=120)
    assert translate("poll.reveal", "en") in _buttons(teacher)  # the projector keeps it


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


@pytest.fixture
def own_store(monkeypatch, tmp_path):
    """A data folder of this test's own: no poll or race of another test."""
    from poll import views
    from poll.store import DATA_DIR_ENV

    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path))
    views.store.clear()
    views.runs.clear()
    yield ps.PollStore()
    views.store.clear()
    views.runs.clear()


def _race_result(attention: float, plain: float) -> dict:
    buckets = ["1-10", "11-20", "21-30"]
    acc = {
        "attention": {"token": dict(zip(buckets, (95.0, 85.0, attention), strict=True))},
        "plain": {"token": dict(zip(buckets, (93.0, 70.0, plain), strict=True))},
    }
    return {"buckets": buckets, "final_acc": acc, "steps_done": 500, "elapsed": 41.0}


def test_the_live_question_is_revealed_by_the_race_the_class_watched(own_store):
    """Reveal waits for the room's race to end after the poll opened (another room's, or a
    visitor's own, does not count); then the room and a phone see that race's verdict, its
    two numbers, and the student's vote beside it."""
    from poll.runs import RunStore

    runs = RunStore(own_store)
    old = runs.start("a" * 32, {"max_len": 30})  # a race that ended before the poll opened
    runs.write(old, "done", [], _race_result(20.0, 40.0))
    teacher = _room("zh", ask="live_winner")
    code = teacher.query_params["room"]
    code = code[0] if isinstance(code, list) else code
    q = pq.BY_ID["live_winner"]
    student = _room("zh", room=code)
    labels = q.answer_labels(lambda key: translate(key, "zh"))
    _buttons(student)[labels[1]].click().run(timeout=120)  # predicts attention
    reveal = translate("poll.reveal", "zh")

    def warned(at) -> list[str]:
        return [w.value for w in at.warning]

    _buttons(teacher)[reveal].click().run(timeout=120)
    assert translate("poll.error.race_not_done", "zh") in warned(teacher)
    assert own_store.get(code).state == "open"
    # races that end now in another room, or a visitor's own, are not this room's answer
    elsewhere = own_store.open("live_winner", 3, "c" * 32)
    for room in (elsewhere, None):
        other = runs.start("c" * 32, {"max_len": 30}, room)
        runs.write(other, "done", [], _race_result(20.0, 40.0))
    _buttons(teacher)[reveal].click().run(timeout=120)
    assert translate("poll.error.race_not_done", "zh") in warned(teacher)

    watched = runs.start(teacher.session_state[BROWSER], {"max_len": 30}, code)
    runs.write(watched, "running", [{"step": 1}])
    _buttons(teacher)[reveal].click().run(timeout=120)
    assert translate("poll.error.race_running", "zh") in warned(teacher)
    assert own_store.get(code).state == "open"

    runs.write(watched, "done", [{"step": 500}], _race_result(41.0, 23.0))
    _buttons(teacher)[reveal].click().run(timeout=120)
    assert not teacher.exception, [e.message for e in teacher.exception]
    assert own_store.get(code).state == "revealed"
    shown = [s.value for s in teacher.success]
    assert any(labels[1] in s for s in shown), shown  # attention: 18 points ahead
    text = main_text(teacher)
    # the race page's own words for this run: 41/23, 1.8 times as many words in place
    assert "41%" in text and "23%" in text and "1.8" in text
    student.run(timeout=120)
    assert any(labels[1] in s.value for s in student.success)
    assert "41%" in main_text(student)


def _code(at) -> str:
    room = at.query_params["room"]
    return room[0] if isinstance(room, list) else room


def test_a_teacher_who_asks_again_keeps_the_class_in_its_room(own_store):
    """ "Ask the class" from a browser that already teaches a room moves that room on to the
    new question: its phones stay (they follow the room), and the teacher never piles up
    open polls. A run-bound question's phone gets the link to its room's race."""
    teacher = _room("en", ask=QID)
    code = _code(teacher)
    student = _room("en", room=code)
    asked = _same_browser(teacher, {"ask": "live_winner"})
    assert _code(asked) == code and own_store.get(code).question == "live_winner"
    assert own_store.get(code).round == 2
    student.run(timeout=120)
    q = pq.BY_ID["live_winner"]
    assert set(q.answer_labels(lambda key: translate(key, "en"))) <= set(_buttons(student))
    race = [
        (el.proto.page, el.proto.query_string)
        for el in student.get("page_link")
        if el.proto.label == translate("poll.watch_race", "en")
    ]
    assert len(race) == 1 and "live" in race[0][0] and f"room={code}" in race[0][1], race


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_refused_poll_says_what_to_do(own_store, monkeypatch, lang):
    """Over the open polls of one network, a teacher is told why and what to do, with the
    idle while stated."""
    from poll import views

    monkeypatch.setattr(ps, "MAX_OPEN_PER_ADDRESS", 0)
    monkeypatch.setattr(views, "client_address", lambda: "203.0.113.7")  # as nginx says
    at = _room(lang, ask=QID)
    said = translate("poll.error.too_many_address", lang).format(n_address=0, idle=ps.IDLE_S // 60)
    assert said in [w.value for w in at.warning]
    assert "30" in said and "room" not in at.query_params
