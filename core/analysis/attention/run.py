"""The attention a model really used, and the proof that it is the one plotted.

:func:`run_attention` translates greedily, then reruns the model teacher-forced on its own
output, so each plotted row is the one used to write the token shown; the ``replay_*``
functions rebuild the logits from those weights (context = weights @ values) to prove it.
:func:`transformer_qk` and :func:`additive_energy` read the scores inside a model (lesson
3.2) that its softmax turns into those weights.

Shapes: S source (EOS included), T output, L layers, h heads, d = d_model / h, H hidden,
E target embedding, V target vocabulary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from core.evaluate import max_output_len
from core.lexicon import EOS

__all__ = [
    "EOS_LABEL",
    "AttentionRun",
    "run_attention",
    "logit_gap",
    "select_heads",
    "token_step",
    "replay_gru_logits",
    "replay_transformer_logits",
    "transformer_qk",
    "additive_energy",
]

BOS_ID, EOS_ID, PAD_ID = 1, 2, 0
EOS_LABEL = EOS  # the end-of-sentence token as students see it (plotly drops "<eos>")

# ---------------------------------------------------------------------------------------
# The run: greedy output + the attention that produced it
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AttentionRun:
    """One greedy translation and every attention map behind it.

    ``cross`` is (L, h, T, S): for the GRU (one additive attention) L = h = 1. Row ``i``
    is what the decoder attended to while choosing ``output[i]``. ``enc_self`` is the
    transformer encoder's self-attention (L, h, S, S), ``None`` for the GRU.
    """

    source: tuple[str, ...]  # source tokens, EOS label last (S)
    output: tuple[str, ...]  # output tokens, EOS label last if the model stopped (T)
    out_ids: tuple[int, ...]  # the greedy ids behind ``output`` (T)
    probs: np.ndarray  # (T,) probability of each chosen token
    cross: np.ndarray  # (L, h, T, S) cross-attention weights
    greedy_cross: np.ndarray  # (T, S) what ``model.greedy`` itself returned
    enc_self: np.ndarray | None  # (L, h, S, S) or None
    consistent: bool  # teacher-forced argmax == greedy output at every step

    @property
    def words(self) -> tuple[str, ...]:
        """The output without the EOS label (what a reader sees as the translation)."""
        return self.output[:-1] if self.output and self.output[-1] == EOS_LABEL else self.output


def run_attention(
    model, src_ids: Sequence[int], src_tokens: Sequence[str], tgt_itos: Sequence[str]
) -> AttentionRun:
    """Greedy-translate ``src_ids`` (EOS included) and collect the attention it used.

    ``model`` is an ``RNNSeq2Seq`` with attention or a ``Transformer``; ``src_tokens``
    the English tokens (without EOS); ``tgt_itos`` the target vocabulary's tokens by id.
    """
    src = torch.tensor([list(src_ids)], dtype=torch.long)  # (1, S)
    with torch.inference_mode():
        ids, probs, g_cross = model.greedy(src, max_output_len(src.size(1)), BOS_ID, EOS_ID)
        out = ids[0].tolist()
        n = out.index(EOS_ID) + 1 if EOS_ID in out else len(out)  # keep the EOS step
        out = out[:n]
        tgt_in = torch.tensor([[BOS_ID, *out[:-1]]], dtype=torch.long)  # (1, T)
        logits, attn = model(src, tgt_in)  # (1, T, V)
        forced = logits[0].argmax(-1).tolist()
        if "cross_layers" in attn:
            cross = torch.stack([w[0] for w in attn["cross_layers"]], 0)  # (L, h, T, S)
        else:
            cross = attn["cross"][0][None, None]  # (1, 1, T, S)
        enc_self = (
            torch.stack([w[0] for w in attn["enc_self"]], 0).numpy()  # (L, h, S, S)
            if "enc_self" in attn
            else None
        )
    output = tuple(EOS_LABEL if i == EOS_ID else tgt_itos[i] for i in out)
    return AttentionRun(
        source=(*src_tokens, EOS_LABEL),
        output=output,
        out_ids=tuple(out),
        probs=probs[0, :n].numpy().astype(float),
        cross=cross.numpy().astype(float),
        greedy_cross=g_cross[0, :n].numpy().astype(float),
        enc_self=None if enc_self is None else enc_self.astype(float),
        consistent=forced == out,
    )


def logit_gap(model, src_ids: Sequence[int], run: AttentionRun) -> float:
    """max |logit difference| between the model's own teacher-forced pass and a replay in
    which the decoder reads only the plotted weights (see the replay functions below).

    About 1e-6 (float rounding) means the plotted weights are the ones the model used.
    """
    src, tgt_in = _teacher_forced(src_ids, run.out_ids)
    with torch.inference_mode():
        own = model(src, tgt_in)[0][0].numpy()  # (T, V)
    if hasattr(model, "dec_layers"):
        replay = replay_transformer_logits(model, src_ids, run.out_ids, run.cross)
    else:
        replay = replay_gru_logits(model, src_ids, run.out_ids, run.cross[0, 0])
    return float(np.abs(own - replay).max())


def select_heads(cross: np.ndarray, layer: int, head: int | None) -> np.ndarray:
    """One (T, S) map from (L, h, T, S): a layer's head, or the mean over heads (``None``)."""
    if cross.ndim != 4:
        raise ValueError(f"expected (layers, heads, rows, cols), got shape {cross.shape}")
    if not 0 <= layer < cross.shape[0]:
        raise ValueError(f"layer {layer} out of range 0..{cross.shape[0] - 1}")
    if head is None:
        return cross[layer].mean(0)
    if not 0 <= head < cross.shape[1]:
        raise ValueError(f"head {head} out of range 0..{cross.shape[1] - 1}")
    return cross[layer, head]


def token_step(output: Sequence[str], token: str, hint: int | None = None) -> int | None:
    """The decoding step that wrote ``token``: ``hint`` if it is there, else the first
    occurrence, else ``None`` (the model wrote something else)."""
    if hint is not None and 0 <= hint < len(output) and output[hint] == token:
        return hint
    return next((i for i, tok in enumerate(output) if tok == token), None)


# ---------------------------------------------------------------------------------------
# Replays: the plotted weights rebuild the model's own output
# ---------------------------------------------------------------------------------------


def _teacher_forced(
    src_ids: Sequence[int], out_ids: Sequence[int]
) -> tuple[torch.Tensor, torch.Tensor]:
    """The source (1, S) and the decoder's input (1, T): BOS, then ``out_ids`` (the greedy
    output, EOS included) without its last token."""
    src = torch.tensor([list(src_ids)], dtype=torch.long)  # (1, S)
    tgt_in = torch.tensor([[BOS_ID, *list(out_ids)[:-1]]], dtype=torch.long)  # (1, T)
    return src, tgt_in


def _gru_start(model, src: torch.Tensor, tgt_in: torch.Tensor):
    """The GRU decoder before its first step: the encoder's ``memory``, the target
    embeddings (1, T, E) and the state s_0 = tanh(W_init C) (1, H)."""
    memory = model.encode(src)
    return memory, model.tgt_embed(tgt_in), torch.tanh(model.init_state(memory["context"]))


def replay_gru_logits(
    model, src_ids: Sequence[int], out_ids: Sequence[int], weights: np.ndarray
) -> np.ndarray:
    """Decoder logits (T, V) when every step's context is rebuilt from ``weights`` (T, S)
    and the encoder annotations, instead of from the model's own attention call."""
    src, tgt_in = _teacher_forced(src_ids, out_ids)
    w = torch.as_tensor(np.ascontiguousarray(weights), dtype=torch.float32)  # (T, S)
    with torch.inference_mode():
        memory, y_emb, state = _gru_start(model, src, tgt_in)  # (1, T, E), (1, H)
        values = memory["hidden"][0]  # (S, H)
        logits = []
        for i in range(tgt_in.size(1)):
            context = (w[i] @ values)[None]  # (1, H): the plotted row, nothing else
            state = model.cell(torch.cat([y_emb[:, i], context], -1), state)
            logits.append(model._logits(state, context, y_emb[:, i])[0])
    return torch.stack(logits, 0).numpy()  # (T, V)


def replay_transformer_logits(
    model, src_ids: Sequence[int], out_ids: Sequence[int], cross: np.ndarray
) -> np.ndarray:
    """Transformer logits (T, V) when every decoder layer's cross-attention uses the given
    weights ``cross`` (L, h, T, S) on its values, instead of computing its own."""
    src, tgt_in = _teacher_forced(src_ids, out_ids)
    w_all = torch.as_tensor(np.ascontiguousarray(cross), dtype=torch.float32)  # (L, h, T, S)
    with torch.inference_mode():
        memory = model.encode(src)
        T = tgt_in.size(1)
        causal = torch.ones(T, T, dtype=torch.bool).tril()[None, None]  # (1, 1, T, T)
        y = model._embed(model.tgt_embed, tgt_in)  # (1, T, D)
        for layer, w in zip(model.dec_layers, w_all):
            h = layer.norm1(y)
            a, _ = layer.self_attn(h, h, causal)
            y = y + a
            mha = layer.cross_attn
            v = mha._split(mha.v_proj(memory["hidden"]))  # (1, h, S, d)
            context = w[None] @ v  # (1, h, T, d): the plotted weights
            y = y + mha.o_proj(mha._merge(context))  # (1, T, D)
            y = y + layer.ff(layer.norm3(y))
        return model.out(model.dec_norm(y))[0].numpy()  # (T, V)


# ---------------------------------------------------------------------------------------
# Lesson 3.2 inside the models: the scores their softmax turns into weights
# ---------------------------------------------------------------------------------------


def transformer_qk(model, src_ids: Sequence[int], layer: int) -> tuple[np.ndarray, np.ndarray]:
    """The queries and keys of encoder layer ``layer``'s self-attention, per head.

    Returns (Q, K), each (h, S, d): exactly the vectors whose scaled dot products the
    layer's softmax turns into its ``enc_self`` weights.
    """
    src = torch.tensor([list(src_ids)], dtype=torch.long)  # (1, S)
    with torch.inference_mode():
        x = model._embed(model.src_embed, src)  # (1, S, D)
        mask = (src != PAD_ID)[:, None, None, :]
        for i, enc in enumerate(model.enc_layers):
            if i == layer:
                h = enc.norm1(x)
                mha = enc.self_attn
                q = mha._split(mha.q_proj(h))[0]  # (h, S, d)
                k = mha._split(mha.k_proj(h))[0]  # (h, S, d)
                return q.numpy().astype(float), k.numpy().astype(float)
            x, _ = enc(x, mask)
    raise ValueError(f"layer {layer} out of range 0..{len(model.enc_layers) - 1}")


def additive_energy(model, src_ids: Sequence[int], out_ids: Sequence[int], step: int) -> np.ndarray:
    """Bahdanau energies ``v^T tanh(W s_{i-1} + U h_j)`` (S,) before output word ``step``.

    ``s_{i-1}`` is the GRU decoder's state after reading the greedy output up to ``step``.
    Softmax of these energies gives the model's attention row ``step``.
    """
    src, tgt_in = _teacher_forced(src_ids, out_ids)
    if not 0 <= step < tgt_in.size(1):
        raise ValueError(f"step {step} out of range 0..{tgt_in.size(1) - 1}")
    with torch.inference_mode():
        memory, y_emb, state = _gru_start(model, src, tgt_in)  # (1, T, E), (1, H)
        for i in range(step):
            context, _ = model.attention(state, memory["keys"], memory["hidden"], memory["mask"])
            state = model.cell(torch.cat([y_emb[:, i], context], -1), state)
        att = model.attention
        energy = att.v(torch.tanh(att.W(state).unsqueeze(1) + memory["keys"])).squeeze(-1)
    return energy[0].numpy().astype(float)  # (S,)
