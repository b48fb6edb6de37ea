"""Turning corpus pairs into padded id tensors, and length-sorted batches for training."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

import torch

from core.corpus import Pair
from core.vocab import Vocab

PAD_ID, BOS_ID, EOS_ID = 0, 1, 2


def pad(rows: Sequence[Sequence[int]]) -> torch.Tensor:
    """Right-pad id lists with PAD into a (B, L) long tensor."""
    width = max(1, max((len(r) for r in rows), default=1))
    out = torch.zeros(len(rows), width, dtype=torch.long)
    for i, r in enumerate(rows):
        out[i, : len(r)] = torch.tensor(r, dtype=torch.long)
    return out


def encode_pairs(pairs: Sequence[Pair], src_vocab: Vocab, tgt_vocab: Vocab):
    """Source ids (with EOS) and target ids (BOS ... EOS) for every pair."""
    src = [src_vocab.encode(p.src, eos=True) for p in pairs]
    tgt = [tgt_vocab.encode(p.tgt, bos=True, eos=True) for p in pairs]
    return src, tgt


def sorted_batches(
    src: Sequence[list[int]], tgt: Sequence[list[int]], batch_size: int, seed: int
) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    """Endless (src (B,S), tgt (B,T)) batches of similar length, in a seeded random order.

    Sorting by length keeps padding (wasted compute) small; each epoch reshuffles which
    sentences share a batch (a jitter on the sort key) and the order of the batches.
    """
    rng = random.Random(seed)
    n = len(src)
    while True:
        order = sorted(range(n), key=lambda i: (len(src[i]) + rng.random() * 3, rng.random()))
        batches = [order[i : i + batch_size] for i in range(0, n, batch_size)]
        rng.shuffle(batches)
        for b in batches:
            yield pad([src[i] for i in b]), pad([tgt[i] for i in b])
