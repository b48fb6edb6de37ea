"""Figures of the RNN-gradients page, on the app's template, palette and presenter scale.

Builders take arrays and already-translated labels, check them, and raise a ``ValueError``
that says how to fix the call. All norm axes are logarithmic and unnormalised. The fading
itself is in :mod:`.decay` (norms, eigenvalues, a sentence's words), what it does to
learning in :mod:`.learning` (training curves, accuracy by distance, one step).
"""

from __future__ import annotations

from charts.rnn_gradients.decay import (
    CIRCLE_POINTS,
    decay_figure,
    eigen_figure,
    fade_words_figure,
    influence_strip,
)
from charts.rnn_gradients.learning import (
    accuracy_figure,
    curves_figure,
    note_place,
    step_figure,
)

__all__ = [
    "CIRCLE_POINTS",
    "accuracy_figure",
    "curves_figure",
    "decay_figure",
    "eigen_figure",
    "fade_words_figure",
    "influence_strip",
    "note_place",
    "step_figure",
]
