"""Every page run passes one fair gate (``core.fairshare``): one server's cores shared
fairly among its visitors, so one client cannot spoil a class (issue 23).

Settings, from the environment (the image and ``deploy/`` set them; a local
``streamlit run app.py`` needs none):

- ``ROAD_PUBLIC=1``: the public link. Runs are paced per session and refused (with a
  message in the visitor's language) when the visitor's address already has many runs
  waiting or a run waited too long. Off, runs only wait their turn.
- ``ROAD_TRUST_PROXY=1``: the app runs behind the repo's load balancer, which sets
  ``X-Real-IP`` to the client's address (a school behind one NAT is one address). Without
  it the header is ignored (anyone could send one) and the socket's address is used.
- ``ROAD_RUN_SLOTS``: page runs at once (default: the cores this process may use).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st
from streamlit.logger import get_logger

from core.fairshare import BUSY, FairGate

_LOG = get_logger("road.admission")

PUBLIC_ENV = "ROAD_PUBLIC"
TRUST_PROXY_ENV = "ROAD_TRUST_PROXY"
SLOTS_ENV = "ROAD_RUN_SLOTS"


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _slots() -> int:
    raw = os.environ.get(SLOTS_ENV, "").strip()
    if raw.isdigit() and int(raw) >= 1:
        return min(int(raw), 64)
    return max(1, _cores())


def _on(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


_GATE: FairGate | None = None


def gate() -> FairGate:
    """The server's one gate (made on first use, from the environment of that moment)."""
    global _GATE
    if _GATE is None:
        _GATE = FairGate(_slots(), pace=_on(PUBLIC_ENV))
    return _GATE


def client_address() -> str:
    """The visitor's address: the proxy's ``X-Real-IP`` if trusted, else the socket's."""
    try:
        if _on(TRUST_PROXY_ENV):
            real = st.context.headers.get("X-Real-IP")
            if real:
                return real.strip()[:64]
        return st.context.ip_address or "local"
    except Exception:  # noqa: BLE001 - no request context (a test harness): one local visitor
        return "local"


def _session_id() -> str:
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else "no-session"


@contextmanager
def admitted() -> Iterator[bool]:
    """``with admitted() as ok:`` around a page run. Not ok: the visitor has been told why
    (and what to do) in their language; the caller stops the run."""
    from ui.i18n import t

    session, address = _session_id(), client_address()
    with gate().admit(session, address) as admission:
        if admission.new_session:  # one line per session: who the gate shares the cores among
            _LOG.info("new session %s from %s", session[:8], address)
        if not admission.ok:
            key = "admission.busy" if admission.reason == BUSY else "admission.crowded"
            st.warning(t(key), icon=":material/hourglass_top:")
            st.button(t("admission.retry"), key="ui_admission_retry", type="primary")
        yield admission.ok
