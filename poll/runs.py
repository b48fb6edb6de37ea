"""Live training runs in the poll's database, so every phone on every replica sees them.

A run belongs to the browser that started it (a SHA-256 digest of its id, as a poll's
teacher) and to a *room* (a poll's code) when a class's teacher started it: the room's pages
see that room's runs only, its Reveal answers with them, and that room's teacher may cancel
them as the owner may. A run with no room is a visitor's own, seen by visitors in no room.

A run waits in the database's queue (``queued``) until a server with a free training slot
takes it (:meth:`RunStore.claim`): a class's race before a visitor's own, each the oldest
first. The training process writes its progress records and, at the end, its result. A run's
config names its kind (:data:`KINDS`: a translation race or the "it" race); the queue, the
slots, a room's one race at a time and cancel are the same for both. A run
is deleted :data:`poll.store.TTL_S` (24 h) after it started, with the polls.
"""

from __future__ import annotations

import hmac
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from poll import store as ps

KINDS = ("translation", "coref")  # what a run trains: core.live's race or core.live_coref's
STATUSES = ("queued", "starting", "running", "done", "cancelled", "failed")
ACTIVE = ("queued", "starting", "running")
TRAINING = ("starting", "running")  # a slot holds it


@dataclass(frozen=True)
class Run:
    id: str
    config: dict[str, Any]
    status: str  # one of STATUSES
    progress: list[dict[str, Any]]  # core.live progress records, oldest first
    result: dict[str, Any] | None
    cancel: bool  # the teacher asked to stop
    created: float  # unix time
    heartbeat: float  # unix time the teacher's page was last seen
    room: str | None = None  # the room (a poll's code) whose race it is; None: a visitor's
    started: float | None = None  # unix time a training slot took it from the queue

    @property
    def active(self) -> bool:
        return self.status in ACTIVE

    @property
    def kind(self) -> str:
        return kind_of(self.config)


def kind_of(config: dict[str, Any]) -> str:
    """What a run trains, from its stored config (one with no kind is a translation race:
    the only kind there was before)."""
    kind = config.get("kind", KINDS[0])
    return kind if kind in KINDS else KINDS[0]


@dataclass(frozen=True)
class Place:
    """A queued run's place: ``place`` (1: next), and the seconds until a slot frees for it
    from the runs training now and the last finished ones (``None`` before any measure)."""

    place: int
    wait_s: float | None


def _room(room: str | None):
    return ps.runs.c.room.is_(None) if room is None else ps.runs.c.room == room


class RunStore:
    """Runs in a :class:`poll.store.PollStore`'s database (same engine, same clock)."""

    def __init__(self, polls: ps.PollStore) -> None:
        self.engine = polls.engine
        self.clock = polls.clock

    @classmethod
    def at(cls, url: str) -> RunStore:
        """A store on ``url`` without the schema check (the training process: a low-priority
        process must not hold the database's write lock while it waits for a core)."""
        store = cls.__new__(cls)
        store.engine, store.clock = ps._engine(url), time.time
        return store

    def start(self, browser: str, config: dict[str, Any], room: str | None = None) -> str:
        """A new run owned by ``browser`` in ``room`` (``None``: the visitor's own), queued
        for a training slot; returns its id."""
        owner = ps._hash("live", ps._browser(browser))
        if room is not None and not ps.valid_code(room):
            raise ps.PollError("bad_code")
        run_id = "".join(secrets.choice(ps.ALPHABET) for _ in range(ps.CODE_LEN))
        now = self.clock()
        with self.engine.begin() as conn:
            conn.execute(
                ps.runs.insert().values(
                    id=run_id,
                    owner_hash=owner,
                    config=json.dumps(config),
                    status="queued",
                    progress="[]",
                    result=None,
                    cancel=0,
                    created=now,
                    heartbeat=now,
                    room=room,
                )
            )
        return run_id

    def get(self, run_id: str) -> Run | None:
        """The run, or ``None`` if the id is malformed, unknown or older than a day."""
        if not ps.valid_code(run_id):
            return None
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(ps.runs).where(ps.runs.c.id == run_id)).first()
        if row is None or self.clock() - row.created > ps.TTL_S:
            return None
        return Run(
            row.id,
            json.loads(row.config),
            row.status,
            json.loads(row.progress),
            None if row.result is None else json.loads(row.result),
            bool(row.cancel),
            row.created,
            row.heartbeat,
            row.room,
            row.started,
        )

    def latest(self, room: str | None = None) -> Run | None:
        """The most recently started run of the last day in ``room`` (``None``: the runs of
        no room): what the room's pages show."""
        cutoff = self.clock() - ps.TTL_S
        with self.engine.connect() as conn:
            run_id = conn.execute(
                sa.select(ps.runs.c.id)
                .where((ps.runs.c.created >= cutoff) & _room(room))
                .order_by(ps.runs.c.created.desc())
                .limit(1)
            ).scalar_one_or_none()
        return None if run_id is None else self.get(run_id)

    def done_since(
        self, since: float, room: str | None = None, kind: str | None = None
    ) -> Run | None:
        """The run of ``room`` (of ``kind``, if given) that ended last, if it trained to its
        end at or after ``since`` (a poll's opening: the race the class predicted), else
        ``None``."""
        cutoff = max(since, self.clock()) - ps.TTL_S
        with self.engine.connect() as conn:  # the results only: no run's progress records
            rows = conn.execute(
                sa.select(ps.runs.c.id, ps.runs.c.config, ps.runs.c.result).where(
                    ps.runs.c.created >= cutoff, ps.runs.c.status == "done", _room(room)
                )
            ).all()
        rows = [r for r in rows if kind is None or kind_of(json.loads(r.config)) == kind]
        ended = {row.id: json.loads(row.result).get("finished", 0.0) for row in rows if row.result}
        ended = {run_id: at for run_id, at in ended.items() if at >= since}
        return self.get(max(ended, key=ended.get)) if ended else None

    def is_owner(self, run_id: str, browser: object) -> bool:
        if not (ps.valid_code(run_id) and ps.valid_browser(browser)):
            return False
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(ps.runs.c.owner_hash).where(ps.runs.c.id == run_id)
            ).first()
        return row is not None and hmac.compare_digest(row.owner_hash, ps._hash("live", browser))

    def _owned(self, run_id: str, browser: object, *, teacher: bool = False, **values: Any) -> None:
        if not (teacher or self.is_owner(run_id, browser)):
            raise ps.PollError("not_teacher")
        with self.engine.begin() as conn:
            conn.execute(ps.runs.update().where(ps.runs.c.id == run_id).values(**values))

    def request_cancel(self, run_id: str, browser: str, *, teacher: bool = False) -> None:
        """The owner, or the teacher of the run's room (``teacher``: checked by the caller
        with :meth:`poll.store.PollStore.is_teacher` on :attr:`Run.room`), asks the run to
        stop (the training process polls this flag); a run still queued ends here."""
        self._owned(run_id, browser, teacher=teacher, cancel=1)
        with self.engine.begin() as conn:
            conn.execute(
                ps.runs.update()
                .where((ps.runs.c.id == run_id) & (ps.runs.c.status == "queued"))
                .values(status="cancelled")
            )

    def adopt(self, browser: str, room: str) -> int:
        """A teacher who opens a room brings the race they started alone into it (still
        queued or training, from the last :data:`poll.store.CLASS_S`): its Reveal is the
        room's. Returns how many runs moved."""
        if not (ps.valid_browser(browser) and ps.valid_code(room)):
            return 0
        owner, since = ps._hash("live", browser), self.clock() - ps.CLASS_S
        with self.engine.begin() as conn:
            return conn.execute(
                ps.runs.update()
                .where(
                    (ps.runs.c.owner_hash == owner)
                    & ps.runs.c.room.is_(None)
                    & ps.runs.c.status.in_(ACTIVE)
                    & (ps.runs.c.created >= since)
                )
                .values(room=room)
            ).rowcount

    # --- the queue ------------------------------------------------------------------------

    def claim(self, stale_s: float) -> Run | None:
        """For a server with a free training slot: the next queued run, now ``starting``
        (a class's race before a visitor's own, then the oldest; of two servers claiming at
        once, one wins). A queued run whose owner's page has not beaten for ``stale_s`` is
        cancelled on the way (nobody waits for it). Writes nothing while none is queued (a
        server looks every second)."""
        queued = ps.runs.c.status == "queued"
        for _ in range(20):  # another server took the one we saw, or it was stale: next
            now = self.clock()
            with self.engine.connect() as conn:
                row = conn.execute(
                    sa.select(ps.runs.c.id, ps.runs.c.heartbeat)
                    .where(queued & (ps.runs.c.created >= now - ps.TTL_S))
                    .order_by(ps.runs.c.room.is_(None), ps.runs.c.created)
                    .limit(1)
                ).first()
            if row is None:
                return None
            stale = row.heartbeat < now - stale_s
            values = (
                {"status": "cancelled", "cancel": 1}
                if stale
                else {"status": "starting", "started": now, "heartbeat": now}
            )
            with self.engine.begin() as conn:
                took = conn.execute(
                    ps.runs.update().where((ps.runs.c.id == row.id) & queued).values(**values)
                ).rowcount
            if took == 1 and not stale:
                return self.get(row.id)
        return None

    def place(self, run: Run) -> Place | None:
        """Where a queued ``run`` stands (``None`` if it is not queued)."""
        if run.status != "queued":
            return None
        now = self.clock()
        first = run.room is None  # a class's race goes before a visitor's own
        with self.engine.connect() as conn:
            ahead = ps.runs.c.room.is_not(None) | (ps.runs.c.created < run.created)
            if not first:
                ahead = ps.runs.c.room.is_not(None) & (ps.runs.c.created < run.created)
            place = (
                1
                + conn.execute(
                    sa.select(sa.func.count())
                    .select_from(ps.runs)
                    .where((ps.runs.c.status == "queued") & (ps.runs.c.created >= now - ps.TTL_S))
                    .where(ahead & (ps.runs.c.id != run.id))
                ).scalar_one()
            )
            rows = conn.execute(
                sa.select(ps.runs.c.status, ps.runs.c.config, ps.runs.c.progress, ps.runs.c.result)
                .where(ps.runs.c.created >= now - ps.TTL_S)
                .where(ps.runs.c.status.in_((*TRAINING, "done")))
                .order_by(ps.runs.c.created.desc())
                .limit(20)
            ).all()
        return Place(place, _wait_s(place, rows))

    def beat(self, run_id: str, browser: str) -> None:
        """The owner's page is still open: the run may go on. Best effort: a database busy
        beyond its timeout skips one beat (a run stops only after a minute without one)."""
        try:
            self._owned(run_id, browser, heartbeat=self.clock())
        except sa.exc.OperationalError:
            pass

    # --- the training process ----------------------------------------------------------

    def write(
        self,
        run_id: str,
        status: str,
        progress: list[dict[str, Any]],
        result: dict[str, Any] | None = None,
    ) -> None:
        """Store the records so far (the whole list: a run has a few hundred small ones)."""
        if status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}")
        values: dict[str, Any] = {"status": status, "progress": json.dumps(progress)}
        if result is not None:
            if status not in ACTIVE:  # when it ended, on the store's clock (see done_since)
                result = {**result, "finished": self.clock()}
            values["result"] = json.dumps(result, ensure_ascii=False)
        with self.engine.begin() as conn:
            conn.execute(ps.runs.update().where(ps.runs.c.id == run_id).values(**values))

    def control(self, run_id: str) -> tuple[bool, float]:
        """(cancel asked, last heartbeat) for the training process's checks."""
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(ps.runs.c.cancel, ps.runs.c.heartbeat).where(ps.runs.c.id == run_id)
            ).first()
        return (True, 0.0) if row is None else (bool(row.cancel), row.heartbeat)


def _wait_s(place: int, rows) -> float | None:
    """Seconds until the ``place``-th in line gets a slot: the runs training now free their
    slots in the order of their time left (from their own pace); each later round of the
    queue takes as long as a race took here lately (the median of the last finished).
    ``None`` where a part of that is not measured yet (a race still preparing, none ended)."""
    left, took, unknown = [], [], 0
    for row in rows:
        progress = json.loads(row.progress or "[]")
        last = progress[-1] if progress else {}
        if row.status == "done":
            elapsed = json.loads(row.result or "{}").get("elapsed") or last.get("elapsed")
            if elapsed:
                took.append(float(elapsed))
        elif last.get("step"):
            steps = json.loads(row.config).get("steps", 0)
            left.append(last["elapsed"] / last["step"] * max(0, steps - last["step"]))
        else:
            unknown += 1  # training, not one step measured yet
    race = sorted(took)[len(took) // 2] if took else None
    left += [race] * unknown if race is not None else []
    if unknown and race is None:
        return None
    if not left:  # no slot is busy: the first in line starts at a server's next look
        return None if place == 1 or race is None else (place - 1) * race
    left.sort()
    rounds, index = divmod(place - 1, len(left))
    if rounds and race is None:
        return None
    return left[index] + rounds * (race or 0.0)
