"""From a score to a weight (lesson 3.2), in plain numpy: dot, scaled dot and additive
scores, softmax and its temperature, why sqrt(d) keeps softmax soft, and a worked example
by hand whose every number a student can change.

Shapes: S keys, d query / key size, d_v value size.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "SCORE_KINDS",
    "scores",
    "toy_additive",
    "softmax",
    "entropy_bits",
    "saturation_curve",
    "TOY_QUERY_WORD",
    "TOY_WORDS",
    "TOY_QUERY",
    "TOY_KEYS",
    "TOY_VALUES",
    "TOY_LIMIT",
    "TOY_MIN_KEYS",
    "TOY_MAX_KEYS",
    "TOY_MAX_DIM",
    "WorkedExample",
    "worked_example",
    "parse_vectors",
    "format_vectors",
    "resize_example",
]

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
