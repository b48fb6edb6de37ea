"""The poll store on SQLite and PostgreSQL: the rules, concurrency, restarts, expiry, one
voter row per browser, teacher browsers and their one-time hand-over codes."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from pathlib import Path

import pytest
import sqlalchemy as sa

from poll import store as ps
from poll.store import PollError, PollStore
from tests import pg

TEACHER = "teacher-browser-0001"  # browser ids: 16-64 url-safe characters
OTHER = "teacher-browser-0002"


def b(name: str) -> str:
    """A browser id for a short name (``voter-aaaa`` -> ``browser-voter-aaaa``)."""
    return f"browser-{name}"


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def pg_url():
    if pg.bin_dir() is None:
        msg = "PostgreSQL server binaries not found: apt-get install postgresql"
        if os.environ.get("CI"):
            pytest.fail(msg + " -- CI is set, so this is a failure, not a skip")
        pytest.skip(msg)
    folder = Path(tempfile.mkdtemp(prefix="road-pg-"))
    folder.chmod(0o755)
    server = pg.start(folder)
    try:
        yield server.url
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def make_store(request, tmp_path):
    made: list[PollStore] = []

    def make(clock=None) -> PollStore:
        if request.param == "sqlite":
            url = f"sqlite:///{tmp_path / 'polls.sqlite3'}"
        else:
            url = request.getfixturevalue("pg_url")
        s = PollStore(url, clock=clock or Clock())
        made.append(s)
        return s

    yield make
    if request.param == "postgresql" and made:
        from poll.store import metadata

        metadata.drop_all(made[0].engine)  # each test starts from empty tables
    for s in made:
        s.dispose()


def test_open_vote_change_tally_reveal(make_store):
    s = make_store()
    code = s.open("q1", 4, TEACHER)
    assert ps.valid_code(code)
    s.vote(code, b("voter-aaaa"), 1)
    s.vote(code, b("voter-bbbb"), 1)
    s.vote(code, b("voter-cccc"), 3)
    s.vote(code, b("voter-cccc"), 2)  # changed: counted once, as the new answer
    assert s.tally(code).counts == (0, 2, 1, 0) and s.tally(code).voters == 3
    assert s.my_vote(code, b("voter-cccc")) == 2 and s.my_vote(code, b("voter-zzzz")) is None
    assert s.set_state(code, TEACHER, "revealed").state == "revealed"
    with pytest.raises(PollError) as err:
        s.vote(code, b("voter-dddd"), 0)
    assert err.value.reason == "closed"
    assert s.tally(code).counts == (0, 2, 1, 0)


def test_only_a_teacher_browser_controls_a_poll(make_store):
    s = make_store()
    code = s.open("q1", 3, TEACHER)
    other = s.open("q2", 3, OTHER)
    for forged in ("", None, "x" * 32, OTHER, TEACHER[:-1] + "9", TEACHER + "0", "a b" * 8):
        for action in (
            lambda k: s.set_state(code, k, "revealed"),
            lambda k: s.set_state(code, k, "closed"),
            lambda k: s.restart(code, k),
            lambda k: s.handover(code, k),
        ):
            with pytest.raises(PollError) as err:
                action(forged)
            assert err.value.reason == "not_teacher"
    assert s.get(code).state == "open" and s.get(code).round == 1
    assert s.is_teacher(code, TEACHER) and not s.is_teacher(code, OTHER)
    assert s.is_teacher(other, OTHER) and not s.is_teacher(other, TEACHER)


def test_the_store_keeps_digests_of_browser_ids_never_the_ids(make_store):
    s = make_store()
    code = s.open("q1", 3, TEACHER)
    s.vote(code, TEACHER, 1)  # the teacher may vote too: a voter row that is no teacher row
    with s.engine.connect() as conn:
        rows = [tuple(r) for t in (ps.polls, ps.votes) for r in conn.execute(sa.select(t))]
    assert rows and not any(TEACHER in str(v) for row in rows for v in row)
    hashes = {row[1] for row in rows if row[0] == code and isinstance(row[1], str)}
    voters = {row[2] for row in rows if len(row) == 4}
    assert len(voters) == 1 and not voters & hashes  # the voter digest is not the teacher's


def test_one_voter_row_per_browser_id(make_store):
    """Changing a vote updates the browser's row; the primary key refuses a second row for
    the same browser id in the same round, whoever writes it."""
    s = make_store()
    code = s.open("q1", 3, TEACHER)
    for answer in (0, 2, 1):
        s.vote(code, b("voter-aaaa"), answer)
    with s.engine.connect() as conn:
        rows = conn.execute(sa.select(ps.votes).where(ps.votes.c.code == code)).all()
    assert len(rows) == 1 and rows[0].answer == 1
    assert s.tally(code).voters == 1
    with pytest.raises(sa.exc.IntegrityError):
        with s.engine.begin() as conn:
            conn.execute(ps.votes.insert().values(**(rows[0]._asdict() | {"answer": 0})))
    assert s.tally(code).counts == (0, 1, 0)
    for bad in ("", "short", "x" * 65, "<script>alert(1)</script>", None, 42):
        with pytest.raises(PollError) as err:
            s.vote(code, bad, 0)
        assert err.value.reason == "bad_browser"
        assert s.my_vote(code, bad) is None


def test_a_handover_code_adds_one_device_once(make_store):
    clock = Clock()
    s = make_store(clock)
    code = s.open("q1", 3, TEACHER)
    phone = "teacher-phone-0001"
    token, expires = s.handover(code, TEACHER)
    assert ps.valid_code(token) and expires == clock.now + ps.HANDOVER_S
    assert not s.is_teacher(code, phone)
    s.take_over(code, token.lower()[:4] + "-" + token[4:], phone)  # typed on a phone
    assert s.is_teacher(code, phone) and s.is_teacher(code, TEACHER)  # the projector keeps it
    assert s.set_state(code, phone, "revealed").state == "revealed"
    # replayed: the code was used up
    for who in ("student-browser-01", phone):
        with pytest.raises(PollError) as err:
            s.take_over(code, token, who)
        assert err.value.reason == "bad_handover"
    assert not s.is_teacher(code, "student-browser-01")


def test_forged_expired_and_foreign_handover_codes_are_refused(make_store):
    clock = Clock()
    s = make_store(clock)
    code = s.open("q1", 3, TEACHER)
    other = s.open("q2", 3, OTHER)
    student = "student-browser-01"
    token, _ = s.handover(code, TEACHER)
    forged = [
        "",
        None,
        "ZZZZZZZZ" if token != "ZZZZZZZZ" else "YYYYYYYY",
        token[:-1] + ("2" if token[-1] != "2" else "3"),
        "'; DROP TABLE poll_handovers;--",
    ]
    for bad in forged:
        with pytest.raises(PollError) as err:
            s.take_over(code, bad, student)
        assert err.value.reason == "bad_handover"
    with pytest.raises(PollError) as err:  # a code is good for its own room only
        s.take_over(other, token, student)
    assert err.value.reason == "bad_handover"
    newer, _ = s.handover(code, TEACHER)  # a new code replaces the last one
    with pytest.raises(PollError):
        s.take_over(code, token, student)
    clock.now += ps.HANDOVER_S + 1  # and expires
    with pytest.raises(PollError) as err:
        s.take_over(code, newer, student)
    assert err.value.reason == "bad_handover"
    assert not s.is_teacher(code, student) and not s.is_teacher(other, student)
    with pytest.raises(PollError) as err:
        s.set_state(code, student, "revealed")
    assert err.value.reason == "not_teacher"


def test_bad_answers_and_hostile_codes_change_nothing(make_store):
    s = make_store()
    code = s.open("q1", 3, TEACHER)
    s.vote(code, b("voter-aaaa"), 0)
    for answer in (-1, 3, 99, "1", None, 1.0):
        with pytest.raises(PollError) as err:
            s.vote(code, b("voter-bbbb"), answer)
        assert err.value.reason == "bad_answer"
    for bad in ("", "A" * 5000, "<script>", "ABCDEFG0", "abcdefgh", "'; DROP TABLE polls;--", None):
        with pytest.raises(PollError) as err:
            s.vote(bad, b("voter-bbbb"), 0)
        assert err.value.reason == "bad_code"
    missing = "ZZZZZZZZ" if code != "ZZZZZZZZ" else "YYYYYYYY"
    with pytest.raises(PollError) as err:
        s.tally(missing)
    assert err.value.reason == "no_poll"
    assert s.tally(code).counts == (1, 0, 0)
    assert ps.normalise_code(" abcd-efgh ") == "ABCDEFGH"


def test_polls_expire_and_are_purged(make_store):
    clock = Clock()
    s = make_store(clock)
    code = s.open("q1", 2, TEACHER)
    s.vote(code, b("voter-aaaa"), 1)
    s.handover(code, TEACHER)
    clock.now += ps.TTL_S + 1
    for call in (lambda: s.get(code), lambda: s.vote(code, b("voter-bbbb"), 0)):
        with pytest.raises(PollError) as err:
            call()
        assert err.value.reason == "expired"
    assert s.purge() == 1
    with s.engine.connect() as conn:
        for table in (ps.votes, ps.teachers, ps.handovers):
            assert conn.execute(sa.select(sa.func.count()).select_from(table)).scalar() == 0
    with pytest.raises(PollError) as err:
        s.get(code)
    assert err.value.reason == "no_poll"


def test_a_new_round_starts_from_zero_and_next_question_changes_answers(make_store):
    s = make_store()
    code = s.open("q1", 2, TEACHER)
    s.vote(code, b("voter-aaaa"), 1)
    assert s.restart(code, TEACHER).round == 2
    assert s.tally(code).counts == (0, 0)
    poll = s.restart(code, TEACHER, "q2", 4)
    assert (poll.question, poll.n_answers, poll.state) == ("q2", 4, "open")
    s.vote(code, b("voter-aaaa"), 3)
    assert s.tally(code).counts == (0, 0, 0, 1)


def test_limits(make_store, monkeypatch):
    s = make_store()
    with pytest.raises(PollError):
        s.open("q1", ps.MAX_ANSWERS + 1, TEACHER)
    monkeypatch.setattr(ps, "MAX_VOTERS", 3)
    code = s.open("q1", 2, TEACHER)
    for i in range(3):
        s.vote(code, b(f"voter-{i:04d}"), 0)
    s.vote(code, b("voter-0001"), 1)  # an existing voter may still change
    with pytest.raises(PollError) as err:
        s.vote(code, b("voter-new1"), 0)
    assert err.value.reason == "full"
    monkeypatch.setattr(ps, "MAX_OPEN_POLLS", 2)
    s.open("q1", 2, TEACHER)
    with pytest.raises(PollError) as err:
        s.open("q1", 2, TEACHER)
    assert err.value.reason == "too_many"


def test_200_concurrent_votes_lose_none_and_count_none_twice(make_store):
    s = make_store()
    code = s.open("q1", 4, TEACHER)
    errors: list[BaseException] = []

    def cast(t: int) -> None:
        try:
            for i in range(20):
                voter = b(f"voter-{t:02d}-{i:03d}")
                s.vote(code, voter, (t + i) % 4)
                if i % 5 == 0:  # some change their mind: still one vote each
                    s.vote(code, voter, (t + i + 1) % 4)
        except BaseException as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)

    threads = [threading.Thread(target=cast, args=(t,)) for t in range(10)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    assert errors == []
    tally = s.tally(code)
    assert tally.voters == 200
    expected = [0, 0, 0, 0]
    for t in range(10):
        for i in range(20):
            expected[(t + i + (1 if i % 5 == 0 else 0)) % 4] += 1
    assert list(tally.counts) == expected


def test_a_restart_keeps_open_polls_and_votes(tmp_path):
    url = f"sqlite:///{tmp_path / 'polls.sqlite3'}"
    first = PollStore(url)
    code = first.open("q1", 3, TEACHER)
    first.vote(code, b("voter-aaaa"), 2)
    first.dispose()  # the server goes down
    again = PollStore(url)
    assert again.get(code).state == "open"
    assert again.tally(code).counts == (0, 0, 1)
    assert again.is_teacher(code, TEACHER)
    mode = again.engine.connect().exec_driver_sql("PRAGMA journal_mode").scalar()
    assert mode == "wal"
    again.dispose()


def test_default_location_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.delenv(ps.DB_URL_ENV, raising=False)
    monkeypatch.setenv(ps.DATA_DIR_ENV, str(tmp_path / "data"))
    assert ps.default_url() == f"sqlite:///{tmp_path / 'data' / 'polls.sqlite3'}"
    monkeypatch.setenv(ps.DB_URL_ENV, "postgresql+psycopg://u@/db?host=/run/x")
    assert ps.default_url().startswith("postgresql")
