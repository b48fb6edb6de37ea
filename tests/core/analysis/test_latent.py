"""The latent state of the GRU language model, step by step (lesson 1.4)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from core.analysis import latent
from core.models.lm import GRULanguageModel, GRULMConfig


def _tiny() -> GRULanguageModel:
    torch.manual_seed(0)
    return GRULanguageModel(GRULMConfig(vocab=12, emb_dim=4, hidden=6)).eval()


def test_latent_steps_shapes_change_and_predictions():
    lm = _tiny()
    words = [5, 7, 9]
    r = latent.latent_steps(lm, words)
    assert r.states.shape == (4, 6)  # BOS + 3 words
    with torch.inference_mode():
        logits, hidden, _ = lm(torch.tensor([[latent.BOS_ID, *words]]))
    np.testing.assert_allclose(r.states, hidden[0].numpy(), rtol=1e-6)
    np.testing.assert_allclose(r.change[0], np.linalg.norm(r.states[0]), rtol=1e-5)
    np.testing.assert_allclose(r.change[2], np.linalg.norm(r.states[2] - r.states[1]), rtol=1e-5)
    probs = torch.softmax(logits[0], -1).numpy()
    assert list(r.top_ids) == list(probs.argmax(-1))
    np.testing.assert_allclose(r.target_probs, probs[np.arange(4), [5, 7, 9, latent.EOS_ID]])
    assert latent.hits(r, words) == int((probs.argmax(-1) == [5, 7, 9, latent.EOS_ID]).sum())
    with pytest.raises(ValueError, match="empty"):
        latent.latent_steps(lm, [])


def _shipped_lm():
    from core import zoo

    try:
        return zoo.load_model("lm_gru"), zoo.load_vocabs()[0]
    except zoo.ZooError:
        return None


@pytest.mark.skipif(_shipped_lm() is None, reason="the shipped language model is not built")
def test_the_lessons_sentence_is_predicted_from_the_state_alone():
    """The latent part's takeaway: after "you should" the state points to "wear", after
    "wear" to "shoes" -- each the top guess with probability above 0.5."""
    lm, vocab = _shipped_lm()
    words = ("you", "should", "wear", "shoes")
    ids = vocab.encode(words)
    r = latent.latent_steps(lm, ids)
    MIN_PROB = 0.5
    for step, word in ((2, "wear"), (3, "shoes")):  # state after "should", after "wear"
        assert r.top_ids[step] == vocab.encode([word])[0]
        assert r.top_probs[step] > MIN_PROB, (word, r.top_probs[step])
    assert r.states.shape[0] == len(words) + 1  # one state per word read, BOS first
