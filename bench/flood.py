"""``python -m bench.flood``: bounded memory whatever the visitors send (issue 23 point 2).

One app server (``streamlit run app.py`` on 127.0.0.1, the hosted settings of
``bench.scaleout.HOSTED_ENV``: public pacing, no error details), then, page after page, a
few simulated students (``bench.classroom.Student``, Streamlit's own websocket protocol)
send ``--inputs`` DISTINCT VALID inputs through every part of the page that takes visitor
text or free values (:data:`TARGETS`, round-robin over the page's parts), each input a rerun
with a query string carrying the new value (what a deep link or a typed box does). The
sentences are drawn from the training grammar (``core.corpus.generate``), so every word is
in the models' vocabulary and the page computes on them instead of refusing them; the
numbers are distinct points of each part's accepted range. A student opens a new session
every ``--session-inputs`` inputs (the old one closes), so sessions come and go as well.

While it runs, the server's RSS (VmRSS of its process) is sampled every 0.5 s. Per page:
inputs sent, errors (failed runs), rejected inputs (an error or warning element on screen
after a valid input: the page's "unknown words" message, a bad-link notice), RSS at the
start and after 25 / 50 / 75 / 100 % of its inputs, the peak, and the growth over the
second half (a bounded server plateaus once its caches are full).

The ceiling (unless ``--ceiling-mb`` gives one)::

    ceiling = warm + sum over caches keyed on visitor input (bound x bytes per entry)
            + margin (25 % of warm)

- ``warm``: RSS after the app's warm-up and one default visit of every measured part
  (models loaded, corpus built, one-time searches done: none of it depends on the input);
- bound: the cache's ``max_entries`` (read from the source: ``@st.cache_data(...
  max_entries=N)`` in ``ui/`` and ``pages/``); a cache without one is keyed on a closed set,
  its bound is the entries it holds at the end;
- bytes per entry: measured by the server itself in the same run: Streamlit's
  ``/_stcore/metrics`` gives each cache's bytes (``st.cache_data`` keeps pickled values)
  and its misses; bytes / min(misses, bound) is the mean entry size for this flood's
  inputs;
- margin: what no cache explains: the allocator keeping freed memory, the working set of
  the runs in flight (two run slots on two cores), websocket and message buffers.

A leak (state that grows with distinct inputs outside a bounded cache) shows as growth in
the second half of a page and, given enough inputs, as a peak above the ceiling. The run
exits 1 when the peak exceeds the ceiling or the result lacks a figure.

Cost: the hosted pacing lets one session run once a second, so ``--students 4`` send at
most ~4 inputs/s; measured on a loaded 2-core machine (load average 8-11), 1.6 (CNN
receptive field) to 4.4 (path length) inputs/s: the default 300 inputs per page took ~20
minutes for the 8 pages with the warm-up (``bench/results/2026-12-02-flood.json``).
``--inputs 2000`` works and costs ~6.7 times as long (over 2 hours on such a machine).

    python -m bench.flood --json --out bench/results/<date>-flood.json
    python -m bench.flood --inputs 2000 --students 4 --json
    python -m bench.flood --inputs 30 --pages attention,compression --json   # a quick look
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench import procs

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"
PORT = 8760  # this bench's port (its tests use 8761..8769)
DEFAULT_INPUTS = 300  # per page: what fits in ~15 minutes on 2 cores (see the docstring)
MARGIN_SHARE = 0.25  # of the warm RSS
SAMPLE_EVERY = 0.5  # s between RSS samples
CLICK_TIMEOUT = 120.0  # s before an input's run is counted as lost
QUARTERS = (25, 50, 75, 100)
SEED = 20261202


# ---- what the visitors send -------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """One part of a page that takes visitor input: ``make(i, sentence)`` is the i-th
    input's query parameters (besides ``lang`` and ``part``); ``params`` names them."""

    page: str
    part: str
    params: tuple[str, ...]
    make: Callable[[int, str], dict[str, str]]
    fixed: dict[str, str] = field(default_factory=dict)  # set on every input of the part


def _grid(i: int, *axes: tuple) -> tuple:
    """The i-th point of the product of ``axes`` (mixed radix: distinct for i < product)."""
    out = []
    for axis in axes:
        out.append(axis[i % len(axis)])
        i //= len(axis)
    return tuple(out)


def _capacity(*axes: tuple) -> int:
    n = 1
    for axis in axes:
        n *= len(axis)
    return n


CMP_AXES = (tuple(range(1, 513)), tuple(range(2, 10)), (32, 64, 128, 256, 512, 1024))
PATH_AXES = (tuple(range(2, 2049)), tuple(range(2, 10)), (16, 32, 64, 128, 256, 512, 1024))
RHO = tuple(round(0.5 + 0.05 * j, 2) for j in range(21))  # the slider's steps


def _cmp_priors(i: int, _s: str) -> dict[str, str]:
    ctx, k, d = _grid(i, *CMP_AXES)
    return {"ctx": str(ctx), "k": str(k), "d": str(d)}


def _path_table(i: int, _s: str) -> dict[str, str]:
    n, k, d = _grid(i, *PATH_AXES)
    return {"n": str(n), "k": str(k), "d": str(d)}


def _rnn_fresh(i: int, _s: str) -> dict[str, str]:
    # (seed, T) is distinct for i < 81,000; the radius walks its 21 steps
    return {"seed": str(i % 1000), "T": str(20 + (i // 1000) % 81), "rho": str(RHO[i * 8 % 21])}


def _lm(i: int, s: str) -> dict[str, str]:
    return {
        "prefix": s,
        "mode": "sample",
        "temp": f"{0.1 + (i * 0.07) % 2.9:.2f}",
        "topk": str(i % 51),
        "seed": str(i % 10000),
    }


TARGETS: tuple[Target, ...] = (
    Target("compression", "markov", ("prefix",), lambda i, s: {"prefix": s}),
    Target("compression", "priors", ("ctx", "k", "d"), _cmp_priors),
    Target("autoregressive", "lm", ("prefix", "mode", "temp", "topk", "seed"), _lm),
    Target("autoregressive", "translate", ("src",), lambda i, s: {"src": s}),
    Target("autoregressive", "wrong", ("wsrc",), lambda i, s: {"wsrc": s}),
    Target(
        "attention",
        "align",
        ("s", "model"),
        lambda i, s: {"s": s, "model": ("gru_attention", "transformer")[i % 2]},
    ),
    Target("attention", "self", ("q",), lambda i, s: {"q": s}),
    Target(
        "attention",
        "score",
        ("q", "temp"),
        lambda i, s: {"q": s, "temp": f"{0.1 + (i * 0.013) % 4.9:.3f}"},
    ),
    Target("attention", "buys", ("s",), lambda i, s: {"s": s}),
    Target("bottleneck", "read", ("text",), lambda i, s: {"text": s}),
    Target("bottleneck", "side", ("text",), lambda i, s: {"text": s}),
    Target("bottleneck", "grad", ("text",), lambda i, s: {"text": s}),
    Target(
        "bottleneck",
        "stretch",
        ("len", "seed"),
        lambda i, s: {"len": str(3 + i % 58), "seed": str(i)},
    ),
    Target(
        "cnn_receptive_field", "theory", ("sent", "text"), lambda i, s: {"text": s}, {"sent": "own"}
    ),
    Target(
        "cnn_receptive_field",
        "measured",
        ("sent", "text"),
        lambda i, s: {"text": s},
        {"sent": "own"},
    ),
    Target(
        "path_length",
        "pair",
        ("sent", "text", "k"),
        lambda i, s: {"text": s, "k": str(2 + i % 8)},
        {"sent": "own"},
    ),
    Target("path_length", "table", ("n", "k", "d"), _path_table),
    Target("rnn_gradients", "fresh", ("rho", "T", "seed"), _rnn_fresh),
    Target("rnn_gradients", "words", ("text",), lambda i, s: {"text": s}),
    Target("arena", "sentence", ("input", "text"), lambda i, s: {"text": s}, {"input": "typed"}),
    Target(
        "arena",
        "sentence",
        ("input", "len", "seed"),
        lambda i, s: {"len": str(1 + i % 55), "seed": str(i)},
        {"input": "grammar"},
    ),
)
PAGES = tuple(dict.fromkeys(t.page for t in TARGETS))


def sentences(n: int, seed: int = SEED, max_len: int = 20) -> list[str]:
    """``n`` distinct English sentences of the training grammar (3..``max_len`` words)."""
    from core import corpus

    out: dict[str, None] = {}
    batch = max(64, n)
    while len(out) < n:  # bounded: the grammar has far more sentences than anyone asks
        for p in corpus.generate(batch, seed, min_len=3, max_len=max_len):
            out.setdefault(" ".join(p.src), None)
        seed += 1
        if seed > SEED + 1000:
            raise RuntimeError(f"could not draw {n} distinct sentences")
    return list(out)[:n]


def plan(page: str, n: int, pool: list[str], lang: str = "en") -> list[tuple[Target, str]]:
    """The page's ``n`` inputs, round-robin over its parts: ``(target, query string)``.
    Within a part every query string is distinct."""
    parts = [t for t in TARGETS if t.page == page]
    if not parts:
        raise ValueError(f"no input parts known on page {page!r}; pages: {PAGES}")
    counts = [0] * len(parts)
    out = []
    for j in range(n):
        k = j % len(parts)
        t, i = parts[k], counts[k]
        counts[k] += 1
        values = {"lang": lang, "part": t.part, **t.fixed, **t.make(i, pool[i % len(pool)])}
        out.append((t, urllib.parse.urlencode(values)))
    return out


# ---- what the page says back ------------------------------------------------------------


def alerts(student) -> list[str]:
    """Error and warning elements on screen now."""
    from streamlit.proto.Alert_pb2 import Alert

    out = []
    for el, _, _ in student.elements.values():
        kind = el.WhichOneof("type")
        if kind == "alert" and el.alert.format in (Alert.ERROR, Alert.WARNING):
            out.append(el.alert.body[:160])
    return out


def rejections(student, baseline: frozenset[str] = frozenset()) -> list[str]:
    """The errors and warnings on screen that the part's default view does not show (a
    page may warn whatever the input, e.g. "mixed evidence"): the page refused or
    corrected the input (unknown words, a bad-link notice, a clipped value)."""
    return [a for a in alerts(student) if a not in baseline]


# ---- the server -------------------------------------------------------------------------


@dataclass
class Running:
    server: procs.Server
    folder: Path


@contextlib.contextmanager
def app_server(port: int, startup_timeout: float = 180.0):
    """``streamlit run app.py`` on 127.0.0.1:``port`` with the hosted settings and its own
    data folder; stopped (and the folder removed) on the way out."""
    from bench.procs import port_free
    from bench.scaleout import HOSTED_ENV

    if not port_free(port):
        raise RuntimeError(f"port {port} is taken: stop whatever listens there")
    folder = Path(tempfile.mkdtemp(prefix="road-flood-"))
    env = dict(os.environ, ROAD_DATA_DIR=str(folder / "data"), **HOSTED_ENV)
    env.pop("ROAD_DATABASE_URL", None)
    log = folder / "app.log"
    launched = time.monotonic()
    proc = subprocess.Popen(
        procs.streamlit_command("app.py", port),
        cwd=ROOT,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )
    server = procs.Server(f"http://127.0.0.1:{port}", proc, log, launched, 0.0)
    try:
        deadline = launched + startup_timeout
        while time.monotonic() < deadline:  # bounded
            if proc.poll() is not None:
                raise RuntimeError(f"the app exited early:\n{log.read_text()[-3000:]}")
            with contextlib.suppress(OSError):
                with urllib.request.urlopen(server.base + "/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        server.healthy = time.monotonic()
                        break
            time.sleep(0.1)
        else:
            raise RuntimeError(f"the app was not healthy in {startup_timeout:g} s")
        yield Running(server, folder)
    finally:
        if proc.poll() is None:
            procs.stop_server(server)
        shutil.rmtree(folder, ignore_errors=True)


class Sampler:
    """The server's RSS every ``every`` s in a thread of its own: ``(t, MB)`` samples."""

    def __init__(self, pid: int, every: float = SAMPLE_EVERY) -> None:
        self.pid, self.every = pid, every
        self.samples: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="flood-rss", daemon=True)

    def now(self) -> float | None:
        from bench.classroom import rss_now_mb

        return rss_now_mb(self.pid)

    def _run(self) -> None:
        while not self._stop.is_set():
            rss = self.now()
            if rss is not None:
                self.samples.append((time.monotonic(), rss))
            self._stop.wait(self.every)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(5)

    def peak(self, since: float, until: float | None = None) -> float | None:
        vals = [r for t, r in self.samples if t >= since and (until is None or t <= until)]
        return max(vals) if vals else None


# ---- one page ---------------------------------------------------------------------------


async def flood_page(
    base: str,
    page: str,
    items: list[tuple[Target, str]],
    sampler: Sampler,
    *,
    students: int,
    session_inputs: int,
    baseline: dict[tuple[str, str], frozenset[str]] | None = None,
    timeout: float = CLICK_TIMEOUT,
) -> dict:
    """Send ``items`` through ``students`` parallel students (each renews its session every
    ``session_inputs`` inputs); the page's figures."""
    from bench.classroom import Student

    n = len(items)
    marks = {q: max(1, -(-n * q // 100)) for q in QUARTERS}  # inputs done at each quarter
    at: dict[str, float | None] = {}
    done = 0
    per_part: dict[str, dict] = {}
    samples: dict[str, int] = {}
    seen: set[tuple[str, str]] = set()
    duplicates = 0
    for t, query in items:
        key = (t.part, query)
        duplicates += key in seen
        seen.add(key)
        info = per_part.setdefault(
            t.part, {"params": [], "inputs": 0, "errors": 0, "rejected": 0, "input_s": []}
        )
        info["params"] = sorted(set(info["params"]) | set(t.params))

    def tally(kind: str, text: str) -> None:
        head = f"{kind}: {text[:200]}"
        samples[head] = samples.get(head, 0) + 1

    async def one(k: int) -> None:
        nonlocal done
        mine = items[k::students]
        s: Student | None = None
        try:
            for j, (t, query) in enumerate(mine):
                if s is None or j % session_inputs == 0:
                    if s is not None:
                        await s.close()
                        s.close_http()
                    s = Student(base, timeout=timeout, name=f"flood{k}")
                    a = await s.arrive(page, f"lang=en&part={t.part}")
                    if not a.ok:
                        tally("arrive", a.error or "?")
                action = await s.click(query)
                info = per_part[t.part]
                info["inputs"] += 1
                if not action.ok:
                    info["errors"] += 1
                    tally("error", action.error or "?")
                else:
                    info["input_s"].append(action.seconds)
                    said = rejections(s, (baseline or {}).get((page, t.part), frozenset()))
                    if said:
                        info["rejected"] += 1
                        tally(f"rejected ({t.part})", said[0])
                done += 1
                for q, mark in marks.items():
                    if done == mark:
                        at[str(q)] = sampler.now()
        finally:
            if s is not None:
                await s.close()
                s.close_http()

    t0 = time.monotonic()
    start_rss = sampler.now()
    await asyncio.gather(*(one(k) for k in range(min(students, n))))
    wall = time.monotonic() - t0
    rss = {"start": start_rss, **{f"at_{q}": at.get(str(q)) for q in QUARTERS}}
    rss["peak"] = sampler.peak(t0)
    growth = None
    if rss["at_50"] is not None and rss["at_100"] is not None:
        growth = round(rss["at_100"] - rss["at_50"], 1)
    parts_out = {}
    for part, info in per_part.items():
        times = sorted(info.pop("input_s"))
        info["input_s_p50"] = round(times[len(times) // 2], 3) if times else None
        parts_out[part] = info
    return {
        "inputs": sum(p["inputs"] for p in per_part.values()),
        "distinct": len(seen),
        "duplicates": duplicates,
        "errors": sum(p["errors"] for p in per_part.values()),
        "rejected": sum(p["rejected"] for p in per_part.values()),
        "parts": parts_out,
        "rss_mb": rss,
        "second_half_growth_mb": growth,
        "wall_s": round(wall, 1),
        "inputs_per_s": round(n / wall, 2) if wall > 0 else None,
        "error_samples": dict(sorted(samples.items(), key=lambda kv: -kv[1])[:6]),
    }


async def warm_pass(
    base: str, pages: list[str], timeout: float = 300.0
) -> tuple[dict[tuple[str, str], frozenset[str]], list[str]]:
    """Each measured part once with its default view (one-time work: models, corpus,
    searches), one student: the alerts each default view shows, and the problems met."""
    from bench.classroom import Student

    problems = []
    baseline = {}
    for page in pages:
        for part in dict.fromkeys(t.part for t in TARGETS if t.page == page):
            async with Student(base, timeout=timeout, name="warm") as s:
                a = await s.arrive(page, f"lang=en&part={part}")
                baseline[(page, part)] = frozenset(alerts(s))
            s.close_http()
            if not a.ok:
                problems.append(f"warm pass {page}/{part}: {a.error}")
    return baseline, problems


# ---- the ceiling ------------------------------------------------------------------------

_CACHE_RE = re.compile(
    r"@st\.cache_(data|resource)\(([^)]*)\)[^\n]*\n(?:@[^\n]*\n)*def (\w+)", re.MULTILINE
)


def cache_bounds(root: Path = ROOT) -> dict[str, dict]:
    """``{"<module>.<function>": {"kind", "max_entries", "ttl"}}`` of every Streamlit cache in
    ``ui/`` and ``pages/`` (read from the source)."""
    out = {}
    for folder in ("ui", "pages"):
        for path in sorted((root / folder).glob("*.py")):
            text = path.read_text(encoding="utf-8")
            for kind, args, name in _CACHE_RE.findall(text):
                m = re.search(r"max_entries\s*=\s*(\d+)", args)
                ttl = re.search(r"ttl\s*=\s*([^,)]+)", args)
                out[f"{folder}.{path.stem}.{name}"] = {
                    "kind": kind,
                    "max_entries": int(m.group(1)) if m else None,
                    "ttl": ttl.group(1).strip() if ttl else None,
                }
    return out


_METRIC_RE = re.compile(r"^(\w+)\{([^}]*)\}\s+([0-9.eE+-]+)\s*$")


def cache_metrics(base: str) -> dict[str, dict]:
    """Each cache's bytes and misses, from the server's ``/_stcore/metrics``."""
    with urllib.request.urlopen(base + "/_stcore/metrics", timeout=30) as r:
        text = r.read().decode("utf-8", errors="replace")
    out: dict[str, dict] = {}
    for line in text.splitlines():
        m = _METRIC_RE.match(line)
        if not m:
            continue
        family, labels, value = m.groups()
        lab = dict(re.findall(r'(\w+)="([^"]*)"', labels))
        name = lab.get("cache", "")
        if not name or lab.get("cache_type") not in ("st_cache_data", "st_cache_resource"):
            continue
        entry = out.setdefault(name, {"type": lab["cache_type"], "bytes": 0, "misses": 0})
        if family == "cache_memory_bytes":
            entry["bytes"] = int(float(value))
        elif family == "cache_lookups_total" and lab.get("result") == "miss":
            entry["misses"] = int(float(value))
    return out


def bound_of(metric_name: str, bounds: dict[str, dict]) -> int | None:
    """The ``max_entries`` of the cache the metrics call ``metric_name`` (``ui.x.f``; a
    page's cache is ``__main__.f``, as a page runs as a script: the pages' caches of that
    name, their bounds summed). ``None``: no bound in the source (a closed-set key)."""
    if metric_name in bounds:
        return bounds[metric_name]["max_entries"]
    module, _, func = metric_name.rpartition(".")
    found = [v["max_entries"] for k, v in bounds.items() if k.endswith(f".{func}")]
    if module != "__main__":
        found = [v["max_entries"] for k, v in bounds.items() if k.endswith(f"{module}.{func}")]
    if not found or any(b is None for b in found):
        return None
    return sum(found)


def derive_ceiling(warm_mb: float, metrics: dict[str, dict], bounds: dict[str, dict]) -> dict:
    """The ceiling of the module docstring, with every term shown."""
    caches = {}
    total = 0.0
    for name, m in sorted(metrics.items()):
        if m["type"] != "st_cache_data":
            continue  # cache_resource: models, vocabularies, jobs: closed sets, in warm
        bound = bound_of(name, bounds)
        held = m["misses"] if bound is None else min(m["misses"], bound)
        per_entry = m["bytes"] / held if held else 0.0
        cap = (bound if bound is not None else held) * per_entry
        total += cap
        caches[name] = {
            "max_entries": bound,
            "misses": m["misses"],
            "bytes_now": m["bytes"],
            "bytes_per_entry": round(per_entry),
            "bound_mb": round(cap / 2**20, 2),
        }
    caches_mb = total / 2**20
    margin = MARGIN_SHARE * warm_mb
    return {
        "mb": round(warm_mb + caches_mb + margin, 1),
        "warm_mb": warm_mb,
        "caches_mb": round(caches_mb, 1),
        "margin_mb": round(margin, 1),
        "formula": (
            "warm RSS + sum over st.cache_data caches of max_entries x measured bytes per entry"
            f" (closed-set caches: entries held) + {MARGIN_SHARE:.0%} of warm RSS"
        ),
        "caches": caches,
    }


def judge(result: dict, ceiling_mb: float | None = None) -> dict:
    """Set the verdict: the peak against the derived ceiling (or ``ceiling_mb``)."""
    ceiling = result["ceiling"]
    ceiling["given_mb"] = ceiling_mb
    limit = ceiling_mb if ceiling_mb is not None else ceiling.get("mb")
    peak = result["rss_mb"].get("peak")
    result["ceiling_mb"] = limit
    result["under_ceiling"] = bool(peak is not None and limit is not None and peak <= limit)
    return result


def validate(result: dict, pages: list[str]) -> list[str]:
    """Problems with a result's shape (an empty list when every figure is there)."""
    problems = []
    for k in ("meta", "pages", "rss_mb", "ceiling", "ceiling_mb", "under_ceiling"):
        if k not in result:
            problems.append(f"missing top-level key {k}")
    for k in ("date", "machine", "load_start", "load_end"):
        if k not in result.get("meta", {}):
            problems.append(f"meta.{k} is missing")
    for k in ("warm", "peak", "end"):
        if not isinstance(result.get("rss_mb", {}).get(k), int | float):
            problems.append(f"rss_mb.{k} should be a number")
    for page in pages:
        figs = result.get("pages", {}).get(page)
        if not isinstance(figs, dict):
            problems.append(f"pages.{page} is missing")
            continue
        for k in ("inputs", "errors", "rejected", "distinct", "second_half_growth_mb"):
            if not isinstance(figs.get(k), int | float):
                problems.append(f"pages.{page}.{k} should be a number")
        for k in ("start", "at_25", "at_50", "at_75", "at_100", "peak"):
            if not isinstance(figs.get("rss_mb", {}).get(k), int | float):
                problems.append(f"pages.{page}.rss_mb.{k} should be a number")
    return problems


# ---- the run ----------------------------------------------------------------------------


def log(msg: str) -> None:
    print(f"[flood {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


async def _flood(args, running: Running) -> dict:
    from bench.classroom import Student
    from serve.warmup import DONE

    server = running.server
    errors: list[str] = []
    pages = args.pages
    pool = sentences(args.inputs)
    result: dict = {
        "meta": {
            **procs.run_meta(),
            "inputs_per_page": args.inputs,
            "students": args.students,
            "session_inputs": args.session_inputs,
            "env": "bench.scaleout.HOSTED_ENV (public pacing: 1 run/s per session after 6)",
            "sentences": f"core.corpus.generate, seed {SEED}, 3..20 words, distinct",
            "targets": {
                p: [
                    {"part": t.part, "params": list(t.params), **t.fixed}
                    for t in TARGETS
                    if t.page == p
                ]
                for p in pages
            },
        },
        "pages": {},
    }
    t_start = time.monotonic()
    async with Student(server.base, timeout=300, name="first") as s:
        a = await s.arrive("", "lang=en")  # the first run starts the app's warm-up
    s.close_http()
    if not a.ok:
        errors.append(f"home: {a.error}")
    from bench.scaleout import wait_log

    warm_s = await asyncio.to_thread(wait_log, server, DONE, 300.0)
    if warm_s is None:
        errors.append("no warm-up line in the server log after 300 s")
    result["meta"]["warm_up_s"] = warm_s
    log(f"warm-up done ({warm_s} s); a default visit of every part")
    baseline, problems = await warm_pass(server.base, pages)
    errors += problems
    result["meta"]["default_view_alerts"] = {
        f"{p}/{q}": sorted(b) for (p, q), b in baseline.items() if b
    }
    await asyncio.sleep(2.0)
    with Sampler(server.pid) as sampler:
        warm = sampler.now()
        log(f"warm RSS {warm} MB; {args.inputs} inputs per page, {args.students} students")
        for page in pages:
            items = plan(page, args.inputs, pool)
            figs = await flood_page(
                server.base,
                page,
                items,
                sampler,
                students=args.students,
                session_inputs=args.session_inputs,
                baseline=baseline,
            )
            result["pages"][page] = figs
            log(
                f"{page}: {figs['inputs']} inputs, {figs['errors']} errors, "
                f"{figs['rejected']} rejected, RSS {figs['rss_mb']}, "
                f"second half +{figs['second_half_growth_mb']} MB, {figs['wall_s']} s"
            )
            if figs["errors"] or figs["rejected"] or figs["duplicates"]:
                errors.append(f"{page}: {figs['error_samples']}")
        await asyncio.sleep(2.0)
        end = sampler.now()
        peak = sampler.peak(0.0)
        result["rss_mb"] = {
            "warm": warm,
            "peak": peak,
            "end": end,
            "samples": len(sampler.samples),
            "growth_mb": None if warm is None or end is None else round(end - warm, 1),
        }
    try:
        metrics = await asyncio.to_thread(cache_metrics, server.base)
    except OSError as exc:
        errors.append(f"/_stcore/metrics: {exc}")
        metrics = {}
    result["ceiling"] = derive_ceiling(warm or 0.0, metrics, cache_bounds())
    result["meta"]["wall_s"] = round(time.monotonic() - t_start, 1)
    result["meta"]["load_end"] = procs.load_average()
    result["errors"] = errors
    return result


def run(args) -> dict:
    with app_server(args.port) as running:
        result = asyncio.run(_flood(args, running))
    judge(result, args.ceiling_mb)
    result["schema_problems"] = validate(result, args.pages)
    return result


def page_list(text: str) -> list[str]:
    pages = [p.strip() for p in text.split(",") if p.strip()]
    unknown = [p for p in pages if p not in PAGES]
    if unknown or not pages:
        raise argparse.ArgumentTypeError(f"pages must be among {', '.join(PAGES)}; got {text!r}")
    return pages


def parse(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.flood", description=__doc__.split("\n")[0])
    p.add_argument("--inputs", type=int, default=DEFAULT_INPUTS, help="distinct inputs per page")
    p.add_argument("--students", type=int, default=4, help="students in parallel (default 4)")
    p.add_argument(
        "--session-inputs", type=int, default=50, help="inputs per session before a new one"
    )
    p.add_argument("--pages", type=page_list, default=list(PAGES), help="comma-separated slugs")
    p.add_argument(
        "--ceiling-mb", type=float, help="check the peak against this (default: derived)"
    )
    p.add_argument("--port", type=int, default=PORT, help=f"the app's port (default {PORT})")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.add_argument("--out", type=Path, help="also write the JSON here")
    args = p.parse_args(argv)
    if not 1 <= args.inputs <= 100_000:
        p.error("--inputs must be within 1..100000")
    if not 1 <= args.students <= 16 or args.session_inputs < 1:
        p.error("--students must be within 1..16 and --session-inputs at least 1")
    return args


def summary(result: dict) -> str:
    """The result as a short table (the default output without ``--json``)."""

    def num(x, sign: str = "") -> str:
        return "-" if x is None else f"{x:{sign}.1f}"

    head = (
        f"{'page':20} {'inputs':>6} {'err':>4} {'rej':>4} {'start':>7} {'peak':>7} {'2nd half':>8}"
    )
    lines = [head]
    for page, f in result["pages"].items():
        r = f["rss_mb"]
        lines.append(
            f"{page:20} {f['inputs']:>6} {f['errors']:>4} {f['rejected']:>4} "
            f"{num(r['start']):>7} {num(r['peak']):>7} {num(f['second_half_growth_mb'], '+'):>8}"
        )
    verdict = "under" if result["under_ceiling"] else "OVER"
    lines.append(
        f"warm {num(result['rss_mb']['warm'])} MB, peak {num(result['rss_mb']['peak'])} MB, "
        f"ceiling {num(result['ceiling_mb'])} MB: {verdict}"
    )
    return "\n".join(lines)


def main(argv=None) -> int:
    args = parse(argv)
    result = run(args)
    text = json.dumps(result, indent=2, ensure_ascii=False)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
        log(f"wrote {args.out}")
    print(text if args.json else summary(result))
    ok = result["under_ceiling"] and not result["schema_problems"] and not result["errors"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
