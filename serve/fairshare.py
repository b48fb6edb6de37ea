"""Fair share of one server's cores among its visitors: one client cannot spoil a class.

Every page run asks :class:`FairGate` for a slot (``serve/admission.py`` does, around every
run). The next slot goes to the CLIENT that used the least run time recently: a browser where
the app can tell (its cookie), else its address. A class of 400 phones behind one school
address is then 400 clients, each as light as a student, and goes ahead of a client rerunning
as fast as it is answered (measured, per session alone: the students' p95 went 0.4 -> 18 s).
The address itself is only an outer guard (``max_waiting_per_address``), sized for a lecture
hall behind one NAT. Pure Python with threads; the clock can be injected; at most
``max_sessions`` sessions are remembered.
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
CROWDED = "crowded"  # its client, or its address, already has that many runs waiting
ACTIVE_WINDOW_S = 15.0  # a client that asked for a run within this many seconds is active


@dataclass
class _Session:
    client: str
    use: float = 0.0  # run seconds, decayed to `stamp`
    stamp: float = 0.0
    tokens: float = 0.0  # the pacing bucket at `stamp_tokens`
    stamp_tokens: float = 0.0


@dataclass
class _Waiter:
    session: str
    client: str
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
    """The gate in front of every page run.

    A Streamlit server runs every session's script in a thread of its own, all at once. Left
    alone, a client that reruns as fast as it is answered, on hundreds of sessions, gets most of
    the CPU, and a class of students clicking every few seconds waits behind it. The load
    balancer's limits (``deploy/nginx/road.conf``) bound how many sessions and requests one
    browser and one address may open, but a whole school shares one address, so the address's
    limits must stay generous; they cannot see the reruns inside a websocket either.

    A CLIENT is what :meth:`admit` is given as ``client``: a browser where the app can tell
    (``serve.admission.client_key``: the browser's cookie), else the address. Every share
    below is a client's; the ADDRESS is only an outer guard. Keyed on the address alone, a
    lecture hall behind one NAT was one client: its 400 students shared one share, floods
    were counted over all of them (a hall arriving has dozens of runs waiting) and its runs
    gave way to a lone visitor elsewhere.

    :class:`FairGate` decides, inside the app, which page run goes next:

    - at most ``slots`` page runs at once (one per core: more would only share the cores);
    - when runs wait, the next slot goes to the client that has used the least run time
      recently (time in a slot, halved every ``half_life`` seconds), and within it to the
      session that has used least: a student clicking every few seconds uses far less than a
      client rerunning as fast as it is answered, so the class's runs go first; when both want
      more than the server has, each client gets an equal share. Per session alone would not
      do: a client with 150 sessions, each served rarely, has sessions that look as idle as a
      student's (measured: students' p95 0.4 -> 18 s). A new session starts with the mean
      recent use of its client's sessions. (A script that sends a made-up browser cookie on
      every session is that many clients, as a NAT of that many browsers would be: the outer
      guards bound it: nginx's sessions per address, the pacing per session below, and
      ``max_waiting_per_address``);
    - with ``pace`` on (the public link): a session's runs are paced by a token bucket (a burst
      of ``burst`` runs, then ``rate`` a second), far above a person's clicks, so a loop on one
      session waits without using a core; and a client with ``max_waiting_per_client`` runs
      already waiting, an address with ``max_waiting_per_address`` (the outer guard, sized for
      a lecture hall behind one NAT), or a run that waited ``timeout`` seconds, is refused.

    - every run is charged at least ``min_charge`` seconds, a refused one too: a run costs the
      server more than its script (its rerun, the delivery of everything it drew), and a
      client rerunning a cached page in a loop runs in milliseconds each time;
    - a client is HEAVY when it is heavier than another client that asked for a run lately
      (``ACTIVE_WINDOW_S``): it floods (``flood_waiting`` runs or more waiting) and the other
      does not, or neither (or both) floods and it used more than ``heavy_factor`` times as
      much, and more than ``heavy_floor`` seconds (a phone that just arrived has used nothing:
      without a floor, every other phone of its class would count as heavy and give way to it,
      one run at a time). Flooding comes first because use alone stops telling once the gate
      works: a flood held back uses no more run time than a class, yet has a hundred runs
      waiting where a class has one or two. Heavy runs are dispatched last; with
      ``give_way`` a heavy client starts no run while a lighter one's run is in a slot (the
      GIL: a server's Python runs on one core at a time, so a heavy run beside a student's
      halved the student's speed whatever the slots said);
    - the rules that hold harder apply to a FLOOD only, and only while another active
      client does not flood (someone to make room for; a class arriving all at once is not
      held behind a visitor who clicked a moment ago: measured, its arrivals waited 2 s):
      ``rest`` (after each run it waits ``rest`` times that run's charge: it computes at most
      a part of the time, so the server keeps room for the class's next click); ``reserve``
      (it leaves that many slots free); and a health probe (``healthy``, ``serve.looplag``:
      while the event loop is behind or holds many unsent messages, it starts nothing, unless
      nothing ran for ``hold_at_most`` seconds). Fair slots alone did not help: the runs were
      short and fair, and then a student's finished page waited ~20 s in the loop behind the
      abuser's messages;
    - with ``refuse_delay``: a refusal for a crowded client is given only after that many
      seconds (sleeping, no CPU, no slot), so a flood's refused runs do not spin.
    """

    HALF_LIFE_S = 20.0  # the default of ``half_life``

    def __init__(
        self,
        slots: int,
        *,
        half_life: float = HALF_LIFE_S,
        pace: bool = False,
        burst: float = 6.0,
        rate: float = 1.0,
        max_waiting_per_client: int = 120,
        max_waiting_per_address: int = 600,
        timeout: float = 45.0,
        max_sessions: int = 5000,
        min_charge: float = 0.0,
        healthy: Callable[[], bool] | None = None,
        hold_at_most: float = 0.5,
        reserve: int = 0,
        heavy_factor: float = 2.0,
        heavy_floor: float = 0.0,
        give_way: bool = False,
        rest: float = 0.0,
        flood_waiting: int = 24,
        refuse_delay: float = 0.0,
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
        self.max_waiting_per_client = max_waiting_per_client
        self.max_waiting_per_address = max_waiting_per_address
        self.timeout = timeout
        self.max_sessions = max_sessions
        self.min_charge = min_charge
        self.healthy = healthy
        self.hold_at_most = hold_at_most
        self.reserve = reserve
        self.heavy_factor = heavy_factor
        self.heavy_floor = heavy_floor
        self.give_way = give_way
        self.rest = rest
        self.flood_waiting = flood_waiting
        self.refuse_delay = refuse_delay
        self._timer: threading.Timer | None = None
        self._timer_at = math.inf
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._free = slots
        self._waiting: list[_Waiter] = []
        self._waiting_by: dict[str, int] = {}  # client -> its runs in self._waiting
        self._waiting_at: dict[str, int] = {}  # address -> its clients' runs in self._waiting
        self._running: dict[str, int] = {}  # client -> runs in a slot now
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        # client -> [use, stamp, may start its next run at (while it floods: `rest`)]
        self._clients: OrderedDict[str, list[float]] = OrderedDict()
        self._seen: OrderedDict[str, float] = OrderedDict()  # client -> its last request
        self._order = itertools.count()
        self.refused: dict[str, int] = {BUSY: 0, CROWDED: 0}
        self.granted = 0
        self.held = 0  # dispatches put off (give way, rest, reserve, loop behind)
        self._last_grant = -math.inf

    # ---- bookkeeping (under the lock) ------------------------------------------------------

    def _decayed(self, s: _Session, now: float) -> float:
        if s.use == 0.0:
            return 0.0
        return s.use * math.pow(0.5, max(0.0, now - s.stamp) / self.half_life)

    def _session(self, session: str, client: str, now: float) -> _Session:
        s = self._sessions.get(session)
        if s is None:
            peers = [self._decayed(p, now) for p in self._sessions.values() if p.client == client]
            start = sum(peers) / len(peers) if peers else 0.0
            s = _Session(client, use=start, stamp=now, tokens=self.burst, stamp_tokens=now)
            self._sessions[session] = s
            while len(self._sessions) > self.max_sessions:
                self._sessions.popitem(last=False)
        else:
            self._sessions.move_to_end(session)
        return s

    def _charge(self, session: str, client: str, seconds: float, now: float) -> None:
        s = self._sessions.get(session)
        if s is not None:
            s.use = self._decayed(s, now) + seconds
            s.stamp = now
        a = self._clients.get(client)
        if a is None:
            a = self._clients[client] = [0.0, now, -math.inf]
            while len(self._clients) > self.max_sessions:
                self._clients.popitem(last=False)
        else:
            self._clients.move_to_end(client)
        a[0] = self._client_use(client, now) + seconds
        a[1] = now
        a[2] = now + self.rest * seconds

    def _client_use(self, client: str, now: float) -> float:
        a = self._clients.get(client)
        if a is None or a[0] == 0.0:
            return 0.0
        return a[0] * math.pow(0.5, max(0.0, now - a[1]) / self.half_life)

    def _dispatch(self, now: float) -> None:
        """Hand free slots to the waiting runs: heavy clients last (:meth:`_heavy`), then
        the client that used least, the session that used least, the oldest.

        A heavy client also gives way to a lighter one's running run (``give_way``), leaves
        the ``reserve`` slots alone, rests between its runs (``rest``) and, while the health
        probe says no (``healthy``: the event loop cannot deliver what runs already made),
        starts nothing unless none is running and none started for ``hold_at_most`` seconds
        (so runs always progress). :meth:`poke` dispatches again."""
        while self._free > 0 and self._waiting:
            lightest = self._lightest(now)  # one pass over the active clients per step
            heavy = {a: self._heavy(a, now, lightest) for a in self._waiting_by}
            best = min(
                self._waiting,
                key=lambda w: (
                    heavy[w.client],
                    self._client_use(w.client, now),
                    self._use_of(w.session, now),
                    w.order,
                ),
            )
            if self._held_back(best, heavy[best.client], lightest, now):
                self.held += 1
                return
            self._waiting.remove(best)
            self._unwait(best)
            best.granted = True
            self._free -= 1
            self._running[best.client] = self._running.get(best.client, 0) + 1
            self.granted += 1
            self._last_grant = now
            best.event.set()

    def _unwait(self, w: _Waiter) -> None:
        for counts, key in ((self._waiting_by, w.client), (self._waiting_at, w.address)):
            left = counts.get(key, 1) - 1
            if left > 0:
                counts[key] = left
            else:
                counts.pop(key, None)

    def _floods(self, client: str) -> bool:
        """``flood_waiting`` runs or more waiting: a client rerunning on many sessions as
        fast as it is answered (a class has a few at most, even arriving all at once)."""
        return self._waiting_by.get(client, 0) >= self.flood_waiting

    def _heavier(self, a: str, b: str, now: float) -> bool:
        """Address ``a`` weighs on the server much more than ``b``: it floods and ``b`` does
        not, or neither floods (or both do) and ``a`` used more than ``heavy_factor`` times
        as much lately. Flooding comes first: once the gate holds a flood back it uses no
        more run time than a class (measured: half as much in a minute), yet it still has
        a hundred runs waiting where a class has one or two."""
        if a == b:
            return False
        flood_a, flood_b = self._floods(a), self._floods(b)
        if flood_a != flood_b:
            return flood_a
        return self._client_use(a, now) > self.heavy_factor * max(
            self._client_use(b, now), self.heavy_floor
        )

    def _lightest(self, now: float) -> dict[bool, list[tuple[float, str]]]:
        """The two least-used active clients (asked for a run in the last
        ``ACTIVE_WINDOW_S``) among those that flood (``True``) and those that do not: all
        :meth:`_heavy` needs, in one pass (a visitor with thousands of clients must not
        make every dispatch compare each with each)."""
        two: dict[bool, list[tuple[float, str]]] = {True: [], False: []}
        for other in reversed(self._seen):  # the most recent first
            if now - self._seen[other] > ACTIVE_WINDOW_S:
                break
            group = two[self._floods(other)]
            group.append((self._client_use(other, now), other))
            group.sort()
            del group[2:]
        return two

    def _heavy(self, client: str, now: float, lightest: dict) -> bool:
        """Heavier (:meth:`_heavier`) than another client that asked for a run lately
        (``ACTIVE_WINDOW_S``; ``lightest``: :meth:`_lightest`). Alone, no client is heavy:
        it may use every slot."""
        floods = self._floods(client)
        if floods and any(a != client for _, a in lightest[False]):
            return True  # it floods, a calm one is around
        use = self._client_use(client, now)
        least = next((u for u, a in lightest[floods] if a != client), math.inf)
        return use > self.heavy_factor * max(least, self.heavy_floor)

    def _calm(self, lightest: dict) -> bool:
        """A client that asked for a run lately does not flood (someone to make room for:
        when everyone floods, a class arriving all at once among them, nobody rests)."""
        return bool(lightest[False])

    def _held_back(self, best: _Waiter, heavy: bool, lightest: dict, now: float) -> bool:
        if not heavy:
            return False  # (heavy ones are dispatched last: this one is the lightest waiting)
        if self.give_way and any(self._heavier(best.client, r, now) for r in self._running):
            return True  # a lighter client is running: do not share the core with it
        if not (self._floods(best.client) and self._calm(lightest)):
            return False  # only a flood is held further, and only with someone to make room for
        if self.rest > 0.0:
            a = self._clients.get(best.client)
            if a is not None and now < a[2]:
                self._wake_at(a[2])
                return True  # a flood rests between its runs
        if self.reserve > 0 and self._free <= self.reserve:
            return True  # the last free slots stay for the others
        return (
            self.healthy is not None
            and (self._free < self.slots or now - self._last_grant < self.hold_at_most)
            and not self.healthy()
        )

    def _wake_at(self, when: float) -> None:
        """Dispatch again at ``when`` (the gate's clock), unless a wake-up comes sooner."""
        if when >= self._timer_at:
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer_at = when
        self._timer = threading.Timer(max(0.0, when - self._clock()), self._woken)
        self._timer.daemon = True
        self._timer.start()

    def _woken(self) -> None:
        with self._lock:
            self._timer, self._timer_at = None, math.inf
            self._dispatch(self._clock())

    def _saw(self, client: str, now: float) -> None:
        self._seen[client] = now
        self._seen.move_to_end(client)
        while len(self._seen) > self.max_sessions:
            self._seen.popitem(last=False)

    def _crowded(self, client: str, address: str) -> bool:
        """Too many runs waiting: the client's (a browser has a few, one per open tab at
        most), or, the outer guard, its address's all clients together (a lecture hall behind
        one NAT has one or two a phone while it arrives)."""
        return (
            self._waiting_by.get(client, 0) >= self.max_waiting_per_client
            or self._waiting_at.get(address, 0) >= self.max_waiting_per_address
        )

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

    def client_use(self, client: str) -> float:
        """The client's recent run time (seconds, decayed), all its sessions together."""
        with self._lock:
            return self._client_use(client, self._clock())

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
    def admit(self, session: str, client: str, address: str | None = None) -> Iterator[Admission]:
        """Wait for a slot (and, paced, for a token); yield the :class:`Admission`. ``client``
        is whom the run's time is charged to (a browser, else an address), ``address`` the
        outer guard's key (default: the client itself). The slot
        is held until the ``with`` block ends, whatever it raises, and its time is charged to
        the session. A refused run holds nothing and is charged ``min_charge`` (its page,
        which says why, is still a run to make and deliver)."""
        t0 = self._clock()
        address = client if address is None else address
        with self._lock:
            fresh = session not in self._sessions
            s = self._session(session, client, t0)
            self._saw(client, t0)
            pause = self._pace_wait(s, t0) if self.pace else 0.0
        if pause > 0.0:
            self._sleep(min(pause, self.timeout))
        with self._lock:
            now = self._clock()
            if self.pace and self._crowded(client, address):
                self.refused[CROWDED] += 1
                self._charge(session, client, self.min_charge, now)
                refusal: Admission | None = Admission(False, CROWDED, now - t0, fresh)
                waiter = None
            else:
                refusal = None
                waiter = _Waiter(session, client, address, next(self._order))
                self._waiting.append(waiter)
                self._waiting_by[client] = self._waiting_by.get(client, 0) + 1
                self._waiting_at[address] = self._waiting_at.get(address, 0) + 1
                self._dispatch(now)
        if refusal is not None:
            if self.refuse_delay > 0.0:
                self._sleep(self.refuse_delay)  # a flood's refusals do not spin: no CPU here
            yield refusal
            return
        assert waiter is not None
        waiter.event.wait(self.timeout if self.pace else None)
        with self._lock:
            if not waiter.granted:  # timed out and still waiting: leave the queue
                self._waiting.remove(waiter)
                self._unwait(waiter)
                self.refused[BUSY] += 1
                self._charge(session, client, self.min_charge, self._clock())
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
                self._charge(session, client, max(now - start, self.min_charge), now)
                self._free += 1
                left = self._running.get(client, 1) - 1
                if left > 0:
                    self._running[client] = left
                else:
                    self._running.pop(client, None)
                self._dispatch(now)
