"""context_influence is the norm of the true Jacobian dC/de_j."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from core import zoo
from core.analysis.influence import (
    WORDS_CANDIDATES,
    backward_influence,
    closed_form_influence,
    context_influence,
    typical_sentence,
    verdict,
)


def test_context_influence_equals_the_full_jacobian_norm():
    torch.manual_seed(0)
    model = zoo.build_model("rnn_seq2seq", {"src_vocab": 20, "tgt_vocab": 20, "hidden": 12})
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    ids = [5, 6, 7, 8, 9, 10, 2]
    src = torch.tensor([ids])
    emb = model.encoder.embed(src).detach()

    def context_of(e):
        return model.encode(src, embedded=e)["context"][0]  # (H,)

    jac = torch.autograd.functional.jacobian(context_of, emb)  # (H, 1, S, E)
    expected = jac.pow(2).sum(dim=(0, 1, 3)).sqrt().numpy()
    got = context_influence(model, ids)
    assert got.shape == (len(ids),)
    assert torch.allclose(torch.from_numpy(got), torch.from_numpy(expected), atol=1e-5)
    assert (got > 0).all()


def _model(hidden: int, bidirectional: bool = False, cell: str = "gru"):
    torch.manual_seed(1)
    cfg = {"src_vocab": 30, "tgt_vocab": 20, "hidden": hidden, "emb_dim": 10, "cell": cell}
    if bidirectional:
        cfg.update(bidirectional=True, attention=True)
    model = zoo.build_model("rnn_seq2seq", cfg).eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model


@pytest.mark.parametrize("cell", ["gru", "rnn"])
def test_the_closed_form_jacobians_equal_the_batched_backward_pass(cell):
    # a long sentence with repeated words: the product of 40 step Jacobians, word by word
    model = _model(24, cell=cell)
    assert isinstance(model.encoder.rnn, torch.nn.GRU if cell == "gru" else torch.nn.RNN)
    ids = [5 + (k * 7) % 23 for k in range(40)] + [2]
    fast = closed_form_influence(model, ids)
    slow = backward_influence(model, ids)
    assert fast.shape == slow.shape == (len(ids),)
    np.testing.assert_allclose(fast, slow, rtol=1e-4, atol=1e-7)
    np.testing.assert_allclose(context_influence(model, ids), fast)  # the plain models' path
    one = [7]
    np.testing.assert_allclose(
        closed_form_influence(model, one), backward_influence(model, one), rtol=1e-5
    )


def test_a_bidirectional_encoder_takes_the_backward_pass():
    model = _model(16, bidirectional=True)
    ids = [5, 6, 7, 8, 2]
    np.testing.assert_allclose(context_influence(model, ids), backward_influence(model, ids))


def test_part_4_default_sentence_reads_like_the_model_and_its_caption_matches():
    """One statistic, one conclusion: the bottleneck page's early/late ratio and verdict.
    The default is a candidate of the majority verdict, and the chart drawn for it gives
    the same verdict (so the caption and takeaway picked from it match the chart)."""
    from core import zoo
    from core.analysis.bottleneck import early_late_ratio

    model, (src, _) = zoo.load_model("gru_plain_256"), zoo.load_vocabs()
    choice = typical_sentence(model, src)
    assert choice.text in WORDS_CANDIDATES
    assert all(src.encode([w])[0] != 3 for c in WORDS_CANDIDATES for w in c.split())
    assert choice.n_majority > len(WORDS_CANDIDATES) / 2  # a real majority
    ratio = early_late_ratio(context_influence(model, src.encode(choice.text.split(), eos=True)))
    assert verdict(ratio) == choice.verdict == choice.majority
    assert ratio == pytest.approx(choice.ratio)
    # today the trained GRU does not fade over a sentence: the page says so (no "recent
    # words weigh more"); if retraining changes this, the caption follows the verdict
    assert choice.verdict == "even"


def test_the_fade_study_is_computed_once_per_weights_and_shared():
    """The RNN-gradients page's first part and the server's warm-up share one computation."""
    from core.analysis import influence

    first = influence.fade_study()
    assert influence.fade_study() is first  # the page's job finds what the warm-up made
    fading, gated = influence.FADE_MODELS
    assert first["compare"].curves.keys() == {fading, gated}
    n, _ = influence.FADE_LONG
    assert first["evidence"][fading].n == first["evidence"][gated].n == n
    # the tanh RNN fades where the GRU does not: the claim the part draws (median_fade is
    # the last words' influence over the first words', so larger = more fading)
    assert first["evidence"][fading].median_fade > first["evidence"][gated].median_fade
    assert first["evidence"][fading].curve[-1] < first["evidence"][gated].curve[-1]
