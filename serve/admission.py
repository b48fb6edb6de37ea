"""Every page run passes one fair gate (``serve.fairshare``): one server's cores shared
fairly among its visitors, so one client cannot spoil a class. This module decides; ``ui.gate``
tells a refused visitor why. The settings come from the
environment (the image and ``deploy/`` set them; a local ``streamlit run app.py`` needs
none): see :func:`gate`.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import math
import os
import re
import secrets
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st
from streamlit.logger import get_logger

from serve import cpus
from serve.fairshare import Admission, FairGate
from serve.looplag import LoopLag

_LOG = get_logger("road.admission")

PUBLIC_ENV = "ROAD_PUBLIC"
TRUST_PROXY_ENV = "ROAD_TRUST_PROXY"
SLOTS_ENV = "ROAD_RUN_SLOTS"
LAG_ENV = "ROAD_LOOP_LAG_MS"
BACKLOG_ENV = "ROAD_LOOP_BACKLOG"
RESERVE_ENV = "ROAD_RUN_RESERVE"
GIVE_WAY_ENV = "ROAD_GIVE_WAY"
REST_ENV = "ROAD_HEAVY_REST"
REFUSE_DELAY_S = 5.0  # a flood's refusals wait this long (a sleeping thread: no CPU)
SWITCH_ENV = "ROAD_SWITCH_MS"
# Python hands its one lock (the GIL) between threads every 5 ms by default; the event loop,
# which sends every message with a pause between two, waited that long behind a busy page
# run for each message (a page is ~60): 1 ms halved a class's clicks under a flood.
SWITCH_MS = 1.0
TRACE_ENV = "ROAD_GATE_TRACE"  # 1: one log line per run (client, wait, run time)
# Runs waiting at once before more are refused (public link only): a browser has one a tab
# (a teacher's few tabs, a fragment's), so 120 is a script; an address is a whole school
# behind its NAT: a lecture hall of 400 arriving within 20 s waits one run a phone at most,
# plus its teachers' and the reconnects: 600. Beyond, a flood from one address, made-up
# browser cookies and all, waits no further.
MAX_WAITING_PER_CLIENT = 120
MAX_WAITING_PER_ADDRESS = 600
LAG_DEFAULT_MS = 50
BACKLOG_LIMIT = 20  # messages made and not yet sent, all sessions together
# A run costs the server more than its script's time: the rerun itself and the delivery of
# everything it drew (a full page: tens of messages through the one event loop). A client
# rerunning an already cached page as fast as it can runs in 0.05 s, yet its messages held
# a class's back; so every run is charged at least this much.
MIN_CHARGE_S = 0.25
# No client is heavy by its use alone below what a busy student uses: one click every 5 s
# (the class benchmark's students click every 5-10 s), each run charged at least
# MIN_CHARGE_S, summed with the gate's half-life of 20 s: 0.25 x 20 / (5 x ln 2) = 1.44 s.
# A gate keyed per browser sees a fresh phone (nothing used) at every arrival; compared with
# it, every other phone of the class was heavy and gave way, one run at a time.
STUDENT_CLICK_EVERY_S = 5.0
HEAVY_FLOOR_S = MIN_CHARGE_S * FairGate.HALF_LIFE_S / (STUDENT_CLICK_EVERY_S * math.log(2))


def _slots() -> int:
    raw = os.environ.get(SLOTS_ENV, "").strip()
    if raw.isdigit() and int(raw) >= 1:
        return min(int(raw), 64)
    return max(1, cpus.cores())


def _on(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def _int_env(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw.isdigit() else default


def _float_env(name: str, default: float, low: float, high: float) -> float:
    try:
        value = float(os.environ.get(name, "").strip())
    except ValueError:
        return default
    return min(max(value, low), high) if math.isfinite(value) else default


def _lag_limit_s() -> float:
    raw = os.environ.get(LAG_ENV, "").strip()
    ms = int(raw) if raw.isdigit() else LAG_DEFAULT_MS
    return min(ms, 10_000) / 1000.0


def _server_loop():
    """The running server's event loop (None outside a server: a test harness, a script)."""
    try:
        from streamlit.runtime import Runtime

        if not Runtime.exists():
            return None
        return Runtime.instance()._get_async_objs().eventloop  # noqa: SLF001 - no public way
    except Exception:  # noqa: BLE001 - another Streamlit: the gate works without the check
        return None


def _undelivered() -> int:
    """Messages the server's sessions made and it has not sent yet (on the event loop)."""
    from streamlit.runtime import Runtime

    sessions = Runtime.instance()._session_mgr.list_active_sessions()  # noqa: SLF001
    return sum(len(s.session._browser_queue._queue) for s in sessions)  # noqa: SLF001


_GATE: FairGate | None = None
_LAG: LoopLag | None = None
_MAKING = threading.Lock()
_HELD = threading.local()  # this script thread's run holds a slot (a session has one thread)


def gate() -> FairGate:
    """The server's one gate (made on first use, from the environment of that moment). It
    shares the cores among CLIENTS (:func:`client_key`: a browser where its cookie tells,
    else an address); the address is only an outer guard:

    - ``ROAD_PUBLIC=1``: the public link. Runs are paced per session and refused (with a
      message in the visitor's language) when the visitor's browser already has many runs
      waiting (120), its address very many (600: a lecture hall of 400 behind one NAT waits
      one run a phone at most while it arrives) or a run waited too long. Off, runs only
      wait their turn.
    - ``ROAD_TRUST_PROXY=1``: the app runs behind the repo's load balancer, which sets
      ``X-Real-IP`` to the client's address (a school behind one NAT is one address). Without
      it the header is ignored (anyone could send one) and the socket's address is used.
    - ``ROAD_RUN_SLOTS``: page runs at once (default: the cores this process may use).
    - ``ROAD_LOOP_LAG_MS`` / ``ROAD_LOOP_BACKLOG``: while the server's event loop is more than
      this many milliseconds behind or holds more than this many unsent messages
      (``serve.looplag``; defaults 50 and 20; a lag of 0 turns the check off), a client that
      floods starts no run (one still goes now and then, so runs progress).
    - ``ROAD_RUN_RESERVE``: slots a client that floods leaves free for the others (default 1
      with two or more slots, else 0). Alone, a client uses every slot.
    - ``ROAD_GIVE_WAY`` (default on; ``0`` turns it off): a heavier client (one that floods,
      or uses more than twice as much) starts no run while a lighter one's run is in progress
      (one Python process computes on one core at a time, whatever the slots).
    - ``ROAD_HEAVY_REST`` (default 3): a client that floods (24 runs or more waiting) while
      another does not starts its next run only this many times its last run's time after it
      ended: it computes at most about a quarter of the time (``0``: never rests).
    - With ``ROAD_PUBLIC=1``, a refusal for a crowded client comes after ``REFUSE_DELAY_S``.
    - ``ROAD_GATE_TRACE=1``: one log line per run (session, the client's pseudonym, wait, run
      time, the loop's lag and unsent messages): how the figures of deploy/README.md were found.
    - ``ROAD_SWITCH_MS`` (default 1): how often Python switches threads (``sys.setswitchinterval``;
      ``0`` leaves Python's 5 ms).
    """
    global _GATE, _LAG
    if _GATE is None:
        with _MAKING:  # the first runs of a fresh server arrive together
            if _GATE is None:
                made = FairGate(
                    _slots(),
                    pace=_on(PUBLIC_ENV),
                    min_charge=MIN_CHARGE_S,
                    reserve=_int_env(RESERVE_ENV, 1 if _slots() >= 2 else 0),
                    max_waiting_per_client=MAX_WAITING_PER_CLIENT,
                    heavy_floor=HEAVY_FLOOR_S,
                    max_waiting_per_address=MAX_WAITING_PER_ADDRESS,
                    give_way=os.environ.get(GIVE_WAY_ENV, "1").strip().lower()
                    not in ("0", "false", "no", "off"),
                    rest=_float_env(REST_ENV, 3.0, 0.0, 10.0),
                    refuse_delay=REFUSE_DELAY_S if _on(PUBLIC_ENV) else 0.0,
                )
                switch_ms = _float_env(SWITCH_ENV, SWITCH_MS, 0.0, 50.0)
                if switch_ms > 0:
                    sys.setswitchinterval(switch_ms / 1000.0)
                limit, loop = _lag_limit_s(), _server_loop()
                if limit > 0 and loop is not None:
                    _LAG = LoopLag(
                        loop,
                        limit=limit,
                        backlog=_undelivered,
                        backlog_limit=_int_env(BACKLOG_ENV, BACKLOG_LIMIT),
                        on_sample=made.poke,
                    ).start()
                    made.healthy = _LAG.healthy
                _GATE = made
    return _GATE


# The cookies that tell one browser from another behind a shared address: the class poll's
# browser id (poll.views.COOKIE, written by its page; its shape is poll.store.BROWSER_ID) and
# the route cookie the repo's nginx gives every browser on its first page (road.conf:
# $request_id, 32 hex digits). Named here, not imported: serving sits below the poll.
BROWSER_COOKIE = "road_browser"
ROUTE_COOKIE = "road_route"
_BROWSER_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
_ROUTE_ID = re.compile(r"[0-9a-f]{32}")
# Log lines name a client by a keyed digest, never by its address or cookie: lines of one
# client can be told apart while this process runs, and nothing links them to a person
# after it (the key lives in memory only; an IPv4 address hashed without a key is found
# again by trying all 2^32).
_LOG_KEY = secrets.token_bytes(16)


def pseudonym(value: str) -> str:
    """A short keyed digest of an address or a browser id, for log lines."""
    return hmac.new(_LOG_KEY, value.encode(), hashlib.sha256).hexdigest()[:10]


def loggable(address: str) -> str:
    """An address as a log line may name it: a loopback one whole (the machine itself: its
    tests and benchmarks, no visitor has one), any other by its :func:`pseudonym`."""
    try:
        loopback = ipaddress.ip_address(address).is_loopback
    except ValueError:
        loopback = address == "local"
    return address if loopback else f"~{pseudonym(address)}"


def client_key(address: str | None = None) -> str:
    """Whom the gate charges this run to: the browser where the request tells it (the poll's
    browser id, else nginx's route cookie), else the address. Behind a school's NAT every
    phone is then a client of its own; a client without cookies (a script, ``streamlit run``
    before a poll page) is its address, as before. A cookie can be made up: the address
    stays the outer guard (``FairGate``'s ``max_waiting_per_address``, nginx's limits)."""
    try:
        cookies = st.context.cookies
        browser, route = cookies.get(BROWSER_COOKIE), cookies.get(ROUTE_COOKIE)
    except Exception:  # noqa: BLE001 - no request context (a test harness): the address
        browser = route = None
    if isinstance(browser, str) and _BROWSER_ID.fullmatch(browser):
        return f"browser:{browser}"
    if isinstance(route, str) and _ROUTE_ID.fullmatch(route):
        return f"route:{route}"
    return f"address:{address if address is not None else client_address()}"


def client_address() -> str:
    """The visitor's address: the proxy's ``X-Real-IP`` if trusted, else the socket's."""
    try:
        if _on(TRUST_PROXY_ENV):
            real = st.context.headers.get("X-Real-IP")
            if isinstance(real, str) and real.strip():
                return real.strip()[:64]
        ip = st.context.ip_address
        return ip if isinstance(ip, str) and ip else "local"
    except Exception:  # noqa: BLE001 - no request context (a test harness): one local visitor
        return "local"


def _session_id() -> str:
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else "no-session"


def holding() -> bool:
    """Whether the current run already passed the gate (a fragment drawn by a full run)."""
    return bool(getattr(_HELD, "on", False))


@contextmanager
def admitted() -> Iterator[Admission]:
    """``with admitted() as decision:`` around a page run: the gate's decision (``ok``, or the
    ``reason`` it was refused: :data:`serve.fairshare.BUSY` or crowded). Drawing nothing, it
    leaves telling the visitor to ``ui.gate``; the caller stops a refused run."""
    session, address = _session_id(), client_address()
    client = client_key(address)
    with gate().admit(session, client, address) as admission:
        if admission.new_session:  # one line per session: who the gate shares the cores among
            kind = client.split(":", 1)[0]
            _LOG.info(
                "new session %s from %s as %s ~%s",
                session[:8],
                loggable(address),
                kind,
                pseudonym(client),
            )
        _HELD.on = admission.ok
        t0 = time.monotonic()
        try:
            yield admission
        finally:
            _HELD.on = False
            if _on(TRACE_ENV):
                _LOG.info(
                    "run %s %s ok=%s waited=%.3f ran=%.3f at=%.3f lag=%.3f backlog=%d",
                    session[:8],
                    pseudonym(client),
                    admission.ok,
                    admission.waited_s,
                    time.monotonic() - t0,
                    t0,
                    _LAG.lag if _LAG is not None else -1.0,
                    _LAG.backlog if _LAG is not None else -1,
                )
