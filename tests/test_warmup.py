"""ui.warmup: one background import thread per process, never an error of its own."""

from __future__ import annotations

import sys

from ui import warmup


def test_failed_imports_are_left_to_the_page(monkeypatch):
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)
    warmup._import_all(("no_such_module_for_road_to_attention", "colorsys"))
    assert "colorsys" in sys.modules  # the one after the failure still got imported


def test_one_thread_per_process(monkeypatch):
    monkeypatch.setattr(warmup, "_thread", None)
    first = warmup.start(("json",))
    assert warmup.start(("json",)) is first
    first.join(timeout=30)
    assert not first.is_alive() and first.daemon


def test_the_shell_starts_it_after_a_page(monkeypatch, no_manifest):
    from tests.conftest import make_app

    monkeypatch.setattr(warmup, "_thread", None)
    calls = []
    monkeypatch.setattr(warmup, "start", lambda *a: calls.append(a))
    at = make_app("pages/home.py", lang="en").run()
    assert not at.exception and calls


def test_never_a_module_plotly_peeks_at():
    # plotly's get_module(..., should_load=False) reads sys.modules directly: a module the
    # warm-up thread is halfway through importing would be seen half-initialised there
    assert not {"pandas", "numpy", "PIL", "scipy", "xarray"} & set(warmup.MODULES)
