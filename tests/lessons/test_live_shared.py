"""What a race's page shares between the server's sessions: reads every phone of a room
makes alike (for ``SHARED_S``), and the charts as sent (``ui.plot.LIVE``), so a class of
phones each looking every second costs about one look's work a second."""

from __future__ import annotations

import time

import pytest

from lessons.live import common
from poll import views
from poll.store import DATA_DIR_ENV
from tests.conftest import make_app
from ui import plot


def test_shared_reads_once_a_while_then_anew():
    shared = common.Shared(max_age=0.2, max_items=2)
    calls = []

    def read():
        calls.append(1)
        return len(calls)

    assert shared.get("a", read) == 1 and shared.get("a", read) == 1  # one read shared
    time.sleep(0.25)
    assert shared.get("a", read) == 2  # older than max_age: read anew
    shared.forget()
    assert shared.get("a", read) == 3  # this server changed it: read anew
    shared.get("b", read), shared.get("c", read)
    assert shared.get("a", read) == 6  # only the newest max_items are kept


@pytest.fixture
def race(monkeypatch, tmp_path):
    """A room's race with records in the store, training in no process (nothing claims it:
    no slot)."""
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path))
    common.manager.clear()
    common.SHARED.forget()
    m = common.manager()
    m.slots = 0
    room = m.polls.open("live_winner", 3, "teacher-browser-0001")
    run_id = m.runs.start("teacher-browser-0001", common.config(20), room)
    records = [
        {"step": s, "steps": 100, "loss": {"plain": 3.0, "attention": 2.0}, "elapsed": s / 10}
        for s in range(5, 50, 5)
    ]
    m.runs.write(run_id, "running", records)
    yield room, run_id, records
    common.manager.clear()


def _phone(browser: str, room: str):
    at = make_app("pages/live.py", lang="en", room=room)
    at.session_state[views.BROWSER] = browser
    return at.run(timeout=120)


def test_a_rooms_phones_get_the_charts_built_once(race):
    room, run_id, records = race
    plot.LIVE.hits = plot.LIVE.misses = 0
    first = _phone("phone-browser-0001", room)
    built = plot.LIVE.misses
    assert not first.exception and len(first.get("plotly_chart")) == 2 and built == 2
    second = _phone("phone-browser-0002", room)
    assert plot.LIVE.misses == built and plot.LIVE.hits >= 2  # the pair as sent, not rebuilt
    sent = [c.proto.spec for c in first.get("plotly_chart")]
    assert [c.proto.spec for c in second.get("plotly_chart")] == sent
    # a new record: the next look builds the charts anew, once
    common.manager().runs.write(run_id, "running", [*records, {**records[-1], "step": 50}])
    common.SHARED.forget()
    _phone("phone-browser-0003", room)
    assert plot.LIVE.misses == built + 1  # the loss chart; no new evaluation, same accuracy
