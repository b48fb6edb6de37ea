"""What attention buys, read from the training manifest: exact match by sentence length,
and whether a training loss was still falling when its step budget ran out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = [
    "length_series",
    "loss_fall",
]


def length_series(
    manifest: dict, names: Sequence[str], buckets: Sequence[str]
) -> dict[str, list[float]]:
    """Exact-match accuracy per length bucket of each model in ``names``, read from the
    training manifest; a model without a figure for every bucket is left out."""
    series = {}
    for name in names:
        by_len = manifest.get("models", {}).get(name, {}).get("metrics", {}).get("by_length", {})
        if all(b in by_len for b in buckets):
            series[name] = [float(by_len[b]["exact"]) for b in buckets]
    return series


def loss_fall(curve: Sequence[Sequence[float]], share: float = 0.2, window: int = 3) -> float:
    """How much a training loss fell over the last ``share`` of the steps, as a fraction of
    its value there: ``curve`` is the manifest's ``[step, loss, ...]`` rows; the loss at
    each end is the mean of ``window`` points (the logged loss is noisy)."""
    if len(curve) < 2 * window:
        raise ValueError(f"curve has {len(curve)} points; need at least {2 * window}")
    steps = np.array([row[0] for row in curve], dtype=float)
    loss = np.array([row[1] for row in curve], dtype=float)
    start = int(np.searchsorted(steps, steps[-1] * (1 - share)))
    start = min(max(start - window // 2, 0), len(curve) - window)
    before = loss[start : start + window].mean()
    return float((before - loss[-window:].mean()) / before)
