"""Training runs in their own process: progress reaches the store, one run per server, the
owner's cancel ends the process within about a second, a silent teacher's run stops by
itself, and the process yields the cores (niceness 10, the idle scheduling class). ~30-40 s
(spawned processes that import torch and read the corpus).

The first two run their process at the test's own priority: at niceness 10 on a machine
crowded by the rest of the suite (browsers, servers), starting torch took over 5 minutes,
which is the point of the lower priority, checked on its own by the third."""

from __future__ import annotations

import os
import time
from dataclasses import asdict, replace
from pathlib import Path

import pytest

from core import live
from poll.store import PollError
from poll.training import NICE, Busy, RunManager

TEACHER = "teacher-browser-0001"
SMALL = asdict(replace(live.DEFAULT, steps=400, log_every=2, eval_every=100, eval_per_bucket=2))


def _wait(pred, timeout: float = 300.0) -> float:
    t0 = time.monotonic()
    while not pred():
        if time.monotonic() - t0 > timeout:
            raise AssertionError("timed out")
        time.sleep(0.1)
    return time.monotonic() - t0


@pytest.fixture
def manager(tmp_path):
    m = RunManager(f"sqlite:///{tmp_path / 'polls.sqlite3'}")
    yield m
    m.shutdown()
    m.polls.dispose()


@pytest.mark.timeout(900)  # a crowded machine took minutes to start torch in a new process
def test_a_run_trains_apart_one_at_a_time_and_cancels_fast(manager):
    manager.heartbeat_timeout = 1e6  # a busy machine may take a minute to load the corpus
    manager.nice, manager.idle = 0, False
    run_id = manager.start(TEACHER, SMALL)
    assert isinstance(run_id, str) and manager.current() == run_id
    _wait(lambda: len(manager.runs.get(run_id).progress) >= 2)  # growing in the store
    busy = manager.start("teacher-browser-0002", SMALL)
    assert isinstance(busy, Busy) and busy.run_id == run_id
    with pytest.raises(PollError):
        manager.cancel(run_id, "student-browser-0001")
    t0 = time.monotonic()
    run = manager.cancel(run_id, TEACHER)
    assert time.monotonic() - t0 < 2.5 and run.status == "cancelled"
    assert manager.current() is None and run.progress  # what was trained stays to see


@pytest.mark.timeout(900)
def test_a_run_whose_teacher_left_stops_by_itself(manager):
    manager.heartbeat_timeout = 0.5
    manager.nice, manager.idle = 0, False
    run_id = manager.start(TEACHER, SMALL)
    _wait(lambda: not manager.runs.get(run_id).active)
    assert manager.runs.get(run_id).status == "cancelled"
    _wait(lambda: manager.current() is None, timeout=30)  # and the process ends


def _stat(pid: int, field: int) -> int:
    """A field of a process's /proc stat line (numbered from 1 as in proc(5))."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[field - 3])


def _niceness(pid: int) -> int:
    return _stat(pid, 19)


def _policy(pid: int) -> int:
    return _stat(pid, 41)


@pytest.mark.timeout(300)
def test_the_training_process_yields_the_cores(manager):
    """The process lowers its own priority first of all, before torch and the corpus."""
    assert manager.nice == NICE == 10 and manager.idle
    manager.heartbeat_timeout = 1e6
    run_id = manager.start(TEACHER, SMALL)
    pid = manager._procs[run_id].pid  # noqa: SLF001
    mine = os.nice(0)
    _wait(lambda: _policy(pid) == os.SCHED_IDLE, timeout=120)  # set after the niceness
    assert _niceness(pid) == mine + NICE
    assert manager.cancel(run_id, TEACHER).status == "cancelled"


@pytest.mark.timeout(900)
def test_an_it_race_trains_in_the_same_slot_to_its_end(manager):
    """A run of kind ``coref`` trains ``core.live_coref`` in the same process and slot, and
    holds the slot against a translation race while it trains."""
    from core import live_coref

    manager.heartbeat_timeout = 1e6
    manager.nice, manager.idle = 0, False
    tiny = replace(live_coref.DEFAULT, steps=40, log_every=5, eval_every=20, held_per_frame=2)
    run_id = manager.start(TEACHER, live_coref.config_dict(replace(tiny, pace=20.0)))
    assert isinstance(run_id, str) and manager.runs.get(run_id).kind == "coref"
    busy = manager.start("teacher-browser-0002", SMALL)
    assert isinstance(busy, Busy) and busy.run_id == run_id  # one race at a time
    _wait(lambda: not manager.runs.get(run_id).active)
    run = manager.runs.get(run_id)
    assert run.status == "done", run.result
    assert [r["step"] for r in run.progress] == list(range(5, 41, 5))
    assert run.result["steps_done"] == 40 and set(run.result["first"]) == {
        "hungry",
        "sweet",
        "both",
    }
    assert run.result["lesson"]["sweet"]["tokens"][-1] == "sweet"
    assert run.result["elapsed"] >= 40 / 20  # paced


def test_the_process_trains_the_race_its_config_names():
    """In this process, ~10 s: a config with a kind (or none: a translation race)."""
    from core import live_coref
    from poll.training import race

    tiny = asdict(replace(live.DEFAULT, steps=2, log_every=1, eval_every=2, eval_per_bucket=1))
    for config in (tiny, {**tiny, "kind": "translation"}):
        assert "translation" in race({**config, "max_len": 20}, None, None)
    it = replace(live_coref.DEFAULT, steps=2, log_every=1, eval_every=2, held_per_frame=1)
    result = race(live_coref.config_dict(replace(it, pace=0.0)), None, None)
    assert result["kind"] == "coref" and result["steps_done"] == 2
