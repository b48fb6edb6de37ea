"""The encoder bottleneck: what the fixed-length vector C holds, and what it loses.

A plain RNN encoder-decoder (Cho et al. 2014; Sutskever et al. 2014) hands the decoder one
vector ``C`` however long the sentence is. These functions turn the pretrained models into
arrays that make the loss visible (Bahdanau et al. 2015, Figure 2, and the lesson, 1.5 and
2.3): the encoder's states word by word, translations scored against a reference, accuracy
by sentence length from the manifest, and linear probes that read the word at source
position ``i`` back out of ``C``. No streamlit here.

Shapes: N sentences, S source length (EOS included), H size of C, P probed positions.
"""

from __future__ import annotations

import difflib
import random
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from core import corpus
from core.data import pad

METRICS: tuple[str, ...] = ("exact", "token_acc", "edit_acc")

# The page's default views (here, so the tests check the very views the page opens with).
EXAMPLE_LENGTHS: tuple[int, ...] = (8, 16, 24, 32, 44)
EXAMPLE_SEED = 2015  # Bahdanau et al.'s year: any fixed seed gives fixed examples
# The default sentence: on the 32-word example the plain GRU (C = 256) gets 10 of 24 output
# tokens wrong and attention none (the side-by-side part), and the early words still move C
# about as much as the late ones for all three plain models (the gradient part).
DEFAULT_EXAMPLE = 32
STRETCH_BATCH = 8  # sentences per "stretch it" batch: answers in well under a second
STRETCH_LEN = 40  # the default length: the plain GRU gets 0 of 8 right, attention 6 or more
# the "still right so far" curve stops where fewer than half the batch's references are
# that long: with one or two sentences a single error moves the share by 0.5 or 1
STRETCH_MIN_N = 4


def example_pair(n: int) -> corpus.Pair:
    """The page's fixed example sentence of ``n`` words (with its reference translation)."""
    return sample_sentences(EXAMPLE_SEED + n, 1, n, n)[0]


def stretch_pairs(length: int, seed: int) -> list[corpus.Pair]:
    """The "stretch it" batch ``seed`` of sentences of exactly ``length`` words."""
    return sample_sentences(seed * 1000 + length, STRETCH_BATCH, length, length)


def reference_for(
    tokens: Sequence[str], examples: Iterable[tuple[Sequence[str], Sequence[str]]] = ()
) -> tuple[str, ...] | None:
    """The grammar's translation of ``tokens`` when it is one of ``examples`` (``(source,
    target)`` pairs, the page's examples) or of the lesson's pairs; ``None`` otherwise (a
    sentence typed by the reader has no known reference)."""
    tokens = tuple(tokens)
    for src, tgt in (*examples, *((p.src, p.tgt) for p in corpus.LESSON_PAIRS)):
        if tuple(src) == tokens:
            return tuple(tgt)
    return None


# --- the encoder, word by word -----------------------------------------------------------------


@torch.inference_mode()
def encoder_states(model, src_ids: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """The encoder's annotations ``h_t`` (S, H) and its summary ``C`` (H,) for one sentence.

    ``model`` is an ``RNNSeq2Seq``; ``src_ids`` the source ids, EOS included. For a
    unidirectional encoder ``C`` equals the last annotation; for a bidirectional one ``C``
    is [last forward state; first backward state] and each annotation is [fwd_t; bwd_t].
    """
    if len(src_ids) == 0:
        raise ValueError("src_ids is empty; encode the sentence with eos=True first")
    memory = model.encode(torch.tensor([list(src_ids)], dtype=torch.long))  # (1, S)
    return memory["hidden"][0].numpy().copy(), memory["context"][0].numpy().copy()


@torch.inference_mode()
def contexts(model, rows: Sequence[Sequence[int]], batch_size: int = 256) -> np.ndarray:
    """``C`` for every source id list (EOS included): (N, H) float64, in input order."""
    if not rows:
        raise ValueError("rows is empty; pass at least one encoded sentence")
    out = []
    for start in range(0, len(rows), batch_size):
        src = pad(rows[start : start + batch_size])  # (B, S)
        out.append(model.encode(src)["context"].double().numpy())  # (B, H)
    return np.concatenate(out, 0)  # (N, H)


# --- sentences from the grammar and translations against a reference ---------------------------


def sample_sentences(seed: int, n: int, min_len: int, max_len: int) -> list[corpus.Pair]:
    """``n`` distinct grammar pairs with source lengths uniform in ``min_len..max_len``.

    Drawn with ``corpus.sample_pair(random.Random(seed), length)``: the same seed gives the
    same sentences on every machine.
    """
    if not 1 <= min_len <= max_len:
        raise ValueError(f"need 1 <= min_len <= max_len, got {min_len}..{max_len}")
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    rng = random.Random(seed)
    out: list[corpus.Pair] = []
    seen: set[tuple[str, ...]] = set()
    tries = 0
    while len(out) < n:
        tries += 1
        pair = corpus.sample_pair(rng, rng.randint(min_len, max_len))
        if pair.src in seen and tries < 50 * n:
            continue
        seen.add(pair.src)
        out.append(pair)
    return out


def error_marks(output: Sequence[str], reference: Sequence[str]) -> list[bool]:
    """For each output token, ``True`` if it is wrong: not part of the longest matching
    blocks between output and reference (``difflib``; an edit-distance-like alignment, so
    one inserted token does not mark the rest of the sentence wrong)."""
    marks = [True] * len(output)
    matcher = difflib.SequenceMatcher(a=list(output), b=list(reference), autojunk=False)
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            marks[block.a + k] = False
    return marks


def correct_prefix(output: Sequence[str], reference: Sequence[str]) -> int:
    """How many leading output tokens agree with the reference before the first error."""
    n = 0
    for o, r in zip(output, reference):
        if o != r:
            break
        n += 1
    return n


def on_track(
    outputs: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
    max_pos: int,
    min_n: int = 1,
) -> np.ndarray:
    """Share of sentences still exactly right after ``p`` output tokens, p = 1..max_pos.

    Position p counts only sentences whose reference has at least p tokens; NaN where
    fewer than ``min_n`` have (a share of one or two sentences jumps between 0, 0.5 and 1
    on a single error: the curve stops before its sample is that small). Returns
    (max_pos,) floats in [0, 1]: where along the output the models fail.
    """
    if min_n < 1:
        raise ValueError(f"min_n must be at least 1, got {min_n}")
    if len(outputs) != len(references):
        raise ValueError(f"{len(outputs)} outputs but {len(references)} references")
    prefixes = np.array([correct_prefix(o, r) for o, r in zip(outputs, references)])
    lengths = np.array([len(r) for r in references])
    out = np.full(max_pos, np.nan)
    for p in range(1, max_pos + 1):
        live = lengths >= p
        if live.sum() >= min_n:
            out[p - 1] = float((prefixes[live] >= p).mean())
    return out


# --- accuracy against length, from the manifest ------------------------------------------------


def length_curves(
    manifest: Mapping[str, Any], names: Sequence[str], metric: str = "exact"
) -> dict[str, list[float]]:
    """``metric`` per length bucket (``corpus.BUCKETS`` order) for each model in the manifest.

    Models without ``metrics.by_length`` (not trained yet) are left out. Values are the
    held-out test split scores written by the training run (``python -m core.evaluate``).
    """
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; use one of {METRICS}")
    curves: dict[str, list[float]] = {}
    for name in names:
        by_length = manifest.get("models", {}).get(name, {}).get("metrics", {}).get("by_length")
        if not isinstance(by_length, Mapping):
            continue
        try:
            curves[name] = [float(by_length[b][metric]) for b in corpus.BUCKETS]
        except (KeyError, TypeError, ValueError):
            continue
    return curves


def bucket_counts(manifest: Mapping[str, Any], name: str) -> list[int]:
    """Test sentences per length bucket behind a model's curve (0 where unknown)."""
    by_length = manifest.get("models", {}).get(name, {}).get("metrics", {}).get("by_length", {})
    return [int(by_length.get(b, {}).get("n", 0)) for b in corpus.BUCKETS]


# --- what C remembers: linear probes ----------------------------------------------------------


@dataclass(frozen=True)
class ProbeResult:
    """Accuracy of a linear read-out of the word at each source position from ``C``."""

    positions: np.ndarray  # (P,) 1-based source positions
    accuracy: np.ndarray  # (P,) probe accuracy on held-out sentences
    chance: np.ndarray  # (P,) always guessing the position's most frequent training word
    ridge: float  # the L2 penalty chosen on a validation slice of the training sentences
    n_train: int
    n_test: int


def linear_probe(
    x_train: np.ndarray,
    y_train: np.ndarray,
    x_test: np.ndarray,
    y_test: np.ndarray,
    lambdas: Sequence[float] = (1e-2, 1e-1, 1.0, 10.0, 100.0),
    val_share: float = 0.2,
) -> tuple[np.ndarray, np.ndarray, float]:
    """Least-squares (ridge) probes onto one-hot words, one per column of the labels.

    ``x_*``: features (N, D); ``y_*``: integer labels (N, P), one column per probed
    position. Features are standardised with training statistics; the penalty is picked on
    the last ``val_share`` of the training rows (mean accuracy over the positions), then
    the probes are refitted on all training rows. Returns (accuracy (P,), chance (P,),
    the chosen penalty); chance is the held-out accuracy of always guessing the most
    frequent training label.
    """
    x_train, x_test = np.asarray(x_train, float), np.asarray(x_test, float)
    y_train, y_test = np.asarray(y_train), np.asarray(y_test)
    if x_train.ndim != 2 or x_test.ndim != 2 or x_train.shape[1] != x_test.shape[1]:
        raise ValueError(
            f"features must be (N, D) with the same D: {x_train.shape}, {x_test.shape}"
        )
    if y_train.shape[0] != x_train.shape[0] or y_test.shape[0] != x_test.shape[0]:
        raise ValueError("need one label row per feature row")
    if y_train.ndim == 1:
        y_train, y_test = y_train[:, None], y_test[:, None]
    mean, std = x_train.mean(0), x_train.std(0) + 1e-6
    xtr, xte = (x_train - mean) / std, (x_test - mean) / std
    n_val = max(1, int(len(xtr) * val_share))
    fit, val = slice(0, len(xtr) - n_val), slice(len(xtr) - n_val, len(xtr))

    def with_bias(x: np.ndarray) -> np.ndarray:
        return np.hstack([x, np.ones((len(x), 1))])  # (N, D+1)

    def accuracies(x_fit, y_fit, x_eval, y_eval, lams) -> np.ndarray:
        # Ridge: W = (X^T X + lam I)^-1 X^T Y = Q diag(1 / (l + lam)) Q^T X^T Y, from one
        # eigendecomposition X^T X = Q diag(l) Q^T of the small (D+1)^2 Gram matrix, shared
        # by every position and every lam; the predictions X_eval W are computed directly.
        # (torch's LAPACK/BLAS: several times faster than numpy's on this machine.)
        xf = torch.from_numpy(with_bias(x_fit))  # (N_fit, D+1)
        xe = torch.from_numpy(with_bias(x_eval))  # (N_eval, D+1)
        evals, q = torch.linalg.eigh(xf.T @ xf)  # (D+1,), (D+1, D+1)
        xf_q, xe_q = xf @ q, xe @ q  # (N_fit, D+1), (N_eval, D+1)
        acc = np.empty((len(lams), y_fit.shape[1]))
        for p in range(y_fit.shape[1]):
            classes, labels = np.unique(y_fit[:, p], return_inverse=True)
            # Q^T X^T Y without forming Y: the feature rows summed per class
            coef = torch.zeros(len(classes), xf_q.shape[1], dtype=xf_q.dtype)
            coef.index_add_(0, torch.from_numpy(labels.reshape(-1)), xf_q)  # (K, D+1)
            for k, lam in enumerate(lams):
                scores = (xe_q / (evals + lam)) @ coef.T  # (N_eval, K)
                pred = classes[scores.argmax(1).numpy()]
                acc[k, p] = float((pred == y_eval[:, p]).mean())
        return acc  # (len(lams), P)

    scores = accuracies(xtr[fit], y_train[fit], xtr[val], y_train[val], lambdas).mean(1)
    best = float(lambdas[int(np.argmax(scores))])
    accuracy = accuracies(xtr, y_train, xte, y_test, [best])[0]
    chance = np.empty(y_train.shape[1])
    for p in range(y_train.shape[1]):
        values, counts = np.unique(y_train[:, p], return_counts=True)
        chance[p] = float((y_test[:, p] == values[counts.argmax()]).mean())
    return accuracy, chance, best


def probe_positions(
    model,
    train_rows: Sequence[Sequence[int]],
    test_rows: Sequence[Sequence[int]],
    n_positions: int,
) -> ProbeResult:
    """Probe ``C`` of ``model`` for the word at source positions 1..n_positions.

    ``train_rows`` / ``test_rows``: source id lists (EOS included) at least
    ``n_positions`` words long. Returns held-out accuracy and chance per position.
    """
    short = [r for r in (*train_rows, *test_rows) if len(r) - 1 < n_positions]
    if short:
        raise ValueError(
            f"{len(short)} sentences have fewer than {n_positions} words; "
            "sample longer sentences or probe fewer positions"
        )
    x_train, x_test = contexts(model, train_rows), contexts(model, test_rows)  # (N, H)
    y_train = np.array([r[:n_positions] for r in train_rows])  # (N, P)
    y_test = np.array([r[:n_positions] for r in test_rows])
    accuracy, chance, lam = linear_probe(x_train, y_train, x_test, y_test)
    return ProbeResult(
        positions=np.arange(1, n_positions + 1),
        accuracy=accuracy,
        chance=chance,
        ridge=lam,
        n_train=len(train_rows),
        n_test=len(test_rows),
    )


def probe_models(
    models: Mapping[str, Any],
    train_rows: Sequence[Sequence[int]],
    test_rows: Sequence[Sequence[int]],
    n_positions: int,
    workers: int = 2,
) -> dict[str, ProbeResult]:
    """:func:`probe_positions` for several models on the same sentences, ``workers`` at a
    time (the encoders and the least squares run in torch, which lets go of the GIL: two
    threads use two cores). Returns {name: ProbeResult} in the order of ``models``."""
    if not models:
        raise ValueError("models is empty; pass {name: model}")
    # the biggest encoders first, so the workers finish at about the same time
    order = sorted(models, key=lambda n: -sum(p.numel() for p in models[n].encoder.parameters()))
    with ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="probe") as pool:
        jobs = {
            n: pool.submit(probe_positions, models[n], train_rows, test_rows, n_positions)
            for n in order
        }
        return {n: jobs[n].result() for n in models}


PROBE_SEEDS = (101, 202)  # the probe part's train / held-out sentence samples


def probe_on_grammar(
    loaded: Mapping[str, Any], vocab, n_train: int, n_test: int, length: int
) -> dict[str, ProbeResult]:
    """The probe part's probes: :func:`probe_models` on ``n_train`` grammar sentences of
    ``length`` words and ``n_test`` others (none of them in the training sample), the same
    sentences for every model in ``loaded`` ({name: model}); ``vocab`` encodes the source."""
    train = sample_sentences(PROBE_SEEDS[0], n_train, length, length)
    seen = {p.src for p in train}
    test = [
        p
        for p in sample_sentences(PROBE_SEEDS[1], n_test + 50, length, length)
        if p.src not in seen
    ][:n_test]
    train_rows = [vocab.encode(p.src, eos=True) for p in train]
    test_rows = [vocab.encode(p.src, eos=True) for p in test]
    return probe_models(loaded, train_rows, test_rows, length)


def kept_positions(result: ProbeResult, margin: float = 0.1) -> list[int]:
    """Positions where the probe beats chance by more than ``margin`` (C still holds the word)."""
    above = result.accuracy - result.chance > margin
    return [int(p) for p, ok in zip(result.positions, above) if ok]


def ranges_text(positions: Sequence[int]) -> str:
    """Sorted integers as compact ranges: [1, 2, 3, 7, 9, 10] -> "1–3, 7, 9–10"."""
    out: list[str] = []
    items = sorted(set(int(p) for p in positions))
    i = 0
    while i < len(items):
        j = i
        while j + 1 < len(items) and items[j + 1] == items[j] + 1:
            j += 1
        out.append(str(items[i]) if i == j else f"{items[i]}–{items[j]}")
        i = j + 1
    return ", ".join(out)


def early_late_ratio(influence: np.ndarray) -> float:
    """Mean influence of the first third of the words over that of the last third.

    ``influence`` is (S,) per source token with EOS last (EOS is left out). Below 1: early
    words move C less than late ones. NaN for fewer than 3 words.
    """
    words = np.asarray(influence, dtype=float)[:-1]
    k = len(words) // 3
    if k == 0:
        return float("nan")
    late = words[-k:].mean()
    return float(words[:k].mean() / late) if late > 0 else float("nan")
