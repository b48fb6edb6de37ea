"""Distance probes: how far back can each architecture reach?

The task (``core.probes_data``): one position, ``d`` places before the query, is flagged as
the key; the answer at the query is the key's value (noise positions carry values too).
Only ``d`` changes, so accuracy against ``d`` measures how far information travels:
``rnn`` / ``lstm`` / ``gru`` through ``d`` recurrent steps (Pascanu et al. 2013), ``cnn``
only within its receptive field ``1 + layers * (kernel - 1)``, ``attention`` in one step.

Shapes: B batch, L sequence length, E embedding, H hidden.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from core.models.transformer import MultiHeadAttention, sinusoidal_positions


@dataclass(frozen=True)
class ProbeConfig:
    kind: str  # "rnn" | "lstm" | "gru" | "cnn" | "attention"
    n_symbols: int  # input alphabet: flagged keys, noise values and the query (2 * n_keys + 1)
    n_keys: int  # values, and classes to recover
    emb_dim: int = 32  # symbol embedding size
    hidden: int = 64  # recurrent state / channels / d_model
    layers: int = 1  # convolution layers (cnn only)
    kernel: int = 5  # convolution window (cnn only)
    heads: int = 1  # attention heads (attention only)
    max_len: int = 128  # longest sequence (attention positions)

    @property
    def receptive_field(self) -> int | None:
        """Symbols the query position can see (cnn only; recurrences/attention see all)."""
        return 1 + self.layers * (self.kernel - 1) if self.kind == "cnn" else None


class DistanceProbe(nn.Module):
    def __init__(self, cfg: ProbeConfig):
        super().__init__()
        self.cfg = cfg
        E, H = cfg.emb_dim, cfg.hidden
        # a symbol's embedding = its value's embedding + its flag's embedding (key / not key)
        self.value_embed = nn.Embedding(cfg.n_keys + 1, E)  # ten values + the query
        self.flag_embed = nn.Embedding(2, E)
        if cfg.kind in ("rnn", "lstm", "gru"):
            cls = {"rnn": nn.RNN, "lstm": nn.LSTM, "gru": nn.GRU}[cfg.kind]
            self.rnn = cls(E, H, batch_first=True)
        elif cfg.kind == "cnn":
            self.inp = nn.Linear(E, H)
            self.convs = nn.ModuleList(nn.Conv1d(H, 2 * H, cfg.kernel) for _ in range(cfg.layers))
        elif cfg.kind == "attention":
            self.inp = nn.Linear(E, H)
            self.register_buffer(
                "positions", sinusoidal_positions(cfg.max_len, H), persistent=False
            )
            self.attn = MultiHeadAttention(H, cfg.heads, dropout=0.0)
        else:
            raise ValueError(
                f"unknown probe kind {cfg.kind!r}: use rnn, lstm, gru, cnn or attention"
            )
        self.head = nn.Sequential(nn.Linear(H, H), nn.ReLU(), nn.Linear(H, cfg.n_keys))

    def embed(self, x: torch.Tensor) -> torch.Tensor:
        """Symbol ids (B,L) → embeddings (B,L,E): value embedding + flag embedding."""
        n = self.cfg.n_keys
        value = torch.where(x >= 2 * n, torch.full_like(x, n), x % n)  # query → value n
        flag = (x < n).long()  # 1 for the key
        return self.value_embed(value) + self.flag_embed(flag)

    def forward(self, x: torch.Tensor, embedded: torch.Tensor | None = None):
        """x (B,L) → logits at the last position (B,n_keys), and extras: ``states`` (B,L,H)
        for recurrences, ``layers`` list of (B,L,H) for cnn, ``attn`` (B,heads,L,L)."""
        e = self.embed(x) if embedded is None else embedded  # (B, L, E)
        extras: dict = {}
        k = self.cfg.kind
        if k in ("rnn", "lstm", "gru"):
            states, _ = self.rnn(e)  # (B, L, H)
            extras["states"] = states
            last = states[:, -1]
        elif k == "cnn":
            h = self.inp(e).transpose(1, 2)  # (B, H, L)
            layers = []
            for conv in self.convs:
                h = h + F.glu(conv(F.pad(h, (self.cfg.kernel - 1, 0))), dim=1)  # causal, (B, H, L)
                layers.append(h.transpose(1, 2))
            extras["layers"] = layers
            last = h[:, :, -1]
        else:
            h = self.inp(e) + self.positions[: x.size(1)]  # (B, L, H)
            query = h[:, -1:]  # (B, 1, H): only the query position is read
            context, attn_weights = self.attn(query, h, None)  # (B, 1, H), (B, heads, 1, L)
            extras["attn"] = attn_weights
            last = (context + query)[:, 0]
        return self.head(last), extras
