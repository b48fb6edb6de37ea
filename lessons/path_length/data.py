"""Cached computations of the path-length lesson."""

from __future__ import annotations

import numpy as np

from core import zoo
from core.analysis import path_length as analysis
from ui import cache, models

LONGRANGE_MODELS = zoo.TRANSLATION_MODELS  # every model that translates, in the zoo's order


@cache.data(max_entries=64)  # n's range x d x k choices
def table_curves(n_max: int, d: int, k: int) -> tuple[list[int], dict]:
    """Table 1's three metrics of every layer type for n = 2..``n_max`` (160 points on a
    log scale): (ns, {metric: {layer type: values}})."""
    ns = sorted({int(x) for x in np.unique(np.geomspace(2, n_max, 160).round())})
    return ns, analysis.curves(ns, d, k)


@cache.data  # no argument: one entry per set of models
def longrange():
    """Every translation model on the long-range sentences (``core.analysis.longrange``):
    ~1-1.6 s of greedy decoding a model on one core, so the server warms it up."""
    # Imported here: torch (~1.5 s on a cold server), which the table never needs.
    from core.analysis import longrange as lr

    src, tgt = models.get_vocabs()
    return lr.resolution({m: models.get_model(m) for m in LONGRANGE_MODELS}, src, tgt)


def warm_longrange() -> int:
    """At the server's warm-up (``serve.warmup``): the long-range chart's decoding, so the
    first class to reach it does not wait (~10 s of one busy core). 0 when a model is
    missing: the part says so itself."""
    try:
        longrange()
    except zoo.ZooError:
        return 0
    return len(LONGRANGE_MODELS)
