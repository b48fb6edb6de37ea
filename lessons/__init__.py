"""The lessons: one package per lesson page, one module per part.

``lessons/<slug>/<part>.py`` draws one part (its fragments, controls, titles and notes) with a
``show()`` that ``pages/<slug>.py`` dispatches to; ``data.py`` holds the lesson's cached
computations (``ui.cache.data``); ``common.py`` what several parts share. Figures are built
in ``charts/<slug>.py`` and computations in ``core/analysis/``: a lesson module only
wires widgets, caches and figures together.
"""

from collections.abc import Callable


def warm_ups() -> tuple[Callable[[], int], ...]:
    """What the server computes in the background once warm (``serve.warmup``), so the first
    class to drag a part's main slider does not wait: every value of the arena's "Length" on
    its default seed (55 sentences x 7 models) and of the RNN-gradients page's spectral radius
    (21 values), the other controls at their defaults, and path length's long-range chart
    (200 sentences x 7 models, ~10 s of one busy core) with the long-range sentence the
    alignment offers (~2 s). The modules are imported here, when
    the warm-up thread calls this, not with the package: they bring torch, which a cold
    server's first page (home) never needs."""
    from lessons import far_example
    from lessons.arena import data as arena
    from lessons.path_length import data as path_length
    from lessons.rnn_gradients import data as rnn_gradients

    return (
        arena.warm_default,
        rnn_gradients.warm_fresh,
        path_length.warm_longrange,
        far_example.warm,
    )
