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


def test_it_counts_the_compression_pages_ngrams_once_for_every_session(monkeypatch):
    """The warm-up makes the n-gram counts of the shared split (ngram.corpus_stats), the
    compression page reads the same object: one computation per process, made before the
    first visitor asks (it was 12.7 s of that visitor's first render)."""
    from types import SimpleNamespace

    from core import corpus
    from core.analysis import ngram

    pair = SimpleNamespace
    split = SimpleNamespace(
        train=[pair(src=["the", "cat", "sat"]), pair(src=["the", "dog", "sat"])],
        test=[pair(src=["the", "cat", "ran"])],
    )
    calls = []

    def fake_splits(seed):
        calls.append(seed)
        return split

    monkeypatch.setattr(corpus, "shared_splits", fake_splits)
    ngram._corpus_stats.cache_clear()
    try:
        warmup._warm_corpus()
        # the warm-up read the splits and made the counts (which read them once more)
        assert len(calls) == 2 and ngram._corpus_stats.cache_info().currsize == 1
        seed = calls[0]  # the manifest's corpus seed
        made = ngram.corpus_stats(seed)  # what the page asks for: already there
        assert ngram._corpus_stats.cache_info().hits == 1 and len(calls) == 2
        assert made is ngram.corpus_stats(seed)  # one object for every session
        assert made == ngram.ngram_stats(
            [p.src for p in split.train], [p.src for p in split.test], ngram.CORPUS_MAX_N
        )
    finally:
        ngram._corpus_stats.cache_clear()
