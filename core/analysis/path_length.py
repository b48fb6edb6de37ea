"""Path length between two words, and Table 1 of Vaswani et al. 2017 ("Attention Is All
You Need") as exact counts one can plot against ``n`` (``n`` positions of width ``d``,
convolutions of window ``k``): cost per layer, sequential steps and maximum path length of
self-attention (n^2 d, 1, 1), recurrent (n d^2, n, n - 1), convolutional (k n d^2, 1,
ceil((n-1)/(k-1))) and dilated convolutional layers (k n d^2, 1, ceil(log_k n)); the
convolution counts are those of a non-causal stack (``core.analysis.receptive_field``), the
dilated one multiplying its dilation by ``k`` per layer. Formulas, not measurements. A word
pair's path: the hops before one state depends on both words (one attention layer,
``|j - i|`` recurrent steps, or the layers until one convolution window holds both).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core.analysis.receptive_field import first_shared_layer, meeting_path
from core.corpus.lesson import I_LOVE_YOU

ARCHITECTURES: tuple[str, ...] = ("self_attention", "recurrent", "conv", "conv_dilated")
METRICS: tuple[str, ...] = ("path", "sequential", "complexity")

# The orders of growth as printed in Table 1 (language-neutral maths).
BIG_O: dict[str, dict[str, str]] = {
    "self_attention": {"complexity": "O(n²·d)", "sequential": "O(1)", "path": "O(1)"},
    "recurrent": {"complexity": "O(n·d²)", "sequential": "O(n)", "path": "O(n)"},
    "conv": {"complexity": "O(k·n·d²)", "sequential": "O(1)", "path": "O(n/k)"},
    "conv_dilated": {"complexity": "O(k·n·d²)", "sequential": "O(1)", "path": "O(log_k(n))"},
}


def _check(n: int, d: int, k: int) -> None:
    if n < 2:
        raise ValueError(f"n must be at least 2 positions, got {n}")
    if d < 1:
        raise ValueError(f"d must be at least 1, got {d}")
    if k < 2:
        raise ValueError(f"the kernel k must be at least 2 (k = 1 never connects words), got {k}")


def max_path(arch: str, n: int, k: int) -> int:
    """Hops between the first and the last of ``n`` positions."""
    return pair_steps(0, n - 1, k)[arch]


def costs(n: int, d: int, k: int) -> dict[str, dict[str, int]]:
    """Table 1 as numbers: ``{arch: {"complexity", "sequential", "path"}}``.

    complexity: multiply-adds of one layer; sequential: steps that cannot run in parallel;
    path: hops between the first and the last position.
    """
    _check(n, d, k)
    per_layer = {
        "self_attention": n * n * d,
        "recurrent": n * d * d,
        "conv": k * n * d * d,
        "conv_dilated": k * n * d * d,
    }
    sequential = {"self_attention": 1, "recurrent": n, "conv": 1, "conv_dilated": 1}
    steps = pair_steps(0, n - 1, k)
    return {
        a: {"complexity": per_layer[a], "sequential": sequential[a], "path": steps[a]}
        for a in ARCHITECTURES
    }


def curves(ns: Sequence[int], d: int, k: int) -> dict[str, dict[str, np.ndarray]]:
    """Every metric of Table 1 against ``n``: ``{metric: {arch: (len(ns),) array}}``."""
    table = [costs(int(n), d, k) for n in ns]
    return {
        m: {a: np.array([row[a][m] for row in table], dtype=float) for a in ARCHITECTURES}
        for m in METRICS
    }


def pair_steps(i: int, j: int, k: int) -> dict[str, int]:
    """Hops until one state depends on both words ``i`` and ``j`` (positions), per layer type.

    Raises ``ValueError`` if a convolution would need more than 64 layers.
    """
    if k < 2:
        raise ValueError(f"the kernel k must be at least 2, got {k}")
    gap = abs(j - i)
    conv = first_shared_layer(i, j, k, base=1, max_layers=10**6)
    dilated = first_shared_layer(i, j, k, base=k)
    if conv is None or dilated is None:  # pragma: no cover - k >= 2 always gets there
        raise ValueError(f"positions {i} and {j} are too far apart for this sketch")
    return {
        "self_attention": 1 if gap else 0,
        "recurrent": gap,
        "conv": conv,
        "conv_dilated": dilated,
    }


Polyline = list[tuple[int, int]]  # (position, layer) points


def pair_paths(i: int, j: int, k: int) -> dict[str, list[Polyline]]:
    """The signal paths between words ``i`` and ``j`` in each layer type, for drawing.

    Each path is a list of ``(position, layer)`` points; layer 0 is the words. Recurrent:
    word i enters its state, then state to state up to j. Self-attention: position j's
    output reads word i directly. Convolutions: both words climb until one node sees both.
    """
    lo, hi = sorted((i, j))
    paths: dict[str, list[Polyline]] = {
        "self_attention": [[(lo, 0), (hi, 1)], [(hi, 0), (hi, 1)]],
        "recurrent": [[(lo, 0), *[(p, 1) for p in range(lo, hi + 1)]], [(hi, 0), (hi, 1)]],
    }
    for arch, base in (("conv", 1), ("conv_dilated", k)):
        met = meeting_path(lo, hi, k, base)
        if met is None:  # pragma: no cover - guarded by pair_steps
            raise ValueError(f"positions {i} and {j} are too far apart for this sketch")
        from_i, from_j, _ = met
        paths[arch] = [
            [(p, t) for t, p in enumerate(from_i)],
            [(p, t) for t, p in enumerate(from_j)],
        ]
    return paths


# --- the lesson's three problems (section 2.4), as numbers one can draw -----------------------
# The lesson's alignment example: translating "I love you" to 我爱你, the plain
# encoder-decoder hands the decoder one summary vector, so nothing in it says that "I"
# matters more than "love" or "you" for 我: each source word has the same share.
ALIGN_SOURCE: tuple[str, ...] = tuple(I_LOVE_YOU.original.split())  # as the lesson writes it
ALIGN_TARGET = I_LOVE_YOU.zh_words[0]  # 我
ALIGN_TRANSLATION = I_LOVE_YOU.zh_text  # 我爱你
# The translators compared on the fixed-size-state panel (their manifest's exact match by
# sentence length): the same GRU, without and with attention (Bahdanau et al. 2015, Fig. 2).
STATE_MODELS: tuple[str, str] = ("gru_plain_256", "gru_attention")
STATE_METRIC = "exact"
DISTANCE_K = 3  # the kernel of the convolution drawn on the relation-distance panel


def equal_shares(n: int) -> list[float]:
    """What each of ``n`` source words contributes when the decoder only sees one summary
    vector: no per-word factor exists, so every word gets the same share, 1/n."""
    if n < 1:
        raise ValueError(f"n must be at least 1 source word, got {n}")
    return [1.0 / n] * n


def length_evidence(
    manifest: dict, models: Sequence[str] = STATE_MODELS, metric: str = STATE_METRIC
) -> tuple[list[str], dict[str, list[float]]]:
    """``(buckets, {model: value per bucket})``: each translator's held-out ``metric`` by
    sentence length, from the training run's manifest; models without it are left out."""
    buckets: list[str] = []
    out: dict[str, list[float]] = {}
    for name in models:
        by_length = (((manifest.get("models") or {}).get(name) or {}).get("metrics") or {}).get(
            "by_length"
        ) or {}
        if not by_length:
            continue
        keys = list(by_length)
        if buckets and keys != buckets:
            continue
        buckets = buckets or keys
        out[name] = [float(by_length[b][metric]) for b in keys]
    return buckets, out


def hops_by_distance(distances: Sequence[int], k: int = DISTANCE_K) -> dict[str, list[int]]:
    """Hops between two words ``d`` positions apart, for each ``d``, per layer type (the
    dilated stack left out: three lines read at a glance)."""
    rows = [pair_steps(0, int(d), k) for d in distances]
    return {a: [r[a] for r in rows] for a in ("recurrent", "conv", "self_attention")}
