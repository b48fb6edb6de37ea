"""The coreference encoder: its data split, its attention maths, its score -> weight numbers."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from core import corpus
from core.analysis import coref
from core.models.coref_encoder import CorefEncoder, CorefEncoderConfig
from core.vocab import Vocab


def _vocab() -> Vocab:
    cases = corpus.coref_cases(0, 300, False) + corpus.coref_cases(1, 100, True)
    return Vocab.build(c.tokens for c in cases)


def _model(vocab: Vocab) -> CorefEncoder:
    torch.manual_seed(0)
    return CorefEncoder(CorefEncoderConfig(vocab=len(vocab))).eval()


def _pair(case: corpus.CorefCase) -> tuple[str, str]:
    return case.tokens[case.antecedent], case.predicate


def test_held_out_pairs_never_occur_in_training_and_include_the_lessons():
    train, held = corpus.coref_pair_split()
    assert train and held and not train & held
    assert set(corpus.LESSON_COREF) <= held
    seen = {_pair(c) for c in corpus.coref_cases(0, 2000, held_out=False)}
    assert seen <= train
    tested = corpus.coref_cases(2, 400, held_out=True)
    assert {_pair(c) for c in tested} <= held
    assert not {c.tokens for c in tested} & {c.tokens for c in corpus.coref_cases(0, 2000, False)}


def test_held_out_cases_vary_nouns_predicates_and_positions():
    cases = corpus.coref_cases(2, 400, held_out=True)
    assert len({c.tokens[c.antecedent] for c in cases}) >= 15
    assert len({c.predicate for c in cases}) >= 8
    assert len({c.antecedent for c in cases}) >= 4  # the nouns move (adjectives, places)
    assert {c.reading for c in cases} == {"subject", "object"}
    for c in cases:
        assert c.tokens[c.it] == "it" and c.tokens[-1] == c.predicate
        want = "animal" if c.reading == "subject" else ("food", "drink")
        kinds = {n.en: n.kind for n in corpus.NOUNS}
        assert kinds[c.tokens[c.antecedent]] in want


def test_lesson_cases_are_the_lessons_sentences():
    hungry, sweet = corpus.lesson_coref_cases()
    assert " ".join(hungry.tokens) == "the cat drank the milk because it was hungry"
    assert (hungry.tokens[hungry.antecedent], sweet.tokens[sweet.antecedent]) == ("cat", "milk")


def test_attention_rows_sum_to_one_and_padding_gets_no_weight():
    vocab = _vocab()
    model = _model(vocab)
    cases = corpus.coref_cases(3, 8, held_out=True)
    ids, logits, layers = coref.encode_cases(model, vocab, cases)
    assert logits.shape == (*ids.shape, len(vocab))
    assert [lay["attn"].shape[1] for lay in layers] == [4, 1]
    for lay in layers:
        attn = lay["attn"]  # (B, h, S, S)
        assert torch.allclose(attn.sum(-1), torch.ones(attn.shape[:-1]), atol=1e-5)
        pad = (ids == 0)[:, None, None, :].expand_as(attn)
        assert pad.any() and float(attn[pad].abs().max()) == 0.0


def test_score_to_weight_is_the_softmax_of_the_real_scores():
    vocab = _vocab()
    model = _model(vocab)
    got = coref.score_to_weight(model, vocab, corpus.lesson_coref_cases()[0].tokens)
    assert got.query_word == "it" and got.keys.shape == (9, got.query.shape[0])
    scores = got.keys @ got.query / np.sqrt(got.query.shape[0])
    np.testing.assert_allclose(scores, got.scores, atol=1e-5)
    e = np.exp(scores - scores.max())
    np.testing.assert_allclose(e / e.sum(), got.weights, atol=1e-5)


def test_bad_queries_are_refused_with_a_reason():
    vocab = _vocab()
    model = _model(vocab)
    with pytest.raises(ValueError, match='no "it"'):
        coref.score_to_weight(model, vocab, ["the", "cat"])
    with pytest.raises(ValueError, match="query_index"):
        coref.score_to_weight(model, vocab, ["the", "cat"], query_index=5)
    with pytest.raises(ValueError, match="empty"):
        coref.evaluate_cases(model, vocab, [])


def test_config_round_trips_through_json_lists():
    cfg = CorefEncoderConfig(vocab=10, heads=[2, 1])
    assert cfg.heads == (2, 1)
    assert len(CorefEncoder(cfg).layers) == 2
