"""serve/looplag.py: the event loop's delay, measured by a probe thread.

The loop is blocked and released on events, never on the wall clock: the figures are
waited for, not timed."""

from __future__ import annotations

import asyncio
import threading

import pytest

from serve.looplag import LoopLag
from tests.serve.test_fairshare import wait_until


@pytest.fixture
def loop():
    loop = asyncio.new_event_loop()
    th = threading.Thread(target=loop.run_forever, daemon=True)
    th.start()
    yield loop
    loop.call_soon_threadsafe(loop.stop)
    th.join(10)
    loop.close()


def test_a_blocked_loop_is_unhealthy_until_it_catches_up(loop):
    pokes: list[float] = []
    lag = LoopLag(loop, every=0.01, limit=0.05, on_sample=lambda: pokes.append(lag.lag))
    lag.start()
    try:
        wait_until(lambda: lag.samples >= 3)
        assert lag.healthy()
        unblock = threading.Event()
        loop.call_soon_threadsafe(unblock.wait, 30)  # the loop is stuck in a callback
        wait_until(lambda: not lag.healthy())  # seen while the probe still waits
        assert lag.lag > 0.05
        unblock.set()
        wait_until(lambda: lag.healthy())
        assert pokes and max(pokes) > 0.05  # the gate was told every time
    finally:
        lag.stop()
    assert not lag.running and lag.lag == 0.0  # stopped: no stale verdict


def test_a_closed_loop_ends_the_probe_and_leaves_it_healthy():
    loop = asyncio.new_event_loop()
    loop.close()
    lag = LoopLag(loop, every=0.01).start()
    wait_until(lambda: not lag.running)
    assert lag.healthy()


def test_a_backlog_of_unsent_messages_is_unhealthy_and_counted_on_the_loop(loop):
    unsent = {"n": 0}
    threads: set[str] = set()

    def count() -> int:
        threads.add(threading.current_thread().name)
        return unsent["n"]

    lag = LoopLag(loop, every=0.01, limit=1.0, backlog=count, backlog_limit=100).start()
    try:
        wait_until(lambda: lag.samples >= 2)
        assert lag.healthy() and lag.backlog == 0
        unsent["n"] = 101
        wait_until(lambda: not lag.healthy())
        assert lag.backlog == 101 and lag.lag <= 1.0  # on time, yet behind
        unsent["n"] = 100
        wait_until(lambda: lag.healthy())
    finally:
        lag.stop()
    assert threads and "road-loop-lag" not in threads  # read where the queues live


def test_a_count_that_fails_says_nothing(loop):
    def broken() -> int:
        raise AttributeError("another Streamlit")

    lag = LoopLag(loop, every=0.01, backlog=broken, backlog_limit=0).start()
    try:
        wait_until(lambda: lag.samples >= 2)
        assert lag.healthy() and lag.backlog == 0
    finally:
        lag.stop()
