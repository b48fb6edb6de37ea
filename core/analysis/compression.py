"""How to compress the past (lesson 1.6): the Markov window, and architectures as priors.

1. The Markov window: :func:`window_example` finds a held-out prompt whose last n−1 words
   never occur together in training, so the n-gram table must back off (counting:
   :mod:`core.analysis.ngram`).
2. Priors on an MLP: :func:`weights` gives the exact parameters (biases included) one layer
   needs to read ``n`` words of width ``d`` (MLP, CNN, RNN, self-attention: ``FORMULAS``);
   :func:`torch_params` counts the same layers built from ``torch.nn`` on the ``meta`` device.
Counts and formulas only, never typed-in numbers.
"""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from core.analysis import ngram
from core.analysis.sensible import sensible

ARCHITECTURES: tuple[str, ...] = ("mlp", "cnn", "rnn", "attention")

# The formulas as shown (language-neutral maths).
FORMULAS: dict[str, str] = {
    "mlp": "n·d·h + h",
    "cnn": "k·d·h + h",
    "rnn": "(d+h)·h + 2h",
    "attention": "4·d² + 4d",
}


def _check(n: int, d: int, h: int, k: int) -> None:
    if n < 1:
        raise ValueError(f"the context n must be at least 1 word, got {n}")
    if d < 1 or h < 1:
        raise ValueError(f"the widths d and h must be at least 1, got d={d}, h={h}")
    if k < 1:
        raise ValueError(f"the kernel k must be at least 1, got {k}")


def weights(arch: str, n: int, d: int, h: int | None = None, k: int = 3) -> int:
    """Parameters (weights and biases) of one layer of ``arch`` reading ``n`` words of
    width ``d`` into ``h`` units (``h`` defaults to ``d``; attention's output width is
    ``d`` whatever ``h``). Exactly what PyTorch's module of that layer holds."""
    h = d if h is None else h
    _check(n, d, h, k)
    if arch == "mlp":  # nn.Linear(n*d, h): the whole window flattened into one vector
        return n * d * h + h
    if arch == "cnn":  # nn.Conv1d(d, h, k): one filter slid over the positions
        return k * d * h + h
    if arch == "rnn":  # nn.RNN(d, h): W_ih, W_hh and their two biases
        return (d + h) * h + 2 * h
    if arch == "attention":  # nn.MultiheadAttention(d): Q, K, V and output projections
        return 4 * d * d + 4 * d
    raise ValueError(f"arch must be one of {ARCHITECTURES}, got {arch!r}")


def reach(arch: str, n: int, k: int = 3) -> int:
    """Layers (or, for the RNN, time steps) before the last of ``n`` words depends on the
    first: the MLP and attention 1, a stack of CNN layers ceil((n−1)/(k−1)), the RNN n−1."""
    _check(n, 1, 1, k)
    if n == 1:
        return 0
    if arch in ("mlp", "attention"):
        return 1
    if arch == "cnn":
        if k < 2:
            raise ValueError("a kernel of 1 word never connects two words; use k >= 2")
        return math.ceil((n - 1) / (k - 1))
    if arch == "rnn":
        return n - 1
    raise ValueError(f"arch must be one of {ARCHITECTURES}, got {arch!r}")


def curves(ns: Sequence[int], d: int, h: int | None = None, k: int = 3) -> dict[str, list[int]]:
    """:func:`weights` of every architecture over the context lengths ``ns``."""
    return {a: [weights(a, n, d, h, k) for n in ns] for a in ARCHITECTURES}


def mlp_factor(n: int, d: int, h: int | None = None, k: int = 3) -> float:
    """How many times the MLP's weights exceed the largest of the other layers'."""
    others = max(weights(a, n, d, h, k) for a in ARCHITECTURES if a != "mlp")
    return weights("mlp", n, d, h, k) / others


def torch_params(arch: str, n: int, d: int, h: int | None = None, k: int = 3) -> int:
    """The same layer built from ``torch.nn`` on the meta device, its parameters counted.

    Attention uses one head (the count does not depend on the number of heads)."""
    import torch
    from torch import nn

    h = d if h is None else h
    _check(n, d, h, k)
    meta = torch.device("meta")
    if arch == "mlp":
        layer: nn.Module = nn.Linear(n * d, h, device=meta)
    elif arch == "cnn":
        layer = nn.Conv1d(d, h, k, device=meta)
    elif arch == "rnn":
        layer = nn.RNN(d, h, device=meta)
    elif arch == "attention":
        layer = nn.MultiheadAttention(d, 1, device=meta)
    else:
        raise ValueError(f"arch must be one of {ARCHITECTURES}, got {arch!r}")
    return sum(p.numel() for p in layer.parameters())


# --- the Markov window ----------------------------------------------------------------------


@dataclass(frozen=True)
class WindowExample:
    prompt: tuple[str, ...]  # the held-out prefix
    n: int  # the n-gram order it was chosen for
    used: int  # words of context the count table could use at the first step (< n−1)


def first_context(table: ngram.Coded, prompt: Sequence[str], n: int) -> int:
    """Words of context the n-gram model uses for the word after ``prompt`` (after backing
    off from n−1 to the longest context seen in training)."""
    steps = ngram.ngram_continue(table, prompt, n, max_new=1)
    return len(steps[0].context)


# The compression page's default prompt: the n-gram order it opens with, and the search for a
# held-out prompt on which that order has to back off (lengths in words, candidates compared).
DEFAULT_ORDER = 4
SEARCH_LENGTHS, SEARCH_CANDIDATES = (5, 8), 12
_EXAMPLE_LOCK = threading.Lock()


def corpus_window_example(seed: int) -> WindowExample:
    """:func:`window_example` of the default order on the shared corpus for ``seed``
    (training table against the test sentences a person would say,
    :func:`core.analysis.sensible.sensible`): searched once per process (~2 s on one core),
    by the server's warm-up (``serve.warmup``) or by the first visitor, whoever comes first."""
    with _EXAMPLE_LOCK:
        return _corpus_window_example(seed)


@functools.lru_cache(maxsize=2)
def _corpus_window_example(seed: int) -> WindowExample:
    from core import corpus

    # prompts begin sentences a person would say (no question, no made-up cause, no tense clash)
    test = [p.src for p in corpus.shared_splits(seed).test if sensible(p.src)]
    return window_example(
        ngram.corpus_table(seed),
        test,
        DEFAULT_ORDER,
        lengths=SEARCH_LENGTHS,
        candidates=SEARCH_CANDIDATES,
    )


def window_example(
    table: ngram.Coded,
    sentences: Sequence[Sequence[str]],
    n: int,
    *,
    lengths: tuple[int, int] = (5, 8),
    candidates: int = 12,
) -> WindowExample:
    """A held-out prompt on which an n-gram model cannot use its full window.

    Goes through ``sentences`` in order; for each, the shortest prefix (``lengths`` words,
    inclusive) whose last n−1 words never occur together in ``table`` is a candidate. Of the
    first ``candidates`` candidates, the one where the model falls back furthest (fewest
    context words usable at the first step) wins; ties go to the shorter prompt, then to the
    earlier sentence. Deterministic for fixed inputs. Raises ``ValueError`` if none exists.
    """
    if n < 2:
        raise ValueError(f"an n-gram model with n={n} has no context window; use n >= 2")
    lo, hi = lengths
    found: list[tuple[int, int, int, tuple[str, ...]]] = []
    for order, sent in enumerate(sentences):
        ids = [table.id(w) for w in sent[:hi]]
        for size in range(max(lo, n - 1), min(len(sent), hi) + 1):
            if None in ids[:size]:
                break
            context = ids[size - (n - 1) : size]
            if ngram.next_counts(table, context).sum() == 0:
                prompt = tuple(sent[:size])
                found.append((first_context(table, prompt, n), size, order, prompt))
                break
        if len(found) >= candidates:
            break
    if not found:
        raise ValueError(f"no prompt of {lo}-{hi} words has an unseen {n - 1}-word context")
    used, _, _, prompt = min(found)
    return WindowExample(prompt, n, used)
