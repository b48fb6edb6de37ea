"""Bounded memory whatever the visitors send: distinct valid inputs, the server's RSS.

On one hosted app server, page after page, simulated students send distinct valid inputs
(query strings) through every part that takes visitor input (:data:`TARGETS`); the RSS peak
is judged against a ceiling derived in the same run (:func:`derive_ceiling`).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import re
import time
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench import procs
from bench.classroom import Student
from bench.procs import ROOT

PORT = 8760  # this bench's port (its tests use 8761..8769)
DEFAULT_INPUTS = 300  # per page: what fits in ~15 minutes on 2 cores
MARGIN_SHARE = 0.25  # of the warm RSS
CLICK_TIMEOUT = 120.0  # s before an input's run is counted as lost
QUARTERS = (25, 50, 75, 100)
SEED = 20261202


log = functools.partial(procs.log, who="flood")


@dataclass(frozen=True)
class Target:
    """A part that takes visitor input: ``make(i, sentence)`` is the i-th input's parameters."""

    page: str
    part: str
    make: Callable[[int, str], dict[str, str]]
    fixed: dict[str, str] = field(default_factory=dict)  # set on every input of the part

    @property
    def params(self) -> tuple[str, ...]:
        return (*self.fixed, *self.make(0, "x"))


def _grid(i: int, *axes: tuple) -> tuple:
    """The i-th point of the product of ``axes`` (mixed radix: distinct for i < product)."""
    out = []
    for axis in axes:
        out.append(axis[i % len(axis)])
        i //= len(axis)
    return tuple(out)


CMP_AXES = (tuple(range(1, 513)), tuple(range(2, 10)), (32, 64, 128, 256, 512, 1024))
PATH_AXES = (tuple(range(2, 2049)), tuple(range(2, 10)), (16, 32, 64, 128, 256, 512, 1024))
RHO = tuple(round(0.5 + 0.05 * j, 2) for j in range(21))  # the slider's steps
ALIGN_MODELS = ("gru_attention", "transformer")


def _cmp_priors(i: int, _s: str) -> dict[str, str]:
    return dict(zip(("ctx", "k", "d"), map(str, _grid(i, *CMP_AXES)), strict=True))


def _path_table(i: int, _s: str) -> dict[str, str]:
    return dict(zip(("n", "k", "d"), map(str, _grid(i, *PATH_AXES)), strict=True))


def _rnn_fresh(i: int, _s: str) -> dict[str, str]:
    # (seed, T) is distinct for i < 81,000; the radius walks its 21 steps
    return {"rho": str(RHO[i * 8 % 21]), "T": str(20 + (i // 1000) % 81), "seed": str(i % 1000)}


def _lm(i: int, s: str) -> dict[str, str]:
    temp = f"{0.1 + (i * 0.07) % 2.9:.2f}"
    return {
        "prefix": s,
        "mode": "sample",
        "temp": temp,
        "topk": str(i % 51),
        "seed": str(i % 10000),
    }


def _grammar(i: int, _s: str) -> dict[str, str]:
    return {"len": str(1 + i % 55), "seed": str(i)}


def _text(name: str) -> Callable[[int, str], dict[str, str]]:
    return lambda i, s: {name: s}


OWN = {"sent": "own"}
TARGETS: tuple[Target, ...] = (
    Target("compression", "markov", _text("prefix")),
    Target("compression", "priors", _cmp_priors),
    Target("autoregressive", "lm", _lm),
    Target("autoregressive", "translate", _text("src")),
    Target("autoregressive", "wrong", _text("wsrc")),
    Target("attention", "align", lambda i, s: {"s": s, "model": ALIGN_MODELS[i % 2]}),
    Target("attention", "self", _text("q")),
    Target("attention", "score", lambda i, s: {"q": s, "temp": f"{0.1 + (i * 0.013) % 4.9:.3f}"}),
    Target("attention", "buys", _text("s")),
    Target("bottleneck", "read", _text("text")),
    Target("bottleneck", "side", _text("text")),
    Target("bottleneck", "grad", _text("text")),
    Target("bottleneck", "stretch", lambda i, s: {"len": str(3 + i % 58), "seed": str(i)}),
    Target("cnn_receptive_field", "theory", _text("text"), OWN),
    Target("cnn_receptive_field", "measured", _text("text"), OWN),
    Target("path_length", "pair", lambda i, s: {"text": s, "k": str(2 + i % 8)}, OWN),
    Target("path_length", "table", _path_table),
    Target("rnn_gradients", "fresh", _rnn_fresh),
    Target("rnn_gradients", "words", _text("text")),
    Target("arena", "sentence", _text("text"), {"input": "typed"}),
    Target("arena", "sentence", _grammar, {"input": "grammar"}),
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
    """The page's ``n`` inputs, round-robin over its parts, distinct within a part."""
    parts = [t for t in TARGETS if t.page == page]
    counts = [0] * len(parts)
    out = []
    for j in range(n):
        k = j % len(parts)
        t, i = parts[k], counts[k]
        counts[k] += 1
        values = {"lang": lang, "part": t.part, **t.fixed, **t.make(i, pool[i % len(pool)])}
        out.append((t, urllib.parse.urlencode(values)))
    return out


def alerts(student, baseline: frozenset[str] = frozenset()) -> list[str]:
    """Error and warning texts on screen not in ``baseline`` (the part's default view's)."""
    from streamlit.proto.Alert_pb2 import Alert

    return [
        el.alert.body[:160]
        for el, _, _ in student.elements.values()
        if el.WhichOneof("type") == "alert"
        and el.alert.format in (Alert.ERROR, Alert.WARNING)
        and el.alert.body[:160] not in baseline
    ]


async def flood_page(base: str, page: str, items: list, sampler, args, baseline: dict) -> dict:
    """``items`` through ``args.students`` students in parallel: the page's figures."""
    students, n = args.students, len(items)
    marks = {q: max(1, -(-n * q // 100)) for q in QUARTERS}  # inputs done at each quarter
    at: dict[str, float | None] = {}
    done = 0
    per_part: dict[str, dict] = {}
    for t, _ in items:
        info = per_part.setdefault(
            t.part, {"params": [], "inputs": 0, "errors": 0, "rejected": 0, "input_s": []}
        )
        info["params"] = sorted(set(info["params"]) | set(t.params))
    samples: Counter = Counter()

    def tally(kind: str, text: str) -> None:
        samples[f"{kind}: {text[:200]}"] += 1

    async def one(mine: list[tuple[Target, str]], k: int) -> None:  # one session's inputs
        nonlocal done
        async with Student(base, timeout=CLICK_TIMEOUT, name=f"flood{k}") as s:
            a = await s.arrive(page, f"lang=en&part={mine[0][0].part}")
            if not a.ok:
                tally("arrive", a.error or "?")
            for t, query in mine:
                action = await s.click(query)
                info = per_part[t.part]
                info["inputs"] += 1
                if not action.ok:
                    info["errors"] += 1
                    tally("error", action.error or "?")
                else:
                    info["input_s"].append(action.seconds)
                    said = alerts(s, baseline.get((page, t.part), frozenset()))
                    if said:
                        info["rejected"] += 1
                        tally(f"rejected ({t.part})", said[0])
                done += 1
                for q, mark in marks.items():
                    if done == mark:
                        at[str(q)] = procs.rss_now_mb(sampler.pids["app"])

    async def student(k: int) -> None:  # its share of the inputs, a new session every so many
        mine, size = items[k::students], args.session_inputs
        for c in range(0, len(mine), size):
            await one(mine[c : c + size], k)

    t0 = time.monotonic()
    start_rss = procs.rss_now_mb(sampler.pids["app"])
    await asyncio.gather(*(student(k) for k in range(min(students, n))))
    wall = time.monotonic() - t0
    rss = {"start": start_rss, **{f"at_{q}": at.get(str(q)) for q in QUARTERS}}
    rss["peak"] = sampler.peak("app", t0)
    return _page_report(items, per_part, rss, wall, samples)


def _page_report(items, per_part: dict, rss: dict, wall: float, samples: dict) -> dict:
    growth = None
    if rss["at_50"] is not None and rss["at_100"] is not None:
        growth = round(rss["at_100"] - rss["at_50"], 1)
    for info in per_part.values():
        times = sorted(info.pop("input_s"))
        info["input_s_p50"] = round(times[len(times) // 2], 3) if times else None
    distinct = len({(t.part, query) for t, query in items})
    return {
        "inputs": sum(p["inputs"] for p in per_part.values()),
        "distinct": distinct,
        "duplicates": len(items) - distinct,
        "errors": sum(p["errors"] for p in per_part.values()),
        "rejected": sum(p["rejected"] for p in per_part.values()),
        "parts": per_part,
        "rss_mb": rss,
        "second_half_growth_mb": growth,
        "wall_s": round(wall, 1),
        "inputs_per_s": round(len(items) / wall, 2) if wall > 0 else None,
        "error_samples": dict(samples.most_common(6)),
    }


# st.cache_data / st.cache_resource, and ui.cache.data (st.cache_data keyed on the models)
_CACHE_RE = re.compile(
    r"@(?:st\.cache_(?:data|resource)|cache\.data)(?:\(([^)]*)\))?[^\n]*\n(?:@[^\n]*\n)*def (\w+)",
    re.MULTILINE,
)


def cache_bounds(root: Path = ROOT) -> dict[str, int | None]:
    """``{"<module>.<function>": max_entries or None}`` of every cache in the app's source."""
    out = {}
    for folder in ("ui", "pages", "lessons"):
        for path in sorted((root / folder).rglob("*.py")):
            module = ".".join(path.relative_to(root).with_suffix("").parts)
            for args, name in _CACHE_RE.findall(path.read_text(encoding="utf-8")):
                m = re.search(r"max_entries\s*=\s*(\d+)", args)
                out[f"{module}.{name}"] = int(m.group(1)) if m else None
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


def bound_of(metric_name: str, bounds: dict[str, int | None]) -> int | None:
    """The ``max_entries`` of the cache the metrics call ``metric_name`` (a page's caches are
    ``__main__.f``: their bounds summed); ``None``: unbounded in the source (a closed set)."""
    metric_name = metric_name.removesuffix(".cached")
    if metric_name in bounds:
        return bounds[metric_name]
    module, _, func = metric_name.rpartition(".")
    suffix = f".{func}" if module == "__main__" else f"{module}.{func}"
    found = [b for k, b in bounds.items() if k.endswith(suffix)]
    return None if not found or None in found else sum(found)


def charts_bound_mb() -> float:
    """The most the server's store of drawn charts holds (``ui.plot.DRAWN``: charts as sent,
    kept for every visitor; bounded in bytes, not an ``st.cache_data``)."""
    from ui import plot

    return plot.DRAWN.max_bytes / 2**20


def derive_ceiling(warm_mb: float, metrics: dict[str, dict], bounds: dict) -> dict:
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
    charts_mb = charts_bound_mb()
    return {
        "mb": round(warm_mb + caches_mb + charts_mb + margin, 1),
        "warm_mb": warm_mb,
        "caches_mb": round(caches_mb, 1),
        "charts_mb": round(charts_mb, 1),
        "margin_mb": round(margin, 1),
        "formula": (
            "warm RSS + sum over st.cache_data caches of max_entries x measured bytes per entry"
            " (closed-set caches: entries held) + the drawn charts' store's byte bound"
            f" (ui.plot.DRAWN) + {MARGIN_SHARE:.0%} of warm RSS"
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
    top = ("meta", "pages", "rss_mb", "ceiling", "ceiling_mb", "under_ceiling")
    out = [f"missing top-level key {k}" for k in top if k not in result]
    meta = ("date", "machine", "load_start", "load_end")
    out += [f"meta.{k} is missing" for k in meta if k not in result.get("meta", {})]
    figures = [("rss_mb.", result.get("rss_mb", {}), ("warm", "peak", "end"))]
    for page in pages:
        figs = result.get("pages", {}).get(page)
        if not isinstance(figs, dict):
            out.append(f"pages.{page} is missing")
            continue
        keys = ("inputs", "errors", "rejected", "distinct", "second_half_growth_mb")
        rss = ("start", "at_25", "at_50", "at_75", "at_100", "peak")
        figures += [
            (f"pages.{page}.", figs, keys),
            (f"pages.{page}.rss_mb.", figs.get("rss_mb", {}), rss),
        ]
    return out + [
        f"{where}{k} should be a number"
        for where, figs, keys in figures
        for k in keys
        if not isinstance(figs.get(k), int | float) or isinstance(figs.get(k), bool)
    ]


def _meta(args) -> dict:
    targets = {p: [] for p in args.pages}
    for t in (t for t in TARGETS if t.page in targets):
        targets[t.page].append({"part": t.part, "params": list(t.params), **t.fixed})
    return {
        **procs.run_meta(),
        "inputs_per_page": args.inputs,
        "students": args.students,
        "session_inputs": args.session_inputs,
        "env": "bench.procs.HOSTED_ENV (public pacing: 1 run/s per session after 6)",
        "sentences": f"core.corpus.generate, seed {SEED}, 3..20 words, distinct",
        "targets": targets,
    }


async def _warm_up(server: procs.Server, pages: list[str], meta: dict, errors: list[str]):
    """Home once, the warm-up waited for, then each part's default view: the alerts it shows."""
    async with Student(server.base, timeout=300, name="first") as s:
        a = await s.arrive("", "lang=en")
    if not a.ok:
        errors.append(f"home: {a.error}")
    warm_s = await asyncio.to_thread(procs.wait_warm, server, 300.0)
    if warm_s is None:
        errors.append("no warm-up line in the server log after 300 s")
    meta["warm_up_s"] = warm_s
    log(f"warm-up done ({warm_s} s); a default visit of every part")
    baseline = {}
    for page in pages:
        for part in dict.fromkeys(t.part for t in TARGETS if t.page == page):
            async with Student(server.base, timeout=300, name="warm") as s:
                a = await s.arrive(page, f"lang=en&part={part}")
                baseline[(page, part)] = frozenset(alerts(s))
            if not a.ok:
                errors.append(f"warm pass {page}/{part}: {a.error}")
    meta["default_view_alerts"] = {f"{p}/{q}": sorted(b) for (p, q), b in baseline.items() if b}
    return baseline


async def _flood(args, server: procs.Server) -> dict:
    errors: list[str] = []
    pool = sentences(args.inputs)
    result: dict = {"meta": _meta(args), "pages": {}}
    t_start = time.monotonic()
    baseline = await _warm_up(server, args.pages, result["meta"], errors)
    await asyncio.sleep(2.0)
    with procs.RssSampler({"app": server.pid}) as sampler:
        warm = procs.rss_now_mb(server.pid)
        log(f"warm RSS {warm} MB; {args.inputs} inputs per page, {args.students} students")
        for page in args.pages:
            items = plan(page, args.inputs, pool)
            figs = await flood_page(server.base, page, items, sampler, args, baseline)
            result["pages"][page] = figs
            counts = ", ".join(f"{figs[k]} {k}" for k in ("inputs", "errors", "rejected"))
            growth = f"second half +{figs['second_half_growth_mb']} MB, {figs['wall_s']} s"
            log(f"{page}: {counts}, RSS {figs['rss_mb']}, {growth}")
            if figs["errors"] or figs["rejected"] or figs["duplicates"]:
                errors.append(f"{page}: {figs['error_samples']}")
        await asyncio.sleep(2.0)
        end = procs.rss_now_mb(server.pid)
        result["rss_mb"] = {
            "warm": warm,
            "peak": sampler.peak("app"),
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
    with procs.hosted_app(args.port, prefix="road-flood-") as server:
        result = asyncio.run(_flood(args, server))
    judge(result, args.ceiling_mb)
    result["schema_problems"] = validate(result, args.pages)
    return result


def page_list(text: str) -> list[str]:
    pages = [p.strip() for p in text.split(",") if p.strip()]
    unknown = [p for p in pages if p not in PAGES]
    if unknown or not pages:
        raise argparse.ArgumentTypeError(f"pages must be among {', '.join(PAGES)}; got {text!r}")
    return pages


def summary(result: dict) -> str:
    """The result as a short table (the default output without ``--json``)."""

    def num(x, sign: str = "") -> str:
        return "-" if x is None else f"{x:{sign}.1f}"

    lines = [
        f"{'page':20} {'inputs':>6} {'err':>4} {'rej':>4} {'start':>7} {'peak':>7} {'2nd half':>8}"
    ]
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
