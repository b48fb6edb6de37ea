"""bench/models.py: the model-latency sentences are fixed for a seed."""

from __future__ import annotations

from bench import models


def test_model_sentences_are_fixed_and_have_the_asked_lengths():
    first = models.sentences()
    assert {n: len(s) for n, s in first.items()} == {10: 10, 30: 30, 50: 50}
    assert models.sentences() == first
