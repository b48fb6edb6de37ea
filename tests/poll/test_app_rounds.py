"""Peer instruction through AppTest: the teacher's "Discuss, then vote again", a phone that
sees its own round-1 answer in round 2, the room's change of mind, the guide in the
teacher's sidebar only, and which round was closer once revealed (both languages)."""

from __future__ import annotations

import pytest

from core.i18n import translate
from poll import questions as pq
from poll import rounds as pr
from poll import views
from poll.checks import CheckStore
from tests.conftest import main_text
from tests.poll.test_app_poll import _buttons, _room
from tests.poll.test_app_poll import own_store as own_store  # noqa: F401 (fixture)

QID = "path_longest"  # a formula answers it: no model to load


def _code(at) -> str:
    room = at.query_params["room"]
    return room[0] if isinstance(room, list) else room


def _sidebar_text(at) -> str:
    parts = []
    for kind in ("markdown", "caption", "info"):
        parts += [str(el.value) for el in getattr(at.sidebar, kind)]
    return "\n".join(parts)


def asked(lang: str):
    """The question's words in ``lang``: (translate, answer labels, the models' answer,
    the other answers)."""

    def tr(key: str, **kw) -> str:
        return translate(key, lang, **kw)

    q = pq.BY_ID[QID]
    names = q.answer_labels(tr)
    right = q.solve().correct
    return tr, names, right, [i for i in range(len(names)) if i != right]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_two_rounds_from_the_projector_and_three_phones(own_store, lang):
    tr, names, right, wrong = asked(lang)
    teacher = _room(lang, ask=QID)
    code = _code(teacher)
    assert tr("poll.discuss") in _buttons(teacher)
    phones = [_room(lang, room=code) for _ in range(3)]
    first = (right, wrong[0], wrong[0])  # one right alone, two wrong
    for phone, answer in zip(phones, first, strict=True):
        _buttons(phone)[names[answer]].click().run(timeout=120)
    assert own_store.tally(code).counts[right] == 1

    # the guide, in the teacher's sidebar only: 1 of 3 right -> 33 %, "discuss"
    teacher.run(timeout=120)
    guide = _sidebar_text(teacher)
    assert tr("poll.guide.share", share="33%", n=3, answer=names[right]) in guide
    assert tr("poll.guide.discuss") in guide
    assert tr("poll.guide.discuss") not in main_text(teacher)
    for phone in phones:
        phone.run(timeout=120)
        assert tr("poll.guide.title") not in _sidebar_text(phone) + main_text(phone)

    _buttons(teacher)[tr("poll.discuss")].click().run(timeout=120)
    assert not teacher.exception, [e.message for e in teacher.exception]
    poll = own_store.get(code)
    assert (poll.stage, poll.state) == (2, "open")
    assert tr("poll.discuss") not in _buttons(teacher)  # one second round per question

    second = (right, right, wrong[1])  # one changed to the right answer, one elsewhere
    for phone, answer, was in zip(phones, second, first, strict=True):
        phone.run(timeout=120)
        assert tr("poll.student.round2", answer=names[was]) in main_text(phone)
        assert not any(b.label.startswith("✓") for b in phone.main.button)  # votes afresh
        _buttons(phone)[names[answer]].click().run(timeout=120)
        assert f"✓ {names[answer]}" in _buttons(phone)
    both = own_store.rounds_of(code)
    assert (both.changed, both.both) == (2, 3)

    teacher.run(timeout=120)
    text = main_text(teacher)
    assert tr("poll.rounds.changed", changed=2, both=3) in text
    assert tr("poll.rounds.move", n=1, a=names[wrong[0]], b=names[right]) in text
    assert tr("poll.rounds.closer_second", first="33%", second="67%") not in text  # not yet

    _buttons(teacher)[tr("poll.reveal")].click().run(timeout=120)
    assert not teacher.exception, [e.message for e in teacher.exception]
    assert pr.closer(own_store.rounds_of(code), right) == "second"
    assert tr("poll.rounds.closer_second", first="33%", second="67%") in main_text(teacher)
    phones[0].run(timeout=120)
    assert tr("poll.rounds.closer_second", first="33%", second="67%") in main_text(phones[0])


def test_a_teacher_who_never_discusses_sees_todays_room(own_store):
    teacher = _room("en", ask=QID)
    code = _code(teacher)
    phone = _room("en", room=code)
    _buttons(phone)[pq.BY_ID[QID].answer_labels(lambda k: translate(k, "en"))[0]].click().run()
    _buttons(teacher)[translate("poll.reveal", "en")].click().run(timeout=120)
    text = main_text(teacher)
    assert own_store.get(code).stage == 1
    assert translate("poll.rounds.none_both", "en") not in text
    assert "Round 1" not in text and translate("poll.voters", "en", n=1) in text


def test_what_two_rounds_say():
    from poll.store import Rounds, Tally

    both = Rounds(Tally((3, 1), 4), Tally((1, 3), 4), {(0, 1): 2, (0, 0): 1, (1, 1): 1}, 4)
    assert pr.share(both.first.counts, 1) == 0.25 and pr.share((0, 0), 1) is None
    assert pr.closer(both, 1) == "second" and pr.closer(both, 0) == "first"
    assert pr.moves(both, ["A", "B"]) == [(2, "A", "B")] and both.changed == 2
    assert [pr.advice(x) for x in (0.0, 0.29, 0.3, 0.7, 0.71, 1.0)] == [
        "explain",
        "explain",
        "discuss",
        "discuss",
        "move_on",
        "move_on",
    ]
    assert pr.closer(Rounds(Tally((1, 1), 2), Tally((0, 0), 0), {}, 0), 0) is None


def test_the_concept_check_before_and_after_gives_the_class_gain(own_store):
    """The teacher runs the check before and after on three phones; the projector shows
    progress only, then the gain computed from the phones' own answers."""
    from poll import concept as pc
    from poll import concept_views as cv

    teacher = _room("zh", ask=QID)
    code = _code(teacher)
    phones = [_room("zh", room=code) for _ in range(3)]

    def press(label: str) -> None:
        next(b for b in teacher.sidebar.button if b.label == label).click().run(timeout=120)
        assert not teacher.exception, [e.message for e in teacher.exception]

    right = cv.right_answers()
    n = len(pc.ITEMS)
    before = [  # phone 0 knows two, phone 1 none, phone 2 all
        [
            r if i < 2 else (r + 1) % item.n_answers
            for i, (item, r) in enumerate(zip(pc.ITEMS, right))
        ],
        [(r + 1) % item.n_answers for item, r in zip(pc.ITEMS, right)],
        list(right),
    ]
    after = [list(right), [r if i < 4 else (r + 1) % 3 for i, r in enumerate(right)], list(right)]
    for phase, label, picks in (
        ("pre", translate("poll.concept.start_pre", "zh"), before),
        ("post", translate("poll.concept.start_post", "zh"), after),
    ):
        press(label)
        assert own_store.get(code).check == phase
        for phone, mine in zip(phones, picks, strict=True):
            phone.run(timeout=120)
            assert len(phone.main.radio) == n
            for i, answer in enumerate(mine):
                phone.main.radio[i].set_value(answer).run(timeout=120)
            assert not phone.exception, [e.message for e in phone.exception]
        teacher.run(timeout=120)
        text = main_text(teacher)
        assert translate("poll.concept.room", "zh", started=3, done=3, n=n) in text
        assert not teacher.main.radio  # the projector shows no answer
    press(translate("poll.concept.show_gain", "zh"))
    g = pc.gain(CheckStore(own_store).check_answers(code), list(right))
    scores = [sum(a == r for a, r in zip(m, right)) / n for m in before]
    post = [sum(a == r for a, r in zip(m, right)) / n for m in after]
    pre_mean, post_mean = sum(scores) / 3, sum(post) / 3
    assert g.g == pytest.approx((post_mean - pre_mean) / (1 - pre_mean))
    headline = translate(
        "poll.gain.headline",
        "zh",
        g=f"{g.g:.2f}",
        pre=f"{pre_mean:.0%}",
        post=f"{post_mean:.0%}",
        n=3,
    )
    assert headline in main_text(teacher)
    phones[0].run(timeout=120)
    assert headline in main_text(phones[0])  # the phones see the class's result too
    back = translate("poll.concept.back", "zh")
    _buttons(teacher)[back].click().run(timeout=120)
    assert own_store.get(code).check is None
    assert translate("poll.reveal", "zh") in _buttons(teacher)


def test_the_rooms_csv_holds_both_rounds_and_nothing_of_a_student(own_store):
    import csv
    import io
    import re

    from poll import views

    teacher = _room("en", ask=QID)
    code = _code(teacher)
    browser = teacher.session_state[views.BROWSER]
    phone = _room("en", room=code)
    q = pq.BY_ID[QID]
    names = q.answer_labels(lambda k: translate(k, "en"))
    _buttons(phone)[names[0]].click().run(timeout=120)
    _buttons(teacher)[translate("poll.discuss", "en")].click().run(timeout=120)
    phone.run(timeout=120)
    _buttons(phone)[names[1]].click().run(timeout=120)
    text = views.room_csv(code, browser, "zh")
    rows = list(csv.DictReader(io.StringIO(text)))
    right = q.solve().correct
    zh = q.answer_labels(lambda k: translate(k, "zh"))
    assert [(r["round"], r["stage"], r["answer"], r["votes"]) for r in rows] == [
        ("1", "1", zh[0], "1"),
        ("1", "1", zh[1], "0"),
        ("1", "1", zh[2], "0"),
        ("2", "2", zh[0], "0"),
        ("2", "2", zh[1], "1"),
        ("2", "2", zh[2], "0"),
    ]
    assert [r["models_answer"] == "yes" for r in rows[:3]] == [i == right for i in range(3)]
    assert browser not in text and phone.session_state[views.BROWSER] not in text
    assert not re.search(r"[0-9a-f]{16}", text) and code not in text  # no digest, no room


def test_the_csv_answers_a_race_question_by_the_rooms_race(own_store):
    """A run-bound round's models' answer in the CSV is the room's race that ended after it
    opened (blank before one has), as the reveal's."""
    import csv
    import io

    from poll import views
    from poll.runs import RunStore
    from tests.poll.test_app_poll import _race_result

    teacher = "csv-test-teacher-0001"
    code = own_store.open("live_winner", 3, teacher)
    own_store.vote(code, "csv-test-student-0001", 1)

    def marks() -> list[str]:
        rows = list(csv.DictReader(io.StringIO(views.room_csv(code, teacher, "en"))))
        return [r["models_answer"] for r in rows]

    assert marks() == ["", "", ""]  # no race has ended: unknown, not guessed
    runs = RunStore(own_store)
    other = runs.start(teacher, {"kind": "coref", "steps": 10}, code)  # the "it" race
    runs.write(other, "done", [], {"final": {}})
    assert marks() == ["", "", ""]  # a race of another kind never answers it
    race = runs.start(teacher, {"max_len": 30}, code)
    runs.write(race, "done", [], _race_result(41.0, 23.0))
    verdict = pq.BY_ID["live_winner"].solve(runs.latest(code)).correct
    assert marks() == ["yes" if i == verdict else "no" for i in range(3)]


def test_a_teachers_phone_shows_the_guide_in_the_room(own_store):
    """Off the projector (no presenter mode: the teacher's phone or laptop) the guide sits
    under the teacher's buttons; a student's phone never gets it."""
    from tests.conftest import make_app

    tr, names, right, _ = asked("en")
    teacher = _room("en", ask=QID)
    code = _code(teacher)
    phone = _room("en", room=code)
    _buttons(phone)[names[right]].click().run(timeout=120)
    hand = make_app("pages/poll.py", lang="en", present="0", room=code)
    hand.session_state[views.BROWSER] = teacher.session_state[views.BROWSER]
    hand.run(timeout=120)
    assert not hand.exception, [e.message for e in hand.exception]
    assert tr("poll.guide.move_on") in main_text(hand)  # 1 of 1 right: 100 %
    assert tr("poll.guide.title") not in main_text(teacher)  # the projector: sidebar only
    phone.run(timeout=120)
    assert tr("poll.guide.title") not in main_text(phone) + _sidebar_text(phone)
