"""The forced-slip study: what one wrong token does to the rest, per model."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from core import corpus, zoo
from core.analysis import slips

needs_zoo = pytest.mark.skipif(not zoo.MANIFEST_PATH.is_file(), reason="no trained zoo")


def test_grammatical_leaves_out_questions_and_keeps_the_length_range():
    pairs = corpus.generate(400, seed=5)
    kept = slips.grammatical(pairs, 6, 12)
    assert kept and all(p.kind != "question" and 6 <= len(p.src) <= 12 for p in kept)
    assert any(p.kind == "question" for p in pairs)


def test_second_choice_is_never_the_first_nor_a_special_token():
    logits = torch.tensor(
        [[0.0, 9.0, 8.0, 7.0, 6.0, 5.0, 1.0], [0.0, 0.0, 0.0, 0.0, 1.0, 3.0, 2.0]]
    )
    got = slips._second_choice(logits, torch.tensor([5, 5]))
    assert got.tolist() == [4, 6]


def test_summary_counts_are_consistent():
    study = slips.SlipStudy("m", 1, np.array([0, 0, 3, 5]), np.array([4, 4, 4, 4]), (0, 1, 2, 3))
    s = study.summary()
    assert s["n"] == 4 and s["recovered"] == 0.5 and s["derailed"] == 0.5
    assert s["histogram"] == {0: 2, 3: 1, 5: 1} and s["mean_edits"] == 2.0


@needs_zoo
def test_studies_run_on_translation_and_language_models():
    src_vocab, _ = zoo.load_vocabs()
    pairs = slips.sample_sentences(corpus.shared_splits(1234).test, 20, seed=1)
    rows = slips.slip_table(
        {"gru_attention": zoo.load_model("gru_attention")},
        {"lm_gru": zoo.load_model("lm_gru")},
        src_vocab,
        pairs,
        pos=1,
    )
    assert [r["model"] for r in rows] == ["gru_attention", "lm_gru"]
    for r in rows:
        assert 0 < r["n"] <= 20 and sum(r["histogram"].values()) == r["n"]
        assert 0 <= r["recovered"] <= 1 and r["mean_edits"] >= 0


@needs_zoo
def test_a_pos_beyond_every_output_is_refused():
    src_vocab, _ = zoo.load_vocabs()
    src = [src_vocab.encode(["he", "slept"], eos=True)]
    with pytest.raises(ValueError, match="earlier pos"):
        slips.translation_slips(zoo.load_model("gru_attention"), "a", src, 30)
