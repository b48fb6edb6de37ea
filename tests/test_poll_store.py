"""The poll store on SQLite and PostgreSQL: the rules, concurrency, restarts, expiry."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from pathlib import Path

import pytest

from core.poll import store as ps
from core.poll.store import PollError, PollStore
from tests import pg


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
        from core.poll.store import metadata

        metadata.drop_all(made[0].engine)  # each test starts from empty tables
    for s in made:
        s.dispose()


def test_open_vote_change_tally_reveal(make_store):
    s = make_store()
    code, key = s.open("q1", 4)
    assert ps.valid_code(code) and len(key) >= 32
    s.vote(code, "voter-aaaa", 1)
    s.vote(code, "voter-bbbb", 1)
    s.vote(code, "voter-cccc", 3)
    s.vote(code, "voter-cccc", 2)  # changed: counted once, as the new answer
    assert s.tally(code).counts == (0, 2, 1, 0) and s.tally(code).voters == 3
    assert s.my_vote(code, "voter-cccc") == 2 and s.my_vote(code, "voter-zzzz") is None
    assert s.set_state(code, key, "revealed").state == "revealed"
    with pytest.raises(PollError) as err:
        s.vote(code, "voter-dddd", 0)
    assert err.value.reason == "closed"
    assert s.tally(code).counts == (0, 2, 1, 0)


def test_only_the_teacher_key_controls_a_poll(make_store):
    s = make_store()
    code, key = s.open("q1", 3)
    other, other_key = s.open("q2", 3)
    for forged in ("", "x" * 32, other_key, key[:-1] + ("A" if key[-1] != "A" else "B")):
        for action in (
            lambda k: s.set_state(code, k, "revealed"),
            lambda k: s.set_state(code, k, "closed"),
            lambda k: s.restart(code, k),
        ):
            with pytest.raises(PollError) as err:
                action(forged)
            assert err.value.reason == "not_teacher"
    assert s.get(code).state == "open" and s.get(code).round == 1
    assert s.is_teacher(code, key) and not s.is_teacher(code, other_key)
    assert s.is_teacher(other, other_key)


def test_bad_answers_and_hostile_codes_change_nothing(make_store):
    s = make_store()
    code, _ = s.open("q1", 3)
    s.vote(code, "voter-aaaa", 0)
    for answer in (-1, 3, 99, "1", None, 1.0):
        with pytest.raises(PollError) as err:
            s.vote(code, "voter-bbbb", answer)
        assert err.value.reason == "bad_answer"
    for bad in ("", "A" * 5000, "<script>", "ABCDEFG0", "abcdefgh", "'; DROP TABLE polls;--", None):
        with pytest.raises(PollError) as err:
            s.vote(bad, "voter-bbbb", 0)
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
    code, key = s.open("q1", 2)
    s.vote(code, "voter-aaaa", 1)
    clock.now += ps.TTL_S + 1
    for call in (lambda: s.get(code), lambda: s.vote(code, "voter-bbbb", 0)):
        with pytest.raises(PollError) as err:
            call()
        assert err.value.reason == "expired"
    assert s.purge() == 1
    with pytest.raises(PollError) as err:
        s.get(code)
    assert err.value.reason == "no_poll"


def test_a_new_round_starts_from_zero_and_next_question_changes_answers(make_store):
    s = make_store()
    code, key = s.open("q1", 2)
    s.vote(code, "voter-aaaa", 1)
    assert s.restart(code, key).round == 2
    assert s.tally(code).counts == (0, 0)
    poll = s.restart(code, key, "q2", 4)
    assert (poll.question, poll.n_answers, poll.state) == ("q2", 4, "open")
    s.vote(code, "voter-aaaa", 3)
    assert s.tally(code).counts == (0, 0, 0, 1)


def test_limits(make_store, monkeypatch):
    s = make_store()
    with pytest.raises(PollError):
        s.open("q1", ps.MAX_ANSWERS + 1)
    monkeypatch.setattr(ps, "MAX_VOTERS", 3)
    code, _ = s.open("q1", 2)
    for i in range(3):
        s.vote(code, f"voter-{i:04d}", 0)
    s.vote(code, "voter-0001", 1)  # an existing voter may still change
    with pytest.raises(PollError) as err:
        s.vote(code, "voter-new1", 0)
    assert err.value.reason == "full"
    monkeypatch.setattr(ps, "MAX_OPEN_POLLS", 2)
    s.open("q1", 2)
    with pytest.raises(PollError) as err:
        s.open("q1", 2)
    assert err.value.reason == "too_many"


def test_200_concurrent_votes_lose_none_and_count_none_twice(make_store):
    s = make_store()
    code, _ = s.open("q1", 4)
    errors: list[BaseException] = []

    def cast(t: int) -> None:
        try:
            for i in range(20):
                voter = f"voter-{t:02d}-{i:03d}"
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
    code, key = first.open("q1", 3)
    first.vote(code, "voter-aaaa", 2)
    first.dispose()  # the server goes down
    again = PollStore(url)
    assert again.get(code).state == "open"
    assert again.tally(code).counts == (0, 0, 1)
    assert again.is_teacher(code, key)
    mode = again.engine.connect().exec_driver_sql("PRAGMA journal_mode").scalar()
    assert mode == "wal"
    again.dispose()


def test_default_location_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.delenv(ps.DB_URL_ENV, raising=False)
    monkeypatch.setenv(ps.DATA_DIR_ENV, str(tmp_path / "data"))
    assert ps.default_url() == f"sqlite:///{tmp_path / 'data' / 'polls.sqlite3'}"
    monkeypatch.setenv(ps.DB_URL_ENV, "postgresql+psycopg://u@/db?host=/run/x")
    assert ps.default_url().startswith("postgresql")
