"""Fair share of one server's cores among its visitors (issue 23: one client cannot spoil a
class).

A Streamlit server runs every session's script in a thread of its own, all at once. Left
alone, a client that reruns as fast as it is answered, on hundreds of sessions, gets most of
the CPU, and a class of students clicking every few seconds waits behind it. The load
balancer's limits (``deploy/nginx/road.conf``) bound how many sessions and requests one
address may open, but a whole school shares one address, so they must stay generous; they
cannot see the reruns inside a websocket either.

:class:`FairGate` decides, inside the app, which page run goes next:

- at most ``slots`` page runs at once (one per core: more would only share the cores);
- when runs wait, the next slot goes to the client ADDRESS that has used the least run time
  recently (time in a slot, halved every ``half_life`` seconds), and within it to the
  session that has used least: a class behind one school address, clicking every few
  seconds, uses far less than a client rerunning as fast as it is answered, so its runs go
  first; when both want more than the server has, each address gets an equal share. Per
  session alone would not do: a client with 150 sessions, each served rarely, has sessions
  that look as idle as a student's (measured: students' p95 0.4 -> 18 s). A new session
  starts with the mean recent use of its address's sessions;
- with ``pace`` on (the public link): a session's runs are paced by a token bucket (a burst
  of ``burst`` runs, then ``rate`` a second), far above a person's clicks, so a loop on one
  session waits without using a core; and an address with ``max_waiting_per_address`` runs
  already waiting, or a run that waited ``timeout`` seconds, is refused at once.

- every run is charged at least ``min_charge`` seconds: a run costs the server more than
  its script (its rerun, the delivery of everything it drew), and a client rerunning a
  cached page in a loop runs in milliseconds each time;
- with a health probe (``healthy``, ``core.looplag``: the server's event loop is behind, or
  holds many messages not yet sent), only the lightest active address starts runs until
  the loop has caught up. Fair slots alone did not help: the runs were short and fair, and
  then a student's finished page waited ~20 s in the loop behind the abuser's messages.

Pure Python with threads; the clock can be injected. ``ui/admission.py`` uses it around
every page run. Memory is bounded: at most ``max_sessions`` sessions are remembered (the
least recently seen are forgotten first).
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

# Why a run was refused (the page shows a message in the visitor's language).
BUSY = "busy"  # waited `timeout` seconds without a slot
CROWDED = "crowded"  # its address already has `max_waiting_per_address` runs waiting
ACTIVE_S = 0.01  # an address whose decayed use is at least this used the server lately


@dataclass
class _Session:
    address: str
    use: float = 0.0  # run seconds, decayed to `stamp`
    stamp: float = 0.0
    tokens: float = 0.0  # the pacing bucket at `stamp_tokens`
    stamp_tokens: float = 0.0


@dataclass
class _Waiter:
    session: str
    address: str
    order: int
    event: threading.Event = field(default_factory=threading.Event)
    granted: bool = False


@dataclass(frozen=True)
class Admission:
    """What :meth:`FairGate.admit` gives a run: ``ok``, or the reason it was refused; the
    seconds it waited (pacing + queue)."""

    ok: bool
    reason: str | None = None
    waited_s: float = 0.0
    new_session: bool = False  # the gate had not seen this session before


class FairGate:
    def __init__(
        self,
        slots: int,
        *,
        half_life: float = 20.0,
        pace: bool = False,
        burst: float = 6.0,
        rate: float = 1.0,
        max_waiting_per_address: int = 120,
        timeout: float = 45.0,
        max_sessions: int = 5000,
        min_charge: float = 0.0,
        healthy: Callable[[], bool] | None = None,
        hold_at_most: float = 0.5,
        reserve: int = 0,
        heavy_factor: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if slots < 1:
            raise ValueError("slots must be at least 1")
        self.slots = slots
        self.half_life = half_life
        self.pace = pace
        self.burst = burst
        self.rate = rate
        self.max_waiting_per_address = max_waiting_per_address
        self.timeout = timeout
        self.max_sessions = max_sessions
        self.min_charge = min_charge
        self.healthy = healthy
        self.hold_at_most = hold_at_most
        self.reserve = reserve
        self.heavy_factor = heavy_factor
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._free = slots
        self._waiting: list[_Waiter] = []
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        self._addresses: OrderedDict[str, list[float]] = OrderedDict()  # [use, stamp]
        self._order = itertools.count()
        self.refused: dict[str, int] = {BUSY: 0, CROWDED: 0}
        self.granted = 0
        self.held = 0  # dispatches put off because the server was not healthy
        self._last_grant = -math.inf

    # ---- bookkeeping (under the lock) ------------------------------------------------------

    def _decayed(self, s: _Session, now: float) -> float:
        if s.use == 0.0:
            return 0.0
        return s.use * math.pow(0.5, max(0.0, now - s.stamp) / self.half_life)

    def _session(self, session: str, address: str, now: float) -> _Session:
        s = self._sessions.get(session)
        if s is None:
            peers = [self._decayed(p, now) for p in self._sessions.values() if p.address == address]
            start = sum(peers) / len(peers) if peers else 0.0
            s = _Session(address, use=start, stamp=now, tokens=self.burst, stamp_tokens=now)
            self._sessions[session] = s
            while len(self._sessions) > self.max_sessions:
                self._sessions.popitem(last=False)
        else:
            self._sessions.move_to_end(session)
        return s

    def _charge(self, session: str, address: str, seconds: float, now: float) -> None:
        s = self._sessions.get(session)
        if s is not None:
            s.use = self._decayed(s, now) + seconds
            s.stamp = now
        a = self._addresses.get(address)
        if a is None:
            a = self._addresses[address] = [0.0, now]
            while len(self._addresses) > self.max_sessions:
                self._addresses.popitem(last=False)
        else:
            self._addresses.move_to_end(address)
        a[0] = self._address_use(address, now) + seconds
        a[1] = now

    def _address_use(self, address: str, now: float) -> float:
        a = self._addresses.get(address)
        if a is None or a[0] == 0.0:
            return 0.0
        return a[0] * math.pow(0.5, max(0.0, now - a[1]) / self.half_life)

    def _dispatch(self, now: float) -> None:
        """Hand free slots to the waiting runs whose sessions used least (then oldest).

        With a health probe (``healthy``, which also pokes the gate as it measures): while
        it says no (the event loop cannot deliver what runs already made), only the lightest
        active address (a class among heavier clients) starts runs; the others wait, unless
        none is running and none started for ``hold_at_most`` seconds (so runs always
        progress). :meth:`poke` dispatches again."""
        while self._free > 0 and self._waiting:
            best = min(
                self._waiting,
                key=lambda w: (
                    self._address_use(w.address, now),
                    self._use_of(w.session, now),
                    w.order,
                ),
            )
            if self.healthy is not None and self._held_back(best, now):
                self.held += 1
                return
            self._waiting.remove(best)
            best.granted = True
            self._free -= 1
            self.granted += 1
            self._last_grant = now
            best.event.set()

    def _held_back(self, best: _Waiter, now: float) -> bool:
        use = self._address_use(best.address, now)
        if self.reserve > 0 and self._free <= self.reserve:
            if use > self.heavy_factor * self._lightest_active(now):
                return True  # the last free slots stay for the lightest address
        return (
            (self._free < self.slots or now - self._last_grant < self.hold_at_most)
            and not self.healthy()
            and use > self._lightest_active(now)
        )

    def _lightest_active(self, now: float) -> float:
        """The least recent use among addresses that used the server lately (``ACTIVE_S``)."""
        uses = [self._address_use(a, now) for a in self._addresses]
        active = [u for u in uses if u >= ACTIVE_S]
        return min(active, default=math.inf)

    def _use_of(self, session: str, now: float) -> float:
        s = self._sessions.get(session)
        return 0.0 if s is None else self._decayed(s, now)

    def _pace_wait(self, s: _Session, now: float) -> float:
        """Seconds this run must wait for a token (and take it)."""
        s.tokens = min(self.burst, s.tokens + (now - s.stamp_tokens) * self.rate)
        s.stamp_tokens = now
        s.tokens -= 1.0
        return 0.0 if s.tokens >= 0.0 else -s.tokens / self.rate

    # ---- the public side -------------------------------------------------------------------

    def use_of(self, session: str) -> float:
        """The session's recent run time (seconds, decayed), for reports and tests."""
        with self._lock:
            return self._use_of(session, self._clock())

    def address_use(self, address: str) -> float:
        """The address's recent run time (seconds, decayed), all its sessions together."""
        with self._lock:
            return self._address_use(address, self._clock())

    def poke(self) -> None:
        """Dispatch again (the caller of ``healthy`` saw it change)."""
        with self._lock:
            self._dispatch(self._clock())

    def waiting(self) -> int:
        with self._lock:
            return len(self._waiting)

    def running(self) -> int:
        with self._lock:
            return self.slots - self._free

    @contextmanager
    def admit(self, session: str, address: str) -> Iterator[Admission]:
        """Wait for a slot (and, paced, for a token); yield the :class:`Admission`. The slot
        is held until the ``with`` block ends, whatever it raises, and its time is charged to
        the session. A refused run holds nothing."""
        t0 = self._clock()
        with self._lock:
            fresh = session not in self._sessions
            s = self._session(session, address, t0)
            pause = self._pace_wait(s, t0) if self.pace else 0.0
        if pause > 0.0:
            self._sleep(min(pause, self.timeout))
        with self._lock:
            now = self._clock()
            if self.pace and (
                sum(1 for w in self._waiting if w.address == address)
                >= self.max_waiting_per_address
            ):
                self.refused[CROWDED] += 1
                refusal: Admission | None = Admission(False, CROWDED, now - t0, fresh)
                waiter = None
            else:
                refusal = None
                waiter = _Waiter(session, address, next(self._order))
                self._waiting.append(waiter)
                self._dispatch(now)
        if refusal is not None:
            yield refusal
            return
        assert waiter is not None
        waiter.event.wait(self.timeout if self.pace else None)
        with self._lock:
            if not waiter.granted:  # timed out and still waiting: leave the queue
                self._waiting.remove(waiter)
                self.refused[BUSY] += 1
                late: Admission | None = Admission(False, BUSY, self._clock() - t0, fresh)
            else:
                late = None
        if late is not None:
            yield late
            return
        start = self._clock()
        try:
            yield Admission(True, None, start - t0, fresh)
        finally:
            with self._lock:
                now = self._clock()
                self._charge(session, address, max(now - start, self.min_charge), now)
                self._free += 1
                self._dispatch(now)
