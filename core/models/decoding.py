"""Greedy decoding shared by the models whose decoder is parallel over the prefix."""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F

PAD_ID = 0


@torch.no_grad()
def greedy_redecode(
    decode: Callable[[torch.Tensor], tuple[torch.Tensor, torch.Tensor]],
    batch_size: int,
    max_len: int,
    bos_id: int,
    eos_id: int,
    device: torch.device,
):
    """Autoregressive greedy decoding: at each step the decoder re-reads the whole prefix
    and the most probable next token is appended.

    ``decode(prefix)`` maps a (B,t) prefix to logits (B,t,V) and cross-attention (B,t,S).
    Returns ids (B,L), the chosen tokens' probabilities (B,L) and cross-attention (B,L,S).
    Rows that have produced EOS are padded with PAD afterwards.
    """
    prefix = torch.full((batch_size, 1), bos_id, dtype=torch.long, device=device)
    done = torch.zeros(batch_size, dtype=torch.bool, device=device)
    probs = []
    cross = None
    for _ in range(max_len):
        logits, cross = decode(prefix)
        p = F.softmax(logits[:, -1], -1)  # (B, V)
        best_p, y = p.max(-1)
        y = torch.where(done, torch.full_like(y, PAD_ID), y)
        prefix = torch.cat([prefix, y.unsqueeze(1)], 1)
        probs.append(best_p)
        done = done | (y == eos_id)
        if bool(done.all()):
            break
    return prefix[:, 1:], torch.stack(probs, 1), cross
