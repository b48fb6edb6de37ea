"""Cached computations of the CNN receptive-field lesson."""

from __future__ import annotations

import numpy as np

from core.analysis import receptive_field as analysis
from ui import cache
from ui.models import get_model


@cache.data(max_entries=128)  # keyed on the visitor's sentence
def measured_field(src_ids: tuple[int, ...], position: int) -> np.ndarray:
    """(L, S) gradient norms of the shipped cnn_s2s encoder at ``position``."""
    return analysis.gradient_field(get_model("cnn_s2s"), src_ids, position)
