"""A room is the unit: two rooms' races and reveals never mix, races of several rooms queue
for the training slots (a class's before a visitor's own, then the oldest; places and waits
from the runs' own pace), only a race's owner or its room's teacher cancels it, and open
polls are capped per teacher browser, per address (a keyed digest, kept while open) and per
database, an idle poll closing by itself. SQLite and PostgreSQL."""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa

from poll import store as ps
from poll.runs import Place, RunStore
from poll.store import PollError
from poll.training import RunManager
from tests.live_fake import fake_child
from tests.poll import test_poll_store as tps
from tests.poll.test_poll_store import TEACHER, Clock, b

make_store, pg_url = tps.make_store, tps.pg_url  # the store tests' fixtures: SQLite, PostgreSQL
OTHER = "teacher-browser-0002"


def _two_rooms(s: ps.PollStore) -> tuple[str, str]:
    return s.open("live_winner", 3, TEACHER), s.open("live_winner", 3, OTHER)


def _done(runs: RunStore, run_id: str, clock: Clock, elapsed: float) -> None:
    clock.now += elapsed
    runs.write(run_id, "done", [{"step": 10, "elapsed": elapsed}], {"elapsed": elapsed})


def test_two_rooms_races_and_reveals_never_mix(make_store):
    clock = Clock()
    s = make_store(clock)
    runs = RunStore(s)
    room_a, room_b = _two_rooms(s)
    opened = clock.now
    alone = runs.start(b("visitor-aaaa"), {"steps": 10})  # a visitor with no class
    race_a = runs.start(TEACHER, {"steps": 10}, room_a)
    clock.now += 1
    race_b = runs.start(OTHER, {"steps": 10}, room_b)
    assert runs.latest(room_a).id == race_a and runs.latest(room_b).id == race_b
    assert runs.latest().id == alone  # a visitor in no room sees the visitors' race only
    assert runs.latest(ps.normalise_code("ZZZZZZZZ")) is None  # a room without a race
    _done(runs, race_b, clock, 30)
    assert runs.done_since(opened, room_a) is None  # B's end is not A's answer
    assert runs.done_since(opened, room_b).id == race_b
    _done(runs, race_a, clock, 40)
    _done(runs, alone, clock, 50)  # ended last of all: still nobody's room's answer
    assert runs.done_since(opened, room_a).id == race_a
    assert runs.done_since(opened, room_b).id == race_b
    assert runs.done_since(opened).id == alone
    with pytest.raises(PollError, match="bad_code"):
        runs.start(TEACHER, {}, "<script>")


def test_a_teacher_brings_the_race_started_alone_into_the_room(make_store):
    clock = Clock()
    s = make_store(clock)
    runs = RunStore(s)
    mine = runs.start(TEACHER, {"steps": 10})
    theirs = runs.start(OTHER, {"steps": 10})
    ended = runs.start(TEACHER, {"steps": 10})
    runs.write(ended, "done", [], {})
    room = s.open("live_winner", 3, TEACHER)
    assert s.teacher_room(TEACHER) == room and s.teacher_room(OTHER) is None
    assert runs.adopt(TEACHER, room) == 1  # the active one; not the ended one, nor another's
    assert runs.get(mine).room == room and runs.get(theirs).room is None
    assert runs.get(ended).room is None


def test_the_queue_takes_a_class_first_then_the_oldest_once(make_store):
    clock = Clock()
    s = make_store(clock)
    runs = RunStore(s)
    room_a, room_b = _two_rooms(s)
    alone = runs.start(b("visitor-aaaa"), {"steps": 100})
    clock.now += 1
    race_a = runs.start(TEACHER, {"steps": 100}, room_a)
    clock.now += 1
    race_b = runs.start(OTHER, {"steps": 100}, room_b)
    places = {rid: runs.place(runs.get(rid)).place for rid in (alone, race_a, race_b)}
    assert places == {race_a: 1, race_b: 2, alone: 3}
    # nothing trains and nothing was measured: no wait is stated
    assert runs.place(runs.get(race_a)).wait_s is None
    assert runs.place(runs.get(race_b)).wait_s is None
    first = runs.claim(stale_s=60)
    assert first.id == race_a and first.status == "starting" and first.started == clock.now
    assert runs.place(first) is None  # no longer in line
    assert runs.place(runs.get(race_b)).wait_s is None  # A prepares: not one step timed
    # A trains at 0.5 s a step, 40 of 100 done: 30 s left; B is next, the visitor after it
    runs.write(race_a, "running", [{"step": 40, "elapsed": 20.0}])
    assert runs.place(runs.get(race_b)) == Place(1, 30.0)
    assert runs.place(runs.get(alone)).place == 2
    assert runs.place(runs.get(alone)).wait_s is None  # a whole race ahead, none measured
    _done(runs, race_a, clock, 50)
    assert runs.claim(stale_s=60).id == race_b
    # B prepares (no step timed yet): a whole race as races took here lately, A's 50 s
    assert runs.place(runs.get(alone)) == Place(1, 50.0)
    runs.write(race_b, "running", [{"step": 10, "elapsed": 4.0}])  # 36 s left
    late = runs.start(b("visitor-bbbb"), {"steps": 100})
    # the visitor's first race: after B's 36 s; the later one a measured race (50 s) more
    # (one slot busy: one run at a time leaves it)
    assert runs.place(runs.get(alone)).wait_s == pytest.approx(36.0)
    assert runs.place(runs.get(late)).wait_s == pytest.approx(36.0 + 50.0)
    assert runs.claim(stale_s=60).id == alone
    clock.now += 120  # the late visitor's page has been gone for two minutes
    assert runs.claim(stale_s=60) is None and runs.get(late).status == "cancelled"


def test_two_servers_claiming_at_once_take_each_run_once(make_store):
    s = make_store(Clock())
    runs = RunStore(s)
    queued = {runs.start(b(f"visitor-{i:04d}"), {"steps": 10}) for i in range(6)}
    taken: list[str] = []
    barrier = threading.Barrier(3)

    def server() -> None:
        barrier.wait()
        while (run := runs.claim(stale_s=60)) is not None:
            taken.append(run.id)

    threads = [threading.Thread(target=server) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(taken) == sorted(queued)  # each exactly once


@pytest.fixture(params=["sqlite", "postgresql"])
def manager(request, tmp_path):
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'polls.sqlite3'}"
    else:
        url = request.getfixturevalue("pg_url")
    m = RunManager(url)
    m.target, m.slots = fake_child, 1
    yield m
    m.shutdown()
    if request.param == "postgresql":
        ps.metadata.drop_all(m.polls.engine)  # each test starts from empty tables
    m.polls.dispose()


def _wait(pred, timeout: float = 60.0) -> None:
    import time

    t0 = time.monotonic()
    while not pred():
        assert time.monotonic() - t0 < timeout, "timed out"
        time.sleep(0.1)


def test_rooms_queue_for_the_slots_and_cancel_only_their_own(manager):
    """One slot: room A trains, room B waits first in line; B's teacher cannot stop A's race
    (nor A's B's), a room's teacher who did not start it can; a second start in a room is
    refused with the race it has; a free slot takes B's."""
    s = manager.polls
    room_a, room_b = _two_rooms(s)
    helper = b("teacher-phone-a")  # A's teacher's second device
    token, _ = s.handover(room_a, TEACHER)
    s.take_over(room_a, token, helper)
    config = {"steps": 10_000}
    race_a = manager.start(TEACHER, config, room_a)
    race_b = manager.start(OTHER, config, room_b)
    assert manager.training() == [race_a]
    assert manager.runs.get(race_b).status == "queued"
    assert manager.runs.place(manager.runs.get(race_b)).place == 1
    again = manager.start(helper, config, room_a)
    assert again.run_id == race_a  # Busy: the room has its race
    for run_id, outsider in ((race_a, OTHER), (race_b, TEACHER), (race_a, b("student-aaaa"))):
        assert not manager.may_cancel(manager.runs.get(run_id), outsider)
        with pytest.raises(PollError, match="not_teacher"):
            manager.cancel(run_id, outsider)
    assert manager.runs.get(race_a).status in ("starting", "running")
    assert manager.may_cancel(manager.runs.get(race_a), helper)
    assert manager.cancel(race_a, helper).status == "cancelled"  # its room's teacher
    _wait(lambda: manager.training() == [race_b])  # the freed slot took B's
    assert manager.cancel(race_b, OTHER).status == "cancelled"
    _wait(lambda: manager.training() == [])


def test_a_replica_with_a_free_slot_takes_a_race_queued_on_another(manager):
    """Two replicas on one database, one slot each: the race queued on the busy one is
    trained by the other, with no page open on it (its own watch of the queue)."""
    room_a, room_b = _two_rooms(manager.polls)
    race_a = manager.start(TEACHER, {"steps": 10_000}, room_a)
    race_b = manager.start(OTHER, {"steps": 10_000}, room_b)
    assert manager.training() == [race_a] and manager.runs.get(race_b).status == "queued"
    other = RunManager(manager.polls.url)
    other.target, other.slots = fake_child, 1
    try:
        _wait(lambda: other.training() == [race_b])
        _wait(lambda: len(manager.runs.get(race_b).progress) >= 1)  # and it trains
        assert manager.training() == [race_a]
    finally:
        other.shutdown()
        other.polls.dispose()


def test_the_slots_follow_the_cpu_quota(monkeypatch):
    from poll import training

    monkeypatch.delenv(training.SLOTS_ENV, raising=False)
    for cores, want in ((1, 1), (2, 1), (3, 1), (4, 2), (8, 4)):
        monkeypatch.setattr(training.cpus, "cores", lambda n=cores: n)
        assert training.slots() == want
    monkeypatch.setenv(training.SLOTS_ENV, "3")
    assert training.slots() == 3


# --- poll caps ---------------------------------------------------------------------------


def test_open_polls_are_capped_per_teacher_then_per_address_then_globally(make_store, monkeypatch):
    s = make_store(Clock())
    school = "203.0.113.7"  # one NAT, many teachers
    for _ in range(ps.MAX_OPEN_PER_TEACHER):
        s.open("q1", 2, TEACHER, school)
    with pytest.raises(PollError, match="too_many_teacher"):
        s.open("q1", 2, TEACHER, school)
    monkeypatch.setattr(ps, "MAX_OPEN_PER_ADDRESS", 5)
    s.open("q1", 2, b("teacher-aaaa"), school)
    s.open("q1", 2, b("teacher-bbbb"), school)
    with pytest.raises(PollError, match="too_many_address"):
        s.open("q1", 2, b("teacher-cccc"), school)
    s.open("q1", 2, b("teacher-cccc"), "198.51.100.9")  # another school is not held up
    code = s.open("q1", 2, b("teacher-dddd"))  # no address known: the other caps only
    s.set_state(code, b("teacher-dddd"), "closed")
    s.open("q1", 2, b("teacher-dddd"))  # a closed poll no longer counts
    monkeypatch.setattr(ps, "MAX_OPEN_POLLS", 7)  # 3 + 2 + 1 + 1 open above
    with pytest.raises(PollError, match="too_many$"):
        s.open("q1", 2, b("teacher-eeee"), "192.0.2.1")


def test_the_address_is_kept_as_a_keyed_digest_only_while_open(make_store, monkeypatch):
    s = make_store(Clock())
    address = "203.0.113.7"
    code = s.open("q1", 2, TEACHER, address)
    with s.engine.connect() as conn:
        dump = " ".join(str(v) for row in conn.execute(sa.select(ps.polls)) for v in row)
        stored = conn.execute(sa.select(ps.polls.c.address_hash)).scalar_one()
    assert address not in dump and "203.0.113" not in dump
    import hashlib

    assert stored not in (hashlib.sha256(address.encode()).hexdigest(), None)  # keyed
    monkeypatch.setenv(ps.ADDRESS_KEY_ENV, "a deployment's secret")
    other = ps.PollStore(s.url, clock=s.clock)
    try:
        assert other._address(address) != stored  # noqa: SLF001 - the key decides the digest
    finally:
        other.dispose()
    s.set_state(code, TEACHER, "revealed")
    with s.engine.connect() as conn:
        assert conn.execute(sa.select(ps.polls.c.address_hash)).scalar_one() is None


def test_an_idle_poll_closes_by_itself_and_a_teacher_screen_keeps_it_open(make_store):
    clock = Clock()
    s = make_store(clock)
    shown = s.open("q1", 2, TEACHER)
    voted = s.open("q1", 2, OTHER)
    left = s.open("q1", 2, b("teacher-aaaa"))
    for _ in range(7):  # 35 minutes: the projector looks every 2 s, a vote every 5 minutes
        clock.now += ps.TOUCH_S
        s.seen(s.get(shown))
        s.vote(voted, b("voter-aaaa"), 1)
    assert s.get(shown).state == "open" and s.get(voted).state == "open"
    assert s.get(left).state == "closed"  # 35 min without a vote, a change or a screen
    with pytest.raises(PollError, match="closed"):
        s.vote(left, b("voter-aaaa"), 0)
    s.purge()
    with s.engine.connect() as conn:
        states = dict(conn.execute(sa.select(ps.polls.c.code, ps.polls.c.state)).all())
    assert states == {shown: "open", voted: "open", left: "closed"}
    s.restart(left, b("teacher-aaaa"))  # its teacher comes back: a new round, open again
    assert s.get(left).state == "open"
    clock.now += ps.IDLE_S - 1
    assert s.get(left).state == "open"
    clock.now += 2
    assert s.get(left).state == "closed"
