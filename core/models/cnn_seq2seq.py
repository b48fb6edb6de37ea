"""A convolutional encoder-decoder in the style of ConvS2S (Gehring et al. 2017,
"Convolutional Sequence to Sequence Learning").

Encoder: 1-D convolutions with GLU and residuals; a word's receptive field is
``1 + layers * (kernel - 1)`` words and grows only with depth (every layer's states are
returned, so a page can measure it). Decoder: causal convolutions, each layer attending to
the encoder output with dot-product attention ("multi-step attention"; maps returned).

Shapes: B batch, S source, T target, E embedding, C channels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from core.models.decoding import greedy_loop

PAD_ID = 0
_SQRT_HALF = math.sqrt(0.5)  # keeps the variance of a residual sum constant (paper, sec. 3.4)


@dataclass(frozen=True)
class CNNSeq2SeqConfig:
    src_vocab: int  # source vocabulary size, specials included
    tgt_vocab: int  # target vocabulary size, specials included
    emb_dim: int = 128  # word + position embedding size
    channels: int = 128  # convolution width C
    enc_layers: int = 6  # encoder depth: receptive field 1 + 6 * (3 - 1) = 13 words
    dec_layers: int = 4  # decoder depth
    kernel: int = 3  # convolution window
    dropout: float = 0.1  # on embeddings and before each convolution, training only
    max_len: int = 128  # longest sequence the learned position table covers


class GLUConv(nn.Module):
    """Conv1d to 2C channels, then GLU: A * sigmoid(B). ``causal`` pads on the left only."""

    def __init__(self, channels: int, kernel: int, causal: bool):
        super().__init__()
        self.conv = nn.Conv1d(channels, 2 * channels, kernel)
        self.kernel, self.causal = kernel, causal

    def forward(self, x):  # x: (B, C, L)
        k = self.kernel
        pad = (k - 1, 0) if self.causal else ((k - 1) // 2, k // 2)
        return F.glu(self.conv(F.pad(x, pad)), dim=1)  # (B, C, L)

    def window_weights(self):
        """The convolution as one matrix over a flattened window, for incremental decoding.

        The output at one position is ``W @ window + b``, ``window`` being its ``kernel``
        inputs laid out position-major, (B, kernel, C) flattened to (B, kernel * C): one
        matrix product instead of a Conv1d call (several times slower on one short window).
        Returns the weight (2C, kernel * C) and the bias (2C,).
        """
        w = self.conv.weight  # (2C, C, kernel)
        return w.permute(0, 2, 1).reshape(w.size(0), -1), self.conv.bias  # (2C, kernel*C)


class CNNSeq2Seq(nn.Module):
    def __init__(self, cfg: CNNSeq2SeqConfig):
        super().__init__()
        self.cfg = cfg
        E, C = cfg.emb_dim, cfg.channels
        self.src_embed = nn.Embedding(cfg.src_vocab, E, padding_idx=PAD_ID)
        self.tgt_embed = nn.Embedding(cfg.tgt_vocab, E, padding_idx=PAD_ID)
        self.src_pos = nn.Embedding(cfg.max_len, E)
        self.tgt_pos = nn.Embedding(cfg.max_len, E)
        self.enc_in, self.enc_out = nn.Linear(E, C), nn.Linear(C, E)
        self.enc_convs = nn.ModuleList(
            GLUConv(C, cfg.kernel, causal=False) for _ in range(cfg.enc_layers)
        )
        self.dec_in = nn.Linear(E, C)
        self.dec_convs = nn.ModuleList(
            GLUConv(C, cfg.kernel, causal=True) for _ in range(cfg.dec_layers)
        )
        self.attn_in = nn.ModuleList(nn.Linear(C, E) for _ in range(cfg.dec_layers))
        self.attn_out = nn.ModuleList(nn.Linear(E, C) for _ in range(cfg.dec_layers))
        self.dec_out = nn.Linear(C, E)
        self.out = nn.Linear(E, cfg.tgt_vocab)
        self.drop = nn.Dropout(cfg.dropout)

    def _embed(self, table, pos_table, ids, embedded=None, start: int = 0):
        """Word plus learned position embeddings of ``ids`` (B,L) at positions start, ..."""
        x = table(ids) if embedded is None else embedded  # (B, L, E)
        pos = torch.arange(start, start + ids.size(1), device=ids.device)
        return self.drop(x + pos_table(pos))

    def encode(self, src: torch.Tensor, embedded: torch.Tensor | None = None) -> dict:
        """Returns ``keys`` z (B,S,E), ``values`` z+e (B,S,E), ``mask`` (B,S) and
        ``layers``: the state after every encoder layer, each (B,S,C)."""
        mask = src != PAD_ID  # (B, S)
        e = self._embed(self.src_embed, self.src_pos, src, embedded)  # (B, S, E)
        x = self.enc_in(e).transpose(1, 2)  # (B, C, S)
        keep = mask.unsqueeze(1).to(x.dtype)  # (B, 1, S): padding stays zero between layers
        layers = []
        for conv in self.enc_convs:
            x = (conv(self.drop(x) * keep) + x) * _SQRT_HALF  # (B, C, S)
            layers.append(x.transpose(1, 2))  # (B, S, C)
        z = self.enc_out(x.transpose(1, 2))  # (B, S, E)
        return {"keys": z, "values": (z + e) * _SQRT_HALF, "mask": mask, "layers": layers}

    def decode(self, memory: dict, tgt_in: torch.Tensor):
        g = self._embed(self.tgt_embed, self.tgt_pos, tgt_in)  # (B, T, E)
        h = self.dec_in(g).transpose(1, 2)  # (B, C, T)
        attn_layers = []
        key_mask = memory["mask"].unsqueeze(1)  # (B, 1, S)
        for i, conv in enumerate(self.dec_convs):
            h_conv = conv(self.drop(h))  # (B, C, T)
            h, attn_weights = self._attend(
                i, h, h_conv, g, memory["keys"], memory["values"], key_mask
            )
            attn_layers.append(attn_weights)
        logits = self.out(self.drop(self.dec_out(h.transpose(1, 2))))  # (B, T, V)
        return logits, attn_layers

    def _attend(self, i, h, h_conv, g, keys, values, key_mask):
        """Decoder layer ``i`` after its convolution: attention to the encoder output and
        the residual sums. h, h_conv (B,C,T); g the target embeddings (B,T,E). Returns the
        layer's output (B,C,T) and its attention weights (B,T,S)."""
        d = (self.attn_in[i](h_conv.transpose(1, 2)) + g) * _SQRT_HALF  # (B, T, E): query
        energy = d @ keys.transpose(1, 2)  # (B, T, S)
        attn_weights = torch.softmax(energy.masked_fill(~key_mask, float("-inf")), -1)  # (B,T,S)
        context = attn_weights @ values  # (B, T, E)
        h_att = (h_conv + self.attn_out[i](context).transpose(1, 2)) * _SQRT_HALF  # (B, C, T)
        return (h_att + h) * _SQRT_HALF, attn_weights

    def forward(self, src: torch.Tensor, tgt_in: torch.Tensor):
        """Logits (B,T,V) and attention: ``cross_layers`` per decoder layer (B,T,S), ``cross``
        their mean, ``enc_layers`` the encoder states per layer."""
        memory = self.encode(src)
        logits, attn_layers = self.decode(memory, tgt_in)
        cross = torch.stack(attn_layers, 0).mean(0)
        return logits, {"cross": cross, "cross_layers": attn_layers, "enc_layers": memory["layers"]}

    @torch.no_grad()
    def greedy(self, src: torch.Tensor, max_len: int, bos_id: int, eos_id: int):
        """Greedy decoding, incremental: each step computes only the new position.

        A causal convolution's output at position t reads only its inputs at t-kernel+1..t,
        so each decoder layer keeps its inputs so far (after kernel-1 zeros, like the left
        padding of ``decode``) instead of re-running on the whole prefix; the attention is
        computed for the new position only. What depends only on the source is prepared
        once per sentence (the keys transposed, the values through each attn_out, the
        padding as an additive -inf bias, each convolution as one matrix) and a step works
        on (B, C) rows with plain functions, no module calls. The outputs are those of
        re-reading the prefix every step (tests/core/test_models.py checks it). Decoding runs
        without dropout.

        Returns ids (B,L), chosen-token probabilities (B,L) and the layer-mean attention (B,L,S).
        """
        memory = self.encode(src)
        B, C, k = src.size(0), self.cfg.channels, self.cfg.kernel
        keys_t = memory["keys"].transpose(1, 2).contiguous()  # (B, E, S)
        values = memory["values"]  # (B, S, E)
        mask = memory["mask"]  # (B, S)
        key_bias = (  # (B, 1, S): -inf on padding, as ``_attend``'s masked_fill; None if none
            None
            if bool(mask.all())
            else torch.zeros(mask.shape, dtype=values.dtype, device=src.device)
            .masked_fill(~mask, float("-inf"))
            .unsqueeze(1)
        )
        conv_w = [conv.window_weights() for conv in self.dec_convs]  # (2C, k*C), (2C,)
        # each decoder layer's inputs so far: k-1 zero positions, then one per step
        inputs = [values.new_zeros(B, k - 1 + max_len, C) for _ in self.dec_convs]
        attn_in = [(m.weight, m.bias) for m in self.attn_in]
        # attn_out(attn_weights @ values) = attn_weights @ (values @ W_out^T) + b_out: the
        # values projected by each layer's attn_out once per sentence, (B, S, C) each
        values_out = [(m.bias, F.linear(values, m.weight)) for m in self.attn_out]
        half = torch.tensor(_SQRT_HALF, dtype=values.dtype)  # a 0-d tensor multiplies faster
        tgt_embed, tgt_pos = self.tgt_embed.weight, self.tgt_pos.weight  # (V, E), (max_len, E)

        def step(t: int, token: torch.Tensor):
            g = F.embedding(token, tgt_embed) + tgt_pos[t]  # (B, E)
            h = F.linear(g, self.dec_in.weight, self.dec_in.bias)  # (B, C)
            attn_layers = []
            for i, buf in enumerate(inputs):
                buf[:, t + k - 1] = h
                window = buf[:, t : t + k].reshape(B, k * C)  # (B, k*C): all this output sees
                h_conv = F.glu(F.linear(window, *conv_w[i]), -1)  # (B, C)
                d = (F.linear(h_conv, *attn_in[i]) + g) * half  # (B, E): query
                energy = torch.bmm(d.unsqueeze(1), keys_t)  # (B, 1, S)
                if key_bias is not None:
                    energy = energy + key_bias
                attn_weights = torch.softmax(energy, -1)  # (B, 1, S)
                bias, projected = values_out[i]
                # attn_out(context) with context = attn_weights @ values, (B, C)
                out_context = torch.baddbmm(bias, attn_weights, projected).squeeze(1)
                h_att = (h_conv + out_context) * half  # (B, C)
                h = (h_att + h) * half  # (B, C)
                attn_layers.append(attn_weights)
            out = F.linear(h, self.dec_out.weight, self.dec_out.bias)  # (B, E)
            logits = F.linear(out, self.out.weight, self.out.bias)  # (B, V)
            return logits, torch.stack(attn_layers, 0).mean(0)[:, 0]  # (B, V), (B, S)

        return greedy_loop(step, B, max_len, bos_id, eos_id, src.device)
