"""A class through the repo's nginx: one replica against two, and one abusive client.

The cluster is ``bench.procs.cluster`` (app replicas with the hosted settings behind nginx
from ``deploy/nginx/``). Clients bind their own loopback address, as nginx limits per
address: the class ``CLASS_ADDR`` (one school NAT), the abuser ``ABUSER_ADDR`` (a process of
its own, ``python -m bench abuser``, so its CPU never slows the students' event loop).
:func:`measure_class` reports ``bench.classroom.run_class``'s figures plus per replica CPU,
RSS and sessions (nginx's access log), nginx's CPU, the clients' CPU and the machine's load.
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
from bench.procs import LOGS, ROOT, Cluster, cluster

NGINX_PORT = 8670  # the bench's ports: 8670 (nginx) and 8671.. (replicas); tests use 8690..
CLASS_ADDR = "127.0.0.2"  # the whole class: one school NAT address
ABUSER_ADDR = "127.0.0.3"  # one abusive client
COOKIE = "road_route"
STREAM_PATH = "/_stcore/stream"


# ---- what the access log says ----------------------------------------------------------


def _served_by(entry: dict) -> str:
    """The replica that answered (the last of ``$upstream_addr`` when nginx retried)."""
    return (entry.get("upstream") or "").split(",")[-1].strip()


def _is_session(entry: dict) -> bool:
    parts = (entry.get("request") or "").split()
    return len(parts) >= 2 and parts[1].split("?")[0] == STREAM_PATH


def sessions_by_replica(
    entries: Iterable[dict], addr: str, upstreams: Iterable[str], skip_routes: Iterable[str] = ()
) -> dict:
    """Websocket sessions (``/_stcore/stream`` answered 101) from ``addr`` per replica, and
    how many routes were served by more than one replica (stickiness), from nginx's log."""
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
    c = Counter(
        str(e.get("status"))
        for e in entries
        if e.get("addr") == addr and (not sessions_only or _is_session(e))
    )
    return dict(sorted(c.items()))


def addresses(entries: Iterable[dict]) -> dict[str, int]:
    """Requests per client address, as nginx saw them."""
    return dict(sorted(Counter(str(e.get("addr")) for e in entries).items()))


# ---- resources -------------------------------------------------------------------------


def _cpu_tree(pids: Iterable[int]) -> float | None:
    vals = [procs.cpu_seconds(p) for p in pids]
    vals = [v for v in vals if v is not None]
    return sum(vals) if vals else None


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


@dataclass
class Snapshot:
    replicas: dict[str, float | None]
    nginx: float | None
    own: float
    machine: float | None
    at: float
    load: list[float] | None

    @classmethod
    def take(cls, cl: Cluster) -> Snapshot:
        return cls(
            {s.upstream: _cpu_tree([s.pid]) for s in cl.replicas},
            _cpu_tree(cl.nginx_pids()),
            own_cpu_s(),
            machine_busy_s(),
            time.monotonic(),
            procs.load_average(),
        )


def _minus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(a - b, 2)


# ---- warm-up ---------------------------------------------------------------------------


def _with(query: str, extra: str) -> str:
    return f"{query}&{extra}" if query else extra


async def warm_replicas(
    cl: Cluster, page: tuple[str, str], timeout: float = 300.0, done: str | None = "app"
) -> tuple[dict, list[str]]:
    """The teacher's page once on every replica, directly on its own port, then wait until
    its log says the warm-up is done (``done``; "app": ``serve.warmup.DONE``): a class
    measures what every student repeats, not a replica's one-time work. ``done=None``: no
    wait (the harness's tests: the app's warm-up takes 30-120 s here)."""
    from bench.classroom import Student
    from serve.warmup import DONE

    if done == "app":
        done = DONE
    errors: list[str] = []

    async def one(server: procs.Server) -> tuple[str, dict]:
        async with Student(server.base, timeout=timeout, name="warm") as s:
            a = await s.arrive(page[0], _with(page[1], "present=1"))
        if not a.ok:
            errors.append(f"warm-up of {server.base}: {a.error}")
        warm = None
        if done is not None:
            warm = await asyncio.to_thread(procs.wait_log, server, done, timeout)
            if warm is None:
                errors.append(f"warm-up of {server.base}: no '{done}' line after {timeout:g} s")
        return server.upstream, {"first_render_s": a.seconds, "warm_up_s": warm}

    pairs = await asyncio.gather(*(one(s) for s in cl.replicas))
    return dict(pairs), errors


# ---- the abuser (a process of its own) -----------------------------------------------------


@dataclass
class Abuse:
    """How hard the abusive client tries: ``attempts`` new sessions at most, opened within
    ``open_seconds``; reruns on at most ``rerun_sessions`` of them until it is stopped or
    ``seconds`` have passed."""

    attempts: int = 400
    open_seconds: float = 60.0
    seconds: float = 300.0
    rerun_sessions: int = 1000
    openers: int = 4  # concurrent connection attempts
    timeout: float = 30.0  # one connection or one rerun
    source: str = ABUSER_ADDR

    @classmethod
    def from_args(cls, args) -> Abuse:
        """The settings ``python -m bench abuser`` was given (its parsed arguments)."""
        return cls(*(getattr(args, f.name) for f in dataclasses.fields(cls)))

    def argv(self, base: str, page: tuple[str, str]) -> list[str]:
        """``python -m bench abuser`` with these settings."""
        out = [sys.executable, "-m", "bench", "abuser", base, "--page", page[0]]
        out += ["--query", page[1]]
        for name, value in dataclasses.asdict(self).items():
            out += ["--" + name.replace("_", "-"), str(value)]
        return out


async def abuse(base: str, page: tuple[str, str], cfg: Abuse, ready=None) -> dict:
    """Open sessions as fast as possible (``cfg.attempts`` within ``cfg.open_seconds`` at
    most, whatever happens) and rerun on them as fast as the server answers, until SIGTERM /
    SIGINT or ``cfg.seconds``. Returns what it got."""
    from websockets.exceptions import InvalidStatus

    from bench.classroom import Student, summary_s

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
        a = await s._rerun(  # the page's first run, as a browser's arrival sends it
            "arrive", time.monotonic(), query=page[1], page_name=page[0], page_script_hash=""
        )
        counts["reruns_ok" if a.ok else "reruns_failed"] += 1
        while s.connected and not stop.is_set() and time.monotonic() < end:
            a = await s._rerun(
                "click", time.monotonic(), query=page[1], page_script_hash=s.page_script_hash
            )
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

    if ready is not None:
        ready()
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


class AbuserProcess:
    """``python -m bench abuser`` in a process of its own, started and stopped from
    an event loop (bounded waits; killed if it does not stop)."""

    def __init__(self, base: str, page: tuple[str, str], cfg: Abuse, log: Path) -> None:
        self.argv = cfg.argv(base, page)
        self.cfg = cfg
        self.log = log
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self, timeout: float = 60.0) -> None:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        self.proc = await asyncio.create_subprocess_exec(
            *self.argv,
            cwd=ROOT,
            stdout=asyncio.subprocess.PIPE,
            stderr=self.log.open("w"),
        )
        line = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        if line.strip() != b"ready":
            raise RuntimeError(f"the abuser did not start: {line!r}, {self.log.read_text()}")

    async def stop(self, timeout: float = 90.0) -> dict:
        """SIGTERM, then its JSON (it closes its sessions first); killed after ``timeout``."""
        proc = self.proc
        if proc is None:
            return {"error": "not started"}
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
        return {"error": f"no result from the abuser: {self.log.read_text()[-2000:]}"}


# ---- one class through the cluster ---------------------------------------------------------


async def measure_class(
    cl: Cluster,
    n: int,
    *,
    page: tuple[str, str],
    abuser: Abuse | None = None,
    abuser_log: Path | None = None,
    **class_args,
) -> tuple[dict, list[str]]:
    """The teacher (kept open) and ``n`` students from ``CLASS_ADDR`` through nginx, with
    the abuser from its own address when ``abuser`` is given. ``class_args`` go to
    ``run_class`` (scenario, arrive_within, duration, click_every, seed, timeout). Returns
    the class's figures (``run_class``'s, with ``cpu_s`` / ``rss_mb`` over the replicas and
    the details of :func:`_cluster_figures`) and the errors."""
    from bench.classroom import Student, run_class

    errors: list[str] = []
    mark = cl.log_mark()
    teacher = Student(cl.base, timeout=300, name="teacher", source_address=CLASS_ADDR)
    t = await teacher.arrive(page[0], _with(page[1], "present=1"))
    if not t.ok:
        errors.append(f"class {n}: the teacher's page: {t.error}")
    before = Snapshot.take(cl)
    proc, abused = None, None
    with procs.RssSampler({s.upstream: s.pid for s in cl.replicas}) as sampler:
        try:
            if abuser is not None:
                proc = AbuserProcess(cl.base, page, abuser, abuser_log or LOGS / "abuser.log")
                await proc.start()
                await asyncio.sleep(1.0)  # it has begun opening sessions when the class arrives
            figs = await run_class(
                cl.base, n, server_pid=None, page=page, source_address=CLASS_ADDR, **class_args
            )
        finally:
            if proc is not None:
                abused = await proc.stop(timeout=abuser.open_seconds + 90)
    peaks = sampler.peaks()
    after = Snapshot.take(cl)
    await teacher.__aexit__()
    await asyncio.sleep(1.0)  # nginx logs a websocket as it closes
    entries = cl.access_log(mark)
    figs["teacher_s"] = t.seconds
    _cluster_figures(figs, cl, entries, before, after, peaks, teacher.cookies.get(COOKIE))
    _machine_figures(figs, before, after, (abused or {}).get("cpu_s"))
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


def _cluster_figures(figs, cl, entries, before, after, peaks, teacher_route) -> None:
    """Per replica CPU, peak RSS and sessions (nginx's log), stickiness, nginx's figures."""
    upstreams = [s.upstream for s in cl.replicas]
    by = sessions_by_replica(entries, CLASS_ADDR, upstreams, skip_routes=[teacher_route])
    wall = after.at - before.at
    rep_cpu = {u: _minus(after.replicas[u], before.replicas[u]) for u in upstreams}
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
        "cpu_s": _minus(after.nginx, before.nginx),
        "rss_mb": procs.rss_mb(cl.proxy.proc.pid),
        "class_statuses": statuses(entries, CLASS_ADDR),
        "addresses": addresses(entries),
    }


def _machine_figures(figs, before, after, abuser_cpu: float | None) -> None:
    """The clients' own CPU and the machine's: what else ran on the cores."""
    wall = after.at - before.at
    clients = _minus(after.own, before.own)
    busy = _minus(after.machine, before.machine)
    ours = [
        x for x in (figs["cpu_s"], figs["nginx"]["cpu_s"], clients, abuser_cpu) if x is not None
    ]
    figs["clients"] = {"address": CLASS_ADDR, "cpu_s": clients}
    figs["machine"] = {
        "cores": os.cpu_count(),
        "load_start": before.load,
        "load_end": after.load,
        "busy_cpu_s": busy,
        "busy_cores": None if busy is None or wall <= 0 else round(busy / wall, 2),
        "others_cpu_s": None if busy is None else round(busy - sum(ours), 2),
        "window_s": round(wall, 1),
    }


# ---- the bench runs ----------------------------------------------------------------------

RATIO_KEYS = (("arrive_s", "arrive"), ("click_s", "click"))


def ratio_of(a: dict | None, b: dict | None) -> dict:
    """``a / b`` for every p50 / p95 / max of arrivals and clicks and for ``cpu_s``
    (``None`` where either side is missing or zero)."""
    from bench.stats import ratio

    a, b = a or {}, b or {}
    out = {}
    for key, short in RATIO_KEYS:
        for q in ("p50", "p95", "max"):
            out[f"{short}_{q}"] = ratio((a.get(key) or {}).get(q), (b.get(key) or {}).get(q))
    out["cpu_s"] = ratio(a.get("cpu_s"), b.get("cpu_s"))
    return out


def _one(plan, replicas: int, n: int, label: str, abuser: Abuse | None):
    """A fresh cluster, warmed, then one class (with the abuser when given)."""

    async def go(cl: Cluster):
        warm, errors = await warm_replicas(cl, plan.page, plan.warm_timeout)
        log = (plan.keep_logs or LOGS) / f"{label}_abuser.log"
        figs, class_errors = await measure_class(
            cl, n, abuser=abuser, abuser_log=log, **plan.class_args()
        )
        for u, w in warm.items():
            figs["replicas"].setdefault(u, {}).update(w)
        return figs, errors + class_errors

    with cluster(replicas, plan.port, keep_logs=plan.keep_logs, label=label) as cl:
        return asyncio.run(go(cl))


def _attempt(plan, replicas: int, n: int, label: str, what: str, abuser=None):
    """:func:`_one`, its errors prefixed with ``what``; a cluster that failed: no figures."""
    procs.log(f"class of {n} through nginx, {what}")
    try:
        figs, errs = _one(plan, replicas, n, label, abuser)
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
    """The same class (same N, seed, scenario) through nginx with each number of replicas,
    each on a fresh cluster; ``replica_ratio`` = first R / second R per class size."""
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
    """The class without and then with the abusive client, each on a fresh cluster of
    ``replicas``: the students' figures side by side, what the abuser got."""
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
        entry["students_p95_within_2x"] = (
            None if None in p95 else all(x <= 2.0 for x in p95)  # the goal: within 2x
        )
        out["abuse"][str(n)] = entry
    out["errors"] = errors
    return out


def abuser_main(args) -> int:
    """``python -m bench abuser``: "ready" once it begins, its result as one JSON line."""
    cfg = Abuse.from_args(args)

    def ready() -> None:
        print("ready", flush=True)

    result = asyncio.run(abuse(args.base, (args.page, args.query), cfg, ready))
    print(json.dumps(result), flush=True)
    return 0
