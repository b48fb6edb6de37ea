"""serve.warmup: one background import thread per process, never an error of its own."""

from __future__ import annotations

import inspect
import sys

from serve import warmup


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
    monkeypatch.setattr(warmup, "start", lambda *a, **kw: calls.append((a, kw)))
    at = make_app("pages/home.py", lang="en").run()
    assert not at.exception and calls
    import lessons  # the lessons' own warm-ups are handed over by the app's frame

    assert calls[-1][1]["warm_ups"] is lessons.warm_ups


def test_a_module_plotly_peeks_at_only_with_the_peek_guarded():
    # plotly's get_module(..., should_load=False) reads sys.modules directly: a module the
    # warm-up thread is halfway through importing would be seen half-initialised there,
    # unless core's guard passes over it (tests/core/test_plotly_guard.py holds the race)
    from _plotly_utils import basevalidators, optional_imports

    assert "pandas" in warmup.MODULES
    assert optional_imports.get_module.road_guard and basevalidators.get_module.road_guard


def test_the_app_warm_up_waits_first_and_the_wait_is_configurable(monkeypatch):
    # the first page's messages go out before torch's import takes the GIL (bench: home's
    # cold start against `streamlit hello`)
    monkeypatch.delenv("ROAD_WARMUP_DELAY_S", raising=False)
    assert warmup._delay_s() == warmup.DELAY_S > 0
    for raw, want in (("0", 0.0), ("0.5", 0.5), ("-3", 0.0), ("soon", warmup.DELAY_S)):
        monkeypatch.setenv("ROAD_WARMUP_DELAY_S", raw)
        assert warmup._delay_s() == want
    started = []
    monkeypatch.setattr(warmup, "_thread", None)
    monkeypatch.setattr(warmup.threading, "Thread", lambda **kw: started.append(kw) or _Idle())
    monkeypatch.setenv("ROAD_WARMUP_DELAY_S", "1.5")
    warmup.start()
    assert started[0]["args"] == (warmup.MODULES, True, 1.5, None)
    monkeypatch.setattr(warmup, "_thread", None)
    warmup.start(("json",))  # any other list (a test's) starts at once
    assert started[1]["args"] == (("json",), False, 0.0, None)


class _Idle:
    def start(self) -> None:
        pass


def test_the_corpus_warm_up_fills_the_caches_the_compression_page_reads(monkeypatch):
    """The warm-up computes exactly what the page asks for first (same functions, same
    keys): the corpus of the manifest's seed, its n-gram counts and the default prompt."""
    from core import corpus, zoo
    from core.analysis import compression, ngram

    calls = []
    monkeypatch.setattr(zoo, "load_manifest", lambda: {"corpus": {"seed": 77}})
    monkeypatch.setattr(corpus, "shared_splits", lambda seed: calls.append(("splits", seed)))
    monkeypatch.setattr(ngram, "corpus_stats", lambda seed: calls.append(("stats", seed)))
    monkeypatch.setattr(
        compression, "corpus_window_example", lambda seed: calls.append(("prompt", seed))
    )
    from core.analysis import influence
    from lessons.arena import common as arena
    from lessons.arena import data as arena_data

    monkeypatch.setattr(influence, "fade_study", lambda: calls.append(("fade",)))
    monkeypatch.setattr(arena_data, "loadable", lambda names: ("m1", "m2"))
    monkeypatch.setattr(arena_data, "warm", lambda names: calls.append(("arena", names)))
    import lessons

    warmup._warm_corpus()
    warmup._warm_lessons(lessons.warm_ups)
    assert calls == [
        ("splits", 77),
        ("stats", 77),
        ("prompt", 77),
        ("fade",),
        ("arena", ("m1", "m2")),
    ]
    assert arena.MODELS  # the arena's every-length warm-up: tests/lessons/test_arena.py
    # the page asks for the counts up to CORPUS_MAX_N: the warm-up's default, the same key
    monkeypatch.undo()
    n_max = inspect.signature(ngram.corpus_stats).parameters["n_max"].default
    assert n_max == ngram.CORPUS_MAX_N


def test_only_the_app_warm_up_freezes_what_lives_for_good(monkeypatch):
    """After the app's warm-up, what is alive (modules, the corpus) is out of the garbage
    collector's reach, so a full collection no longer walks it during a click."""
    import gc

    monkeypatch.setattr(warmup, "_warm_corpus", lambda: None)
    gc.unfreeze()
    try:
        warmup._import_all((), corpus=False)
        assert gc.get_freeze_count() == 0
        warmup._import_all((), corpus=True)
        assert gc.get_freeze_count() > 1000  # this test process's own modules, at least
    finally:
        gc.unfreeze()


EXIT_SCRIPT = """
import sys, threading, time
from serve import warmup
import torch

def translate_forever():  # the warm-up's torch work, as long as the process lives
    x = torch.randn(300, 300)
    while not warmup.stopping():
        x = torch.tanh(x @ x.T / 300)

warmup._thread = threading.Thread(target=translate_forever, daemon=True)
warmup._thread.start()
time.sleep(0.3)
"""


def test_a_process_exits_cleanly_while_its_warm_up_runs_torch():
    """A process that ends while the warm-up thread is inside torch (a test process that ran
    a page, a short script) was aborted at exit ("terminate called without an active
    exception", exit code -6: 6 runs of 6 without the exit handler): at exit the warm-up is
    asked to stop and waited for."""
    import subprocess

    from tests.conftest import ROOT

    for _ in range(3):
        proc = subprocess.run(
            [sys.executable, "-c", EXIT_SCRIPT],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0 and "terminate called" not in proc.stderr, proc.stderr[-500:]


def test_a_stopping_warm_up_starts_no_further_step(monkeypatch):
    from core import corpus

    calls = []
    monkeypatch.setattr(corpus, "shared_splits", lambda seed: calls.append(seed))
    monkeypatch.setattr(warmup, "_stop", warmup.threading.Event())
    warmup._stop.set()
    warmup._warm_corpus()
    warmup._import_all(("colorsys",), corpus=True)
    assert calls == [] and warmup.stopping()
