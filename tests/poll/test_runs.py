"""Live training runs in the poll's store: the owner alone cancels and keeps a run alive,
everyone reads it, the progress and the result come back as written, a day later it is gone,
and a database made before runs existed gains their table on start."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from poll import store as ps
from poll.runs import RunStore
from tests.poll import test_poll_store as tps
from tests.poll.test_poll_store import TEACHER, Clock, b

make_store, pg_url = tps.make_store, tps.pg_url  # the store tests' fixtures: SQLite, PostgreSQL


def test_the_owner_starts_cancels_and_beats_others_only_read(make_store):
    clock = Clock()
    runs = RunStore(make_store(clock))
    run_id = runs.start(TEACHER, {"steps": 10})
    run = runs.get(run_id)
    # queued until a server's free training slot takes it (tests/poll/test_rooms.py)
    assert run.status == "queued" and run.active and run.progress == [] and not run.cancel
    assert run.room is None and run.started is None
    assert runs.latest().id == run_id and runs.is_owner(run_id, TEACHER)
    assert not runs.is_owner(run_id, b("student-aaaa"))
    for act in (runs.request_cancel, runs.beat):
        with pytest.raises(ps.PollError, match="not_teacher"):
            act(run_id, b("student-aaaa"))
    clock.now += 5
    runs.beat(run_id, TEACHER)
    assert runs.control(run_id) == (False, clock.now)
    runs.request_cancel(run_id, TEACHER)
    assert runs.control(run_id)[0] and runs.get(run_id).cancel


def test_progress_and_result_round_trip_and_expire(make_store):
    clock = Clock()
    polls = make_store(clock)
    runs = RunStore(polls)
    run_id = runs.start(TEACHER, {"steps": 10})
    records = [{"step": 5, "loss": {"plain": 3.2, "attention": 3.1}}]
    runs.write(run_id, "running", records)
    assert runs.get(run_id).progress == records and runs.get(run_id).status == "running"
    runs.write(run_id, "done", records, {"translation": {"ref": ["猫"]}})
    run = runs.get(run_id)
    # the result comes back as written, with when the run ended on the store's clock
    assert run.result == {"translation": {"ref": ["猫"]}, "finished": clock.now}
    assert not run.active
    with pytest.raises(ValueError):
        runs.write(run_id, "exploded", records)
    clock.now += ps.TTL_S + 1
    assert runs.get(run_id) is None and runs.latest() is None
    polls.purge()
    with polls.engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(ps.runs)).scalar_one() == 0


def test_done_since_is_the_race_that_ended_last_after_a_poll_opened(make_store):
    clock = Clock()
    runs = RunStore(make_store(clock))
    before = runs.start(TEACHER, {})
    runs.write(before, "done", [], {"n": "before"})  # ended before the poll opened
    clock.now += 10
    opened = clock.now
    assert runs.done_since(opened) is None
    watched = runs.start(TEACHER, {})
    clock.now += 60
    runs.write(watched, "running", [{"step": 1}])
    assert runs.done_since(opened) is None  # still training
    clock.now += 60
    runs.write(watched, "done", [{"step": 2}], {"n": "watched"})
    assert runs.done_since(opened).id == watched
    stopped = runs.start(TEACHER, {})
    clock.now += 5
    runs.write(stopped, "cancelled", [], {"n": "stopped"})  # a cancelled race answers nothing
    failed = runs.start(TEACHER, {})
    runs.write(failed, "failed", [], {"error": "x"})
    assert runs.done_since(opened).id == watched
    again = runs.start(TEACHER, {})
    clock.now += 60
    runs.write(again, "done", [], {"n": "again"})
    assert runs.done_since(opened).id == again  # the race that ended last
    assert runs.done_since(clock.now + 1) is None
    clock.now += ps.TTL_S + 120
    assert runs.done_since(opened) is None  # a day later it is gone


def test_a_database_made_before_runs_gains_their_table(tmp_path):
    url = f"sqlite:///{tmp_path / 'polls.sqlite3'}"
    ps.PollStore(url).dispose()
    engine = sa.create_engine(url)
    ps.runs.drop(engine)  # as the schema was before runs
    engine.dispose()
    store = ps.PollStore(url)
    try:
        assert (
            RunStore(store).start(TEACHER, {})
            and "live_runs" in sa.inspect(store.engine).get_table_names()
        )
    finally:
        store.dispose()


def test_a_runs_kind_rides_in_its_config_and_picks_the_answering_race(make_store):
    """The "it" race and the translation race share the queue; a run-bound question asks
    for its own kind, so a translation question is never answered by an "it" race."""
    clock = Clock()
    runs = RunStore(make_store(clock))
    old = runs.start(TEACHER, {"steps": 10})  # stored before kinds: a translation race
    it = runs.start(TEACHER, {"kind": "coref", "steps": 10})
    odd = runs.start(TEACHER, {"kind": "dance", "steps": 10})
    assert [runs.get(r).kind for r in (old, it, odd)] == ["translation", "coref", "translation"]
    assert runs.claim(60).id == old and runs.claim(60).id == it  # one queue, oldest first
    opened = clock.now
    clock.now += 5
    runs.write(old, "done", [], {"n": "translation"})
    clock.now += 5
    runs.write(it, "done", [], {"n": "it"})
    assert runs.done_since(opened).id == it  # any kind: the race that ended last
    assert runs.done_since(opened, kind="coref").id == it
    assert runs.done_since(opened, kind="translation").id == old
