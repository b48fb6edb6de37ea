"""A class through the repo's nginx (``bench.procs.cluster``): one replica against two,
and one abusive client. Clients bind their own loopback address, as nginx limits per
address: the class ``CLASS_ADDR`` (one school NAT), the abuser ``ABUSER_ADDR`` (a process of
its own, ``python -m bench abuser``, so its CPU never slows the students' event loop).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import resource
import signal
import sys
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from bench import procs
from bench.classroom import ClassPlan, Student, run_class, summary_s
from bench.procs import LOGS, ROOT, Cluster, cluster
from bench.stats import ratio

NGINX_PORT = 8670  # the bench's ports: 8670 (nginx) and 8671.. (replicas); tests use 8690..
CLASS_ADDR = "127.0.0.2"  # the whole class: one school NAT address
ABUSER_ADDR = "127.0.0.3"  # one abusive client
COOKIE = "road_route"
STREAM_PATH = "/_stcore/stream"


def _served_by(entry: dict) -> str:
    """The replica that answered (the last of ``$upstream_addr`` when nginx retried)."""
    return (entry.get("upstream") or "").split(",")[-1].strip()


def _is_session(entry: dict) -> bool:
    parts = (entry.get("request") or "").split()
    return len(parts) >= 2 and parts[1].split("?")[0] == STREAM_PATH


def sessions_by_replica(
    entries: Iterable[dict], addr: str, upstreams: Iterable[str], skip_routes: Iterable[str] = ()
) -> dict:
    """Websocket sessions from ``addr`` per replica, and routes served by two (stickiness)."""
    skip = set(skip_routes)
    sessions = {u: 0 for u in upstreams}
    served: dict[str, set[str]] = {}
    for e in entries:
        if e.get("addr") != addr or e.get("route") in skip:
            continue
        up = _served_by(e)
        if up:
            served.setdefault(e.get("route", ""), set()).add(up)
        if _is_session(e) and e.get("status") == 101:
            sessions[up] = sessions.get(up, 0) + 1
    return {
        "sessions": sessions,
        "routes": len(served),
        "routes_on_two_replicas": sum(len(v) > 1 for v in served.values()),
    }


def statuses(entries: Iterable[dict], addr: str, sessions_only: bool = False) -> dict[str, int]:
    """Response statuses nginx logged for ``addr`` (``{"101": n, "200": n, "429": n}``)."""
    mine = [e for e in entries if e.get("addr") == addr and (not sessions_only or _is_session(e))]
    return dict(sorted(Counter(str(e.get("status")) for e in mine).items()))


def addresses(entries: Iterable[dict]) -> dict[str, int]:
    """Requests per client address, as nginx saw them."""
    return dict(sorted(Counter(str(e.get("addr")) for e in entries).items()))


def machine_busy_s() -> float | None:
    """CPU seconds the whole machine has spent busy since boot (every process, /proc/stat)."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except (OSError, IndexError):
        return None
    vals = [int(x) for x in fields]
    idle = vals[3] + (vals[4] if len(vals) > 4 else 0)  # idle + iowait
    guest = sum(vals[8:10]) if len(vals) > 9 else 0  # already counted in user / nice
    return (sum(vals) - idle - guest) / os.sysconf("SC_CLK_TCK")


def own_cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _snapshot(cl: Cluster) -> dict:
    """CPU seconds so far of each replica, nginx, this process and the machine."""
    nginx = cl.proc.pid
    return {
        "replicas": {s.upstream: procs.cpu_seconds(s.pid) for s in cl.replicas},
        "nginx": sum(procs.cpu_seconds(p) or 0.0 for p in (nginx, *procs.descendants(nginx))),
        "own": own_cpu_s(),
        "machine": machine_busy_s(),
        "at": time.monotonic(),
        "load": procs.load_average(),
    }


def _minus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(a - b, 2)


def _with(query: str, extra: str) -> str:
    return f"{query}&{extra}" if query else extra


async def warm_replicas(
    cl: Cluster, page: tuple[str, str], timeout: float = 300.0, wait: bool = True
) -> tuple[dict, list[str]]:
    """The teacher's page once on every replica, on its own port, then (``wait``) its warm-up
    waited for (30-120 s here: the harness's tests do not): a class measures what repeats."""
    errors: list[str] = []

    async def one(server: procs.Server) -> tuple[str, dict]:
        async with Student(server.base, timeout=timeout, name="warm") as s:
            a = await s.arrive(page[0], _with(page[1], "present=1"))
        if not a.ok:
            errors.append(f"warm-up of {server.base}: {a.error}")
        warm = await asyncio.to_thread(procs.wait_warm, server, timeout) if wait else None
        if wait and warm is None:
            errors.append(f"warm-up of {server.base}: no warm-up line after {timeout:g} s")
        return server.upstream, {"first_render_s": a.seconds, "warm_up_s": warm}

    pairs = await asyncio.gather(*(one(s) for s in cl.replicas))
    return dict(pairs), errors


@dataclass
class Abuse:
    """How hard the abusive client tries (attempts and seconds are upper bounds)."""

    attempts: int = 400
    open_seconds: float = 60.0
    seconds: float = 300.0
    rerun_sessions: int = 1000
    openers: int = 4  # concurrent connection attempts
    timeout: float = 30.0  # one connection or one rerun
    source: str = ABUSER_ADDR

    def argv(self, base: str, page: tuple[str, str]) -> list[str]:
        """``python -m bench abuser SPEC``: these settings, the base URL and the page as JSON."""
        spec = {"base": base, "page": page, **dataclasses.asdict(self)}
        return [sys.executable, "-m", "bench", "abuser", json.dumps(spec)]


async def abuse(base: str, page: tuple[str, str], cfg: Abuse) -> dict:
    """Open sessions and rerun on them as fast as answered, until SIGTERM or ``cfg.seconds``."""
    from websockets.exceptions import InvalidStatus

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
    t0 = time.monotonic()
    end = t0 + cfg.seconds
    open_end = t0 + min(cfg.open_seconds, cfg.seconds)
    refused: Counter = Counter()
    counts = Counter()
    rerun_s: list[float] = []
    sessions: list[Student] = []
    hammers: list[asyncio.Task] = []
    next_attempt = iter(range(cfg.attempts))
    cpu0 = own_cpu_s()

    async def hammer(s: Student) -> None:
        a = await s._rerun("arrive", page[1], page_name=page[0])  # the page's first run
        counts["reruns_ok" if a.ok else "reruns_failed"] += 1
        while s.connected and not stop.is_set() and time.monotonic() < end:
            a = await s._rerun("click", page[1], s.page_script_hash)
            counts["reruns_ok" if a.ok else "reruns_failed"] += 1
            if a.seconds is not None:
                rerun_s.append(a.seconds)
            if not a.ok and not s.connected:
                counts["sessions_dropped"] += 1

    async def opener() -> None:
        # a stop ends the reruns, not this phase: it is bounded by attempts and open_seconds
        for i in next_attempt:  # shared: at most cfg.attempts in all
            if time.monotonic() >= open_end:
                return
            counts["attempts"] += 1
            s = Student(base, timeout=cfg.timeout, name=f"abuser{i}", source_address=cfg.source)
            try:
                await asyncio.wait_for(s._connect(), cfg.timeout)
            except Exception as exc:  # noqa: BLE001 - refused, timed out, reset: no session
                s.close_http()
                if isinstance(exc, InvalidStatus):
                    refused[str(exc.response.status_code)] += 1
                else:
                    counts["timed_out" if isinstance(exc, TimeoutError) else "closed"] += 1
                continue
            counts["opened"] += 1
            sessions.append(s)
            if len(hammers) < cfg.rerun_sessions:
                hammers.append(asyncio.create_task(hammer(s)))

    print("ready", flush=True)  # what the bench waits for before the class arrives
    openers = [asyncio.create_task(opener()) for _ in range(max(1, cfg.openers))]
    await asyncio.gather(*openers)
    counts["open_phase_s"] = round(time.monotonic() - t0, 2)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), max(0.0, end - time.monotonic()))
    stop.set()
    counts["connected_at_stop"] = sum(s.connected for s in sessions)
    counts["rerun_sessions"] = len(hammers)
    await _close_all(hammers, sessions)
    return _abuse_report(cfg, counts, refused, summary_s(rerun_s), t0, cpu0)


async def _close_all(tasks: list[asyncio.Task], sessions: list) -> None:
    for h in tasks:
        h.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(
            asyncio.gather(*(s.close() for s in sessions), return_exceptions=True), 30
        )
    for s in sessions:
        s.close_http()


def _abuse_report(cfg: Abuse, counts: Counter, refused: Counter, rerun_s, t0, cpu0) -> dict:
    def of(*keys: str) -> dict:
        return {k: counts[k] for k in keys}

    limits = ("attempts", "open_seconds", "seconds", "openers")
    return {
        "source": cfg.source,
        **of("attempts", "opened"),
        "refused": dict(sorted(refused.items())),
        **of("closed", "timed_out", "open_phase_s", "rerun_sessions", "connected_at_stop"),
        **of("sessions_dropped", "reruns_ok", "reruns_failed"),
        "rerun_s": rerun_s,
        "wall_s": round(time.monotonic() - t0, 1),
        "cpu_s": round(own_cpu_s() - cpu0, 2),
        "limits": {k: getattr(cfg, k) for k in limits},
    }


async def _start_abuser(argv: list[str], log: Path, timeout: float = 60.0):
    """``python -m bench abuser`` in a process of its own, once it says "ready"."""
    log.parent.mkdir(parents=True, exist_ok=True)
    proc = await asyncio.create_subprocess_exec(
        *argv, cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=log.open("w")
    )
    line = await asyncio.wait_for(proc.stdout.readline(), timeout)
    if line.strip() != b"ready":
        raise RuntimeError(f"the abuser did not start: {line!r}, {log.read_text()}")
    return proc


async def _stop_abuser(proc, log: Path, timeout: float) -> dict:
    """SIGTERM, then its JSON (it closes its sessions first); killed after ``timeout``."""
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)
    try:
        out = await asyncio.wait_for(proc.stdout.read(), timeout)
        await asyncio.wait_for(proc.wait(), 10)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()
        return {"error": f"the abuser did not stop within {timeout:g} s (killed)"}
    for line in reversed(out.decode(errors="replace").splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    return {"error": f"no result from the abuser: {log.read_text()[-2000:]}"}


async def measure_class(
    cl: Cluster, n: int, plan: ClassPlan, abuser: Abuse | None = None, log: Path | None = None
) -> tuple[dict, list[str]]:
    """The teacher (kept open), ``n`` students from ``CLASS_ADDR`` and the ``abuser`` through
    nginx: ``run_class``'s figures (over the replicas: :func:`_cluster_figures`), the errors."""
    errors: list[str] = []
    page = plan.page
    mark = cl.log_mark()
    teacher = Student(cl.base, timeout=300, name="teacher", source_address=CLASS_ADDR)
    t = await teacher.arrive(page[0], _with(page[1], "present=1"))
    if not t.ok:
        errors.append(f"class {n}: the teacher's page: {t.error}")
    before = _snapshot(cl)
    proc, abused = None, None
    with procs.RssSampler({s.upstream: s.pid for s in cl.replicas}) as sampler:
        try:
            if abuser is not None:
                log = log or LOGS / "abuser.log"
                proc = await _start_abuser(abuser.argv(cl.base, page), log)
                await asyncio.sleep(1.0)  # it has begun opening sessions when the class arrives
            figs = await run_class(cl.base, n, plan, source=CLASS_ADDR)
        finally:
            if proc is not None:
                abused = await _stop_abuser(proc, log, abuser.open_seconds + 90)
    peaks = sampler.peaks()
    after = _snapshot(cl)
    await teacher.__aexit__()
    await asyncio.sleep(1.0)  # nginx logs a websocket as it closes
    entries = cl.access_log(mark)
    figs["teacher_s"] = t.seconds
    route, abuser_cpu = teacher.cookies.get(COOKIE), (abused or {}).get("cpu_s")
    _cluster_figures(figs, cl, entries, (before, after), peaks, route, abuser_cpu)
    if abuser is not None:
        abused = dict(abused or {})
        abused["nginx_statuses"] = statuses(entries, abuser.source, sessions_only=True)
        ups = [s.upstream for s in cl.replicas]
        abused["nginx_sessions"] = sessions_by_replica(entries, abuser.source, ups)["sessions"]
        figs["abuser"] = abused
        if "error" in abused:
            errors.append(f"class {n}: abuser: {abused['error']}")
    if figs["errors"]:
        errors.append(f"class {n}: {figs['errors']} errors: {figs['error_samples']}")
    return figs, errors


def _cluster_figures(figs, cl, entries, snapshots, peaks, teacher_route, abuser_cpu) -> None:
    """Per replica CPU, peak RSS and sessions (nginx's log), stickiness, nginx's figures, the
    clients' CPU and the machine's: what else ran on the cores."""
    before, after = snapshots
    upstreams = [s.upstream for s in cl.replicas]
    by = sessions_by_replica(entries, CLASS_ADDR, upstreams, skip_routes=[teacher_route])
    wall = after["at"] - before["at"]
    rep_cpu = {u: _minus(after["replicas"][u], before["replicas"][u]) for u in upstreams}
    known = [v for v in rep_cpu.values() if v is not None]
    figs["cpu_s"] = round(sum(known), 2) if known else None
    figs["rss_mb"] = max(peaks.values()) if peaks else None
    figs["cpu_cores_busy"] = round(sum(known) / wall, 2) if known and wall > 0 else None
    sessions = by["sessions"]
    figs["replicas"] = {
        u: {"cpu_s": rep_cpu[u], "rss_peak_mb": peaks.get(u), "sessions": sessions.get(u, 0)}
        for u in upstreams
    }
    figs["stickiness"] = {k: by[k] for k in ("routes", "routes_on_two_replicas")}
    teacher_up = {_served_by(e) for e in entries if e.get("route") == teacher_route}
    figs["teacher_replica"] = sorted(teacher_up)
    figs["nginx"] = {
        "cpu_s": _minus(after["nginx"], before["nginx"]),
        "rss_mb": procs.rss_mb(cl.proc.pid),
        "class_statuses": statuses(entries, CLASS_ADDR),
        "addresses": addresses(entries),
    }
    clients = _minus(after["own"], before["own"])
    busy = _minus(after["machine"], before["machine"])
    ours = [figs["cpu_s"], figs["nginx"]["cpu_s"], clients, abuser_cpu]
    figs["clients"] = {"address": CLASS_ADDR, "cpu_s": clients}
    figs["machine"] = {
        "cores": os.cpu_count(),
        "load_start": before["load"],
        "load_end": after["load"],
        "busy_cpu_s": busy,
        "busy_cores": None if busy is None or wall <= 0 else round(busy / wall, 2),
        "others_cpu_s": None if busy is None else round(busy - sum(filter(None, ours)), 2),
        "window_s": round(wall, 1),
    }


def ratio_of(a: dict | None, b: dict | None) -> dict:
    """``a / b`` of every arrival and click quantile and of ``cpu_s`` (``None``: not measured)."""
    a, b = a or {}, b or {}
    out = {
        f"{k}_{q}": ratio((a.get(f"{k}_s") or {}).get(q), (b.get(f"{k}_s") or {}).get(q))
        for k in ("arrive", "click")
        for q in ("p50", "p95", "max")
    }
    return out | {"cpu_s": ratio(a.get("cpu_s"), b.get("cpu_s"))}


def _attempt(plan, replicas: int, n: int, label: str, what: str, abuser=None):
    """A fresh cluster, warmed, then one class: its figures (None: no cluster), its errors."""
    procs.log(f"class of {n} through nginx, {what}")

    async def go(cl: Cluster):
        warm, errors = await warm_replicas(cl, plan.page)
        log = (plan.keep_logs or LOGS) / f"{label}_abuser.log"
        figs, class_errors = await measure_class(cl, n, plan, abuser, log)
        for u, w in warm.items():
            figs["replicas"].setdefault(u, {}).update(w)
        return figs, errors + class_errors

    try:
        with cluster(replicas, plan.port, keep_logs=plan.keep_logs, label=label) as cl:
            figs, errs = asyncio.run(go(cl))
    except (RuntimeError, OSError) as exc:
        figs, errs = None, [f"class {n}: {exc}"]
    if figs:
        sessions = {u: v["sessions"] for u, v in figs["replicas"].items()}
        procs.log(
            f"{what}, class {n}: arrive {figs['arrive_s']}, click {figs['click_s']}, "
            f"cpu {figs['cpu_s']}, sessions {sessions}"
        )
    return figs, [f"{what}: {e}" for e in errs]


def run_replicas(plan, replicas: list[int]) -> dict:
    """The same class through nginx with each number of replicas, each on a fresh cluster."""
    out: dict = {"replicas": {str(r): {"class": {}} for r in replicas}, "replica_ratio": {}}
    errors: list[str] = []
    for n in plan.sizes:
        for r in replicas:
            figs, errs = _attempt(plan, r, n, f"replicas{r}_class{n}", f"{r} replica(s)")
            errors += errs
            out["replicas"][str(r)]["class"][str(n)] = figs
        if len(replicas) >= 2:
            a, b = (out["replicas"][str(r)]["class"][str(n)] for r in replicas[:2])
            out["replica_ratio"][str(n)] = ratio_of(a, b)
    out["replica_ratio_of"] = f"{replicas[0]}/{replicas[1]}" if len(replicas) >= 2 else None
    out["errors"] = errors
    return out


def run_abuse(plan, replicas: int, cfg: Abuse) -> dict:
    """The class without, then with the abusive client, each on a fresh cluster."""
    out: dict = {"abuse": {}}
    errors: list[str] = []
    for n in plan.sizes:
        entry: dict = {}
        for label, who in (("without", None), ("with", cfg)):
            what = f"{replicas} replica(s), {label} the abuser"
            entry[label], errs = _attempt(plan, replicas, n, f"abuse_{label}_class{n}", what, who)
            errors += errs
        if entry.get("with"):
            entry["abuser"] = entry["with"].pop("abuser", None)
        entry["with_over_without"] = ratio_of(entry.get("with"), entry.get("without"))
        p95 = [entry["with_over_without"][k] for k in ("arrive_p95", "click_p95")]
        entry["students_p95_within_2x"] = None if None in p95 else max(p95) <= 2.0  # the goal
        out["abuse"][str(n)] = entry
    out["errors"] = errors
    return out


def abuser_main(args) -> int:
    """``python -m bench abuser SPEC``: "ready" once it begins, its result as one JSON line."""
    spec = json.loads(args.spec)
    base, page = spec.pop("base"), tuple(spec.pop("page"))
    result = asyncio.run(abuse(base, page, Abuse(**spec)))
    print(json.dumps(result), flush=True)
    return 0
