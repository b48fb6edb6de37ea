"""Train / dev / test splits stratified by length bucket, the probe sets (coreference,
word sense, long range) and the splits cached on disk and shared in the process.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import random
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from core.corpus.grammar import sample_pair
from core.corpus.phenomena import _coref, _longrange, _sense
from core.corpus.phrases import _P
from core.corpus.words import LESSON_PAIRS, SENSE_INTERNAL, SENSES, Pair

__all__ = [
    "Splits",
    "BUCKETS",
    "length_bucket",
    "coref_probe",
    "sense_probe",
    "longrange_probe",
    "LESSON_COPIES",
    "build_splits",
    "CACHE_ENV",
    "cache_dir",
    "stored_splits",
    "shared_splits",
]


@dataclass(frozen=True)
class Splits:
    """Train / dev / test sets; no source sentence is shared between them."""

    train: tuple[Pair, ...]
    dev: tuple[Pair, ...]
    test: tuple[Pair, ...]


BUCKETS: tuple[str, ...] = ("1-10", "11-20", "21-30", "31-40", "41+")
_BUCKET_RANGES: tuple[tuple[int, int], ...] = ((1, 10), (11, 20), (21, 30), (31, 40), (41, 55))


def length_bucket(n_src_tokens: int) -> str:
    """The BUCKETS label of a source length: 1-10, 11-20, 21-30, 31-40, 41+."""
    if n_src_tokens <= 10:
        return "1-10"
    if n_src_tokens >= 41:
        return "41+"
    lo = (n_src_tokens - 1) // 10 * 10 + 1
    return f"{lo}-{lo + 9}"


# ---------------------------------------------------------------------------------------
# Probe sets
# ---------------------------------------------------------------------------------------

_LESSON_SRC = frozenset(p.src for p in LESSON_PAIRS)


def _balanced(make, n: int, kind: str, cells: int) -> list[Pair]:
    """Collect n distinct pairs, an equal share (±1) from each of ``cells`` cells."""
    out: list[Pair] = []
    seen: set[tuple[str, ...]] = set()
    counts = [0] * cells
    quota = [n // cells + (1 if c < n % cells else 0) for c in range(cells)]
    i = 0
    while len(out) < n:
        cell = i % cells
        i += 1
        if counts[cell] >= quota[cell]:
            continue
        phrase, info = make(cell)
        if phrase.en in seen or phrase.en in _LESSON_SRC:
            if i > 2000 * (n + 1):  # pragma: no cover - the grammar has far more sentences
                raise RuntimeError(f"could not find {n} distinct {kind} probes")
            continue
        seen.add(phrase.en)
        counts[cell] += 1
        out.append(Pair(phrase.en, phrase.zh, kind, phrase.check, info))
    return out


def coref_probe(seed: int = 7, n: int = 200) -> list[Pair]:
    """ "the <animal> ate/drank the <food> because it was <pred>": half subject readings.

    ``check`` points at the repeated antecedent in the Chinese; info has the reading.
    """
    rng = random.Random(seed)
    readings = ("subject", "object")

    def make(cell: int) -> tuple[_P, tuple[tuple[str, str], ...]]:
        p = _coref(rng, readings[cell])
        return p, (("reading", readings[cell]), ("antecedent", p.check[0][1]))

    return _balanced(make, n, "coref", len(readings))


def sense_probe(seed: int = 8, n: int = 200) -> list[Pair]:
    """Ambiguous words (transformer, bank), an equal share of each of the four senses.

    Within a sense the deciding context alternates before / after the word (and inside
    the same clause where the sense has such a phrase). ``check`` points at the
    translated word; info has word, sense, context.
    """
    rng = random.Random(seed)

    def make(cell: int) -> tuple[_P, tuple[tuple[str, str], ...]]:
        sense = SENSES[cell][1]
        where = rng.choice(
            ("before", "after", "internal") if SENSE_INTERNAL[sense] else ("before", "after")
        )
        p = _sense(rng, sense, where)
        word = SENSES[cell][0]
        return p, (("word", word), ("sense", p.check[0][1]), ("context", where))

    return _balanced(make, n, "sense", len(SENSES))


def longrange_probe(
    seed: int = 9, distances: tuple[int, ...] = (5, 10, 20, 30, 40), n_per: int = 40
) -> list[Pair]:
    """The autumn-cicada sentences at each requested distance (>= 4), half of each reading.

    info: ("antecedent", Chinese noun), ("distance", d) = source tokens from the
    antecedent's head word to "their", ("reading", "song" | "shade"); ``check`` points at
    the repeated antecedent in the Chinese.
    """
    rng = random.Random(seed)
    out: list[Pair] = []
    readings = ("song", "shade")
    for d in distances:

        def make(cell: int, d: int = d) -> tuple[_P, tuple[tuple[str, str], ...]]:
            p = _longrange(rng, d, readings[cell])
            ante = p.check[0][1]
            return p, (("antecedent", ante), ("distance", str(d)), ("reading", readings[cell]))

        out.extend(_balanced(make, n_per, "longrange", len(readings)))
    return out


# ---------------------------------------------------------------------------------------
# Splits
# ---------------------------------------------------------------------------------------

LESSON_COPIES = 30  # each lesson pair appears this often in train


def _stratified(
    rng: random.Random, n: int, exclude: set[tuple[str, ...]], seen: set[tuple[str, ...]]
) -> list[Pair]:
    """n distinct pairs, an equal share per length bucket (fixed greetings left out)."""
    out: list[Pair] = []
    for b, (lo, hi) in enumerate(_BUCKET_RANGES):
        want = n // len(BUCKETS) + (1 if b < n % len(BUCKETS) else 0)
        got = 0
        while got < want:
            pair = sample_pair(rng, rng.randint(max(lo, 2), hi))
            if pair.kind == "short" or pair.src in exclude or pair.src in seen:
                continue
            seen.add(pair.src)
            out.append(pair)
            got += 1
    return out


def build_splits(
    seed: int = 1234, n_train: int = 60000, n_dev: int = 1000, n_test: int = 2500
) -> Splits:
    """Train / dev / test splits with no shared source sentence.

    dev and test are stratified by length bucket and contain no lesson sentence, no fixed
    greeting and no probe sentence; train (uniform lengths 1..55) contains no probe
    sentence and every lesson pair LESSON_COPIES times, within its n_train pairs.
    """
    probes = coref_probe() + sense_probe() + longrange_probe()
    probe_src = {p.src for p in probes}
    reserved = probe_src | set(_LESSON_SRC)
    seen: set[tuple[str, ...]] = set()
    test = _stratified(random.Random(seed * 3 + 1), n_test, reserved, seen)
    dev = _stratified(random.Random(seed * 3 + 2), n_dev, reserved, seen)
    held = seen  # every dev/test source
    rng = random.Random(seed * 3)
    lessons = [p for p in LESSON_PAIRS for _ in range(LESSON_COPIES)]
    train: list[Pair] = []
    while len(train) < n_train - len(lessons):
        pair = sample_pair(rng)
        if pair.src in held or pair.src in probe_src:
            continue
        train.append(pair)
    train.extend(lessons[: max(0, n_train - len(train))])
    rng.shuffle(train)
    return Splits(tuple(train), tuple(dev), tuple(test))


# ---- the splits on disk: built once per machine, not once per process ---------------------
# A fresh server (a replica, a test's server) needs the splits behind the autoregressive
# and compression parts and the class poll: ~10-20 s of one core to build, under 1 s to
# read back. The file is named by a hash of this package's source, the seed and the sizes,
# so a change to the grammar can never read an old corpus; it is compact JSON (token ids),
# never pickle, so a file in the cache folder cannot run code. A missing, unreadable or
# damaged file is simply rebuilt; a read-only cache folder only costs the build.
CACHE_ENV = "ROAD_CACHE_DIR"


def cache_dir() -> Path:
    """``$ROAD_CACHE_DIR``, else ``$XDG_CACHE_HOME/road_to_attention`` (~/.cache/...)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "road_to_attention"


def _splits_file(seed: int, sizes: tuple[int, int, int]) -> Path:
    h = hashlib.sha256()
    for source in sorted(Path(__file__).parent.glob("*.py")):  # every module of the corpus
        h.update(source.read_bytes())
    h.update(repr((seed, sizes)).encode())
    return cache_dir() / f"splits-{seed}-{h.hexdigest()[:16]}.json.gz"


def _encode(splits: Splits) -> dict:
    ids: dict[str, int] = {}

    def enc(tokens: Sequence[str]) -> list[int]:
        return [ids.setdefault(t, len(ids)) for t in tokens]

    def pair(p: Pair) -> list:
        check = [[i, ids.setdefault(t, len(ids))] for i, t in p.check]
        return [enc(p.src), enc(p.tgt), p.kind, check, [list(kv) for kv in p.info]]

    out = {name: [pair(p) for p in getattr(splits, name)] for name in ("train", "dev", "test")}
    return {"tokens": list(ids), **out}


def _decode(data: dict) -> Splits:
    tokens = data["tokens"]

    def pair(row: list) -> Pair:
        src, tgt, kind, check, info = row
        return Pair(
            tuple(tokens[i] for i in src),
            tuple(tokens[i] for i in tgt),
            kind,
            tuple((i, tokens[t]) for i, t in check),
            tuple((a, b) for a, b in info),
        )

    return Splits(*(tuple(pair(r) for r in data[name]) for name in ("train", "dev", "test")))


def stored_splits(
    seed: int = 1234, n_train: int = 60000, n_dev: int = 1000, n_test: int = 2500
) -> Splits:
    """:func:`build_splits`, read from the cache folder when this exact corpus was built
    before on this machine (see :func:`cache_dir`), built and stored otherwise."""
    sizes = (n_train, n_dev, n_test)
    path = _splits_file(seed, sizes)
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            splits = _decode(json.load(f))
        if (len(splits.train), len(splits.dev), len(splits.test)) == sizes:
            return splits
    except (OSError, ValueError, KeyError, TypeError, IndexError, EOFError):
        pass  # missing or damaged: build it
    splits = build_splits(seed, n_train, n_dev, n_test)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        with gzip.open(tmp, "wt", encoding="utf-8", compresslevel=1) as f:
            json.dump(_encode(splits), f, separators=(",", ":"))
        os.replace(tmp, path)  # atomic: a reader sees the whole file or none
    except OSError:
        pass  # a read-only cache folder: the splits are still built
    return splits


_shared_lock = threading.Lock()
_shared: dict[int, Splits] = {}


def shared_splits(seed: int = 1234) -> Splits:
    """:func:`stored_splits`, read or built once per process and shared read-only by every
    page and the server's warm-up thread (building it twice, or copying it per call as a
    data cache would, costs a class's first visit)."""
    with _shared_lock:  # one build even when a page and the warm-up ask at the same time
        if seed not in _shared:
            if len(_shared) >= 2:
                _shared.clear()
            _shared[seed] = stored_splits(seed)
        return _shared[seed]
