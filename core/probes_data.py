"""The distance task behind the memory probes (see ``core.models.probes``).

A sequence of ``SEQ_LEN`` symbols over ten values; exactly one position, ``d`` places before
the end, is flagged as the *key*; the last position is the query, and the model must answer
the key's value. Noise positions carry the same kind of values (only the flag differs), so
a model must decide by the flag what to keep. Chance is ``1 / N_KEYS``. Symbol ids: ``v``
(0..9) a flagged key of value v, ``N_KEYS + v`` an unflagged noise value v, ``QUERY_ID``.
"""

from __future__ import annotations

import math

import torch

N_KEYS = 10  # values, and classes (flagged key symbols 0..9)
N_NOISE = N_KEYS  # unflagged noise symbols 10..19 carry the same ten values
QUERY_ID = N_KEYS + N_NOISE  # 20: the last symbol of every sequence
N_SYMBOLS = QUERY_ID + 1
SEQ_LEN = 72  # every sequence has this length, so batches need no padding
MAX_DISTANCE = 64  # training draws d log-uniformly from 1..MAX_DISTANCE
EVAL_DISTANCES: tuple[int, ...] = (5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60)


def make_batch(
    gen: torch.Generator, batch_size: int, distances: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """x (B, SEQ_LEN) symbols, y (B,) keys, d (B,) distances (query index − key index)."""
    if distances is None:
        # log-uniform: as many examples between 1 and 8 as between 8 and 64, so every model
        # gets signal at the distances it can learn, and none is starved of long ones
        u = torch.rand(batch_size, generator=gen) * math.log(MAX_DISTANCE + 1)
        distances = torch.exp(u).floor().long().clamp(1, MAX_DISTANCE)
    if int(distances.max()) > SEQ_LEN - 1 or int(distances.min()) < 1:
        raise ValueError(f"distances must lie in 1..{SEQ_LEN - 1}")
    x = torch.randint(N_KEYS, N_KEYS + N_NOISE, (batch_size, SEQ_LEN), generator=gen)
    y = torch.randint(0, N_KEYS, (batch_size,), generator=gen)
    rows = torch.arange(batch_size)
    x[rows, SEQ_LEN - 1 - distances] = y
    x[:, -1] = QUERY_ID
    return x, y, distances


def eval_set(distance: int, n: int = 400, seed: int = 2024) -> tuple[torch.Tensor, torch.Tensor]:
    """A fixed held-out set at one distance: x (n, SEQ_LEN), y (n,)."""
    gen = torch.Generator().manual_seed(seed * 1000 + distance)
    x, y, _ = make_batch(gen, n, torch.full((n,), distance))
    return x, y
