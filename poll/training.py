"""Live training runs beside the class: a process of their own per training slot.

The page's script thread never trains. A race waits in the database's queue
(:meth:`poll.runs.RunStore.claim`). :class:`RunManager` (one per server process) has
:func:`slots` training slots; whenever one is free, it takes the next queued race, from
whichever replica it was started on, when a page looks (:meth:`RunManager.pump`) or by
itself every :data:`WATCH_QUEUE_S`, and spawns
the run's race (``core.live.race``, or ``core.live_coref.race`` for a run of kind
``coref``) in a fresh process with one torch thread at the lowest priority
(niceness +10 and, on Linux, the idle scheduling class); that
process writes its records to the poll's store (:mod:`poll.runs`) at least every
:data:`WRITE_EVERY_S`, and stops by itself when the teacher cancels, when the teacher's page
has not beaten for :data:`HEARTBEAT_TIMEOUT_S`, or when the server that started it is gone.
Cancel also ends the process at once from the server; a server exiting ends it too.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any

from poll.runs import ACTIVE, Run, RunStore, kind_of
from poll.store import PollStore
from serve import cpus

log = logging.getLogger(__name__)
WRITE_EVERY_S = 0.5  # progress reaches the store at least this often
CHECK_EVERY_S = 0.25  # the process reads the cancel flag and the heartbeat this often
HEARTBEAT_TIMEOUT_S = 60.0  # no beat from the teacher's page for this long: the run stops
NICE = 10  # the training process yields the cores to the class's clicks
# ... and, where the OS has it, runs under SCHED_IDLE: it takes a core only when the server
# leaves one idle (nice 10 still took ~1/10 of a core the server wanted: click p95 1.54x)
IDLE = hasattr(os, "SCHED_IDLE")
JOIN_S = 1.0  # how long a cancelled process may take before it is killed
SLOTS_ENV = "ROAD_LIVE_SLOTS"  # training slots of a server (default: see slots())
PUMP_EVERY_S = 1.0  # a server looks at the queue at most this often (pages ask every second)
WATCH_QUEUE_S = 3.0  # ... and by itself this often, with no page open on it


def slots() -> int:
    """Races one server trains at once: ``$ROAD_LIVE_SLOTS``, else one per two cores of its
    CPU quota (:func:`serve.cpus.cores`), at least one. A race takes one core at the idle
    priority; the other core of each pair stays with the class's clicks."""
    raw = os.environ.get(SLOTS_ENV, "").strip()
    if raw.isdigit() and int(raw) >= 1:
        return int(raw)
    return max(1, cpus.cores() // 2)


def _child(
    run_id: str,
    url: str,
    config: dict[str, Any],
    parent: int,
    heartbeat_timeout: float,
    nice: int = NICE,
    idle: bool = IDLE,
) -> None:
    """The training process: race, writing progress to the store; never raises."""
    os.nice(nice)
    if idle:
        with contextlib.suppress(OSError):  # a sandbox that refuses it: niceness alone
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    runs = RunStore.at(url)
    os.environ["OMP_NUM_THREADS"] = "1"
    import torch

    torch.set_num_threads(1)

    records: list[dict[str, Any]] = []
    state = {"write": 0.0, "check": 0.0, "stop": False}

    def should_stop() -> bool:
        now = time.monotonic()
        if now - state["check"] >= CHECK_EVERY_S:
            state["check"] = now
            cancel, beat = runs.control(run_id)
            gone = os.getppid() != parent  # the server died without ending us
            state["stop"] = cancel or gone or runs.clock() - beat > heartbeat_timeout
        return state["stop"]

    def report(record: dict[str, Any]) -> None:
        records.append(record)
        if time.monotonic() - state["write"] >= WRITE_EVERY_S:
            state["write"] = time.monotonic()
            runs.write(run_id, "running", records)

    try:
        runs.write(run_id, "running", [])
        result = race(config, report, should_stop)
        runs.write(run_id, "cancelled" if result["cancelled"] else "done", records, result)
    except Exception as exc:  # noqa: BLE001 - the page shows the run failed
        runs.write(run_id, "failed", records, {"error": repr(exc)})


def race(config: dict[str, Any], report, should_stop) -> dict[str, Any]:
    """The race a run's config names (:attr:`poll.runs.Run.kind`): the translation race
    (``core.live``) or the encoder that learns what "it" names (``core.live_coref``)."""
    if kind_of(config) == "coref":
        from core import live_coref

        return live_coref.race(live_coref.from_dict(config), report, should_stop)
    from core import live

    settings = {k: v for k, v in config.items() if k != "kind"}
    return live.race(live.RaceConfig(**settings), report, should_stop)


@contextlib.contextmanager
def _no_main_script():
    """While a process is spawned, no ``__main__`` script for it to run first. Streamlit (and
    AppTest) put the page's script in ``sys.modules["__main__"]``; spawn would run that file
    again in the child before the target (seen: a test's generated script failing there,
    so the child never trained). The target is imported by its own module instead."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None) if main is not None else None
    if path is None or getattr(main, "__spec__", None) is not None:
        yield
        return
    del main.__file__
    try:
        yield
    finally:
        main.__file__ = path


@dataclass(frozen=True)
class Busy:
    """Why a start was refused: the room (or, with no room, the visitors) has a race
    queued or training already."""

    run_id: str
    started: float  # unix time


class RunManager:
    """This server's training slots: start (queue), take from the queue, cancel, and which
    runs this server trains."""

    def __init__(self, url: str | None = None, heartbeat_timeout: float = HEARTBEAT_TIMEOUT_S):
        self.heartbeat_timeout = heartbeat_timeout
        self.nice = NICE  # the training process's niceness (added to the server's)
        self.idle = IDLE  # and whether it runs under SCHED_IDLE
        self.target = _child  # what the process runs (a test puts a stand-in here)
        self.slots = slots()
        self.polls = PollStore(url)
        self.runs = RunStore(self.polls)
        self._lock = threading.Lock()
        self._procs: dict[str, multiprocessing.process.BaseProcess] = {}
        self._looked = -PUMP_EVERY_S  # monotonic time of the last look at the queue
        self._stop = threading.Event()
        # a replica whose pages are all elsewhere (sticky sessions) still takes the queue's
        # next race when its slot is free
        threading.Thread(target=self._watch_queue, name="road-live-queue", daemon=True).start()

    def _watch_queue(self) -> None:
        while not self._stop.wait(WATCH_QUEUE_S):
            try:
                self.pump()
            except Exception:  # noqa: BLE001 - a database hiccup: the next look tries again
                log.warning("live races: the queue could not be read", exc_info=True)

    def training(self) -> list[str]:
        """The ids of the runs this server is training, oldest first."""
        with self._lock:
            return self._reap()

    def current(self) -> str | None:
        """The first run this server is training, if any."""
        running = self.training()
        return running[0] if running else None

    def _reap(self) -> list[str]:
        self._procs = {rid: p for rid, p in self._procs.items() if p.is_alive()}
        return list(self._procs)

    def start(self, browser: str, config: dict[str, Any], room: str | None = None) -> str | Busy:
        """Queue a run owned by ``browser`` in ``room`` and start it if a slot is free: its
        id, or :class:`Busy` if the room (with no room: the visitors) has one already."""
        latest = self.runs.latest(room)
        if latest is not None and latest.active:
            return Busy(latest.id, latest.created)
        run_id = self.runs.start(browser, config, room)
        self.pump(force=True)
        return run_id

    def pump(self, *, force: bool = False) -> list[str]:
        """While a slot is free, take the next queued run (from any replica) and train it;
        at most every :data:`PUMP_EVERY_S` unless ``force``. Returns the runs started."""
        started: list[str] = []
        with self._lock:
            now = time.monotonic()
            if not force and now - self._looked < PUMP_EVERY_S:
                return started
            self._looked = now
            while len(self._reap()) < self.slots:
                run = self.runs.claim(self.heartbeat_timeout)
                if run is None:
                    break
                self._spawn(run)
                started.append(run.id)
        return started

    def _spawn(self, run: Run) -> None:
        ctx = multiprocessing.get_context("spawn")
        proc = ctx.Process(
            target=self.target,
            args=(
                run.id,
                self.polls.url,
                run.config,
                os.getpid(),
                self.heartbeat_timeout,
                self.nice,
                self.idle,
            ),
            name=f"road-live-{run.id}",
            daemon=True,  # multiprocessing ends it when the server exits
        )
        with _no_main_script():
            proc.start()
        self._procs[run.id] = proc

    def may_cancel(self, run: Run | None, browser: str | None) -> bool:
        """The run's owner, or a teacher of the run's room."""
        if run is None or not run.active:
            return False
        if self.runs.is_owner(run.id, browser):
            return True
        return run.room is not None and self.polls.is_teacher(run.room, browser)

    def cancel(self, run_id: str, browser: str) -> Run | None:
        """The owner, or a teacher of the run's room, stops the run: the flag in the store
        (any replica's process reads it), and this server's process ended within
        :data:`JOIN_S` if it is the one; a free slot takes the next in line."""
        run = self.runs.get(run_id)
        teacher = (
            run is not None and run.room is not None and self.polls.is_teacher(run.room, browser)
        )
        # PollError("not_teacher") for anyone else
        self.runs.request_cancel(run_id, browser, teacher=teacher)
        with self._lock:
            proc = self._procs.get(run_id)
        if proc is not None:
            proc.join(JOIN_S)
            if proc.is_alive():
                proc.terminate()
                proc.join(JOIN_S)
            run = self.runs.get(run_id)
            if run is not None and run.status in ACTIVE:  # ended before it could say so
                self.runs.write(run_id, "cancelled", run.progress)
        self.pump(force=True)
        return self.runs.get(run_id)

    def shutdown(self) -> None:
        """End the training processes and the queue's watch (tests; the server's exit does it
        by itself)."""
        self._stop.set()
        with self._lock:
            procs = list(self._procs.values())
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
                proc.join(JOIN_S)
