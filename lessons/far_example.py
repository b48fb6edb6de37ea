"""The lesson's long dependency in one sentence, as two lessons show it (path length links
to it; the attention's alignment draws it): the long-range sentence, 秋蝉 40 words before
"their", whose row for the repeated noun the GRU + attention puts most clearly on it."""

from __future__ import annotations

from core import corpus, zoo
from core.corpus.lesson import CICADAS
from ui import cache, models

MODEL = "gru_attention"  # the alignment part's default model


@cache.data  # no argument: one entry per set of models
def far_cicadas():
    """(the sentence pair, its ``longrange.FarRow`` in :data:`MODEL`), searched once (~2 s
    of one core); raises ``zoo.ZooError`` without the model, ``ValueError`` if no sentence
    qualifies."""
    # Imported here: torch (~1.5 s on a cold server), which a page's other parts may not need.
    from core.analysis import longrange

    src, tgt = models.get_vocabs()
    noun = CICADAS.pair_zh[0]
    return longrange.far_row_search(models.get_model(MODEL), src, tgt.tokens, noun)


def sentence() -> corpus.Pair | None:
    """The sentence, or None when it cannot be found (a missing model, no candidate)."""
    try:
        return far_cicadas()[0]
    except (zoo.ZooError, ValueError):
        return None


def warm() -> int:
    """At the server's warm-up (``serve.warmup``): the search, so the alignment part's first
    visitor does not wait for it. 1 when found, 0 otherwise."""
    return int(sentence() is not None)
