"""A GRU next-word language model (latent autoregressive model, lesson 1.3–1.4).

It reads a prefix one word at a time, summarises it in a hidden state
``h_t = GRU(h_{t-1}, x_t)`` and predicts the next word from ``h_t``:
"you should" → "wear" → "shoes" → end. Shapes: B batch, T length, E embedding, H hidden.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

PAD_ID = 0


@dataclass(frozen=True)
class GRULMConfig:
    vocab: int  # English vocabulary size, specials included
    emb_dim: int = 128  # word embedding size
    hidden: int = 256  # size of the latent state h_t
    layers: int = 1  # stacked GRU layers


class GRULanguageModel(nn.Module):
    def __init__(self, cfg: GRULMConfig):
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab, cfg.emb_dim, padding_idx=PAD_ID)
        self.rnn = nn.GRU(cfg.emb_dim, cfg.hidden, num_layers=cfg.layers, batch_first=True)
        self.out = nn.Linear(cfg.hidden, cfg.vocab)

    def forward(self, ids: torch.Tensor, state: torch.Tensor | None = None):
        """ids (B,T) → next-word logits (B,T,V), hidden states (B,T,H), final state (L,B,H)."""
        hidden, state = self.rnn(self.embed(ids), state)  # (B, T, H), (L, B, H)
        return self.out(hidden), hidden, state
