"""What "it" reads in the coreference encoder (``coref_encoder``): its real scores and weights.

The named view is the last layer's one head (:data:`LAYER`, :data:`HEAD`). From the row of
"it" we read the weight on the right noun and on the wrong one (their difference is the
margin a test asserts on held-out sentences), and, for "score → weight", the head's own
query at "it", its keys, the scaled scores q·k_j/√d and the softmax that turns them into
the weights. Pure functions of a model, a vocabulary and token lists; arrays are numpy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from core import corpus
from core.data import pad

LAYER, HEAD = 1, 0  # the view that must choose: the last layer's single head (0-based)
MARGIN = 0.1  # the weight gap a case needs to count as resolved by the head
# the claims on held-out sentences: the head resolves this share, the output names this one
RESOLVED_MIN, NAMED_MIN = 0.9, 0.95


@torch.inference_mode()
def encode_cases(model, vocab, cases: Sequence[corpus.CorefCase]):
    """Run the encoder on the cases' sentences: ids (B,S), logits (B,S,V), per-layer dicts."""
    ids = pad([vocab.encode(c.tokens) for c in cases])  # (B, S)
    logits, layers = model(ids)
    return ids, logits, layers


@dataclass(frozen=True)
class CorefEval:
    """The named head on a set of cases: the weights from "it" and what the model names."""

    right: np.ndarray  # (N,) weight on the antecedent
    wrong: np.ndarray  # (N,) weight on the other noun
    named_ok: np.ndarray  # (N,) bool: the output at "it" names the antecedent

    @property
    def margins(self) -> np.ndarray:
        return self.right - self.wrong

    def share_resolved(self, margin: float = MARGIN) -> float:
        """Share of cases whose margin is at least ``margin``."""
        return float((self.margins >= margin).mean()) if len(self.right) else 0.0


def evaluate_cases(
    model, vocab, cases: Sequence, layer: int = LAYER, head: int = HEAD
) -> CorefEval:
    """The head ``(layer, head)``'s weights from "it" on each case's two nouns, and whether
    the model's output at "it" names the antecedent (argmax over the vocabulary). A case is
    a ``corpus.CorefCase`` or a ``coref_frames.FrameCase`` (tokens, it, antecedent, other)."""
    if not cases:
        raise ValueError("cases is empty; pass at least one corpus.CorefCase")
    ids, logits, layers = encode_cases(model, vocab, cases)
    attn = layers[layer]["attn"][:, head]  # (B, S, S)
    n = torch.arange(len(cases))
    it = torch.tensor([c.it for c in cases])
    ante = torch.tensor([c.antecedent for c in cases])
    other = torch.tensor([c.other for c in cases])
    row = attn[n, it]  # (B, S): what "it" reads
    named = logits[n, it].argmax(-1) == ids[n, ante]  # (B,)
    return CorefEval(row[n, ante].numpy(), row[n, other].numpy(), named.numpy())


def held_out_metrics(model, vocab, n: int = 400, seed: int = 2) -> dict:
    """What the manifest records. On the held-out frames test
    (:func:`core.corpus.coref_frames.held_out_frame_cases`: a frame no model trained on, and
    the training frames with nouns or noun/predicate pairs never trained on): the share the
    output names right, the share the named head resolves by :data:`MARGIN`, their smallest
    and mean margin, the same per frame; ``pairs``: the old one-frame test on ``n``
    held-out noun/predicate pairs; and the lesson pair's weights."""
    from core.corpus import coref_frames

    cases = coref_frames.held_out_frame_cases()
    ev = evaluate_cases(model, vocab, cases)
    by_frame = {}
    for frame in coref_frames.FRAMES:
        idx = [i for i, c in enumerate(cases) if c.frame == frame]
        by_frame[frame] = {
            "n": len(idx),
            "named_acc": round(float(ev.named_ok[idx].mean()), 4),
            "resolved": round(float((ev.margins[idx] >= MARGIN).mean()), 4),
        }
    pairs = evaluate_cases(model, vocab, corpus.coref_cases(seed, n, held_out=True))
    lesson = evaluate_cases(model, vocab, corpus.lesson_coref_cases())
    return {
        "held_out_n": len(cases),
        "named_acc": round(float(ev.named_ok.mean()), 4),
        "resolved": round(ev.share_resolved(), 4),
        "min_margin": round(float(ev.margins.min()), 4),
        "mean_margin": round(float(ev.margins.mean()), 4),
        "by_frame": by_frame,
        "pairs": {
            "n": n,
            "named_acc": round(float(pairs.named_ok.mean()), 4),
            "resolved": round(pairs.share_resolved(), 4),
        },
        "layer": LAYER,
        "head": HEAD,
        "lesson": {
            c.predicate: {"right": round(float(r), 4), "wrong": round(float(w), 4)}
            for c, r, w in zip(corpus.lesson_coref_cases(), lesson.right, lesson.wrong)
        },
    }


@dataclass(frozen=True)
class ScoreToWeight:
    """One query against every key in the named head: the numbers of "score → weight"."""

    tokens: tuple[str, ...]  # the sentence
    query_word: str  # the word whose row is read ("it")
    query: np.ndarray  # (d,) the head's query at that word
    keys: np.ndarray  # (S, d) the head's keys of every word
    scores: np.ndarray  # (S,) q·k_j / sqrt(d), the energies before the softmax
    weights: np.ndarray  # (S,) softmax(scores): the model's own attention row
    named: str  # the word the model's output names at the query position


@torch.inference_mode()
def score_to_weight(
    model, vocab, tokens: Sequence[str], query_index: int | None = None, layer: int = LAYER
) -> ScoreToWeight:
    """The real query, keys, scaled scores and softmax weights of the named head (``layer``,
    head 0) for the word at ``query_index`` (default: "it"). ``weights`` is the row the
    model used (it equals ``softmax(scores)``; a test checks it)."""
    tokens = tuple(tokens)
    if query_index is None:
        if "it" not in tokens:
            raise ValueError('the sentence has no "it"; pass query_index to pick a word')
        query_index = tokens.index("it")
    if not 0 <= query_index < len(tokens):
        raise ValueError(f"query_index must be in 0..{len(tokens) - 1}, got {query_index}")
    ids = torch.tensor([vocab.encode(tokens)])  # (1, S)
    logits, layers = model(ids)
    seen = layers[layer]
    query = seen["query"][0, HEAD, query_index]  # (d,)
    keys = seen["keys"][0, HEAD]  # (S, d)
    scores = keys @ query / math.sqrt(query.size(-1))  # (S,)
    named = vocab.tokens[int(logits[0, query_index].argmax())]
    return ScoreToWeight(
        tokens,
        tokens[query_index],
        query.numpy(),
        keys.numpy(),
        scores.numpy(),
        seen["attn"][0, HEAD, query_index].numpy(),
        named,
    )


def lesson_pair(model, vocab) -> dict[str, ScoreToWeight]:
    """:func:`score_to_weight` on the lesson's pair, keyed by predicate ("hungry", "sweet")."""
    cases = corpus.lesson_coref_cases()
    return {c.predicate: score_to_weight(model, vocab, c.tokens) for c in cases}
