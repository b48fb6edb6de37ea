"""Live training runs beside the class: a process of their own, one per server at a time.

The page's script thread never trains. :class:`RunManager` (one per server process) spawns
``core.live.race`` in a fresh process with one torch thread at the lowest priority
(niceness +10 and, on Linux, the idle scheduling class); that
process writes its records to the poll's store (:mod:`poll.runs`) at least every
:data:`WRITE_EVERY_S`, and stops by itself when the teacher cancels, when the teacher's page
has not beaten for :data:`HEARTBEAT_TIMEOUT_S`, or when the server that started it is gone.
Cancel also ends the process at once from the server; a server exiting ends it too.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any

from poll.runs import Run, RunStore
from poll.store import PollStore

WRITE_EVERY_S = 0.5  # progress reaches the store at least this often
CHECK_EVERY_S = 0.25  # the process reads the cancel flag and the heartbeat this often
HEARTBEAT_TIMEOUT_S = 60.0  # no beat from the teacher's page for this long: the run stops
NICE = 10  # the training process yields the cores to the class's clicks
# ... and, where the OS has it, runs under SCHED_IDLE: it takes a core only when the server
# leaves one idle (nice 10 still took ~1/10 of a core the server wanted: click p95 1.54x)
IDLE = hasattr(os, "SCHED_IDLE")
JOIN_S = 1.0  # how long a cancelled process may take before it is killed


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
    from core import live

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
        result = live.race(live.RaceConfig(**config), report, should_stop)
        runs.write(run_id, "cancelled" if result["cancelled"] else "done", records, result)
    except Exception as exc:  # noqa: BLE001 - the page shows the run failed
        runs.write(run_id, "failed", records, {"error": repr(exc)})


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
    """Why a start was refused: the run in progress on this server."""

    run_id: str
    started: float  # unix time


class RunManager:
    """At most one training process per server; start, cancel, and who is running."""

    def __init__(self, url: str | None = None, heartbeat_timeout: float = HEARTBEAT_TIMEOUT_S):
        self.heartbeat_timeout = heartbeat_timeout
        self.nice = NICE  # the training process's niceness (added to the server's)
        self.idle = IDLE  # and whether it runs under SCHED_IDLE
        self.target = _child  # what the process runs (a test puts a stand-in here)
        self.polls = PollStore(url)
        self.runs = RunStore(self.polls)
        self._lock = threading.Lock()
        self._proc: multiprocessing.process.BaseProcess | None = None
        self._run_id: str | None = None

    def current(self) -> str | None:
        """The id of the run this server is training, if any."""
        with self._lock:
            return self._run_id if self._alive() else None

    def _alive(self) -> bool:
        return self._proc is not None and self._proc.is_alive()

    def start(self, browser: str, config: dict[str, Any]) -> str | Busy:
        """Start a run owned by ``browser``: its id, or :class:`Busy` if one is running."""
        with self._lock:
            if self._alive():
                run = self.runs.get(self._run_id)
                return Busy(self._run_id, run.created if run else time.time())
            run_id = self.runs.start(browser, config)
            ctx = multiprocessing.get_context("spawn")
            proc = ctx.Process(
                target=self.target,
                args=(
                    run_id,
                    self.polls.url,
                    config,
                    os.getpid(),
                    self.heartbeat_timeout,
                    self.nice,
                    self.idle,
                ),
                name=f"road-live-{run_id}",
                daemon=True,  # multiprocessing ends it when the server exits
            )
            with _no_main_script():
                proc.start()
            self._proc, self._run_id = proc, run_id
            return run_id

    def cancel(self, run_id: str, browser: str) -> Run | None:
        """The owner, or the teacher of the class on now, stops the run: the flag in the store
        (any replica's process reads it), and this server's process ended within
        :data:`JOIN_S` if it is the one."""
        teacher = bool(self.polls.teaches(browser))
        # PollError("not_teacher") for anyone else
        self.runs.request_cancel(run_id, browser, teacher=teacher)
        with self._lock:
            proc = self._proc if self._run_id == run_id else None
        if proc is not None:
            proc.join(JOIN_S)
            if proc.is_alive():
                proc.terminate()
                proc.join(JOIN_S)
            run = self.runs.get(run_id)
            if run is not None and run.active:  # ended before it could say so
                self.runs.write(run_id, "cancelled", run.progress)
        return self.runs.get(run_id)

    def shutdown(self) -> None:
        """End the training process (tests; the server's exit does it by itself)."""
        with self._lock:
            proc = self._proc
        if proc is not None and proc.is_alive():
            proc.terminate()
            proc.join(JOIN_S)
