"""What the live page shares: the server's run manager, the visitor's room, the run a
visitor sees, whether the visitor may start or cancel, and the race's configuration from the
class's knob.

A visitor is in a room when the link says ``?room=CODE`` (the poll room's links do), when
this session showed that poll room, or when the visitor's browser teaches it
(:meth:`poll.store.PollStore.teacher_room`); a room's pages show that room's race only.

A race's page looks every second on every phone of the room: :func:`look` reads what one
look needs once, and the reads every phone of a room makes alike (is the room there, its
latest race) are shared by the server's sessions for :data:`SHARED_S` (:class:`Shared`), so
a class of 50 costs the database about one read of its race a second, not 50 of each."""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import asdict, dataclass, replace
from typing import Any

import streamlit as st

from charts.screen.sizes import STEP_SLIDE_HEIGHT
from core import live
from poll import store as ps
from poll import views
from poll.runs import Place, Run
from poll.training import RunManager

STEPS_ENV = "ROAD_LIVE_STEPS"  # a smaller step budget (tests); the default is core.live's
RUN = "live_run"  # session key: the run this visitor started
QUIET_S = 600  # after a run ends, only its owner may start the next for this long
LENGTHS = (20, 30)  # the knob: the longest sentence trained and tested on
# the race charts' height on the projector: the progress bar, the knob and Start stand under
# them on the first screen at 1280x800 (at STEP_SLIDE_HEIGHT, Start ended at 825 px)
CHART_HEIGHT = STEP_SLIDE_HEIGHT - 60
SHARED_S = 0.5  # s a read every phone of a room makes alike is shared (pages look every 1 s)
MINE_S = 10.0  # s a session keeps whether its browser owns the race or teaches its room


class Shared:
    """Reads shared by the server's sessions for ``max_age`` seconds, the newest
    ``max_items`` kept; :meth:`forget` drops them all (this server changed a race)."""

    def __init__(self, max_age: float, max_items: int = 256) -> None:
        self.max_age, self.max_items = max_age, max_items
        self._items: OrderedDict[Hashable, tuple[float, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, read: Callable[[], Any]) -> Any:
        now = time.monotonic()
        with self._lock:
            hit = self._items.get(key)
        if hit is not None and now - hit[0] < self.max_age:
            return hit[1]
        value = read()
        with self._lock:
            self._items[key] = (now, value)
            self._items.move_to_end(key)
            while len(self._items) > self.max_items:
                self._items.popitem(last=False)
        return value

    def forget(self) -> None:
        with self._lock:
            self._items.clear()


SHARED = Shared(SHARED_S)


@dataclass(frozen=True)
class Look:
    """What one look of the race's page shows and allows: the visitor's room, the race
    shown, whether the visitor owns it, may cancel it, may start the next."""

    here: str | None
    run: Run | None
    owner: bool
    cancels: bool
    starts: bool


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
    polls = manager().polls

    def there() -> bool:
        try:
            polls.get(code)
        except ps.PollError:
            return False
        return True

    return code if SHARED.get((polls.url, "room", code), there) else None


def room() -> str | None:
    """The room this visitor is in (see the module's docstring), or ``None``."""
    raw = st.query_params.get("room")
    linked = _live_room(ps.normalise_code(raw)) if raw else None
    if linked is not None:
        st.session_state[views.ROOM] = linked
        return linked
    joined = _live_room(st.session_state.get(views.ROOM))
    return joined or manager().polls.teacher_room(views.browser_id())


def _shown(here: str | None) -> Run | None:
    """The room's latest race of the last day (with no room, the visitors' latest), or the
    visitor's own run there if it is newer. A look at the queue first: a free training
    slot of this server takes the next race in line."""
    m = manager()
    if m.pump():
        SHARED.forget()  # a race left the queue here
    mine = st.session_state.get(RUN)
    run = m.runs.get(mine) if mine else None
    latest = SHARED.get((m.polls.url, "latest", here), lambda: m.runs.latest(here))
    if run is None or run.room != here or (latest is not None and latest.created > run.created):
        return latest
    return run


def look() -> Look:
    """One look's reads (:class:`Look`): the room once, the race shown, and the visitor's
    rights to it. Start: no race in progress here; in a room, only its teacher; with no
    room, whoever's run was the visitors' last, or anyone after :data:`QUIET_S`. The
    rights are kept by the session for :data:`MINE_S` (they change with a hand-over at
    most, never within a race)."""
    here = room()
    run = _shown(here)
    if run is None:
        return Look(here, None, False, False, here is None or _teaches(here))
    key = (run.id, here, views.browser_id())
    kept = st.session_state.get("live_rights")
    if kept is None or kept[0] != key or time.monotonic() - kept[1] > MINE_S:
        owner = is_owner(run)
        teacher = here is not None and _teaches(here)
        kept = (key, time.monotonic(), owner, teacher)
        st.session_state["live_rights"] = kept
    _, _, owner, teacher = kept
    cancels = run.active and (owner or (run.room is not None and teacher))
    if run.active:
        starts = False
    elif here is not None:
        starts = teacher
    else:
        starts = owner or time.time() - run.created > QUIET_S
    return Look(here, run, owner, cancels, starts)


def forget() -> None:
    """This session changed a race (started or cancelled one): the next look reads anew."""
    SHARED.forget()
    st.session_state.pop("live_rights", None)


def place(run: Run) -> Place | None:
    """A queued run's place in line and its wait (``None`` once it trains)."""
    return manager().runs.place(run)


def is_owner(run: Run | None) -> bool:
    return run is not None and manager().runs.is_owner(run.id, views.browser_id())


def _teaches(here: str) -> bool:
    return manager().polls.is_teacher(here, views.browser_id())
