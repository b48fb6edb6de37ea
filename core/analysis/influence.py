"""How much each source word still counts for the encoder's summary.

For an RNN encoder-decoder without attention the decoder sees only ``C``, so the gradient
of ``C`` with respect to each input word's embedding measures how strongly that word can
still move what the decoder gets (Bahdanau et al. 2015; Pascanu et al. 2013 for why it
fades with distance). Shared by the bottleneck and RNN-gradient pages.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch


def context_influence(model, src_ids: Sequence[int]) -> np.ndarray:
    """‖∂C/∂e_j‖ (Frobenius norm of the Jacobian) for every source position j, unnormalised.

    ``model`` is an ``RNNSeq2Seq`` (its frozen parameters are fine: only the input
    embeddings get gradients); ``src_ids`` the source ids of one sentence, EOS included.
    Returns a float array of shape (S,), from one batched backward pass.
    Call it outside ``torch.inference_mode()`` (inference tensors cannot carry gradients).
    """
    H = model.cfg.hidden
    # one backward pass for the whole Jacobian: H copies of the sentence, copy k asks for
    # the gradient of C_k alone (the copies do not interact, so the sum separates)
    src = torch.tensor([list(src_ids)] * H, dtype=torch.long)  # (H, S)
    with torch.enable_grad():
        emb = model.encoder.embed(src).detach().requires_grad_(True)  # (H, S, E)
        context = model.encode(src, embedded=emb)["context"]  # (H, H): row k = copy k's C
        context.diagonal().sum().backward()
        jac = emb.grad  # (H, S, E): jac[k] = dC_k / de
    return jac.pow(2).sum(dim=(0, 2)).sqrt().numpy()  # (S,)
