"""The model arena: every translation model on the same sentence, scored the same way.

Pure functions (no streamlit): token-by-token verdicts against a reference (position-wise
and through an edit-distance alignment), live latency of a greedy decode, parameter
counts, and the manifest tables behind the arena's two charts.

Scores use the same definitions as ``core.evaluate.score`` (the held-out metrics in the
manifest), so a sentence in the arena and a bucket in the chart measure the same thing.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core import corpus
from core.analysis import arena_default
from core.evaluate import max_output_len, score

# Marks for one output token.
OK = "ok"  # equals the reference token it is compared with
WRONG = "wrong"  # differs from the reference token (a substitution)
EXTRA = "extra"  # no reference token to compare with: the output is too long / inserted
MARKS: tuple[str, ...] = (OK, WRONG, EXTRA)


@dataclass(frozen=True)
class Verdict:
    """One output compared with its reference, token by token."""

    marks: tuple[str, ...]  # one of MARKS per output token
    missing: int  # reference tokens the output never produced (deletions)

    @property
    def correct(self) -> int:
        """Output tokens marked OK."""
        return sum(m == OK for m in self.marks)

    @property
    def edits(self) -> int:
        """Substitutions + insertions + deletions (the edit distance, for an alignment)."""
        return sum(m != OK for m in self.marks) + self.missing


def positionwise(output: Sequence[str], reference: Sequence[str]) -> Verdict:
    """Token i of the output against token i of the reference.

    One inserted token shifts everything after it, so every later token counts as wrong:
    strict, as ``token_acc`` in ``core.evaluate``. ``missing`` counts reference positions
    past the end of the output.
    """
    marks = tuple(
        EXTRA if i >= len(reference) else OK if tok == reference[i] else WRONG
        for i, tok in enumerate(output)
    )
    return Verdict(marks, max(0, len(reference) - len(output)))


def edit_alignment(output: Sequence[str], reference: Sequence[str]) -> Verdict:
    """The output aligned to the reference with the fewest edits (Levenshtein).

    Each output token is OK (kept), WRONG (substituted) or EXTRA (inserted); ``missing``
    counts deleted reference tokens. The number of edits equals
    ``core.evaluate.edit_distance(output, reference)``. Ties prefer a match, then a
    substitution, so the marks are deterministic.
    """
    n, m = len(output), len(reference)
    # dist[i][j]: edits turning output[:i] into reference[:j]   (n+1, m+1)
    dist = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        dist[i][0] = i
    for j in range(m + 1):
        dist[0][j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            same = output[i - 1] == reference[j - 1]
            dist[i][j] = min(
                dist[i - 1][j - 1] + (not same), dist[i - 1][j] + 1, dist[i][j - 1] + 1
            )
    marks: list[str] = []
    missing = 0
    i, j = n, m
    while i > 0 or j > 0:
        if (
            i > 0
            and j > 0
            and dist[i][j] == dist[i - 1][j - 1] + (output[i - 1] != reference[j - 1])
        ):
            marks.append(OK if output[i - 1] == reference[j - 1] else WRONG)
            i, j = i - 1, j - 1
        elif i > 0 and dist[i][j] == dist[i - 1][j] + 1:
            marks.append(EXTRA)
            i -= 1
        else:
            missing += 1
            j -= 1
    return Verdict(tuple(reversed(marks)), missing)


def sentence_scores(output: Sequence[str], reference: Sequence[str]) -> dict[str, float]:
    """``exact``, ``token_acc`` and ``edit_acc`` of one output, as in the manifest."""
    s = score([list(output)], [list(reference)])
    return {k: s[k] for k in ("exact", "token_acc", "edit_acc")}


def find_reference(
    tokens: Sequence[str], pairs: Sequence[corpus.Pair] = corpus.LESSON_PAIRS
) -> corpus.Pair | None:
    """The pair whose English is exactly ``tokens`` (e.g. a lesson sentence typed by hand)."""
    key = tuple(tokens)
    return next((p for p in pairs if p.src == key), None)


def grammar_pair(seed: int, length: int) -> corpus.Pair:
    """The sentence the grammar draws for ``(seed, length)``: the same pair every time."""
    import random

    return corpus.sample_pair(random.Random(seed), length)


def table_csv(header: Sequence[str], rows: Sequence[Sequence[str]]) -> bytes:
    """The numbers table as CSV, UTF-8 with a byte-order mark (so Excel opens Chinese
    right)."""
    import csv
    import io

    buf = io.StringIO()
    csv.writer(buf).writerows([header, *rows])
    return buf.getvalue().encode("utf-8-sig")


# --- size and speed ----------------------------------------------------------------------


def count_params(model: Any) -> int:
    """Number of parameters of a torch module (trainable or frozen)."""
    return int(sum(p.numel() for p in model.parameters()))


def time_runs(fn: Callable[[], object], runs: int = 5, warmup: int = 1) -> list[float]:
    """Wall-clock seconds of ``runs`` calls of ``fn`` (after ``warmup`` untimed calls)."""
    if runs < 1:
        raise ValueError(f"runs must be at least 1, got {runs}")
    for _ in range(max(0, warmup)):
        fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def greedy_latency(
    model: Any, src_ids: Sequence[int], *, runs: int = 5, warmup: int = 1
) -> dict[str, float]:
    """Time the model's greedy decode of one sentence (``src_ids`` end with EOS).

    Returns ``median_ms``, ``min_ms``, ``max_ms`` and ``runs``, measured now on this
    machine (one thread per session, inference mode, no gradients).
    """
    import torch

    from core.data import BOS_ID, EOS_ID

    src = torch.tensor([list(src_ids)])  # (1, S)
    budget = max_output_len(src.size(1))

    def decode() -> None:
        with torch.inference_mode():
            model.greedy(src, budget, BOS_ID, EOS_ID)

    times = [t * 1000 for t in time_runs(decode, runs=runs, warmup=warmup)]
    return {
        "median_ms": statistics.median(times),
        "min_ms": min(times),
        "max_ms": max(times),
        "runs": float(runs),
    }


# --- the manifest tables behind the charts -----------------------------------------------


def exact_by_length(
    manifest: Mapping[str, Any], names: Sequence[str], metric: str = "exact"
) -> dict[str, list[float | None]]:
    """Held-out ``metric`` per ``corpus.BUCKETS`` bucket for each model that has it.

    Returns {name: [value or None per bucket]}; models without ``metrics.by_length`` are
    left out (not trained yet, or an older manifest).
    """
    out: dict[str, list[float | None]] = {}
    for name in names:
        by = ((manifest.get("models", {}).get(name) or {}).get("metrics") or {}).get("by_length")
        if not isinstance(by, Mapping):
            continue
        row = []
        for bucket in corpus.BUCKETS:
            cell = by.get(bucket)
            value = cell.get(metric) if isinstance(cell, Mapping) else None
            row.append(float(value) if isinstance(value, int | float) else None)
        if any(v is not None for v in row):
            out[name] = row
    return out


def distance_accuracy(
    manifest: Mapping[str, Any], names: Sequence[str]
) -> tuple[list[int], dict[str, list[float | None]]]:
    """The distance probes' held-out accuracy: (sorted distances, {name: [acc per distance]}).

    Distances are the union over the models found; a model without a value at a distance
    gets ``None`` there. Models without ``metrics.distance`` are left out.
    """
    found: dict[str, Mapping[str, Any]] = {}
    for name in names:
        dist = ((manifest.get("models", {}).get(name) or {}).get("metrics") or {}).get("distance")
        if isinstance(dist, Mapping) and dist:
            found[name] = dist
    distances = sorted({int(d) for dist in found.values() for d in dist})
    series = {
        name: [
            float(dist[str(d)]) if isinstance(dist.get(str(d)), int | float) else None
            for d in distances
        ]
        for name, dist in found.items()
    }
    return distances, series


def smallest_bucket(manifest: Mapping[str, Any], names: Sequence[str]) -> int | None:
    """The fewest held-out sentences in any ``corpus.BUCKETS`` bucket of the models
    ``names`` (``metrics.by_length.<bucket>.n``); ``None`` when no count is known."""
    models = manifest.get("models") or {}
    sizes = []
    for name in names:
        by = ((models.get(name) or {}).get("metrics") or {}).get("by_length") or {}
        sizes += [(by.get(bucket) or {}).get("n") for bucket in corpus.BUCKETS]
    sizes = [x for x in sizes if isinstance(x, int)]
    return min(sizes) if sizes else None


# --- the default sentence -----------------------------------------------------------------

# The plain GRU encoder-decoders: everything passes through one fixed vector C.
PLAIN_MODELS: tuple[str, ...] = ("gru_plain_32", "gru_plain_128", "gru_plain_256")
# The default grammar sentence (length, seed): core.analysis.arena_default says how it was found.
DEFAULT_LENGTH, DEFAULT_SEED = arena_default.DEFAULT_LENGTH, arena_default.DEFAULT_SEED


# --- lines that lie on top of each other --------------------------------------------------


def identical_series(series: Mapping[str, Sequence[float | None]]) -> list[list[str]]:
    """Groups (of two or more) of series with exactly the same values: drawn on top of each
    other, so a chart must say so in words. In ``series`` order."""
    groups: dict[tuple, list[str]] = {}
    for name, ys in series.items():
        groups.setdefault(tuple(ys), []).append(name)
    return [names for names in groups.values() if len(names) > 1]


def length_claim(
    by_length: Mapping[str, Sequence[float | None]],
) -> dict[str, str] | None:
    """The numbers behind the evidence part's sentence, from held-out exact match per
    bucket (:func:`exact_by_length`): in the longest bucket, the best plain GRU
    (``plain``), the worse of the two all-attention models (GRU + attention and the
    Transformer: ``attention``) and the CNN with attention (``cnn``), as percentages, and
    ``lead``: the sentence's key, ``"evidence.lead_none"`` when no plain GRU gets a single
    long sentence right ("at most 0%" would read oddly), else ``"evidence.lead"``.
    ``None`` when a model is missing."""
    need = PLAIN_MODELS + ("gru_attention", "transformer", "cnn_s2s")
    if not all(m in by_length and by_length[m][-1] is not None for m in need):
        return None
    longest = {m: float(by_length[m][-1]) for m in need}
    best_plain = max(longest[m] for m in PLAIN_MODELS)
    return {
        "lead": "evidence.lead_none" if best_plain == 0 else "evidence.lead",
        "bucket": corpus.BUCKETS[-1],
        "over": str(int(corpus.BUCKETS[-1].rstrip("+")) - 1),  # "longer than this many words"
        # a share above 0 never reads as "0%"
        "plain": f"{best_plain:.0%}" if best_plain == 0 or best_plain >= 0.005 else "<1%",
        "attention": f"{min(longest['gru_attention'], longest['transformer']):.0%}",
        "cnn": f"{longest['cnn_s2s']:.0%}",
    }
