"""Live training runs in the poll's database, so every phone on every replica sees them.

A run belongs to the browser that started it (a SHA-256 digest of its id, as a poll's
teacher): only that browser may cancel it or keep it alive with a heartbeat; everyone reads.
The training process writes its progress records and, at the end, its result. A run is
deleted :data:`poll.store.TTL_S` (24 h) after it started, with the polls.
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

STATUSES = ("starting", "running", "done", "cancelled", "failed")
ACTIVE = ("starting", "running")


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

    @property
    def active(self) -> bool:
        return self.status in ACTIVE


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

    def start(self, browser: str, config: dict[str, Any]) -> str:
        """A new run owned by ``browser`` (status ``starting``); returns its id."""
        owner = ps._hash("live", ps._browser(browser))
        run_id = "".join(secrets.choice(ps.ALPHABET) for _ in range(ps.CODE_LEN))
        now = self.clock()
        with self.engine.begin() as conn:
            conn.execute(
                ps.runs.insert().values(
                    id=run_id,
                    owner_hash=owner,
                    config=json.dumps(config),
                    status="starting",
                    progress="[]",
                    result=None,
                    cancel=0,
                    created=now,
                    heartbeat=now,
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
        )

    def latest(self) -> Run | None:
        """The most recently started run of the last day (what a student's page shows)."""
        cutoff = self.clock() - ps.TTL_S
        with self.engine.connect() as conn:
            run_id = conn.execute(
                sa.select(ps.runs.c.id)
                .where(ps.runs.c.created >= cutoff)
                .order_by(ps.runs.c.created.desc())
                .limit(1)
            ).scalar_one_or_none()
        return None if run_id is None else self.get(run_id)

    def done_since(self, since: float) -> Run | None:
        """The run that ended last, if it trained to its end at or after ``since`` (a poll's
        opening: the race the class predicted), else ``None``."""
        cutoff = max(since, self.clock()) - ps.TTL_S
        with self.engine.connect() as conn:  # the results only: no run's progress records
            rows = conn.execute(
                sa.select(ps.runs.c.id, ps.runs.c.result).where(
                    ps.runs.c.created >= cutoff, ps.runs.c.status == "done"
                )
            ).all()
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
        """The owner, or the class's teacher (``teacher``: checked by the caller with
        :meth:`poll.store.PollStore.teaches`), asks the run to stop (the training
        process polls this flag)."""
        self._owned(run_id, browser, teacher=teacher, cancel=1)

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
