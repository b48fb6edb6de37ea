"""Cached computations of the path-length lesson."""

from __future__ import annotations

import numpy as np

from core.analysis import path_length as analysis
from ui import cache


@cache.data(max_entries=64)  # n's range x d x k choices
def table_curves(n_max: int, d: int, k: int) -> tuple[list[int], dict]:
    """Table 1's three metrics of every layer type for n = 2..``n_max`` (160 points on a
    log scale): (ns, {metric: {layer type: values}})."""
    ns = sorted({int(x) for x in np.unique(np.geomspace(2, n_max, 160).round())})
    return ns, analysis.curves(ns, d, k)
