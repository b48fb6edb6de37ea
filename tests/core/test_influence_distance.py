"""Influence by distance: the fade factor, the distance order, one sentence's curve."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from core.analysis import influence, rnn_gradients
from core.models.rnn_seq2seq import RNNSeq2Seq, RNNSeq2SeqConfig
from core.vocab import Vocab


def _fade_by_distance(model, rows) -> np.ndarray:
    """Oracle: the geometric mean over sentences of ‖∂C/∂e_j‖ by distance from the last
    word, divided by its value at distance 0, one sentence at a time."""
    curves = [influence.by_distance(influence.context_influence(model, r)) for r in rows]
    n = min(len(c) for c in curves)
    g = rnn_gradients.geometric_mean(np.array([c[:n] for c in curves]))
    return g / g[0]


def _median_fade(model, rows) -> float:
    """Oracle: the median fade factor over sentences, one sentence at a time."""
    factors = [influence.fade_factor(influence.context_influence(model, r)) for r in rows]
    return float(np.median([f for f in factors if np.isfinite(f)]))


def test_by_distance_reverses_the_words_and_drops_eos():
    got = influence.by_distance(np.array([1.0, 2.0, 3.0, 9.0]))
    assert got.tolist() == [3.0, 2.0, 1.0]


def test_fade_factor_is_last_over_first():
    words = np.array([1.0, 1.0, 1.0, 5.0, 4.0, 4.0, 4.0, 0.0])  # EOS last
    assert influence.fade_factor(words) == pytest.approx(4.0)
    assert math.isnan(influence.fade_factor(np.array([1.0, 2.0, 0.0])))


def test_a_plain_rnn_encoder_has_exact_gradients_through_backward():
    torch.manual_seed(0)
    model = RNNSeq2Seq(RNNSeq2SeqConfig(src_vocab=20, tgt_vocab=10, hidden=8, cell="rnn")).eval()
    ids = [5, 6, 7, 8, 2]
    got = influence.context_influence(model, ids)
    emb = model.encoder.embed(torch.tensor([ids])).detach()
    jac = torch.autograd.functional.jacobian(
        lambda e: model.encode(torch.tensor([ids]), embedded=e)["context"], emb
    )  # (1, H, 1, S, E)
    want = jac[0, :, 0].pow(2).sum(dim=(0, 2)).sqrt().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4)


def test_sentence_curve_refuses_unknown_words_and_normalises():
    vocab = Vocab(["a", "b", "c", "d", "e", "f", "g"])
    torch.manual_seed(0)
    model = RNNSeq2Seq(RNNSeq2SeqConfig(src_vocab=len(vocab), tgt_vocab=10, hidden=8, cell="rnn"))
    with pytest.raises(ValueError, match="zebra"):
        influence.sentence_curve(model, vocab, "a b zebra")
    curve = influence.sentence_curve(model, vocab, "a b c d e f g")
    assert curve["tokens"] == list("abcdefg") and curve["influence"].max() == 1.0
    assert len(curve["raw"]) == 7 and np.isfinite(curve["ratio"]) and np.isfinite(curve["fade"])


def test_the_cell_must_be_known_and_attention_needs_a_gru():
    with pytest.raises(ValueError, match="cell"):
        RNNSeq2Seq(RNNSeq2SeqConfig(src_vocab=5, tgt_vocab=5, cell="lstm"))
    with pytest.raises(ValueError, match="attention"):
        RNNSeq2Seq(RNNSeq2SeqConfig(src_vocab=5, tgt_vocab=5, cell="rnn", attention=True))


def test_fade_evidence_is_fade_by_distance_and_median_fade_in_one_pass():
    torch.manual_seed(0)
    model = RNNSeq2Seq(RNNSeq2SeqConfig(src_vocab=20, tgt_vocab=10, hidden=8, cell="rnn")).eval()
    rows = [[5, 6, 7, 8, 9, 10, 11, 2], [4, 5, 6, 7, 8, 9, 10, 12, 13, 2]]
    ev = influence.fade_evidence(model, rows)
    assert ev.n == 2
    assert np.allclose(ev.curve, _fade_by_distance(model, rows))
    assert ev.median_fade == pytest.approx(_median_fade(model, rows))
    with pytest.raises(ValueError, match="empty"):
        influence.fade_evidence(model, [])


def test_long_sentences_are_seeded_declaratives_of_enough_words():
    from core import corpus

    pairs = corpus.generate(400, seed=3)
    got = influence.long_sentences(pairs, n=3, min_words=20, seed=1)
    assert got == influence.long_sentences(pairs, n=3, min_words=20, seed=1)
    assert all(len(p.src) >= 20 and p.kind != "question" for p in got)
    with pytest.raises(ValueError, match="ask for fewer"):
        influence.long_sentences(pairs, n=10_000, min_words=20)
