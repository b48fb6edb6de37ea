"""The fair gate around every page run (serve/admission.py), as a visitor meets it."""

from __future__ import annotations

import pytest

from serve import admission, cpus
from serve.fairshare import FairGate
from tests.conftest import main_text, make_app


@pytest.fixture
def refusing_gate(monkeypatch):
    """A public gate that turns every run away (its address already has "too many")."""
    gate = FairGate(1, pace=True, max_waiting_per_address=0)
    monkeypatch.setattr(admission, "_GATE", gate)
    return gate


@pytest.fixture
def fresh_gate(monkeypatch):
    gate = FairGate(1)
    monkeypatch.setattr(admission, "_GATE", gate)
    return gate


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_refused_run_says_why_in_the_visitors_language_and_draws_no_page(refusing_gate, lang):
    at = make_app("pages/attention.py", lang=lang).run()
    assert not at.exception
    warnings = [w.value for w in at.main.warning]
    expected = {"en": "Too many requests", "zh": "等待请求太多"}[lang]
    assert any(expected in w for w in warnings), warnings
    assert [b.label for b in at.button if b.key == "ui_admission_retry"] == [
        {"en": "Try again", "zh": "重试"}[lang]
    ]
    assert not at.get("plotly_chart")  # the page did not run
    assert refusing_gate.refused["crowded"] == 1


def test_an_admitted_run_draws_the_page_and_frees_its_slot(fresh_gate):
    at = make_app("pages/attention.py", lang="en").run()
    assert not at.exception
    assert at.get("plotly_chart")
    assert "Too many requests" not in main_text(at)
    assert fresh_gate.granted == 1 and fresh_gate.running() == 0
    at.run()  # the same session again: charged for both runs
    assert fresh_gate.granted == 2 and fresh_gate.running() == 0


def test_settings_come_from_the_environment(monkeypatch):
    monkeypatch.setattr(admission.sys, "setswitchinterval", lambda _s: None)
    monkeypatch.setattr(admission, "_GATE", None)
    monkeypatch.setenv(admission.PUBLIC_ENV, "1")
    monkeypatch.setenv(admission.SLOTS_ENV, "3")
    gate = admission.gate()
    assert gate.pace and gate.slots == 3
    assert admission.gate() is gate  # one per server
    monkeypatch.setattr(admission, "_GATE", None)
    monkeypatch.setenv(admission.PUBLIC_ENV, "0")
    monkeypatch.setenv(admission.SLOTS_ENV, "zero")
    gate = admission.gate()
    assert not gate.pace and gate.slots == cpus.cores()
    assert gate.give_way and gate.rest == 3.0 and gate.refuse_delay == 0.0  # the defaults
    assert gate.heavy_floor == admission.HEAVY_FLOOR_S > admission.MIN_CHARGE_S
    assert gate.max_waiting_per_address > gate.max_waiting_per_client


def test_the_flood_settings_come_from_the_environment(monkeypatch):
    switched: list[float] = []
    monkeypatch.setattr(admission.sys, "setswitchinterval", switched.append)
    monkeypatch.setattr(admission, "_GATE", None)
    monkeypatch.setenv(admission.PUBLIC_ENV, "1")
    monkeypatch.setenv(admission.GIVE_WAY_ENV, "off")
    monkeypatch.setenv(admission.REST_ENV, "0.5")
    monkeypatch.setenv(admission.SWITCH_ENV, "2")
    gate = admission.gate()
    assert not gate.give_way and gate.rest == 0.5 and gate.refuse_delay > 0
    assert switched == [0.002]
    switched.clear()
    monkeypatch.setattr(admission, "_GATE", None)
    monkeypatch.setenv(admission.REST_ENV, "lots")  # not a number: the default
    monkeypatch.setenv(admission.SWITCH_ENV, "0")  # Python's own interval
    monkeypatch.delenv(admission.GIVE_WAY_ENV)
    gate = admission.gate()
    assert gate.give_way and gate.rest == 3.0 and switched == []
    monkeypatch.setattr(admission, "_GATE", None)
    monkeypatch.setenv(admission.REST_ENV, "1e9")  # bounded
    assert admission.gate().rest == 10.0


def test_without_a_request_the_visitor_is_one_local_address(monkeypatch):
    monkeypatch.setenv(admission.TRUST_PROXY_ENV, "1")
    assert admission.client_address() == "local"


def _fragment_script():
    import streamlit as st

    from serve import admission
    from ui import gate

    @gate.fragment
    def part(label: str) -> None:
        st.write(f"{label}: {admission.holding()}")

    part("alone")  # as a fragment's own rerun reaches it: no frame around it
    with gate.admitted() as ok:
        if ok:
            part("in a run")  # drawn by a full run that holds a slot already


def test_a_fragment_rerun_passes_the_gate_and_a_full_run_passes_it_once(fresh_gate):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_fragment_script).run()
    assert not at.exception
    assert [m.value for m in at.markdown] == ["alone: True", "in a run: True"]
    assert fresh_gate.granted == 2  # one for the fragment alone, one for the run around it
    assert fresh_gate.running() == 0 and not admission.holding()


def test_a_refused_fragment_rerun_says_why_and_draws_nothing(refusing_gate):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_fragment_script).run()
    assert not at.exception
    assert not [m.value for m in at.markdown if "alone" in m.value]
    assert any("Too many requests" in w.value for w in at.warning)
    assert refusing_gate.refused["crowded"] == 2  # the fragment and the run: both refused


def test_no_page_makes_an_ungated_fragment():
    """Every fragment of the app is ``ui.fragment`` (the gate's); a bare ``st.fragment``
    would let a client rerun that part past every limit."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    bare = re.compile(r"^\s*@?st\.fragment\b|=\s*st\.fragment\(", re.M)
    files = [*root.glob("app.py"), *root.glob("pages/*.py"), *root.glob("ui/*.py")]
    files += root.glob("poll/*.py")
    files += root.glob("lessons/**/*.py")
    offenders = [
        str(f.relative_to(root))
        for f in files
        if f.name != "gate.py" and bare.search(f.read_text(encoding="utf-8"))
    ]
    assert offenders == []
    uses = sum(f.read_text(encoding="utf-8").count("@ui.fragment") for f in files)
    assert uses >= 30, uses  # the pages' parts really use it


def test_the_backlog_count_reads_this_streamlits_queues(monkeypatch):
    """``_undelivered`` reads Streamlit's private queues: fail here, not silently in
    production, when an upgrade renames them."""
    import inspect
    from types import SimpleNamespace

    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from streamlit.runtime import Runtime
    from streamlit.runtime.app_session import AppSession
    from streamlit.runtime.forward_msg_queue import ForwardMsgQueue

    assert "self._browser_queue = ForwardMsgQueue()" in inspect.getsource(AppSession.__init__)
    queues = [ForwardMsgQueue(), ForwardMsgQueue()]
    for i, q in enumerate(queues):
        for _ in range(i + 2):
            msg = ForwardMsg()
            msg.script_finished = ForwardMsg.FINISHED_SUCCESSFULLY
            q.enqueue(msg)
    sessions = [SimpleNamespace(session=SimpleNamespace(_browser_queue=q)) for q in queues]
    mgr = SimpleNamespace(list_active_sessions=lambda: sessions)
    runtime = SimpleNamespace(_session_mgr=mgr)
    monkeypatch.setattr(Runtime, "instance", classmethod(lambda cls: runtime))
    assert admission._undelivered() == sum(len(q.flush()) for q in queues) > 0
    assert admission._undelivered() == 0  # flushed: sent


class _Context:
    """What ``st.context`` tells the gate about one request."""

    def __init__(self, cookies: dict, ip: str = "203.0.113.7") -> None:
        self.cookies, self.headers, self.ip_address = cookies, {}, ip


BROWSER = "Zq3" * 8  # 24 characters: the shape of the poll's browser id
ROUTE = "0123456789abcdef" * 2  # nginx's $request_id


@pytest.mark.parametrize(
    ("cookies", "want"),
    [
        ({"road_browser": BROWSER, "road_route": ROUTE}, f"browser:{BROWSER}"),
        ({"road_route": ROUTE}, f"route:{ROUTE}"),
        ({"road_browser": "x;y", "road_route": "not-hex"}, "address:203.0.113.7"),
        ({}, "address:203.0.113.7"),
    ],
)
def test_the_gate_charges_a_browser_where_its_cookie_tells(monkeypatch, cookies, want):
    monkeypatch.setattr(admission.st, "context", _Context(cookies))
    assert admission.client_key() == want


def test_a_run_is_charged_to_its_browser_and_no_address_reaches_the_log(monkeypatch, fresh_gate):
    lines: list[str] = []

    class Log:
        def info(self, fmt, *args):
            lines.append(fmt % args)

    monkeypatch.setattr(admission, "_LOG", Log())
    monkeypatch.setenv(admission.TRACE_ENV, "1")
    monkeypatch.setattr(admission.st, "context", _Context({"road_route": ROUTE}))
    with admission.admitted() as decision:
        assert decision.ok
    assert fresh_gate.client_use(f"route:{ROUTE}") > 0
    assert fresh_gate.client_use("203.0.113.7") == 0
    assert len(lines) == 2 and "new session" in lines[0], lines  # the session, then the run
    assert admission.pseudonym(f"route:{ROUTE}") in lines[0]
    assert admission.pseudonym("203.0.113.7") in lines[0]
    for line in lines:
        assert "203.0.113" not in line and ROUTE not in line, line


def test_only_a_loopback_address_is_logged_whole():
    assert admission.loggable("127.0.0.2") == "127.0.0.2"  # the machine itself: the tests
    assert admission.loggable("::1") == "::1"
    assert admission.loggable("10.1.2.3") == "~" + admission.pseudonym("10.1.2.3")
    assert admission.loggable("2001:db8::7") == "~" + admission.pseudonym("2001:db8::7")


def test_a_pseudonym_is_stable_in_a_process_and_hides_what_it_names():
    one, again, other = (admission.pseudonym(a) for a in ("10.0.0.1", "10.0.0.1", "10.0.0.2"))
    assert one == again and one != other and len(one) == 10
    assert "10.0.0" not in one
