"""The greedy decoding loop shared by every translation model."""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F

PAD_ID = 0


@torch.no_grad()
def greedy_loop(
    step: Callable[[int, torch.Tensor], tuple[torch.Tensor, torch.Tensor]],
    batch_size: int,
    max_len: int,
    bos_id: int,
    eos_id: int,
    device: torch.device,
):
    """Autoregressive greedy decoding: the most probable next token is appended, then fed
    back in as the next input.

    ``step(t, y)`` reads the token ``y`` (B,) at target position ``t`` (BOS at ``t = 0``)
    and returns the logits of the token after it (B,V) and the attention over the source
    that produced them (B,S). The model keeps whatever it needs from earlier positions (a
    recurrent state, a key/value cache), so each step only computes the new position.

    Returns ids (B,L), the chosen tokens' probabilities (B,L) and attention (B,L,S), with
    L <= max_len: the loop stops once every row has produced EOS. Rows that are done get
    PAD afterwards (their probabilities and attention are still those the model computed).
    """
    y = torch.full((batch_size,), bos_id, dtype=torch.long, device=device)
    pad = torch.full_like(y, PAD_ID)
    done = torch.zeros(batch_size, dtype=torch.bool, device=device)
    ids, probs, attns = [], [], []
    for t in range(max_len):
        logits, attn_weights = step(t, y)  # (B, V), (B, S)
        best_p, y = F.softmax(logits, -1).max(-1)  # (B,): probability and id of the best token
        y = torch.where(done, pad, y)
        ids.append(y)
        probs.append(best_p)
        attns.append(attn_weights)
        done = done | (y == eos_id)
        if bool(done.all()):
            break
    return torch.stack(ids, 1), torch.stack(probs, 1), torch.stack(attns, 1)
