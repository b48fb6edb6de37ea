"""context_influence is the norm of the true Jacobian dC/de_j."""

from __future__ import annotations

import torch

from core import zoo
from core.analysis.influence import context_influence


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
