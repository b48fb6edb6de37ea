"""Peer instruction in the store, on SQLite and PostgreSQL: a question's round 1 and round 2,
one vote per browser per round, who changed their mind, the room's rounds for the CSV, and
the concept check's answers before and after."""

from __future__ import annotations

import pytest

from poll import store as ps
from poll.checks import CheckStore
from poll.store import PollError
from tests.poll.test_poll_store import (
    TEACHER,
    Clock,
    b,
    pg_url,  # noqa: F401 (fixture)
)
from tests.poll.test_poll_store import make_store as make_store  # noqa: F401 (fixture)


def test_round_two_keeps_round_one_and_counts_who_changed(make_store):
    s = make_store()
    code = s.open("q1", 3, TEACHER)
    assert s.get(code).stage == 1 and s.rounds_of(code) is None
    for voter, answer in (("aaaa", 0), ("bbbb", 0), ("cccc", 1), ("dddd", 2)):
        s.vote(code, b(f"voter-{voter}"), answer)
    s.vote(code, b("voter-dddd"), 2)  # again in round 1: still one vote
    poll = s.discuss(code, TEACHER)
    assert (poll.stage, poll.round, poll.first_round, poll.state) == (2, 2, 1, "open")
    assert s.tally(code).voters == 0  # round 2 starts empty: every browser votes afresh
    assert s.my_vote(code, b("voter-aaaa")) is None
    assert s.my_vote(code, b("voter-aaaa"), poll.first_round) == 0  # its own first answer
    s.vote(code, b("voter-aaaa"), 1)  # changed 0 -> 1
    s.vote(code, b("voter-bbbb"), 0)  # kept
    s.vote(code, b("voter-cccc"), 2)
    s.vote(code, b("voter-cccc"), 1)  # changed its round-2 vote back: kept 1 -> 1
    s.vote(code, b("voter-eeee"), 1)  # new in round 2
    both = s.rounds_of(code)
    assert both.first.counts == (2, 1, 1) and both.second.counts == (1, 3, 0)
    assert both.moves == {(0, 1): 1, (0, 0): 1, (1, 1): 1}
    assert (both.changed, both.both) == (1, 3)
    assert s.tally(code, 1).counts == (2, 1, 1)  # round 1 as it was


def test_vote_again_once_per_question_and_a_teacher_only(make_store):
    s = make_store()
    code = s.open("q1", 3, TEACHER)
    with pytest.raises(PollError) as err:
        s.discuss(code, b("student-xxxx"))
    assert err.value.reason == "not_teacher"
    s.discuss(code, TEACHER)
    with pytest.raises(PollError) as err:
        s.discuss(code, TEACHER)
    assert err.value.reason == "second_round"
    s.set_state(code, TEACHER, "revealed")
    again = s.restart(code, TEACHER)  # "ask again": a fresh round 1, nothing to compare
    assert (again.stage, again.round) == (1, 3) and s.rounds_of(code) is None
    s.set_state(code, TEACHER, "revealed")
    with pytest.raises(PollError) as err:  # revealed: the room knows the answer already
        s.discuss(code, TEACHER)
    assert err.value.reason == "second_round"


def test_a_single_round_poll_is_todays_poll(make_store):
    s = make_store()
    code = s.open("q1", 2, TEACHER)
    s.vote(code, b("voter-aaaa"), 1)
    assert s.set_state(code, TEACHER, "revealed").stage == 1
    assert s.tally(code).counts == (0, 1) and s.rounds_of(code) is None


def test_the_rooms_history_holds_every_round_with_its_counts(make_store):
    s = make_store()
    code = s.open("q1", 2, TEACHER)
    s.vote(code, b("voter-aaaa"), 1)
    s.discuss(code, TEACHER)
    s.vote(code, b("voter-aaaa"), 0)
    s.vote(code, b("voter-bbbb"), 0)
    s.restart(code, TEACHER, "q2", 3)
    s.vote(code, b("voter-aaaa"), 2)
    rows = s.history(code, TEACHER)
    assert [(r.round, r.question, r.stage, r.counts) for r in rows] == [
        (1, "q1", 1, (0, 1)),
        (2, "q1", 2, (2, 0)),
        (3, "q2", 1, (0, 0, 1)),
    ]
    with pytest.raises(PollError) as err:
        s.history(code, b("voter-aaaa"))
    assert err.value.reason == "not_teacher"


def test_the_concept_check_keeps_pre_and_post_per_browser(make_store):
    s = make_store()
    c = CheckStore(s)
    code = s.open("q1", 2, TEACHER)
    with pytest.raises(PollError) as err:
        c.answer_check(code, b("voter-aaaa"), 0, 1)
    assert err.value.reason == "no_check"
    with pytest.raises(PollError) as err:
        c.set_check(code, b("voter-aaaa"), "pre")
    assert err.value.reason == "not_teacher"
    assert c.set_check(code, TEACHER, "pre").check == "pre"
    c.answer_check(code, b("voter-aaaa"), 0, 1)
    c.answer_check(code, b("voter-aaaa"), 0, 2)  # changed: one answer per item and phase
    c.answer_check(code, b("voter-aaaa"), 1, 0)
    c.answer_check(code, b("voter-bbbb"), 0, 0)
    for bad in ((ps.MAX_ITEMS, 0), (0, ps.MAX_ANSWERS), (-1, 0)):
        with pytest.raises(PollError):
            c.answer_check(code, b("voter-aaaa"), *bad)
    c.set_check(code, TEACHER, "post")
    c.answer_check(code, b("voter-aaaa"), 0, 3)
    assert c.my_check(code, b("voter-aaaa"), "pre") == {0: 2, 1: 0}
    assert c.my_check(code, b("voter-aaaa"), "post") == {0: 3}
    answers = c.check_answers(code)
    assert sorted(len(v) for v in answers["pre"].values()) == [1, 2]
    assert list(answers["post"].values()) == [{0: 3}]
    digest = next(iter(answers["post"]))
    assert "voter-aaaa" not in digest and answers["pre"][digest] == {0: 2, 1: 0}
    assert c.set_check(code, TEACHER, None).check is None
    assert c.check_answers(code)["pre"]  # kept until the poll is deleted


def test_rounds_and_the_concept_check_go_with_the_poll(make_store):
    clock = Clock()
    s = make_store(clock)
    c = CheckStore(s)
    code = s.open("q1", 2, TEACHER)
    c.set_check(code, TEACHER, "pre")
    c.answer_check(code, b("voter-aaaa"), 0, 1)
    s.discuss(code, TEACHER)
    clock.now += ps.TTL_S + 1
    assert s.purge() == 1
    with s.engine.connect() as conn:
        for table in (ps.rounds, ps.concept, ps.votes):
            assert conn.execute(ps.sa.select(ps.sa.func.count()).select_from(table)).scalar() == 0
