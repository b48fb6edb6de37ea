"""The poll database's schema: made once under a lock however many replicas start at once,
changed by numbered steps that run exactly once, never touched by an older app."""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa

from poll import store as ps
from tests.poll.test_poll_store import pg_url  # noqa: F401 (fixture)


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh_url(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'polls.sqlite3'}"
        return
    url = request.getfixturevalue("pg_url")
    engine = sa.create_engine(url)
    ps.metadata.drop_all(engine)  # an empty database, as a new cluster's
    engine.dispose()
    yield url
    engine = sa.create_engine(url)
    ps.metadata.drop_all(engine)
    engine.dispose()


def _start_replicas(url: str, n: int) -> list[BaseException]:
    """``n`` stores opened at once (as replicas starting together); their errors."""
    errors: list[BaseException] = []
    barrier = threading.Barrier(n)

    def replica() -> None:
        try:
            barrier.wait()
            ps.PollStore(url).dispose()
        except BaseException as err:  # noqa: BLE001 - reported by the test
            errors.append(err)

    threads = [threading.Thread(target=replica) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return errors


def _versions(url: str) -> list[int]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return list(conn.execute(sa.select(ps.schema.c.version)).scalars())
    finally:
        engine.dispose()


def test_replicas_starting_together_make_the_schema_once(fresh_url):
    assert _start_replicas(fresh_url, 6) == []
    assert _versions(fresh_url) == [ps.SCHEMA_VERSION]
    store = ps.PollStore(fresh_url)
    try:
        code = store.open("lm_next", 3, "b" * 32)
        store.vote(code, "s" * 32, 1)
        assert store.tally(code).voters == 1
    finally:
        store.dispose()


def test_a_schema_change_runs_once_whoever_starts_first(fresh_url, monkeypatch):
    assert _start_replicas(fresh_url, 1) == []
    ran: list[int] = []

    def add_column(conn: sa.Connection) -> None:
        ran.append(1)
        conn.execute(sa.text("ALTER TABLE polls ADD COLUMN note VARCHAR(16)"))

    new = ps.SCHEMA_VERSION + 1
    monkeypatch.setattr(ps, "SCHEMA_VERSION", new)
    monkeypatch.setitem(ps.MIGRATIONS, new, add_column)
    assert _start_replicas(fresh_url, 4) == []
    assert ran == [1] and _versions(fresh_url) == [new]
    engine = sa.create_engine(fresh_url)
    try:
        assert "note" in {c["name"] for c in sa.inspect(engine).get_columns("polls")}
    finally:
        engine.dispose()


def test_an_older_app_refuses_a_newer_database(fresh_url):
    assert _start_replicas(fresh_url, 1) == []
    engine = sa.create_engine(fresh_url)
    with engine.begin() as conn:
        conn.execute(ps.schema.update().values(version=ps.SCHEMA_VERSION + 1))
    engine.dispose()
    with pytest.raises(RuntimeError, match="newer app"):
        ps.PollStore(fresh_url)


def test_purge_from_the_command_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(ps.DATA_DIR_ENV, str(tmp_path))
    monkeypatch.delenv(ps.DB_URL_ENV, raising=False)
    store = ps.PollStore()
    code = store.open("lm_next", 3, "b" * 32)
    with store.engine.begin() as conn:  # opened two days ago
        conn.execute(ps.polls.update().values(created=store.clock() - 2 * ps.TTL_S))
    store.dispose()
    assert ps.main(["purge"]) == 0
    assert "purged 1 expired polls" in capsys.readouterr().out
    again = ps.PollStore()
    try:
        with pytest.raises(ps.PollError):
            again.get(code)
    finally:
        again.dispose()


def test_replicas_opening_a_new_sqlite_file_together_never_find_it_locked(tmp_path):
    """Turning a new SQLite file to WAL needs it alone, and SQLite answers a connection that
    meets another one doing it at once, without waiting (10 failures in 200 starts of six
    replicas on the old code, 0 in 400 with the retry; about 9 runs in 10 of this test fail
    on the old code)."""
    for i in range(40):
        assert _start_replicas(f"sqlite:///{tmp_path / f'polls{i}.sqlite3'}", 6) == []


def test_the_wal_switch_retries_only_a_locked_database(monkeypatch):
    import sqlite3

    monkeypatch.setattr(ps.time, "sleep", lambda s: None)

    class Cursor:
        def __init__(self, errors):
            self.errors, self.calls = list(errors), 0

        def execute(self, sql):
            self.calls += 1
            if self.errors:
                raise self.errors.pop(0)

    locked = sqlite3.OperationalError("database is locked")
    cur = Cursor([locked, locked])
    ps._wal(cur)
    assert cur.calls == 3
    with pytest.raises(sqlite3.OperationalError, match="disk I/O"):
        ps._wal(Cursor([sqlite3.OperationalError("disk I/O error")]))
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        ps._wal(Cursor([locked] * ps.WAL_TRIES))


def _version_1(url: str) -> None:
    """A database as version 1 of the app left it, with a class in it: its polls and
    live_runs tables without the later columns, a poll with votes, a finished race."""
    ps.PollStore(url).dispose()
    old = sa.MetaData()
    keep = {"polls": 7, "live_runs": 9}  # the first columns, as version 1 had them
    tables = [
        sa.Table(
            name,
            old,
            *[
                sa.Column(c.name, c.type, primary_key=c.primary_key, nullable=c.nullable)
                for c in list(ps.metadata.tables[name].columns)[:n]
            ],
        )
        for name, n in keep.items()
    ]
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        for name in keep:
            ps.metadata.tables[name].drop(conn)
        ps.keys.drop(conn)
        for table in tables:
            table.create(conn)
        conn.execute(ps.schema.update().values(version=1))
        poll = ("ABCD2345", ps._hash("teacher", "t" * 32), "lm_next", 3, "open", 1, 1.8e9)
        conn.execute(tables[0].insert().values(dict(zip(tables[0].c.keys(), poll, strict=True))))
        vote = {"code": "ABCD2345", "round": 1, "voter": ps._hash("voter", "s" * 32), "answer": 2}
        conn.execute(ps.votes.insert().values(vote))
        race = ("RUN23456", ps._hash("live", "t" * 32), "{}", "done", "[]")
        race += ('{"finished": 1800000100.0}', 0, 1_800_000_050.0, 1_800_000_050.0)
        conn.execute(tables[1].insert().values(dict(zip(tables[1].c.keys(), race, strict=True))))
    engine.dispose()


def test_a_version_1_database_upgrades_in_place_once_keeping_its_class(fresh_url):
    """Replicas of the new app starting together on a version-1 database: one upgrades it
    under the lock; the class's poll, votes and race are all still there, read as before
    (the poll active since it opened, the race nobody's room's)."""
    from poll.runs import RunStore

    _version_1(fresh_url)
    assert _versions(fresh_url) == [1]
    assert _start_replicas(fresh_url, 4) == []
    assert _versions(fresh_url) == [ps.SCHEMA_VERSION] == [3]
    engine = sa.create_engine(fresh_url)
    try:
        inspect = sa.inspect(engine)
        assert {"active", "address_hash"} <= {c["name"] for c in inspect.get_columns("polls")}
        assert {"room", "started"} <= {c["name"] for c in inspect.get_columns("live_runs")}
        assert "live_runs_by_status" in {i["name"] for i in inspect.get_indexes("live_runs")}
    finally:
        engine.dispose()
    store = ps.PollStore(fresh_url, clock=lambda: 1_800_000_200.0)
    try:
        poll = store.get("ABCD2345")
        assert (poll.state, poll.active, store.tally("ABCD2345").counts) == (
            "open",
            poll.created,
            (0, 0, 1),
        )
        runs = RunStore(store)
        assert runs.latest().id == "RUN23456" and runs.latest("ABCD2345") is None
        assert runs.done_since(1_800_000_000.0).id == "RUN23456"
        store.vote("ABCD2345", "s" * 32, 0)  # and it goes on working
        assert store.open("lm_next", 3, "u" * 32, "192.0.2.1")
    finally:
        store.dispose()


def _version_2(url: str) -> None:
    """A database as version 2 left it, mid-class: polls without a stage or a concept check,
    no rounds table, a poll in its second round (asked again) with votes in both rounds."""
    ps.PollStore(url).dispose()
    old = sa.MetaData()
    polls_v2 = sa.Table(
        "polls",
        old,
        *[
            sa.Column(c.name, c.type, primary_key=c.primary_key, nullable=c.nullable)
            for c in list(ps.polls.columns)[:9]
        ],
    )
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        for table in (ps.rounds, ps.concept, ps.polls):
            table.drop(conn)
        polls_v2.create(conn)
        conn.execute(ps.schema.update().values(version=2))
        poll = ("ABCD2345", ps._hash("teacher", "t" * 32), "lm_next", 4, "open", 2, 1.8e9)
        conn.execute(
            polls_v2.insert().values(
                dict(zip(polls_v2.c.keys(), (*poll, 1.8e9 + 60, None), strict=True))
            )
        )
        for round_, voter, answer in ((1, "s", 2), (2, "s", 1), (2, "u", 1)):
            row = {"code": "ABCD2345", "round": round_, "answer": answer}
            conn.execute(ps.votes.insert().values(row | {"voter": ps._hash("voter", voter * 32)}))
    engine.dispose()


def test_a_version_2_database_mid_class_upgrades_in_place_to_rounds(fresh_url):
    """Replicas starting together on a version-2 database with a class in it: one adds the
    stage and concept-check columns and the rounds table under the lock; the poll goes on
    in its round (stage 1: asked alone), its votes counted as before, and it can now be
    asked again after a discussion."""
    _version_2(fresh_url)
    assert _versions(fresh_url) == [2]
    assert _start_replicas(fresh_url, 4) == []
    assert _versions(fresh_url) == [3]
    engine = sa.create_engine(fresh_url)
    try:
        inspect = sa.inspect(engine)
        assert {"stage", "check_phase"} <= {c["name"] for c in inspect.get_columns("polls")}
        assert {"poll_rounds", "concept_answers"} <= set(inspect.get_table_names())
    finally:
        engine.dispose()
    store = ps.PollStore(fresh_url, clock=lambda: 1_800_000_200.0)
    try:
        poll = store.get("ABCD2345")
        assert (poll.round, poll.stage, poll.check) == (2, 1, None)
        assert store.tally("ABCD2345").counts == (0, 2, 0, 0)
        assert store.my_vote("ABCD2345", "s" * 32) == 1
        history = store.history("ABCD2345", "t" * 32)
        assert [(r.round, r.question, r.stage, r.counts) for r in history] == [
            (2, "lm_next", 1, (0, 2, 0, 0))
        ]
        again = store.discuss("ABCD2345", "t" * 32)
        assert (again.round, again.stage) == (3, 2)
        store.vote("ABCD2345", "s" * 32, 3)
        assert store.rounds_of("ABCD2345").moves == {(1, 3): 1}
    finally:
        store.dispose()
