"""Small statistics and ratio helpers (pure functions, no I/O)."""

from __future__ import annotations

import math
from collections.abc import Sequence


def median(values: Sequence[float]) -> float:
    """The median of a non-empty sequence (mean of the two middle values if even)."""
    if not values:
        raise ValueError("median of an empty sequence: measure at least once")
    s = sorted(values)
    mid = len(s) // 2
    return float(s[mid]) if len(s) % 2 else (s[mid - 1] + s[mid]) / 2.0


def med(values: Sequence[float], digits: int = 3) -> float | None:
    """The median rounded to ``digits`` places; ``None`` when nothing was measured."""
    return round(median(values), digits) if values else None


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0..100), interpolated linearly between closest ranks."""
    if not values:
        raise ValueError("percentile of an empty sequence: measure at least once")
    s = sorted(values)
    pos = (len(s) - 1) * q / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return float(s[lo] + (s[hi] - s[lo]) * (pos - lo))


def summary_ms(seconds: Sequence[float]) -> dict[str, float]:
    """``{"rerun_ms_median", "rerun_ms_p95"}`` of latencies given in seconds."""
    ms = [1000.0 * v for v in seconds]
    return {"rerun_ms_median": round(median(ms), 1), "rerun_ms_p95": round(percentile(ms, 95), 1)}


def ratio(value: float | None, baseline: float | None) -> float | None:
    """``value / baseline`` rounded to 2 places; ``None`` when either is missing or zero."""
    if value is None or baseline is None or baseline <= 0:
        return None
    return round(value / baseline, 2)
