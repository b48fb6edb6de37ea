"""A small Transformer encoder-decoder (Vaswani et al. 2017, "Attention Is All You Need").

Top to bottom like the paper: scaled dot-product attention, multi-head attention, the
feed-forward net, sinusoidal positions, the encoder and decoder stacks. Pre-norm (trains
more reliably at this size); embeddings scaled by sqrt(d_model) and initialised with std
d_model^-0.5, or they would drown the positions. Every attention map is returned, never
stored on a module.

Shapes: B batch, S source, T target, D d_model, h heads, d = D/h.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from core.models.decoding import greedy_loop

PAD_ID = 0


@dataclass(frozen=True)
class TransformerConfig:
    src_vocab: int  # source vocabulary size, specials included
    tgt_vocab: int  # target vocabulary size, specials included
    d_model: int = 128  # width of every token representation
    n_heads: int = 4  # attention heads per layer (d_model / n_heads = 32 per head)
    d_ff: int = 512  # hidden width of the position-wise feed-forward net
    enc_layers: int = 2  # encoder layers
    dec_layers: int = 2  # decoder layers
    dropout: float = 0.1  # on sub-layer outputs and attention weights, training only
    max_len: int = 128  # longest sequence the position table covers


def scaled_dot_product_attention(query, keys, values, mask=None, dropout_p: float = 0.0):
    """softmax(Q K^T / sqrt(d)) V, written out so the weights can be shown.

    query (..., T, d), keys (..., S, d), values (..., S, d); mask broadcastable to (..., T, S),
    True where attending is allowed. Returns context (..., T, d) and attn_weights (..., T, S).
    """
    energy = query @ keys.transpose(-2, -1) / math.sqrt(query.size(-1))  # (..., T, S)
    if mask is not None:
        energy = energy.masked_fill(~mask, float("-inf"))
    attn_weights = torch.softmax(energy, dim=-1)  # (..., T, S), rows sum to 1
    dropped = F.dropout(attn_weights, dropout_p) if dropout_p > 0 else attn_weights
    return dropped @ values, attn_weights  # (..., T, d)


def _mask_bias(mask: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """A boolean mask (True = may attend) as an additive bias: 0 where True, -inf where
    False. ``energy + bias`` gives the same softmax as ``energy.masked_fill(~mask, -inf)``."""
    return torch.zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(
        ~mask, float("-inf")
    )


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model: int, n_heads: int, dropout: float):
        super().__init__()
        assert d_model % n_heads == 0, "d_model must be divisible by n_heads"
        self.h, self.d = n_heads, d_model // n_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.o_proj = nn.Linear(d_model, d_model)
        self.dropout = dropout

    def _split(self, x):  # (B, L, D) -> (B, h, L, d)
        B, L, _ = x.shape
        return x.view(B, L, self.h, self.d).transpose(1, 2)

    def _merge(self, context):  # (B, h, L, d) -> (B, L, D): the heads side by side again
        B, _, L, _ = context.shape
        return context.transpose(1, 2).reshape(B, L, self.h * self.d)

    def project_kv(self, memory):
        """The keys and values of ``memory`` (B,S,D): each (B,h,S,d)."""
        return self._split(self.k_proj(memory)), self._split(self.v_proj(memory))

    def forward(self, x, memory, mask, keys_values=None):
        """Queries from ``x`` (B,T,D) attend to ``memory`` (B,S,D), or to ready-made
        ``keys_values`` (each (B,h,S,d)) when given, as incremental decoding does."""
        q = self._split(self.q_proj(x))  # (B, h, T, d)
        k, v = self.project_kv(memory) if keys_values is None else keys_values  # (B, h, S, d)
        p = self.dropout if self.training else 0.0
        context, attn_weights = scaled_dot_product_attention(
            q, k, v, mask, p
        )  # (B,h,T,d), (B,h,T,S)
        return self.o_proj(self._merge(context)), attn_weights  # (B, T, D), (B, h, T, S)


class FeedForward(nn.Module):
    def __init__(self, d_model: int, d_ff: int):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_model, d_ff), nn.ReLU(), nn.Linear(d_ff, d_model))

    def forward(self, x):
        return self.net(x)


def sinusoidal_positions(max_len: int, d_model: int) -> torch.Tensor:
    """PE(pos, 2i) = sin(pos / 10000^(2i/D)), PE(pos, 2i+1) = cos(...); (max_len, D)."""
    pos = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)  # (L, 1)
    div = torch.exp(
        torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model)
    )
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(pos * div)
    pe[:, 1::2] = torch.cos(pos * div)
    return pe


class EncoderLayer(nn.Module):
    def __init__(self, cfg: TransformerConfig):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(cfg.d_model), nn.LayerNorm(cfg.d_model)
        self.self_attn = MultiHeadAttention(cfg.d_model, cfg.n_heads, cfg.dropout)
        self.ff = FeedForward(cfg.d_model, cfg.d_ff)
        self.drop = nn.Dropout(cfg.dropout)

    def forward(self, x, mask):
        h = self.norm1(x)
        a, w = self.self_attn(h, h, mask)
        x = x + self.drop(a)
        x = x + self.drop(self.ff(self.norm2(x)))
        return x, w


class DecoderLayer(nn.Module):
    def __init__(self, cfg: TransformerConfig):
        super().__init__()
        self.norm1, self.norm2, self.norm3 = (nn.LayerNorm(cfg.d_model) for _ in range(3))
        self.self_attn = MultiHeadAttention(cfg.d_model, cfg.n_heads, cfg.dropout)
        self.cross_attn = MultiHeadAttention(cfg.d_model, cfg.n_heads, cfg.dropout)
        self.ff = FeedForward(cfg.d_model, cfg.d_ff)
        self.drop = nn.Dropout(cfg.dropout)

    def forward(self, y, memory, self_mask, cross_mask):
        h = self.norm1(y)
        a, w_self = self.self_attn(h, h, self_mask)
        y = y + self.drop(a)
        a, w_cross = self.cross_attn(self.norm2(y), memory, cross_mask)
        y = y + self.drop(a)
        y = y + self.drop(self.ff(self.norm3(y)))
        return y, w_self, w_cross

    def step_weights(self) -> dict:
        """This layer's weights arranged for one new position, once per sentence: the
        self-attention's query, key and value projections fused into one matrix, and the
        query weights divided by sqrt(d) so that q @ k^T is already the scaled energy."""
        sa, ca, scale = self.self_attn, self.cross_attn, 1.0 / math.sqrt(self.self_attn.d)
        return {
            "qkv": (
                torch.cat([sa.q_proj.weight * scale, sa.k_proj.weight, sa.v_proj.weight]),
                torch.cat([sa.q_proj.bias * scale, sa.k_proj.bias, sa.v_proj.bias]),
            ),  # (3D, D), (3D,)
            "self_out": (sa.o_proj.weight, sa.o_proj.bias),
            "cross_q": (ca.q_proj.weight * scale, ca.q_proj.bias * scale),
            "cross_out": (ca.o_proj.weight, ca.o_proj.bias),
            "ff_in": (self.ff.net[0].weight, self.ff.net[0].bias),
            "ff_out": (self.ff.net[2].weight, self.ff.net[2].bias),
            "norms": [  # F.layer_norm's arguments after the input
                (n.normalized_shape, n.weight, n.bias, n.eps)
                for n in (self.norm1, self.norm2, self.norm3)
            ],
        }

    def step(self, y, cache: dict, t: int, self_bias, cross_bias):
        """The same layer for one new position ``y`` (B,D) at target position ``t``, in
        inference form (no dropout, no module calls: a step is dozens of tiny operations).

        ``cache`` holds ``step_weights()`` and this layer's decoder self-attention keys and
        values of positions 0..t-1 (``self_keys`` / ``self_values``, (B*h,max_len,d), filled
        up to t) and the cross-attention keys (transposed, ``cross_keys_t`` (B*h,d,S)) and
        values (``cross_values`` (B*h,S,d)) of the encoder output; batch and heads share one
        dimension so that every product is one ``bmm``. The new position's key and value are
        written at ``t`` and its query attends to 0..t: exactly the row ``t`` of ``forward``
        on the whole prefix. ``self_bias`` (B,1,1,t+1) and ``cross_bias`` (B,1,1,S) or None
        are 0 where attending is allowed, -inf where not (the masks).
        Returns the new ``y`` (B,D) and the cross-attention weights (B,h,1,S).
        """
        B, h, d = y.size(0), self.self_attn.h, self.self_attn.d
        norm1, norm2, norm3 = cache["norms"]
        qkv = F.linear(F.layer_norm(y, *norm1), *cache["qkv"])  # (B, 3D)
        qkv = qkv.view(B, 3, h, d).transpose(0, 1).reshape(3, B * h, 1, d)
        q, k, v = qkv.unbind(0)  # (B*h, 1, d) each, q pre-scaled
        cache["self_keys"][:, t : t + 1] = k
        cache["self_values"][:, t : t + 1] = v
        keys_t = cache["self_keys"][:, : t + 1].transpose(1, 2)  # (B*h, d, t+1)
        energy = torch.bmm(q, keys_t).view(B, h, 1, t + 1) + self_bias  # (B, h, 1, t+1)
        w_self = torch.softmax(energy, -1)  # (B, h, 1, t+1)
        context = torch.bmm(w_self.view(B * h, 1, t + 1), cache["self_values"][:, : t + 1])
        y = y + F.linear(context.view(B, h * d), *cache["self_out"])  # (B, D)
        q = F.linear(F.layer_norm(y, *norm2), *cache["cross_q"])  # (B, D), pre-scaled
        S = cache["cross_values"].size(1)
        energy = torch.bmm(q.view(B * h, 1, d), cache["cross_keys_t"]).view(B, h, 1, S)
        if cross_bias is not None:
            energy = energy + cross_bias
        w_cross = torch.softmax(energy, -1)  # (B, h, 1, S)
        context = torch.bmm(w_cross.view(B * h, 1, S), cache["cross_values"])  # (B*h, 1, d)
        y = y + F.linear(context.view(B, h * d), *cache["cross_out"])  # (B, D)
        hidden = F.relu(F.linear(F.layer_norm(y, *norm3), *cache["ff_in"]))  # (B, d_ff)
        return y + F.linear(hidden, *cache["ff_out"]), w_cross  # (B, D), (B, h, 1, S)


class Transformer(nn.Module):
    def __init__(self, cfg: TransformerConfig):
        super().__init__()
        self.cfg = cfg
        D = cfg.d_model
        self.src_embed = nn.Embedding(cfg.src_vocab, D, padding_idx=PAD_ID)
        self.tgt_embed = nn.Embedding(cfg.tgt_vocab, D, padding_idx=PAD_ID)
        for emb in (self.src_embed, self.tgt_embed):
            nn.init.normal_(emb.weight, std=D**-0.5)
            with torch.no_grad():
                emb.weight[PAD_ID].zero_()
        self.register_buffer("positions", sinusoidal_positions(cfg.max_len, D), persistent=False)
        self.enc_layers = nn.ModuleList(EncoderLayer(cfg) for _ in range(cfg.enc_layers))
        self.dec_layers = nn.ModuleList(DecoderLayer(cfg) for _ in range(cfg.dec_layers))
        self.enc_norm, self.dec_norm = nn.LayerNorm(D), nn.LayerNorm(D)
        self.out = nn.Linear(D, cfg.tgt_vocab)
        self.drop = nn.Dropout(cfg.dropout)

    def _embed(self, table: nn.Embedding, ids: torch.Tensor, embedded=None, start: int = 0):
        """Scaled embeddings plus the positions start, start+1, ... of ``ids`` (B,L)."""
        x = table(ids) if embedded is None else embedded  # (B, L, D)
        positions = self.positions[start : start + ids.size(1)]  # (L, D)
        return self.drop(x * math.sqrt(self.cfg.d_model) + positions)

    def encode(self, src: torch.Tensor, embedded: torch.Tensor | None = None) -> dict:
        """Encoder states (B,S,D), the source mask and self-attention per layer (B,h,S,S)."""
        src_mask = (src != PAD_ID)[:, None, None, :]  # (B, 1, 1, S)
        x = self._embed(self.src_embed, src, embedded)
        enc_self = []
        for layer in self.enc_layers:
            x, w = layer(x, src_mask)
            enc_self.append(w)
        return {"hidden": self.enc_norm(x), "src_mask": src_mask, "enc_self": enc_self}

    def decode(self, memory: dict, tgt_in: torch.Tensor):
        T = tgt_in.size(1)
        causal = torch.ones(T, T, dtype=torch.bool, device=tgt_in.device).tril()  # (T, T)
        self_mask = causal[None, None] & (tgt_in != PAD_ID)[:, None, None, :]  # (B, 1, T, T)
        self_mask = self_mask | torch.eye(T, dtype=torch.bool, device=tgt_in.device)  # never empty
        y = self._embed(self.tgt_embed, tgt_in)
        dec_self, cross = [], []
        for layer in self.dec_layers:
            y, w_self, w_cross = layer(y, memory["hidden"], self_mask, memory["src_mask"])
            dec_self.append(w_self)
            cross.append(w_cross)
        return self.out(self.dec_norm(y)), {"dec_self": dec_self, "cross_layers": cross}

    def forward(self, src: torch.Tensor, tgt_in: torch.Tensor):
        """Logits (B,T,V) and attention: enc_self / dec_self / cross_layers are lists per layer of
        (B,h,·,·); ``cross`` is the last layer's cross-attention averaged over heads (B,T,S)."""
        memory = self.encode(src)
        logits, attn = self.decode(memory, tgt_in)
        attn["enc_self"] = memory["enc_self"]
        attn["cross"] = attn["cross_layers"][-1].mean(1)
        return logits, attn

    @torch.no_grad()
    def greedy(self, src: torch.Tensor, max_len: int, bos_id: int, eos_id: int):
        """Greedy decoding with a key/value cache (incremental decoding).

        Decoder position t attends only to positions <= t, so the keys and values of the
        earlier positions never change once computed. Instead of re-running the decoder on
        the whole prefix at every step, each step runs it on the one new token: every layer
        writes the new key and value into its cache and the new query attends to the cache.
        What depends only on the source is computed once per sentence: the cross-attention
        keys and values of the encoder output, the source padding as an additive -inf bias.
        The outputs are those of re-reading the prefix (tests/core/test_models.py checks it), but
        step t computes one position instead of t + 1. Decoding runs without dropout.

        Returns ids (B,L), chosen-token probabilities (B,L) and the last layer's cross
        attention averaged over heads (B,L,S).
        """
        memory = self.encode(src)
        hidden, src_mask = memory["hidden"], memory["src_mask"]  # (B, S, D), (B, 1, 1, S)
        B, h, d = src.size(0), self.cfg.n_heads, self.cfg.d_model // self.cfg.n_heads
        caches = []
        for layer in self.dec_layers:
            keys, values = layer.cross_attn.project_kv(hidden)  # (B, h, S, d) each
            cache = layer.step_weights()
            cache["cross_keys_t"] = keys.transpose(-2, -1).reshape(B * h, d, -1)  # (B*h, d, S)
            cache["cross_values"] = values.reshape(B * h, -1, d)  # (B*h, S, d)
            cache["self_keys"] = hidden.new_zeros(B * h, max_len, d)
            cache["self_values"] = hidden.new_zeros(B * h, max_len, d)
            caches.append(cache)
        cross_bias = (  # (B, 1, 1, S): the source mask as 0 / -inf; None without padding
            None if bool(src_mask.all()) else _mask_bias(src_mask, hidden.dtype)
        )
        # the decoder self-attention mask as 0 / -inf, filled as tokens arrive: a PAD token
        # (a finished row's input) is never attended to by later positions, but a position
        # always attends to itself, as in ``decode``
        self_bias = hidden.new_zeros(B, 1, 1, max_len)
        tgt_embed = self.tgt_embed.weight  # (V, D)
        scale = torch.tensor(math.sqrt(self.cfg.d_model), dtype=hidden.dtype)  # 0-d: faster
        n = self.dec_norm
        out_norm = (n.normalized_shape, n.weight, n.bias, n.eps)  # F.layer_norm's arguments

        def step(t: int, token: torch.Tensor):
            y = F.embedding(token, tgt_embed) * scale + self.positions[t]  # (B, D)
            for layer, cache in zip(self.dec_layers, caches):
                y, w_cross = layer.step(y, cache, t, self_bias[..., : t + 1], cross_bias)
            self_bias[:, 0, 0, t].masked_fill_(token == PAD_ID, float("-inf"))
            y = F.layer_norm(y, *out_norm)  # (B, D)
            logits = F.linear(y, self.out.weight, self.out.bias)  # (B, V)
            return logits, w_cross[:, :, 0].mean(1)  # (B, V), (B, S)

        return greedy_loop(step, B, max_len, bos_id, eos_id, src.device)
