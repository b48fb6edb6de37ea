"""What the live page shares: the server's run manager, the run a visitor sees, whether the
visitor may start or cancel, and the race's configuration from the class's knob."""

from __future__ import annotations

import os
import time
from dataclasses import asdict, replace
from typing import Any

import streamlit as st

from core import live
from poll import views
from poll.runs import Run
from poll.training import RunManager

STEPS_ENV = "ROAD_LIVE_STEPS"  # a smaller step budget (tests); the default is core.live's
RUN = "live_run"  # session key: the run this visitor started
QUIET_S = 600  # after a run ends, only its owner may start the next for this long
LENGTHS = (20, 30)  # the knob: the longest sentence trained and tested on


@st.cache_resource(show_spinner=False)
def manager() -> RunManager:
    """This server's one run manager (one training process at a time)."""
    return RunManager()


def config(max_len: int) -> dict[str, Any]:
    """The race for the knob's longest sentence (the search's default otherwise)."""
    cfg = replace(live.DEFAULT, max_len=max_len)
    steps = os.environ.get(STEPS_ENV, "").strip()
    if steps.isdigit() and int(steps) >= 1:
        n = int(steps)
        cfg = replace(cfg, steps=n, eval_every=max(1, n // 5), log_every=max(1, n // 50))
    return asdict(cfg)


def shown_run() -> Run | None:
    """The visitor's own run if they started one, else the latest of the last day."""
    runs = manager().runs
    mine = st.session_state.get(RUN)
    run = runs.get(mine) if mine else None
    latest = runs.latest()
    if run is None or (latest is not None and latest.created > run.created):
        return latest
    return run


def is_owner(run: Run | None) -> bool:
    return run is not None and manager().runs.is_owner(run.id, views.browser_id())


def teaches() -> bool | None:
    """Whether this visitor teaches the class on this server (``None``: no class on; see
    :meth:`poll.store.PollStore.teaches`)."""
    return manager().polls.teaches(views.browser_id())


def may_cancel(run: Run | None) -> bool:
    """The run's owner, or the class's teacher (a run a student started before class)."""
    return run is not None and run.active and (is_owner(run) or bool(teaches()))


def may_start(run: Run | None) -> bool:
    """No run in progress; while a class is on (a room opened in the last hours), only its
    teacher; with no class, anyone whose run was the last one, or after a quiet while."""
    if run is not None and run.active:
        return False
    teacher = teaches()
    if teacher is not None:
        return teacher
    return run is None or is_owner(run) or time.time() - run.created > QUIET_S
