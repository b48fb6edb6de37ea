"""The attention lesson's cached computations: the models' runs, the searches for the
clearest example, the scores inside a model and the sqrt(d) curves (``ui.cache.data``:
keyed on the models' checksums too; bounded where a visitor's input is in the key)."""

from __future__ import annotations

import numpy as np

from core import corpus, zoo
from core.analysis import attention as analysis
from core.analysis import coref
from core.translate import translate_tokens
from ui import cache, models

DIMS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)  # the d of the sqrt(d) curves


def vocabs():
    """(source vocabulary, target vocabulary) of the zoo."""
    return models.get_vocabs()


def _ids(tokens: tuple[str, ...]) -> list[int]:
    return vocabs()[0].encode(tokens, eos=True)


@cache.data(max_entries=128)
def run_model(name: str, tokens: tuple[str, ...]) -> tuple[analysis.AttentionRun, float]:
    """Greedy translation + its attention, and the replay check (max |Δ logit|)."""
    model = models.get_model(name)
    ids = _ids(tokens)
    run = analysis.run_attention(model, ids, tokens, vocabs()[1].tokens)
    return run, analysis.logit_gap(model, ids, run)


@cache.data  # keyed on a model name: a closed set
def it_view(name: str) -> analysis.ItChoice:
    """The encoder view of model ``name`` that shows best what "it" reads (searched once per
    model)."""
    return analysis.it_view_search(models.get_model(name), *vocabs())


@cache.data  # no argument: one entry per set of models
def best_pair() -> analysis.PairEvidence:
    """The "transformer" pair whose ambiguous word reads its context most."""
    return analysis.pairs_search(models.get_model("transformer"), *vocabs())


@cache.data(max_entries=64)
def query_keys(name: str, tokens: tuple[str, ...], layer: int) -> tuple[np.ndarray, np.ndarray]:
    """The queries and keys of the Transformer ``name``'s encoder in ``layer``: (H, S,
    d_head) each."""
    return analysis.transformer_qk(models.get_model(name), _ids(tokens), layer)


@cache.data(max_entries=64)
def energies(tokens: tuple[str, ...], out_ids: tuple[int, ...], step: int) -> np.ndarray:
    """The additive (Bahdanau) scores of decoding ``step`` over the source: (S,)."""
    return analysis.additive_energy(models.get_model("gru_attention"), _ids(tokens), out_ids, step)


@cache.data(max_entries=64)  # n_keys follows the visitor's sentence
def saturation(n_keys: int) -> dict[str, np.ndarray]:
    """Entropy and largest weight against d (:data:`DIMS`) for ``n_keys`` random keys."""
    return analysis.saturation_curve(DIMS, n_keys)


@cache.data(max_entries=64)
def _translate_with(name: str, tokens: tuple[str, ...]) -> str:
    return translate_tokens(models.get_model(name), tokens, *vocabs()).text


def translate_with(name: str, tokens: tuple[str, ...]) -> str | None:
    """Model ``name``'s translation of ``tokens``, or ``None`` if the model is missing."""
    try:
        return _translate_with(name, tokens)
    except zoo.ZooError:
        return None


COREF = "coref_encoder"  # the small encoder trained to say which noun "it" names


@cache.data  # no argument: one entry per set of models
def coref_pair() -> dict[str, coref.ScoreToWeight]:
    """The lesson's pair in the coreference encoder's named head, keyed by predicate."""
    return coref.lesson_pair(models.get_model(COREF), vocabs()[0])


@cache.data  # no argument: one entry per set of models
def coref_held_out() -> dict:
    """The named head on held-out sentences (pairs never seen in training)."""
    return coref.held_out_metrics(models.get_model(COREF), vocabs()[0])


@cache.data(max_entries=16)  # keyed on a (layer, head): a closed set
def coref_rows(layer: int, head: int) -> dict[str, np.ndarray]:
    """What "it" reads in head ``head`` of layer ``layer`` (0-based) of the coreference
    encoder, in each sentence of the lesson's pair: (S,) per predicate."""
    cases = corpus.lesson_coref_cases()
    _, _, layers = coref.encode_cases(models.get_model(COREF), vocabs()[0], cases)
    return {c.predicate: layers[layer]["attn"][i, head, c.it].numpy() for i, c in enumerate(cases)}


def coref_heads() -> tuple[int, ...]:
    """Heads per layer of the coreference encoder."""
    return tuple(models.get_model(COREF).cfg.heads)
