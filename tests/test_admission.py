"""The fair gate around every page run (ui/admission.py), as a visitor meets it."""

from __future__ import annotations

import pytest

from core.fairshare import FairGate
from tests.conftest import main_text, make_app
from ui import admission


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
    assert not gate.pace and gate.slots == admission._cores()


def test_without_a_request_the_visitor_is_one_local_address(monkeypatch):
    monkeypatch.setenv(admission.TRUST_PROXY_ENV, "1")
    assert admission.client_address() == "local"
