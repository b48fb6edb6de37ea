"""How far behind a server's event loop is: the one thread that reads every request and
writes every message of every session.

Page runs that make messages faster than the loop delivers them leave a student's request
and messages waiting in its queue, however fairly the runs were ordered; :class:`LoopLag`
measures that delay so the fair gate (``serve.fairshare``) can stop starting runs until the
loop has caught up (measured: a student's finished page waited 20 s to be sent).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable


class LoopLag:
    """A Streamlit server draws each session's page in a thread of its own, but one asyncio loop
    delivers everything those threads make, and all of them share one interpreter lock.

    A probe thread hands the loop a small callback every ``every`` seconds and times how late
    it runs (an idle loop: well under a millisecond); while a probe is still waiting, its wait
    so far counts. The loop can be behind without being late, though: Streamlit sends each
    message with a yield between messages, so a callback slips in quickly while thousands of
    messages still wait their turn (measured: a student's finished page waited 20 s to be
    sent while runs and callbacks went at once). So the callback also counts, on the loop, the
    messages not yet sent (``backlog``, given by the caller). ``healthy()`` is true while the
    delay is at most ``limit`` and the backlog at most ``backlog_limit``.
    """

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        *,
        every: float = 0.05,
        limit: float = 0.05,
        backlog: Callable[[], int] | None = None,
        backlog_limit: int = 400,
        on_sample: Callable[[], None] | None = None,
    ) -> None:
        self.loop = loop
        self.every = every
        self.limit = limit
        self.count_backlog = backlog
        self.backlog_limit = backlog_limit
        self.on_sample = on_sample
        self.lag = 0.0  # seconds: the last probe's delay, or the current one's so far
        self.backlog = 0  # messages not yet sent, counted on the loop by the last probe
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="road-loop-lag", daemon=True)

    def start(self) -> LoopLag:
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def healthy(self) -> bool:
        return self.lag <= self.limit and self.backlog <= self.backlog_limit

    def _on_loop(self, done: threading.Event) -> None:
        try:
            if self.count_backlog is not None:
                self.backlog = self.count_backlog()
        except Exception:  # noqa: BLE001 - a count that fails says nothing: no backlog
            self.backlog = 0
        finally:
            done.set()

    def _tell(self) -> None:
        if self.on_sample is not None:
            self.on_sample()

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                done = threading.Event()
                t0 = time.monotonic()
                try:
                    self.loop.call_soon_threadsafe(self._on_loop, done)
                except RuntimeError:  # the loop is closed: the server is stopping
                    return
                while not done.wait(self.every):
                    if self._stop.is_set():
                        return
                    self.lag = max(self.lag, time.monotonic() - t0)
                    self._tell()
                self.lag = time.monotonic() - t0
                self.samples += 1
                self._tell()
                self._stop.wait(self.every)
        finally:
            self.lag, self.backlog = 0.0, 0  # no probe: never hold runs on old figures
            self._tell()
