"""Attention weights a decoder really used, and how a score becomes a weight.

:func:`run_attention` translates greedily, then reruns the model teacher-forced on its own
output, so each plotted row is the one used to write the token shown; the ``replay_*``
functions rebuild the logits from those weights (context = weights @ values) to prove it.
:func:`scores`, :func:`softmax`, :func:`saturation_curve` and :func:`worked_example` explain
lesson 3.2: dot, scaled dot and additive scores, temperature, why sqrt(d) keeps softmax soft.

Shapes: S source (EOS included), T output, L layers, h heads, d = d_model / h, H hidden,
V target vocabulary.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import torch

from core.lexicon import EOS

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
    from core.evaluate import max_output_len

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
    src = torch.tensor([list(src_ids)], dtype=torch.long)
    tgt_in = torch.tensor([[BOS_ID, *list(run.out_ids)[:-1]]], dtype=torch.long)
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


def gru_own_contexts(model, src_ids: Sequence[int], out_ids: Sequence[int]) -> np.ndarray:
    """The context vectors the GRU decoder computes itself, step by step (T, H).

    Runs the model's own attention module on its own states, teacher-forced on
    ``out_ids`` (the greedy output, EOS included).
    """
    src = torch.tensor([list(src_ids)], dtype=torch.long)  # (1, S)
    tgt_in = torch.tensor([[BOS_ID, *list(out_ids)[:-1]]], dtype=torch.long)  # (1, T)
    with torch.inference_mode():
        memory = model.encode(src)
        y_emb = model.tgt_embed(tgt_in)  # (1, T, E)
        state = torch.tanh(model.init_state(memory["context"]))  # (1, H)
        contexts = []
        for i in range(tgt_in.size(1)):
            context, _ = model.attention(state, memory["keys"], memory["hidden"], memory["mask"])
            state = model.cell(torch.cat([y_emb[:, i], context], -1), state)  # (1, H)
            contexts.append(context[0])
    return torch.stack(contexts, 0).numpy()  # (T, H)


def encoder_states(model, src_ids: Sequence[int]) -> np.ndarray:
    """The encoder's annotations / states the decoder attends over, (S, H)."""
    src = torch.tensor([list(src_ids)], dtype=torch.long)
    with torch.inference_mode():
        return model.encode(src)["hidden"][0].numpy()


def context_from_weights(weights: np.ndarray, values: np.ndarray) -> np.ndarray:
    """context_i = sum_j weights_ij * values_j: (T, S) @ (S, H) -> (T, H)."""
    weights, values = np.asarray(weights, float), np.asarray(values, float)
    if weights.ndim != 2 or values.ndim != 2 or weights.shape[1] != values.shape[0]:
        raise ValueError(
            f"weights (T, S) and values (S, H) must share S; got {weights.shape}, {values.shape}"
        )
    return weights @ values


def replay_gru_logits(
    model, src_ids: Sequence[int], out_ids: Sequence[int], weights: np.ndarray
) -> np.ndarray:
    """Decoder logits (T, V) when every step's context is rebuilt from ``weights`` (T, S)
    and the encoder annotations, instead of from the model's own attention call."""
    src = torch.tensor([list(src_ids)], dtype=torch.long)  # (1, S)
    tgt_in = torch.tensor([[BOS_ID, *list(out_ids)[:-1]]], dtype=torch.long)  # (1, T)
    w = torch.as_tensor(np.ascontiguousarray(weights), dtype=torch.float32)  # (T, S)
    with torch.inference_mode():
        memory = model.encode(src)
        values = memory["hidden"][0]  # (S, H)
        y_emb = model.tgt_embed(tgt_in)  # (1, T, E)
        state = torch.tanh(model.init_state(memory["context"]))  # (1, H)
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
    src = torch.tensor([list(src_ids)], dtype=torch.long)  # (1, S)
    tgt_in = torch.tensor([[BOS_ID, *list(out_ids)[:-1]]], dtype=torch.long)  # (1, T)
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
            context = context.transpose(1, 2).reshape(1, T, mha.h * mha.d)  # (1, T, D)
            y = y + mha.o_proj(context)
            y = y + layer.ff(layer.norm3(y))
        return model.out(model.dec_norm(y))[0].numpy()  # (T, V)


# ---------------------------------------------------------------------------------------
# Lesson 3.2: from a score to a weight
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
    src = torch.tensor([list(src_ids)], dtype=torch.long)
    tgt_in = torch.tensor([[BOS_ID, *list(out_ids)[:-1]]], dtype=torch.long)
    if not 0 <= step < tgt_in.size(1):
        raise ValueError(f"step {step} out of range 0..{tgt_in.size(1) - 1}")
    with torch.inference_mode():
        memory = model.encode(src)
        y_emb = model.tgt_embed(tgt_in)
        state = torch.tanh(model.init_state(memory["context"]))  # (1, H)
        for i in range(step):
            context, _ = model.attention(state, memory["keys"], memory["hidden"], memory["mask"])
            state = model.cell(torch.cat([y_emb[:, i], context], -1), state)
        att = model.attention
        energy = att.v(torch.tanh(att.W(state).unsqueeze(1) + memory["keys"])).squeeze(-1)
    return energy[0].numpy().astype(float)  # (S,)


SCORE_KINDS: tuple[str, ...] = ("dot", "scaled", "additive")


def scores(query: np.ndarray, keys: np.ndarray, kind: str) -> np.ndarray:
    """Dot ``q·k_j`` or scaled dot ``q·k_j / sqrt(d)`` scores of one query (d,) against
    keys (S, d); returns (S,). (Additive scores need learned W, U, v: see
    :func:`additive_energy` and :func:`toy_additive`.)"""
    q, k = np.asarray(query, float), np.asarray(keys, float)
    if q.ndim != 1 or k.ndim != 2 or k.shape[1] != q.shape[0]:
        raise ValueError(f"query (d,) and keys (S, d) must share d; got {q.shape}, {k.shape}")
    dot = k @ q
    if kind == "dot":
        return dot
    if kind == "scaled":
        return dot / math.sqrt(q.shape[0])
    raise ValueError(f"kind must be 'dot' or 'scaled', got {kind!r}")


def toy_additive(query: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Additive score with W = U = identity and v = all ones: ``sum(tanh(q + k_j))``, (S,).

    A transparent stand-in for a trained Bahdanau layer, for hand-made vectors."""
    q, k = np.asarray(query, float), np.asarray(keys, float)
    if q.ndim != 1 or k.ndim != 2 or k.shape[1] != q.shape[0]:
        raise ValueError(f"query (d,) and keys (S, d) must share d; got {q.shape}, {k.shape}")
    return np.tanh(q[None, :] + k).sum(1)


def softmax(x: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """softmax(x / temperature) over the last axis, computed stably."""
    if not temperature > 0:
        raise ValueError(f"temperature must be positive, got {temperature}")
    z = np.asarray(x, float) / temperature
    z = z - z.max(-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(-1, keepdims=True)


def entropy_bits(p: np.ndarray) -> np.ndarray:
    """Shannon entropy in bits over the last axis (0 = all focus on one word,
    log2(S) = spread evenly)."""
    p = np.asarray(p, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log2(p), 0.0)
    return terms.sum(-1)


def saturation_curve(
    dims: Sequence[int], n_keys: int, trials: int = 200, seed: int = 0
) -> dict[str, np.ndarray]:
    """Why divide by sqrt(d): random queries and keys with N(0, 1) entries.

    For each d, the dot product q·k has standard deviation sqrt(d), so unscaled softmax
    gets sharper as d grows (largest weight -> 1, entropy -> 0, gradients vanish); scaled
    by 1/sqrt(d) the scores keep unit variance. Returns arrays of len(dims): ``max_dot``,
    ``max_scaled`` (mean largest weight) and ``ent_dot``, ``ent_scaled`` (mean entropy,
    bits), averaged over ``trials`` seeded draws.
    """
    if n_keys < 2:
        raise ValueError("n_keys must be at least 2: softmax over one key is always 1")
    rng = np.random.default_rng(seed)
    out = {k: [] for k in ("max_dot", "max_scaled", "ent_dot", "ent_scaled")}
    for d in dims:
        q = rng.standard_normal((trials, d))  # (N, d)
        k = rng.standard_normal((trials, n_keys, d))  # (N, S, d)
        dot = np.einsum("nd,nsd->ns", q, k)  # (N, S)
        for name, s in (("dot", dot), ("scaled", dot / math.sqrt(d))):
            p = softmax(s)
            out[f"max_{name}"].append(p.max(-1).mean())
            out[f"ent_{name}"].append(entropy_bits(p).mean())
    return {k: np.asarray(v) for k, v in out.items()}


# ---------------------------------------------------------------------------------------
# A worked example by hand: one query, a few keys and values, every step in numbers
# ---------------------------------------------------------------------------------------

# The query is "it" in the lesson's sentence "the cat drank the milk because it was
# hungry"; the keys and values belong to the other words. The defaults make "cat" the key
# that points the same way as the query, so every score function should favour it.
TOY_QUERY_WORD = "it"
TOY_WORDS: tuple[str, ...] = ("cat", "drank", "milk", "hungry", "because", "was")
TOY_QUERY = np.array([1.0, 1.0, 0.5, -1.0])  # (d,) d = 4, so sqrt(d) = 2
TOY_KEYS = np.array(  # (S, d): cat is aligned with the query; the others are not
    [
        [1.0, 0.5, 1.0, -1.0],  # cat
        [-0.5, 0.0, 0.5, 0.0],  # drank
        [0.0, -0.5, 0.0, 1.0],  # milk
        [0.0, 0.5, -1.0, 0.5],  # hungry
    ]
)
TOY_VALUES = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0], [0.0, 0.5]])  # (S, d_v)
TOY_LIMIT = 10.0  # every hand-typed number is kept within [-10, 10]
TOY_MIN_KEYS, TOY_MAX_KEYS = 2, len(TOY_WORDS)  # softmax over one key is always 1
TOY_MAX_DIM = 8


@dataclass(frozen=True)
class WorkedExample:
    """Every number of one attention step, for each score kind in :data:`SCORE_KINDS`.

    ``scores[kind]`` are the energies e_j (S,); ``weights[kind]`` = softmax(e / τ) (S,);
    ``entropy[kind]`` the spread of those weights in bits; ``context[kind]`` the output
    sum_j weights_j * values_j (d_v,).
    """

    query: np.ndarray  # (d,)
    keys: np.ndarray  # (S, d)
    values: np.ndarray  # (S, d_v)
    temperature: float
    scores: dict[str, np.ndarray]
    weights: dict[str, np.ndarray]
    entropy: dict[str, float]
    context: dict[str, np.ndarray]

    @property
    def max_entropy(self) -> float:
        """log2(S): the entropy of weights spread evenly over every key."""
        return math.log2(self.keys.shape[0])


def worked_example(
    query: np.ndarray, keys: np.ndarray, values: np.ndarray, temperature: float = 1.0
) -> WorkedExample:
    """Dot, scaled dot and additive scores of ``query`` (d,) against ``keys`` (S, d), their
    softmax at ``temperature`` and the weighted sums of ``values`` (S, d_v).

    The additive score is :func:`toy_additive` (W = U = identity, v = ones)."""
    q, k, v = (np.asarray(x, float) for x in (query, keys, values))
    if v.ndim != 2 or v.shape[0] != k.shape[0]:
        raise ValueError(f"values must be (S, d_v) with one row per key; got {v.shape}")
    if not all(np.isfinite(x).all() for x in (q, k, v)):
        raise ValueError("query, keys and values must be finite numbers")
    energy = {
        "dot": scores(q, k, "dot"),
        "scaled": scores(q, k, "scaled"),
        "additive": toy_additive(q, k),
    }
    weights = {kind: softmax(e, temperature) for kind, e in energy.items()}  # (S,) each
    return WorkedExample(
        query=q,
        keys=k,
        values=v,
        temperature=float(temperature),
        scores=energy,
        weights=weights,
        entropy={kind: float(entropy_bits(w)) for kind, w in weights.items()},
        context={kind: w @ v for kind, w in weights.items()},  # (S,) @ (S, d_v) -> (d_v,)
    )


def parse_vectors(
    text: str,
    *,
    min_rows: int = 1,
    max_rows: int = TOY_MAX_KEYS,
    max_dim: int = TOY_MAX_DIM,
    limit: float = TOY_LIMIT,
) -> tuple[np.ndarray, bool]:
    """Read vectors written as ``"1,0.5;0,1"`` (rows split by ``;``, entries by ``,``).

    Returns the (rows, dim) array with every entry clipped to ``[-limit, limit]`` and
    whether anything was clipped. Raises ``ValueError`` for anything else: an entry that is
    not a finite number, an empty entry, rows of different lengths, too few or too many
    rows, or more than ``max_dim`` entries per row.
    """
    if len(text) > max_rows * max_dim * 24:
        raise ValueError("too long to be a few short vectors")
    rows = [row.split(",") for row in text.split(";")]
    if not min_rows <= len(rows) <= max_rows:
        raise ValueError(f"need {min_rows} to {max_rows} vectors, got {len(rows)}")
    dims = {len(row) for row in rows}
    if len(dims) != 1:
        raise ValueError("every vector must have the same number of entries")
    if not 1 <= dims.pop() <= max_dim:
        raise ValueError(f"vectors need 1 to {max_dim} entries")
    try:
        m = np.array([[float(x) for x in row] for row in rows])  # (rows, dim)
    except ValueError as err:
        raise ValueError(f"not a number: {err}") from None
    if not np.isfinite(m).all():
        raise ValueError("entries must be finite numbers")
    clipped = np.clip(m, -limit, limit)
    return clipped, bool((clipped != m).any())


def format_vectors(m: np.ndarray) -> str:
    """The inverse of :func:`parse_vectors`: (rows, dim) -> ``"1,0.5;0,1"`` (4 decimals)."""
    m = np.atleast_2d(np.asarray(m, float))
    return ";".join(",".join(f"{x:g}" for x in np.round(row, 4) + 0.0) for row in m)


def resize_example(
    query: np.ndarray, keys: np.ndarray, values: np.ndarray, n_keys: int, dim: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Keep the first ``n_keys`` keys / values and the first ``dim`` entries of the query
    and keys; new keys, values and entries start at 0. Returns (d,), (S, d), (S, d_v)."""
    if not TOY_MIN_KEYS <= n_keys <= TOY_MAX_KEYS or not 1 <= dim <= TOY_MAX_DIM:
        raise ValueError(
            f"n_keys must be {TOY_MIN_KEYS}..{TOY_MAX_KEYS} and dim 1..{TOY_MAX_DIM}, "
            f"got {n_keys} and {dim}"
        )
    q, k, v = (np.asarray(x, float) for x in (query, keys, values))
    new_q = np.zeros(dim)
    new_q[: min(dim, q.size)] = q[:dim]
    new_k = np.zeros((n_keys, dim))
    new_k[: min(n_keys, k.shape[0]), : min(dim, k.shape[1])] = k[:n_keys, :dim]
    new_v = np.zeros((n_keys, v.shape[1]))
    new_v[: min(n_keys, v.shape[0])] = v[:n_keys]
    return new_q, new_k, new_v


# ---------------------------------------------------------------------------------------
# Example sentences: real corpus sentences (held-out test split, probes, the lesson's own)
# ---------------------------------------------------------------------------------------

# (English, reference Chinese). Test-split sentences were never trained on; the lesson's
# two "it" sentences were (each 30 times), which the page says where it uses them.
EXAMPLES: tuple[tuple[str, str], ...] = (
    (
        "the teacher fed a white tiger at the station in the evening",
        "老师 晚上 在 车站 喂 了 一 只 白 老虎",
    ),
    (
        "the young woman will buy the red cup in the classroom in the morning",
        "年轻 的 女人 早上 会 在 教室 买 红 杯子",
    ),
    ("the cat drank the milk because it was hungry", "猫 喝 了 牛奶 因为 猫 饿 了"),
    ("the cat drank the milk because it was sweet", "猫 喝 了 牛奶 因为 牛奶 很 甜"),
    ("a boy is eating the banana", "一 个 男孩 在 吃 香蕉"),
    (
        "the car that a dog found is big now because they visited a woman",
        "一 条 狗 找到 的 车 现在 很 大 因为 他们 看望 了 一 个 女人",
    ),
    (
        "the autumn cicadas sing in the old willows but the wind is strong in autumn so you "
        "hear their song and the kind girl worked",
        "秋蝉 在 老 柳树 上 唱歌 但是 秋天 的 风 很 大 所以 你 听见 秋蝉 的 啼唱 而且 善良 的 "
        "女孩 工作 了",
    ),
    (
        "we need a new transformer because the power went out",
        "我们 需要 一 个 新 变压器 因为 停电 了",
    ),
)


@dataclass(frozen=True)
class MinimalPair:
    """Two corpus sentences that differ in a few words and need different Chinese."""

    key: str  # URL value
    a: str  # English
    b: str
    source: str  # "lesson" (trained on) or "probe" (held out)


MINIMAL_PAIRS: tuple[MinimalPair, ...] = (
    MinimalPair(
        "it_lesson",
        "the cat drank the milk because it was hungry",
        "the cat drank the milk because it was sweet",
        "lesson",
    ),
    MinimalPair(
        "it_probe",
        "the dog drank the coffee because it was hungry",
        "the dog drank the coffee because it was sweet",
        "probe",
    ),
    MinimalPair(
        "transformer_clause",
        "we need a new transformer because the power went out",
        "we need a new transformer because the model learns language",
        "probe",
    ),
    MinimalPair(
        "transformer_phrase",
        "they tested the power transformer",
        "they tested the transformer model",
        "probe",
    ),
    MinimalPair(
        "bank",
        "i like the bank and the river was wide",
        "i like the bank and the loan was expensive",
        "probe",
    ),
)


@cache
def _probe_pairs() -> dict[tuple[str, ...], object]:
    from core import corpus

    pairs = (*corpus.coref_probe(), *corpus.sense_probe(), *corpus.LESSON_PAIRS)
    return {p.src: p for p in pairs}


def corpus_pair(english: str):
    """The corpus ``Pair`` (reference Chinese, ``check`` index, ``info``) of a lesson or
    probe sentence, or ``None`` if it is not one."""
    return _probe_pairs().get(tuple(english.split()))


# ---------------------------------------------------------------------------------------
# Defaults that show what a part claims, searched in the shipped models
# ---------------------------------------------------------------------------------------

# A view "separates" the pair when, in each sentence, "it" gives the noun it means at least
# this much more weight than the other noun.
SEPARATION_MIN = 0.05


@dataclass(frozen=True)
class ItRow:
    """What "it" reads in one encoder view (``head`` ``None`` = mean of heads), in the
    two sentences of a pair: its weight on the noun it means there (``right``) and on the
    other noun (``wrong``)."""

    layer: int  # 0-based
    head: int | None
    a_right: float
    a_wrong: float
    b_right: float
    b_wrong: float

    @property
    def separation(self) -> float:
        """The measure: min over the two sentences of (weight on the noun "it" means −
        weight on the other noun). Positive only if both sentences lean the right way."""
        return min(self.a_right - self.a_wrong, self.b_right - self.b_wrong)

    @property
    def reach(self) -> float:
        """The smaller of the two weights "it" gives the noun it means (A's, B's)."""
        return min(self.a_right, self.b_right)


@dataclass(frozen=True)
class ItChoice:
    """The view to show by default, and whether any view separates the pair."""

    shown: ItRow  # the most separating view if it separates, else the one that reaches most
    best: ItRow  # the most separating view
    separates: bool  # best.separation >= SEPARATION_MIN


def it_rows(
    enc_a: np.ndarray, enc_b: np.ndarray, word: int, noun_a: int, noun_b: int
) -> list[ItRow]:
    """Every encoder view (each layer: mean of heads, then each head) of the row of
    ``word`` in sentence A (``enc_a``, (L, h, S, S)) and B (same shape), where A's "it"
    means the noun at ``noun_a`` and B's the noun at ``noun_b``."""
    if enc_a.shape != enc_b.shape or enc_a.ndim != 4:
        raise ValueError(
            f"need two (L, h, S, S) maps of one shape, got {enc_a.shape}, {enc_b.shape}"
        )
    rows = []
    for layer in range(enc_a.shape[0]):
        for head in (None, *range(enc_a.shape[1])):
            a = select_heads(enc_a, layer, head)[word]
            b = select_heads(enc_b, layer, head)[word]
            rows.append(
                ItRow(
                    layer,
                    head,
                    float(a[noun_a]),
                    float(a[noun_b]),
                    float(b[noun_b]),
                    float(b[noun_a]),
                )
            )
    return rows


def choose_it_view(rows: Sequence[ItRow]) -> ItChoice:
    """The clearest honest default: the view with the largest separation (first on ties)
    if it reaches :data:`SEPARATION_MIN`; otherwise the view where "it" gives the noun it
    means the most weight (it reads it directly), and ``separates`` False."""
    if not rows:
        raise ValueError("no views to choose from")
    best = max(rows, key=lambda r: r.separation)  # max keeps the first of equal scores
    if best.separation >= SEPARATION_MIN:
        return ItChoice(best, best, True)
    return ItChoice(max(rows, key=lambda r: r.reach), best, False)


def it_view_search(model, src_vocab, tgt_vocab, pair: MinimalPair | None = None) -> ItChoice:
    """:func:`choose_it_view` for the transformer ``model`` on a "hungry / sweet" pair
    (the lesson's by default): "it" means the subject in A and the object in B."""
    pair = pair or MINIMAL_PAIRS[0]
    enc = []
    for english in (pair.a, pair.b):
        tokens = english.split()
        run = run_attention(model, src_vocab.encode(tokens, eos=True), tokens, tgt_vocab.tokens)
        enc.append(run.enc_self)
    tokens = pair.a.split()
    noun_a, noun_b = 1, tokens.index("because") - 1  # "the cat drank the milk because ..."
    return choose_it_view(it_rows(enc[0], enc[1], tokens.index("it"), noun_a, noun_b))


@dataclass(frozen=True)
class PairEvidence:
    """How one minimal pair shows "context decides" in the transformer's encoder."""

    key: str
    layer: int  # 0-based encoder layer where the ambiguous word reads its context most
    reads: float  # min over A and B of its largest weight on a word the sentences differ in
    senses_ok: bool  # the model wrote the expected Chinese word in both sentences


def pair_evidence(
    key: str, run_a: AttentionRun, run_b: AttentionRun, word: str, senses_ok: bool
) -> PairEvidence:
    """For the ambiguous ``word`` (e.g. "transformer"): in each encoder layer (mean of
    heads), its largest weight on a word that differs between A and B (itself excluded);
    the layer where the smaller of A's and B's is largest (first on ties)."""
    src_a, src_b = run_a.source, run_b.source
    best = (0, -1.0)
    for layer in range(run_a.enc_self.shape[0]):
        per = []
        for run, mine, other in ((run_a, src_a, src_b), (run_b, src_b, src_a)):
            i = mine.index(word)
            row = run.enc_self[layer].mean(0)[i]
            ctx = [j for j, tok in enumerate(mine) if j != i and tok != word and tok not in other]
            per.append(max((float(row[j]) for j in ctx), default=0.0))
        if min(per) > best[1]:
            best = (layer, min(per))
    return PairEvidence(key, best[0], best[1], senses_ok)


def choose_pair(evidence: Sequence[PairEvidence]) -> PairEvidence:
    """The pair whose ambiguous word reads its context most (first on ties), among the
    pairs the model translates with the right sense in both sentences."""
    ok = [e for e in evidence if e.senses_ok] or list(evidence)
    if not ok:
        raise ValueError("no pairs to choose from")
    return max(ok, key=lambda e: e.reads)


def pairs_search(model, src_vocab, tgt_vocab, word: str = "transformer") -> PairEvidence:
    """:func:`choose_pair` over the minimal pairs of the ambiguous ``word`` (the lesson's
    "transformer": 变压器 or Transformer), in the transformer ``model``."""
    evidence = []
    for pair in MINIMAL_PAIRS:
        cps = [corpus_pair(e) for e in (pair.a, pair.b)]
        if any(cp is None or dict(cp.info).get("word") != word for cp in cps):
            continue
        runs = []
        for english in (pair.a, pair.b):
            tokens = english.split()
            ids = src_vocab.encode(tokens, eos=True)
            runs.append(run_attention(model, ids, tokens, tgt_vocab.tokens))
        ok = all(
            token_step(run.output, cp.check[0][1], cp.check[0][0]) is not None
            for run, cp in zip(runs, cps)
        )
        evidence.append(pair_evidence(pair.key, runs[0], runs[1], word, ok))
    return choose_pair(evidence)


def length_series(
    manifest: dict, names: Sequence[str], buckets: Sequence[str]
) -> dict[str, list[float]]:
    """Exact-match accuracy per length bucket of each model in ``names``, read from the
    training manifest; a model without a figure for every bucket is left out."""
    series = {}
    for name in names:
        by_len = manifest.get("models", {}).get(name, {}).get("metrics", {}).get("by_length", {})
        if all(b in by_len for b in buckets):
            series[name] = [float(by_len[b]["exact"]) for b in buckets]
    return series


def loss_fall(curve: Sequence[Sequence[float]], share: float = 0.2, window: int = 3) -> float:
    """How much a training loss fell over the last ``share`` of the steps, as a fraction of
    its value there: ``curve`` is the manifest's ``[step, loss, ...]`` rows; the loss at
    each end is the mean of ``window`` points (the logged loss is noisy)."""
    if len(curve) < 2 * window:
        raise ValueError(f"curve has {len(curve)} points; need at least {2 * window}")
    steps = np.array([row[0] for row in curve], dtype=float)
    loss = np.array([row[1] for row in curve], dtype=float)
    start = int(np.searchsorted(steps, steps[-1] * (1 - share)))
    start = min(max(start - window // 2, 0), len(curve) - window)
    before = loss[start : start + window].mean()
    return float((before - loss[-window:].mean()) / before)
