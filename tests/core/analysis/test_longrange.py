"""The lesson's long dependency (秋蝉 … 它们) on the shipped translation models
(``core.analysis.longrange``): its cells, its agreement with the manifest's ``longrange``
metric, and the claims the path-length page makes from it."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from core import corpus, zoo
from core.analysis import longrange

needs_zoo = pytest.mark.skipif(
    not zoo.MANIFEST_PATH.is_file(), reason="no trained zoo: run python -m core.train --all"
)
ATTENTION = [m for m in zoo.TRANSLATION_MODELS if longrange.attends(m)]
WITHOUT = [m for m in zoo.TRANSLATION_MODELS if not longrange.attends(m)]


def _probe_defaults() -> tuple[tuple[int, ...], int]:
    params = inspect.signature(corpus.longrange_probe).parameters
    return params["distances"].default, params["n_per"].default


@pytest.fixture(scope="module")
def found() -> longrange.LongRange:
    src, tgt = zoo.load_vocabs()
    models = {m: zoo.load_model(m) for m in zoo.TRANSLATION_MODELS}
    return longrange.resolution(models, src, tgt)


def test_the_cells_are_the_probes_distances_and_readings():
    distances, n_per = _probe_defaults()
    pairs = corpus.longrange_probe()
    ds, index = longrange.cells(pairs)
    assert ds == tuple(sorted(distances))
    assert set(index) == {(r, d) for r in longrange.READINGS for d in distances}
    assert sorted(i for idx in index.values() for i in idx) == list(range(len(pairs)))
    assert {len(idx) for idx in index.values()} == {n_per // len(longrange.READINGS)}
    song = pairs[index[("song", distances[-1])][0]]
    assert dict(song.info)["reading"] == "song" and "their" in song.src


def test_an_unknown_reading_is_refused():
    pair = corpus.longrange_probe(distances=(10,), n_per=2)[0]
    odd = corpus.Pair(
        pair.src, pair.tgt, pair.kind, pair.check, (("reading", "smell"), ("distance", "10"))
    )
    with pytest.raises(ValueError, match="readings"):
        longrange.cells([odd])


def test_both_readings_are_weighted_by_their_sentences():
    counts = np.array([[1, 3], [3, 1]])
    right = {"m": np.array([[1.0, 0.0], [0.0, 1.0]])}
    lr = longrange.LongRange((5, 10), longrange.READINGS, counts, right)
    assert lr.by_distance("m").tolist() == [0.25, 0.25]
    assert lr.by_distance("m", "shade").tolist() == [0.0, 1.0]
    assert lr.overall("m") == 0.25
    with pytest.raises(ValueError, match="different numbers"):
        longrange.LongRange(
            (5, 10), longrange.READINGS, np.array([[1, 2], [1, 2]]), right
        ).per_distance()


def test_the_attention_families_come_from_the_model_table():
    assert ATTENTION == ["gru_attention", "transformer"]
    assert "cnn_s2s" in WITHOUT and "rnn_plain_256" in WITHOUT


@needs_zoo
def test_shapes_and_the_manifests_longrange_figure(found):
    distances, n_per = _probe_defaults()
    assert found.distances == tuple(distances) and found.per_distance() == n_per
    assert found.counts.shape == (len(longrange.READINGS), len(distances))
    manifest = zoo.load_manifest()["models"]
    one = 1 / found.counts.sum()  # one sentence: floats differ a little from CPU to CPU
    for m in zoo.TRANSLATION_MODELS:
        assert found.right[m].shape == found.counts.shape
        assert abs(found.overall(m) - manifest[m]["metrics"]["longrange"]) <= one + 1e-9, m


@needs_zoo
def test_claim_attention_finds_the_noun_at_every_distance(found):
    for m in ATTENTION:
        for reading in longrange.READINGS:
            assert found.by_distance(m, reading).min() >= 0.95, (m, reading)


@needs_zoo
def test_claim_without_attention_the_models_fall_with_distance(found):
    attn, (best, best_far) = found.farthest()
    assert set(attn) == set(ATTENTION) and best in WITHOUT
    assert best_far <= 0.6  # the best model without attention loses it at the farthest
    for m in WITHOUT:
        curve = found.by_distance(m)
        assert curve[-1] < curve[0], m  # each is right less often far than near
    # the GRU with the largest C: mostly right near, mostly wrong far
    gru = found.by_distance("gru_plain_256")
    assert gru[0] >= 0.75 and gru[-1] <= 0.2
