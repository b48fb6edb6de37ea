"""GRU (or plain tanh-RNN) encoder-decoder, with or without attention.

* RNN Encoder-Decoder (Cho et al. 2014; Sutskever et al. 2014): the final encoder state,
  the context vector ``C``, is the decoder's only bridge to the source (seen every step).
* RNNsearch (Bahdanau, Cho & Bengio 2015): a bidirectional encoder keeps one annotation per
  word; the decoder scores them, ``energy_ij = v^T tanh(W s_{i-1} + U h_j)``, softmaxes and
  reads ``context_i``. The weights are returned, never stored on the module.
``cell="rnn"``: the ungated Elman recurrence whose gradients vanish (Bengio et al. 1994).

Shapes: B batch, S source length, T target length, E embedding, H hidden, A attention.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from core.models.decoding import greedy_loop

PAD_ID = 0


@dataclass(frozen=True)
class RNNSeq2SeqConfig:
    src_vocab: int  # source vocabulary size, specials included
    tgt_vocab: int  # target vocabulary size, specials included
    emb_dim: int = 128  # word embedding size, both sides
    hidden: int = 256  # size of C and of the decoder state (bidirectional: H/2 per direction)
    attention: bool = False  # Bahdanau attention (RNNsearch) or the plain bridge C (RNNencdec)
    bidirectional: bool = False  # RNNsearch reads both ways; RNNencdec reads left to right
    attn_dim: int = 128  # size of the additive-attention hidden layer (A)
    cell: str = "gru"  # "gru" (gated) or "rnn" (plain tanh recurrence, no gates)


def _recurrent(cfg: RNNSeq2SeqConfig):
    """The recurrent layer class the config names: nn.GRU or the tanh nn.RNN."""
    if cfg.cell not in ("gru", "rnn"):
        raise ValueError(f"cell must be 'gru' or 'rnn', got {cfg.cell!r}")
    return nn.GRU if cfg.cell == "gru" else nn.RNN


class Encoder(nn.Module):
    """Embeds the source and runs a (bi)GRU over it.

    Returns the annotations ``(B, S, H)`` (one per source word) and the final state
    ``C`` ``(B, H)``: the last forward state, joined with the first backward state when
    the encoder is bidirectional.
    """

    def __init__(self, cfg: RNNSeq2SeqConfig):
        super().__init__()
        per_dir = cfg.hidden // 2 if cfg.bidirectional else cfg.hidden
        self.embed = nn.Embedding(cfg.src_vocab, cfg.emb_dim, padding_idx=PAD_ID)
        self.rnn = _recurrent(cfg)(
            cfg.emb_dim, per_dir, batch_first=True, bidirectional=cfg.bidirectional
        )

    def forward(self, src: torch.Tensor, embedded: torch.Tensor | None = None):
        lengths = (src != PAD_ID).sum(1).clamp(min=1).cpu()  # (B,)
        x = self.embed(src) if embedded is None else embedded  # (B, S, E)
        packed = nn.utils.rnn.pack_padded_sequence(
            x, lengths, batch_first=True, enforce_sorted=False
        )
        out, h_n = self.rnn(packed)
        hidden, _ = nn.utils.rnn.pad_packed_sequence(
            out, batch_first=True, total_length=src.size(1)
        )
        # hidden: (B, S, H); h_n: (num_directions, B, H/num_directions)
        context = torch.cat(list(h_n), dim=-1)  # (B, H): fwd last (+ bwd first)
        return hidden, context


class BahdanauAttention(nn.Module):
    """Additive attention: ``energy_ij = v^T tanh(W s_{i-1} + U h_j)``."""

    def __init__(self, query_dim: int, key_dim: int, attn_dim: int):
        super().__init__()
        self.W = nn.Linear(query_dim, attn_dim, bias=False)
        self.U = nn.Linear(key_dim, attn_dim, bias=True)
        self.v = nn.Linear(attn_dim, 1, bias=False)

    def project_keys(self, keys: torch.Tensor) -> torch.Tensor:
        return self.U(keys)  # (B, S, A): computed once per sentence

    def forward(
        self,
        query: torch.Tensor,
        projected_keys: torch.Tensor,
        values: torch.Tensor,
        mask: torch.Tensor,
    ):
        # query: (B, H_dec); projected_keys: (B, S, A); values: (B, S, H)
        # mask: (B, S), True on real words
        energy = self.v(torch.tanh(self.W(query).unsqueeze(1) + projected_keys)).squeeze(
            -1
        )  # (B, S)
        energy = energy.masked_fill(~mask, float("-inf"))
        attn_weights = torch.softmax(energy, dim=-1)  # (B, S), each row sums to 1, zero on padding
        context = torch.bmm(attn_weights.unsqueeze(1), values).squeeze(1)  # (B, H)
        return context, attn_weights


class RNNSeq2Seq(nn.Module):
    """The encoder-decoder; ``attention`` in the config chooses RNNsearch or RNNencdec."""

    def __init__(self, cfg: RNNSeq2SeqConfig):
        super().__init__()
        self.cfg = cfg
        H, E = cfg.hidden, cfg.emb_dim
        self.encoder = Encoder(cfg)
        self.tgt_embed = nn.Embedding(cfg.tgt_vocab, E, padding_idx=PAD_ID)
        self.init_state = nn.Linear(H, H)  # s_0 = tanh(W_init C)
        if cfg.attention:
            if cfg.cell != "gru":
                raise ValueError("attention is built on a GRU decoder cell; use cell='gru'")
            self.attention = BahdanauAttention(H, H, cfg.attn_dim)
            self.cell = nn.GRUCell(E + H, H)  # input: [y_{i-1}; context_i]
        else:
            self.attention = None
            self.rnn = _recurrent(cfg)(E + H, H, batch_first=True)  # input: [y_{i-1}; C] each step
        self.readout = nn.Linear(H + H + E, E)  # from [s_i; context_i; y_{i-1}]
        self.out = nn.Linear(E, cfg.tgt_vocab)

    # -- encoder side ---------------------------------------------------------------------
    def encode(self, src: torch.Tensor, embedded: torch.Tensor | None = None) -> dict:
        """Run the encoder once: annotations ``hidden`` (B,S,H), ``context`` C (B,H), mask (B,S)."""
        hidden, context = self.encoder(src, embedded)
        memory = {"hidden": hidden, "context": context, "mask": src != PAD_ID}
        if self.attention is not None:
            memory["keys"] = self.attention.project_keys(hidden)  # (B, S, A)
        return memory

    def _logits(self, state, context, y_emb):
        feats = torch.tanh(self.readout(torch.cat([state, context, y_emb], dim=-1)))
        return self.out(feats)

    # -- decoder side -----------------------------------------------------------------------
    def decode(self, memory: dict, tgt_in: torch.Tensor):
        """Teacher-forced decoding. tgt_in (B,T) starts with BOS.

        Returns logits (B,T,V) and the attention weights (B,T,S) (``None`` without attention).
        """
        y_emb = self.tgt_embed(tgt_in)  # (B, T, E)
        C = memory["context"]  # (B, H)
        state = torch.tanh(self.init_state(C))  # (B, H)
        if self.attention is None:
            T = tgt_in.size(1)
            C_rep = C.unsqueeze(1).expand(-1, T, -1)  # (B, T, H)
            states, _ = self.rnn(torch.cat([y_emb, C_rep], dim=-1), state.unsqueeze(0))  # (B, T, H)
            return self._logits(states, C_rep, y_emb), None
        states, contexts, weights = [], [], []
        for i in range(tgt_in.size(1)):
            context, attn_weights = self.attention(
                state, memory["keys"], memory["hidden"], memory["mask"]
            )
            state = self.cell(torch.cat([y_emb[:, i], context], dim=-1), state)  # (B, H)
            states.append(state)
            contexts.append(context)
            weights.append(attn_weights)
        # the readout does not feed back into the recurrence: one batched call after the loop
        logits = self._logits(torch.stack(states, 1), torch.stack(contexts, 1), y_emb)  # (B,T,V)
        return logits, torch.stack(weights, 1)  # (B,T,V), (B,T,S)

    def forward(self, src: torch.Tensor, tgt_in: torch.Tensor):
        """Logits (B,T,V) and a dict of attention maps (``cross``: (B,T,S) or absent)."""
        logits, cross = self.decode(self.encode(src), tgt_in)
        return logits, ({} if cross is None else {"cross": cross})

    @torch.no_grad()
    def greedy(self, src: torch.Tensor, max_len: int, bos_id: int, eos_id: int):
        """Greedy decoding, one token at a time, each fed back in.

        The decoder state ``s_i`` carries everything the next step needs, so each step is
        one GRU update; the encoder and the projected keys ``U h_j`` are computed once.
        Returns ids (B,L), the chosen tokens' probabilities (B,L) and attention (B,L,S)
        (zeros for the plain model). Rows stop changing after EOS.
        """
        memory = self.encode(src)
        C = memory["context"]  # (B, H)
        state = torch.tanh(self.init_state(C))  # (B, H): s_0
        no_attention = torch.zeros_like(memory["mask"], dtype=C.dtype)  # (B, S), plain model

        def step(t: int, token: torch.Tensor):
            nonlocal state
            y_emb = self.tgt_embed(token)  # (B, E)
            if self.attention is None:
                context, attn_weights = C, no_attention
                gru_in = torch.cat([y_emb, C], -1).unsqueeze(1)  # (B, 1, E + H): one step
                state = self.rnn(gru_in, state.unsqueeze(0))[1][0]  # (B, H)
            else:
                context, attn_weights = self.attention(
                    state, memory["keys"], memory["hidden"], memory["mask"]
                )  # (B, H), (B, S)
                state = self.cell(torch.cat([y_emb, context], -1), state)  # (B, H)
            return self._logits(state, context, y_emb), attn_weights  # (B, V), (B, S)

        return greedy_loop(step, src.size(0), max_len, bos_id, eos_id, src.device)
