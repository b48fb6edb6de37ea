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


def loadable() -> tuple[str, ...]:
    """The translation models whose weights load, in the zoo's order."""
    out = []
    for name in LONGRANGE_MODELS:
        try:
            models.get_model(name)
        except zoo.ZooError:
            continue
        out.append(name)
    return tuple(out)


@cache.data(max_entries=8)  # keyed on which models load: one entry in a complete zoo
def longrange(names: tuple[str, ...]):
    """The models ``names`` on the long-range sentences (``core.analysis.longrange``):
    ~1-1.6 s of greedy decoding a model on one core, so the server warms it up."""
    # Imported here: torch (~1.5 s on a cold server), which the table never needs.
    from core.analysis import longrange as lr

    src, tgt = models.get_vocabs()
    return lr.resolution({m: models.get_model(m) for m in names}, src, tgt)


def warm_longrange() -> int:
    """At the server's warm-up (``serve.warmup``): the long-range chart's decoding, so the
    first class to reach it does not wait (~10 s of one busy core)."""
    names = loadable()
    if names:
        longrange(names)
    return len(names)
