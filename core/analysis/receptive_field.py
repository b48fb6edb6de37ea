"""Receptive fields of stacked 1-D convolutions: the formula and the measurement.

Theory: ``L`` layers of window ``k`` and dilations ``r_l`` see ``1 + (k - 1)(r_1 + ... + r_L)``
positions: ``1 + L (k - 1)`` contiguous, ``1 + (k - 1)(2^L - 1)`` with dilation doubling
(WaveNet, ByteNet), ``k^L`` with dilation ``k^(l-1)`` (the ``O(log_k n)`` of Vaswani et al.
2017, Table 1). Measurement: the effective field (Luo et al. 2016), the norm of the Jacobian
of the layer-``l`` state at one position with respect to every input embedding of the frozen
``cnn_s2s`` encoder: centre-weighted inside the window, exactly zero outside.
Shapes: L layers, S source positions, C channels, E embedding size.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from core.corpus.lesson import CICADAS

# --- theory ------------------------------------------------------------------------------

# The page's default stack: deliberately too shallow for the lesson's pair at kernel 3
# (秋蝉 … 它们 meet at layer 13, cicadas … their at layer 10), so the first view shows a
# convolution that has not yet linked the two words (tested).
DEFAULT_DEPTH = 8
DEFAULT_KERNEL = 3

# The window width after L layers, by dilation base (language-neutral maths for the page).
FORMULAS: dict[int, str] = {1: "1 + L·(k − 1)", 2: "1 + (k − 1)·(2^L − 1)"}


def dilations(layers: int, base: int = 1) -> list[int]:
    """Dilation of each layer: ``base ** (l - 1)`` for l = 1..layers (base 1: contiguous)."""
    if layers < 0:
        raise ValueError(f"layers must be >= 0, got {layers}")
    if base < 1:
        raise ValueError(f"the dilation base must be >= 1, got {base}")
    return [base**i for i in range(layers)]


def theoretical_field(layers: int, kernel: int, base: int = 1) -> int:
    """Positions one output sees after ``layers`` convolutions of window ``kernel``.

    ``base`` 1: ``1 + L (k - 1)``; ``base`` 2 (dilation doubling): ``1 + (k - 1)(2^L - 1)``.
    """
    if kernel < 1:
        raise ValueError(f"kernel must be >= 1, got {kernel}")
    if layers < 0 or base < 1:
        raise ValueError(f"need layers >= 0 and base >= 1, got {layers} and {base}")
    total = layers if base == 1 else (base**layers - 1) // (base - 1)  # sum of the dilations
    return 1 + (kernel - 1) * total


def side_reach(kernel: int, causal: bool = False) -> tuple[int, int]:
    """(left, right) positions one layer of dilation 1 adds on each side.

    Non-causal padding as in ``GLUConv``: ``(k - 1) // 2`` left, ``k // 2`` right; causal:
    everything on the left.
    """
    if kernel < 1:
        raise ValueError(f"kernel must be >= 1, got {kernel}")
    return (kernel - 1, 0) if causal else ((kernel - 1) // 2, kernel // 2)


def windows(
    position: int, layers: int, kernel: int, n: int, base: int = 1, causal: bool = False
) -> list[tuple[int, int]]:
    """The window ``(lo, hi)`` (inclusive, clipped to ``0..n-1``) that ``position`` sees at
    every layer ``0..layers`` (layer 0 is the word itself): ``layers + 1`` pairs."""
    if not 0 <= position < n:
        raise ValueError(f"position {position} is outside the sentence (0..{n - 1})")
    left, right = side_reach(kernel, causal)
    out = [(position, position)]
    reach_l = reach_r = 0
    for r in dilations(layers, base):
        reach_l, reach_r = reach_l + left * r, reach_r + right * r
        out.append((max(0, position - reach_l), min(n - 1, position + reach_r)))
    return out


def first_shared_layer(
    i: int, j: int, kernel: int, base: int = 1, max_layers: int = 64
) -> int | None:
    """The first layer at which one position's window holds both words ``i`` and ``j``.

    That is the smallest ``L`` with ``theoretical_field(L) - 1 >= |i - j|`` (0 if ``i == j``);
    ``None`` if more than ``max_layers`` layers would be needed (or ``kernel`` is 1).
    """
    gap = abs(i - j)
    if gap == 0:
        return 0
    if kernel == 1:
        return None
    if base == 1:
        layers = math.ceil(gap / (kernel - 1))
        return layers if layers <= max_layers else None
    for layers in range(1, max_layers + 1):
        if theoretical_field(layers, kernel, base) - 1 >= gap:
            return layers
    return None


def meeting_path(
    i: int, j: int, kernel: int, base: int = 1
) -> tuple[list[int], list[int], int] | None:
    """How the signals of words ``i < j`` climb a non-causal stack until one node sees both.

    Returns ``(from_i, from_j, layers)``: the position of the node on each word's path at
    layers ``0..layers`` (each step stays inside that layer's window), meeting at the top.
    ``None`` if no node within 64 layers sees both.
    """
    if i > j:
        i, j = j, i
    layers = first_shared_layer(i, j, kernel, base)
    if layers is None:
        return None
    left, right = side_reach(kernel)
    gap = j - i
    reach_l = left * sum(dilations(layers, base))  # a top node sees this far to its left
    meet = i + min(reach_l, gap)  # the node at the top: sees i on its left, j on its right
    from_i, from_j = [i], [j]
    cum_l = cum_r = 0
    for r in dilations(layers, base):
        cum_l, cum_r = cum_l + left * r, cum_r + right * r
        from_i.append(i + min(cum_l, meet - i))
        from_j.append(j - min(cum_r, j - meet))
    return from_i, from_j, layers


# --- measurement -------------------------------------------------------------------------


def gradient_field(model, src: Sequence[int], position: int) -> np.ndarray:
    """Measured receptive field of a ConvS2S encoder at ``position``: (L, S).

    Entry ``[l, s]`` is the Frobenius norm of d(state after layer l+1 at ``position``, all C
    channels) / d(embedding of word s): how much word ``s`` can move that state. One
    backward pass per layer over a batch of C copies (copy c carries channel c), so the whole
    Jacobian is exact. The model is used read-only: its parameters stay frozen; only the
    input embeddings require a gradient.
    """
    import torch

    ids = torch.tensor([list(src)], dtype=torch.long)  # (1, S)
    S = ids.size(1)
    if not 0 <= position < S:
        raise ValueError(f"position {position} is outside the source (0..{S - 1})")
    C = model.cfg.channels
    with torch.enable_grad():
        base = model.src_embed(ids).detach()  # (1, S, E)
        emb = base.expand(C, -1, -1).clone().requires_grad_(True)  # (C, S, E)
        out = model.encode(ids.expand(C, -1), embedded=emb)
        rows = torch.arange(C)
        field = []
        for layer in out["layers"]:  # each (C, S, C)
            picked = layer[rows, position, rows].sum()  # copy c keeps only channel c
            (grad,) = torch.autograd.grad(picked, emb, retain_graph=True)  # (C, S, E)
            field.append(grad.pow(2).sum(dim=(0, 2)).sqrt())  # (S,)
    return torch.stack(field).detach().cpu().numpy()  # (L, S)


def normalise_rows(field: np.ndarray) -> np.ndarray:
    """Each row divided by its maximum (a zero row stays zero): (L, S) -> (L, S) in [0, 1]."""
    field = np.asarray(field, dtype=float)
    peak = field.max(axis=1, keepdims=True)
    return np.divide(field, peak, out=np.zeros_like(field), where=peak > 0)


def mass_width(profile: Sequence[float], share: float = 0.9) -> int:
    """The fewest positions that hold ``share`` of a profile's total (largest first).

    For a gradient profile this is the width of the *effective* receptive field.
    """
    p = np.sort(np.abs(np.asarray(profile, dtype=float)))[::-1]
    total = p.sum()
    if total <= 0:
        return 0
    if not 0 < share <= 1:
        raise ValueError(f"share must be in (0, 1], got {share}")
    return int(np.searchsorted(np.cumsum(p), share * total - 1e-12 * total) + 1)


def share_inside(profile: Sequence[float], lo: int, hi: int) -> float:
    """The share of a profile's total that lies inside positions ``lo..hi`` (inclusive)."""
    p = np.abs(np.asarray(profile, dtype=float))
    total = p.sum()
    return float(p[lo : hi + 1].sum() / total) if total > 0 else math.nan


def field_widths(
    raw: np.ndarray, wins: Sequence[tuple[int, int]], share: float = 0.9
) -> tuple[list[int], list[int], float]:
    """The formula's window against the field in use, layer by layer.

    ``raw``: (L, S) gradient sizes (:func:`gradient_field`); ``wins``: the formula's
    ``(lo, hi)`` for layers 1..L. Returns ``(theory, effective, inside)``: the window width
    per layer, the fewest words holding ``share`` of the gradient per layer
    (:func:`mass_width`), and the smallest share of a layer's gradient inside its window.
    """
    raw = np.asarray(raw, dtype=float)
    if raw.ndim != 2 or raw.shape[0] != len(wins):
        raise ValueError(f"pass one window per layer: raw is {raw.shape}, {len(wins)} windows")
    theory = [hi - lo + 1 for lo, hi in wins]
    effective = [mass_width(row, share) for row in raw]
    inside = min(share_inside(row, lo, hi) for row, (lo, hi) in zip(raw, wins, strict=True))
    return theory, effective, inside


@dataclass(frozen=True)
class ProbeReach:
    """How far one CNN distance probe reaches: by its formula and by its accuracy."""

    sees: int  # the farthest distance inside its receptive field (field - 1)
    solved: int | None  # the farthest distance with accuracy >= the solved level (None: none)
    best_beyond: float | None  # its best accuracy beyond ``sees`` (None: no distance there)

    def blind_beyond(self, chance: float, margin: float = 2.0) -> bool:
        """Whether every distance beyond the field is at guessing level (< margin x chance)."""
        return self.best_beyond is not None and self.best_beyond < margin * chance

    def fails_inside(self, distances: Sequence[int]) -> bool:
        """Whether a measured distance inside the field is not solved (the probe gives up
        before its field ends: the field it really uses is narrower)."""
        return any(d <= self.sees and (self.solved is None or d > self.solved) for d in distances)


def probe_reach(
    distances: Sequence[int], accuracy: Sequence[float], field: int, solved: float = 0.5
) -> ProbeReach:
    """A CNN probe's reach from its accuracy per distance and its receptive ``field``."""
    if len(distances) != len(accuracy):
        raise ValueError(f"{len(distances)} distances but {len(accuracy)} accuracies")
    sees = field - 1
    ok = [d for d, acc in zip(distances, accuracy, strict=True) if acc >= solved]
    beyond = [acc for d, acc in zip(distances, accuracy, strict=True) if d > sees]
    return ProbeReach(sees, max(ok) if ok else None, max(beyond) if beyond else None)


# --- sentences ---------------------------------------------------------------------------

# The lesson's long-dependency sentence: its Chinese words (pair 秋蝉 … 它们) and the one
# English version the models can read (pair cicadas … their), both from the lesson module.
LESSON_WORDS_ZH: tuple[str, ...] = CICADAS.zh_words
LESSON_PAIR_ZH: tuple[str, str] = CICADAS.pair_zh
ENGLISH_PAIR: tuple[str, str] = CICADAS.pair
MAX_TOKENS = 60  # longest user sentence drawn (the translation models stop at 60 words too)

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def english_counterpart() -> tuple[str, ...]:
    """The English version of the lesson's sentence that the models can read
    (``core.corpus.lesson.CICADAS``): "cicadas" and "their" 20 words apart."""
    return CICADAS.en_words


def split_words(text: str, max_tokens: int = MAX_TOKENS) -> tuple[list[str], bool]:
    """A user's sentence as drawable tokens: English words (``tokenize_en``), Chinese split
    into characters; punctuation, emoji and markup dropped. Returns (tokens, truncated)."""
    from core.vocab import tokenize_en

    tokens: list[str] = []
    for word in tokenize_en(text):
        if _CJK.search(word):
            tokens += [ch for ch in word if ch.strip()]
        else:
            tokens.append(word)
    return tokens[:max_tokens], len(tokens) > max_tokens


def has_chinese(text: str) -> bool:
    """Whether ``text`` contains Chinese characters."""
    return bool(_CJK.search(text))


SENTENCE_KINDS: tuple[str, ...] = ("zh", "en", "own")


def choose_sentence(kind: str, text: str = "") -> tuple[tuple[str, ...], tuple[int, int], str]:
    """The tokens to draw, the default word pair (positions) and a problem code.

    kind "zh": the lesson's Chinese words, pair 秋蝉/它们; "en": its English version the
    models can read, pair cicadas/their; "own": ``text`` split by :func:`split_words`, pair first
    and last word. Problem: "" (none), "truncated" (longer than ``MAX_TOKENS``, cut) or
    "empty" (nothing drawable: the lesson's sentence is used instead).
    """
    if kind == "own":
        tokens, truncated = split_words(text)
        if tokens:
            return tuple(tokens), (0, len(tokens) - 1), "truncated" if truncated else ""
        words, pair, _ = choose_sentence("zh")
        return words, pair, "empty"
    if kind == "en":
        words = english_counterpart()
        return words, (words.index(ENGLISH_PAIR[0]), words.index(ENGLISH_PAIR[1])), ""
    if kind != "zh":
        raise ValueError(f"kind must be one of {SENTENCE_KINDS}, got {kind!r}")
    words = LESSON_WORDS_ZH
    return words, (words.index(LESSON_PAIR_ZH[0]), words.index(LESSON_PAIR_ZH[1])), ""
