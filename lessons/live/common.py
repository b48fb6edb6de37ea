"""What the live page shares: the server's run manager, the visitor's room, the run a
visitor sees, whether the visitor may start or cancel, and the race's configuration from the
class's knob.

A visitor is in a room when the link says ``?room=CODE`` (the poll room's links do), when
this session showed that poll room, or when the visitor's browser teaches it
(:meth:`poll.store.PollStore.teacher_room`); a room's pages show that room's race only."""

from __future__ import annotations

import os
import time
from dataclasses import asdict, replace
from typing import Any

import streamlit as st

from core import live
from poll import store as ps
from poll import views
from poll.runs import Place, Run
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


def _live_room(code: str | None) -> str | None:
    """``code`` if it is a poll room that is still there, else ``None``."""
    if not ps.valid_code(code):
        return None
    try:
        manager().polls.get(code)
    except ps.PollError:
        return None
    return code


def room() -> str | None:
    """The room this visitor is in (see the module's docstring), or ``None``."""
    raw = st.query_params.get("room")
    linked = _live_room(ps.normalise_code(raw)) if raw else None
    if linked is not None:
        st.session_state[views.ROOM] = linked
        return linked
    joined = _live_room(st.session_state.get(views.ROOM))
    return joined or manager().polls.teacher_room(views.browser_id())


def shown_run() -> Run | None:
    """The room's latest race of the last day (with no room, the visitors' latest), or the
    visitor's own run there if it is newer. A look at the queue first: a free training
    slot of this server takes the next race in line."""
    m = manager()
    m.pump()
    here = room()
    mine = st.session_state.get(RUN)
    run = m.runs.get(mine) if mine else None
    latest = m.runs.latest(here)
    if run is None or run.room != here or (latest is not None and latest.created > run.created):
        return latest
    return run


def place(run: Run) -> Place | None:
    """A queued run's place in line and its wait (``None`` once it trains)."""
    return manager().runs.place(run)


def is_owner(run: Run | None) -> bool:
    return run is not None and manager().runs.is_owner(run.id, views.browser_id())


def may_cancel(run: Run | None) -> bool:
    """The run's owner, or a teacher of the run's room (a race a teacher's phone started)."""
    return manager().may_cancel(run, views.browser_id())


def may_start(run: Run | None) -> bool:
    """No run in progress here; in a room, only its teacher; with no room, anyone whose
    run was the visitors' last one, or anyone after a quiet while."""
    if run is not None and run.active:
        return False
    here = room()
    if here is not None:
        return manager().polls.is_teacher(here, views.browser_id())
    return run is None or is_owner(run) or time.time() - run.created > QUIET_S
