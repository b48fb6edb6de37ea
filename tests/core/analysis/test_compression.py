"""The compression page's numbers: the layer-weight formulas against real PyTorch modules,
the claims its default views make, and the search for the default prompt."""

from __future__ import annotations

import pytest
from torch import nn

from core.analysis import compression as cp
from core.analysis import ngram

# The priors part's default view (lessons/compression/priors.py: DEFAULT_CTX, d, k).
DEFAULT_CTX, DEFAULT_D, DEFAULT_K = 64, 256, 3
MLP_FACTOR_MIN = 10.0  # the MLP layer needs at least this many times the weights of any other


def count(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


@pytest.mark.parametrize(("n", "d", "h", "k"), [(1, 8, 8, 2), (5, 16, 24, 3), (12, 32, 32, 7)])
def test_formulas_equal_real_torch_modules(n, d, h, k):
    # real modules with real memory at small sizes, each built the way the page describes
    assert cp.weights("mlp", n, d, h, k) == count(nn.Linear(n * d, h))
    assert cp.weights("cnn", n, d, h, k) == count(nn.Conv1d(d, h, k))
    assert cp.weights("rnn", n, d, h, k) == count(nn.RNN(d, h))
    # a GRU cell is three RNN blocks (what the fold says)
    assert count(nn.GRUCell(d, h)) == 3 * cp.weights("rnn", n, d, h, k)
    for heads in (1, 2, 4):
        assert cp.weights("attention", n, d, h, k) == count(nn.MultiheadAttention(d, heads))


@pytest.mark.parametrize("arch", cp.ARCHITECTURES)
def test_meta_device_count_matches_the_formula_at_large_sizes(arch):
    for n, d, k in [(512, 1024, 9), (64, 256, 3), (1, 32, 2)]:
        assert cp.torch_params(arch, n, d, k=k) == cp.weights(arch, n, d, k=k)


def test_only_the_mlp_grows_with_the_context():
    grown = cp.curves([8, 16, 512], 128, k=3)
    assert grown["mlp"][0] < grown["mlp"][1] < grown["mlp"][2]
    for arch in ("cnn", "rnn", "attention"):
        assert len(set(grown[arch])) == 1, arch


def test_default_priors_view_shows_the_mlp_far_bigger():
    factor = cp.mlp_factor(DEFAULT_CTX, DEFAULT_D, k=DEFAULT_K)
    assert factor > MLP_FACTOR_MIN, factor
    # ... while a very short window is not (what the try-this says: n = 1-4)
    assert all(cp.mlp_factor(n, DEFAULT_D, k=DEFAULT_K) <= 1 for n in (1, 2, 3, 4))


def test_reach():
    assert cp.reach("attention", 64) == cp.reach("mlp", 64) == 1
    assert cp.reach("rnn", 64) == 63
    assert cp.reach("cnn", 64, k=3) == 32 and cp.reach("cnn", 9, k=9) == 1
    with pytest.raises(ValueError, match="k >= 2"):
        cp.reach("cnn", 5, k=1)
    with pytest.raises(ValueError, match="arch must be one of"):
        cp.weights("lstm", 4, 8)


# --- the Markov window, on a small hand-made corpus ------------------------------------------
TRAIN = [
    "the cat sat on the mat".split(),
    "the dog sat on the rug".split(),
    "a cat ran to the dog".split(),
]
HELD_OUT = [
    "the cat sat on the rug".split(),  # every 3-word context seen: no candidate
    "a dog sat on the mat".split(),  # "a dog sat" unseen at n=4 (prefix of 3 too short)
    "the mat ran on a cat".split(),
]


def test_window_example_finds_a_context_the_table_never_saw():
    table = ngram.code(TRAIN)
    ex = cp.window_example(table, HELD_OUT, 4, lengths=(3, 6))
    # "a dog sat" falls back to "dog sat" (2 words); "the mat ran" further, to "ran"
    assert ex.prompt == ("the", "mat", "ran") and ex.used == 1
    last = [table.id(w) for w in ex.prompt[-3:]]
    assert ngram.next_counts(table, last).sum() == 0  # the full window was never seen
    assert ex.used == cp.first_context(table, ex.prompt, 4)
    # deterministic
    assert cp.window_example(table, HELD_OUT, 4, lengths=(3, 6)) == ex


def test_window_example_raises_when_every_context_was_seen():
    table = ngram.code(TRAIN)
    with pytest.raises(ValueError, match="unseen"):
        cp.window_example(table, TRAIN, 3, lengths=(3, 6))
    with pytest.raises(ValueError, match="n >= 2"):
        cp.window_example(table, HELD_OUT, 1)


def test_the_corpus_ngram_counts_are_made_once_per_process(monkeypatch):
    """ngram.corpus_stats: the compression page's counts of the shared split (~6 s), made
    once and shared by every session; visitors who ask at the same time wait for one count
    instead of starting one each."""
    import threading
    from types import SimpleNamespace

    from core import corpus
    from core.analysis import ngram

    pair = SimpleNamespace
    split = SimpleNamespace(
        train=[pair(src=["the", "cat", "sat"]), pair(src=["the", "dog", "sat"])],
        test=[pair(src=["the", "cat", "ran"])],
    )
    calls = []
    monkeypatch.setattr(corpus, "shared_splits", lambda seed: calls.append(seed) or split)
    ngram._corpus_stats.cache_clear()
    try:
        got = []
        threads = [
            threading.Thread(target=lambda: got.append(ngram.corpus_stats(7))) for _ in range(4)
        ]
        for th in threads:
            th.start()
        for th in threads:
            th.join(timeout=60)
        assert len(got) == 4 and all(g is got[0] for g in got)  # one object for all
        assert calls == [7]  # counted once
        assert got[0] == ngram.ngram_stats(
            [p.src for p in split.train], [p.src for p in split.test], ngram.CORPUS_MAX_N
        )
    finally:
        ngram._corpus_stats.cache_clear()
