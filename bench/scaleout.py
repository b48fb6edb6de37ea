"""A class through the repo's nginx: one replica against two, and one abusive client (issues
20 point 4 and 23 point 3).

The cluster is built the way ``tests/test_scale_out.py`` builds it: ``streamlit run app.py``
replicas on loopback ports with the hosted settings, and Debian's nginx started from
``deploy/nginx/`` verbatim (``deploy/nginx/layout.sh`` writes only the listen address and
the replicas). No PostgreSQL: the lesson page a class measures has no poll. Every process is
stopped in a ``finally``; every wait is bounded.

Clients bind their own loopback source address, because nginx limits per client address:

- the class (``CLASS_ADDR``, 127.0.0.2): the teacher and every student, like a school
  behind one NAT address;
- the abuser (``ABUSER_ADDR``, 127.0.0.3): a separate process (``python -m bench.scaleout
  abuser ...``, so its CPU is its own and it never slows the students' event loop) that
  opens websocket sessions as fast as it can (at most ``attempts`` or ``open_seconds``) and
  reruns the teacher's page as fast as the server answers on each session it gets.

What a class reports (:func:`measure_class`): the figures of ``bench.classroom.run_class``
(the same shape as ``python -m bench --class``) with ``cpu_s`` the CPU seconds of all
replicas and ``rss_mb`` the peak RSS of the largest, plus per replica its CPU, RSS and the
sessions nginx's access log shows it served, nginx's CPU, the clients' own CPU time and the
machine's load (the clients share the cores with the servers).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bench import procs

ROOT = Path(__file__).resolve().parent.parent
LAYOUT = ROOT / "deploy" / "nginx" / "layout.sh"
NGINX_PORT = 8670  # the bench's ports: 8670 (nginx) and 8671.. (replicas); tests use 8690..
CLASS_ADDR = "127.0.0.2"  # the whole class: one school NAT address
ABUSER_ADDR = "127.0.0.3"  # one abusive client
COOKIE = "road_route"
STREAM_PATH = "/_stcore/stream"
HOSTED_ENV = {
    "STREAMLIT_CLIENT_SHOW_ERROR_DETAILS": "none",
    "ROAD_PUBLIC": "1",
    "ROAD_TRUST_PROXY": "1",
}  # as deploy/compose.yaml
LOGS = Path(tempfile.gettempdir()) / "road_to_attention_bench"
MAX_REPLICAS = 8


def nginx_modules() -> list[Path]:
    """The dynamic modules the repo's nginx.conf loads (``load_module`` lines)."""
    text = (ROOT / "deploy" / "nginx" / "nginx.conf").read_text(encoding="utf-8")
    found = re.findall(r"^\s*load_module\s+([^;\s]+)\s*;", text, flags=re.MULTILINE)
    return [Path(m) for m in found]


def missing() -> list[str]:
    """What this machine lacks to run a cluster (an empty list when nothing)."""
    out = []
    if procs.nginx_binary() is None:
        out.append("nginx not found: apt-get install nginx")
    for module in nginx_modules():
        if not module.exists():
            pkg = "libnginx-mod-http-" + module.stem.removeprefix("ngx_http_").replace(
                "_module", ""
            ).replace("_", "-")
            out.append(f"{module} not found: apt-get install {pkg}")
    return out


# ---- the cluster ---------------------------------------------------------------------------


@dataclass
class Cluster:
    folder: Path
    port: int
    replicas: list[procs.Server]  # each one's base is its own loopback port
    nginx: subprocess.Popen
    logs: dict[str, Path] = field(default_factory=dict)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def access_path(self) -> Path:
        return self.folder / "nginx" / "logs" / "access.log"

    def upstream(self, server: procs.Server) -> str:
        return server.base.removeprefix("http://")

    def log_mark(self) -> int:
        """Where the access log ends now (bytes): read what comes after it later."""
        try:
            return self.access_path.stat().st_size
        except OSError:
            return 0

    def access_log(self, since: int = 0) -> list[dict]:
        try:
            with self.access_path.open("rb") as f:
                f.seek(since)
                text = f.read().decode("utf-8", errors="replace")
        except OSError:
            return []
        out = []
        for line in text.splitlines():
            with contextlib.suppress(ValueError):
                out.append(json.loads(line))
        return out

    def nginx_pids(self) -> list[int]:
        return [self.nginx.pid, *procs.descendants(self.nginx.pid)]


def _get_status(url: str, timeout: float = 2.0) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status
    except OSError:
        return None


def _wait_healthy(url: str, proc: subprocess.Popen, log: Path, deadline: float) -> float:
    while time.monotonic() < deadline:  # bounded
        if proc.poll() is not None:
            raise RuntimeError(f"{url}: the process exited early:\n{log.read_text()[-3000:]}")
        if _get_status(url + "/_stcore/health") == 200:
            return time.monotonic()
        time.sleep(0.1)
    raise RuntimeError(f"{url}: not healthy in time:\n{log.read_text()[-3000:]}")


def _stop_nginx(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)  # fast shutdown: open websockets are cut
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def cluster(
    replicas: int,
    port: int = NGINX_PORT,
    *,
    startup_timeout: float = 240.0,
    keep_logs: Path | None = None,
    label: str = "scaleout",
) -> Iterator[Cluster]:
    """``replicas`` app processes on ports ``port+1..`` behind nginx on ``port`` (all on
    127.0.0.1), from the repo's nginx files. Everything is stopped on the way out; the logs
    are copied to ``keep_logs`` (if given) as ``<label>_*.log``."""
    if not 1 <= replicas <= MAX_REPLICAS:
        raise ValueError(f"replicas must be within 1..{MAX_REPLICAS}, got {replicas}")
    lacks = missing()
    if lacks:
        raise RuntimeError("; ".join(lacks))
    ports = [port + 1 + i for i in range(replicas)]
    busy = [p for p in (port, *ports) if not procs.port_free(p)]
    if busy:
        raise RuntimeError(f"ports {busy} are taken: stop whatever listens there")
    folder = Path(tempfile.mkdtemp(prefix="road-scaleout-"))
    folder.chmod(0o755)  # nginx's workers (nobody, when run as root) traverse it
    env = dict(os.environ, ROAD_DATA_DIR=str(folder / "data"), **HOSTED_ENV)
    env.pop("ROAD_DATABASE_URL", None)
    servers: list[procs.Server] = []
    proxy = None
    logs: dict[str, Path] = {}
    try:
        for p in ports:  # all at once: their cold starts overlap
            logs[f"app{p}"] = folder / f"app{p}.log"
            launched = time.monotonic()
            proc = subprocess.Popen(
                procs.streamlit_command("app.py", p),
                cwd=ROOT,
                env=env,
                stdout=logs[f"app{p}"].open("w"),
                stderr=subprocess.STDOUT,
            )
            servers.append(
                procs.Server(f"http://127.0.0.1:{p}", proc, logs[f"app{p}"], launched, 0)
            )
        prefix = folder / "nginx"
        subprocess.run(
            ["sh", str(LAYOUT), str(prefix), f"127.0.0.1:{port}"]
            + [f"127.0.0.1:{p}" for p in ports],
            check=True,
            timeout=30,
        )
        logs["nginx"] = folder / "nginx.log"
        proxy = subprocess.Popen(
            [procs.nginx_binary(), "-p", f"{prefix}/", "-c", str(prefix / "conf" / "nginx.conf")]
            + ["-g", "daemon off;"],
            stdout=logs["nginx"].open("w"),
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + startup_timeout
        for s in servers:
            s.healthy = _wait_healthy(s.base, s.proc, s.log, deadline)
        _wait_healthy(f"http://127.0.0.1:{port}", proxy, logs["nginx"], deadline)
        cl = Cluster(folder, port, servers, proxy, logs)
        # nginx logs a request after answering it: wait until the probe's line is written,
        # so that a later log_mark() comes after it (bounded: a few seconds at most)
        for _ in range(100):
            if cl.access_log():
                break
            time.sleep(0.05)
        yield cl
    finally:
        if proxy is not None:
            _stop_nginx(proxy)
        for s in servers:
            if s.proc.poll() is None:
                procs.stop_server(s)
        if keep_logs is not None:
            keep_logs.mkdir(parents=True, exist_ok=True)
            for src in [*folder.glob("*.log"), folder / "nginx" / "logs" / "access.log"]:
                if src.exists():
                    shutil.copy2(src, keep_logs / f"{label}_{src.name}")
        shutil.rmtree(folder, ignore_errors=True)


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
    from bench.classroom import cpu_seconds

    vals = [cpu_seconds(p) for p in pids]
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
            {cl.upstream(s): _cpu_tree([s.pid]) for s in cl.replicas},
            _cpu_tree(cl.nginx_pids()),
            own_cpu_s(),
            machine_busy_s(),
            time.monotonic(),
            procs.load_average(),
        )


def _minus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(a - b, 2)


async def _sample_rss(cl: Cluster, stop: asyncio.Event, peaks: dict, every: float = 0.5):
    from bench.classroom import rss_now_mb

    while not stop.is_set():  # bounded by the class: stop is set when it ends
        for s in cl.replicas:
            rss = rss_now_mb(s.pid)
            if rss is not None:
                key = cl.upstream(s)
                peaks[key] = max(peaks.get(key, 0.0), rss)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every)


# ---- warm-up ---------------------------------------------------------------------------


def wait_log(server: procs.Server, text: str, timeout: float) -> float | None:
    """Seconds since launch until ``text`` is in the server's log (bounded), else None."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if text in server.log.read_text(errors="replace"):
            return round(time.monotonic() - server.launched, 2)
        time.sleep(0.25)
    return None


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
            warm = await asyncio.to_thread(wait_log, server, done, timeout)
            if warm is None:
                errors.append(f"warm-up of {server.base}: no '{done}' line after {timeout:g} s")
        return cl.upstream(server), {"first_render_s": a.seconds, "warm_up_s": warm}

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

    def argv(self, base: str, page: tuple[str, str]) -> list[str]:
        return [
            sys.executable,
            "-m",
            "bench.scaleout",
            "abuser",
            base,
            "--page",
            page[0],
            "--query",
            page[1],
            "--attempts",
            str(self.attempts),
            "--open-seconds",
            str(self.open_seconds),
            "--seconds",
            str(self.seconds),
            "--rerun-sessions",
            str(self.rerun_sessions),
            "--openers",
            str(self.openers),
            "--timeout",
            str(self.timeout),
            "--source",
            self.source,
        ]


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
            except InvalidStatus as exc:
                refused[str(exc.response.status_code)] += 1
                s.close_http()
                continue
            except TimeoutError:
                counts["timed_out"] += 1
                s.close_http()
                continue
            except Exception:  # noqa: BLE001 - reset, closed, refused: the socket is gone
                counts["closed"] += 1
                s.close_http()
                continue
            counts["opened"] += 1
            sessions.append(s)
            if len(hammers) < cfg.rerun_sessions:
                hammers.append(asyncio.create_task(hammer(s)))

    if ready is not None:
        ready()
    openers = [asyncio.create_task(opener()) for _ in range(max(1, cfg.openers))]
    await asyncio.gather(*openers)
    open_s = time.monotonic() - t0
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), max(0.0, end - time.monotonic()))
    stop.set()
    connected = sum(s.connected for s in sessions)
    for h in hammers:
        h.cancel()
    await asyncio.gather(*hammers, return_exceptions=True)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(
            asyncio.gather(*(s.close() for s in sessions), return_exceptions=True), 30
        )
    for s in sessions:
        s.close_http()
    return {
        "source": cfg.source,
        "attempts": counts["attempts"],
        "opened": counts["opened"],
        "refused": dict(sorted(refused.items())),
        "closed": counts["closed"],
        "timed_out": counts["timed_out"],
        "open_phase_s": round(open_s, 2),
        "rerun_sessions": len(hammers),
        "connected_at_stop": connected,
        "sessions_dropped": counts["sessions_dropped"],
        "reruns_ok": counts["reruns_ok"],
        "reruns_failed": counts["reruns_failed"],
        "rerun_s": summary_s(rerun_s),
        "wall_s": round(time.monotonic() - t0, 1),
        "cpu_s": round(own_cpu_s() - cpu0, 2),
        "limits": {
            "attempts": cfg.attempts,
            "open_seconds": cfg.open_seconds,
            "seconds": cfg.seconds,
            "openers": cfg.openers,
        },
    }


class AbuserProcess:
    """``python -m bench.scaleout abuser`` in a process of its own, started and stopped from
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


def _abuser_main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.scaleout abuser")
    p.add_argument("base")
    p.add_argument("--page", default="")
    p.add_argument("--query", default="")
    d = Abuse()
    p.add_argument("--attempts", type=int, default=d.attempts)
    p.add_argument("--open-seconds", type=float, default=d.open_seconds)
    p.add_argument("--seconds", type=float, default=d.seconds)
    p.add_argument("--rerun-sessions", type=int, default=d.rerun_sessions)
    p.add_argument("--openers", type=int, default=d.openers)
    p.add_argument("--timeout", type=float, default=d.timeout)
    p.add_argument("--source", default=d.source)
    a = p.parse_args(argv)
    if a.attempts < 1 or a.seconds <= 0 or a.open_seconds <= 0 or a.timeout <= 0:
        p.error("--attempts must be >= 1; --seconds, --open-seconds and --timeout > 0")
    cfg = Abuse(
        a.attempts, a.open_seconds, a.seconds, a.rerun_sessions, a.openers, a.timeout, a.source
    )

    def ready() -> None:
        print("ready", flush=True)

    result = asyncio.run(abuse(a.base, (a.page, a.query), cfg, ready))
    print(json.dumps(result), flush=True)
    return 0


# ---- one class through the cluster ---------------------------------------------------------


async def measure_class(
    cl: Cluster,
    n: int,
    *,
    page: tuple[str, str],
    scenario: str = "page",
    arrive_within: float = 10.0,
    duration: float = 120.0,
    click_every: tuple[float, float] = (5.0, 10.0),
    seed: int = 0,
    timeout: float = 60.0,
    abuser: Abuse | None = None,
    abuser_log: Path | None = None,
) -> tuple[dict, list[str]]:
    """The teacher (kept open) and ``n`` students from ``CLASS_ADDR`` through nginx, with
    the abuser from its own address when ``abuser`` is given. Returns the class's figures
    (``run_class``'s, with ``cpu_s`` / ``rss_mb`` over the replicas and the details
    below) and the errors."""
    from bench.classroom import Student, run_class

    errors: list[str] = []
    mark = cl.log_mark()
    upstreams = [cl.upstream(s) for s in cl.replicas]
    teacher = Student(cl.base, timeout=300, name="teacher", source_address=CLASS_ADDR)
    t = await teacher.arrive(page[0], _with(page[1], "present=1"))
    if not t.ok:
        errors.append(f"class {n}: the teacher's page: {t.error}")
    before = Snapshot.take(cl)
    peaks: dict = {}
    stop = asyncio.Event()
    sampler = asyncio.create_task(_sample_rss(cl, stop, peaks))
    proc = None
    abused: dict | None = None
    try:
        if abuser is not None:
            proc = AbuserProcess(cl.base, page, abuser, abuser_log or LOGS / "abuser.log")
            await proc.start()
            await asyncio.sleep(1.0)  # it has begun opening sessions when the class arrives
        figs = await run_class(
            cl.base,
            n,
            scenario=scenario,
            arrive_within=arrive_within,
            duration=duration,
            click_every=click_every,
            seed=seed,
            server_pid=None,
            timeout=timeout,
            page=page,
            source_address=CLASS_ADDR,
        )
    finally:
        if proc is not None:
            abused = await proc.stop(timeout=abuser.open_seconds + 90)
        stop.set()
        await sampler
    after = Snapshot.take(cl)
    await teacher.close()
    teacher.close_http()
    await asyncio.sleep(1.0)  # nginx logs a websocket as it closes
    entries = cl.access_log(mark)
    teacher_route = teacher.cookies.get(COOKIE)
    by = sessions_by_replica(entries, CLASS_ADDR, upstreams, skip_routes=[teacher_route])
    wall = after.at - before.at
    rep_cpu = {u: _minus(after.replicas[u], before.replicas[u]) for u in upstreams}
    known = [v for v in rep_cpu.values() if v is not None]
    figs["cpu_s"] = round(sum(known), 2) if known else None
    figs["rss_mb"] = max(peaks.values()) if peaks else None
    figs["cpu_cores_busy"] = round(sum(known) / wall, 2) if known and wall > 0 else None
    figs["replicas"] = {
        u: {
            "cpu_s": rep_cpu[u],
            "rss_peak_mb": peaks.get(u),
            "sessions": by["sessions"].get(u, 0),
        }
        for u in upstreams
    }
    figs["stickiness"] = {k: by[k] for k in ("routes", "routes_on_two_replicas")}
    teacher_up = {_served_by(e) for e in entries if e.get("route") == teacher_route}
    figs["teacher_s"] = t.seconds
    figs["teacher_replica"] = sorted(teacher_up)
    figs["nginx"] = {
        "cpu_s": _minus(after.nginx, before.nginx),
        "rss_mb": procs.rss_mb(cl.nginx.pid),
        "class_statuses": statuses(entries, CLASS_ADDR),
        "addresses": addresses(entries),
    }
    clients = _minus(after.own, before.own)
    busy = _minus(after.machine, before.machine)
    ours = [
        x
        for x in (figs["cpu_s"], figs["nginx"]["cpu_s"], clients, (abused or {}).get("cpu_s"))
        if x is not None
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
    if abuser is not None:
        abused = dict(abused or {})
        abused["nginx_statuses"] = statuses(entries, abuser.source, sessions_only=True)
        abused["nginx_sessions"] = sessions_by_replica(entries, abuser.source, upstreams)[
            "sessions"
        ]
        figs["abuser"] = abused
        if "error" in abused:
            errors.append(f"class {n}: abuser: {abused['error']}")
    if figs["errors"]:
        errors.append(f"class {n}: {figs['errors']} errors: {figs['error_samples']}")
    return figs, errors


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


@dataclass
class ClassPlan:
    sizes: list[int]
    page: tuple[str, str]
    scenario: str = "page"
    arrive_within: float = 10.0
    duration: float = 120.0
    click_every: tuple[float, float] = (5.0, 10.0)
    seed: int = 0
    timeout: float = 60.0
    port: int = NGINX_PORT
    warm_timeout: float = 300.0
    keep_logs: Path | None = None


def _one(plan: ClassPlan, replicas: int, n: int, label: str, abuser: Abuse | None):
    """A fresh cluster, warmed, then one class (with the abuser when given)."""

    async def go(cl: Cluster):
        warm, errors = await warm_replicas(cl, plan.page, plan.warm_timeout)
        figs, class_errors = await measure_class(
            cl,
            n,
            page=plan.page,
            scenario=plan.scenario,
            arrive_within=plan.arrive_within,
            duration=plan.duration,
            click_every=plan.click_every,
            seed=plan.seed,
            timeout=plan.timeout,
            abuser=abuser,
            abuser_log=(plan.keep_logs or LOGS) / f"{label}_abuser.log",
        )
        for u, w in warm.items():
            figs["replicas"].setdefault(u, {}).update(w)
        return figs, errors + class_errors

    with cluster(replicas, plan.port, keep_logs=plan.keep_logs, label=label) as cl:
        return asyncio.run(go(cl))


def _log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def run_replicas(plan: ClassPlan, replicas: list[int]) -> dict:
    """The same class (same N, seed, scenario) through nginx with each number of replicas,
    each on a fresh cluster; ``replica_ratio`` = first R / second R per class size."""
    out: dict = {"replicas": {str(r): {"class": {}} for r in replicas}, "replica_ratio": {}}
    errors: list[str] = []
    for n in plan.sizes:
        for r in replicas:
            _log(f"class of {n} through nginx, {r} replica(s)")
            try:
                figs, errs = _one(plan, r, n, f"replicas{r}_class{n}", None)
            except (RuntimeError, OSError) as exc:
                figs, errs = None, [f"class {n}, {r} replica(s): {exc}"]
            errors += [f"{r} replica(s): {e}" for e in errs]
            out["replicas"][str(r)]["class"][str(n)] = figs
            if figs:
                _log(
                    f"{r} replica(s), class {n}: arrive {figs['arrive_s']}, click "
                    f"{figs['click_s']}, cpu {figs['cpu_s']}, sessions "
                    f"{ {u: v['sessions'] for u, v in figs['replicas'].items()} }"
                )
        if len(replicas) >= 2:
            a, b = (out["replicas"][str(r)]["class"][str(n)] for r in replicas[:2])
            out["replica_ratio"][str(n)] = ratio_of(a, b)
    out["replica_ratio_of"] = f"{replicas[0]}/{replicas[1]}" if len(replicas) >= 2 else None
    out["errors"] = errors
    return out


def run_abuse(plan: ClassPlan, replicas: int, cfg: Abuse) -> dict:
    """The class without and then with the abusive client, each on a fresh cluster of
    ``replicas``: the students' figures side by side, what the abuser got."""
    out: dict = {"abuse": {}}
    errors: list[str] = []
    for n in plan.sizes:
        entry: dict = {}
        for label, who in (("without", None), ("with", cfg)):
            _log(f"class of {n}, {replicas} replica(s), {label} the abuser")
            try:
                figs, errs = _one(plan, replicas, n, f"abuse_{label}_class{n}", who)
            except (RuntimeError, OSError) as exc:
                figs, errs = None, [f"class {n} {label} the abuser: {exc}"]
            errors += [f"{label} the abuser: {e}" for e in errs]
            entry[label] = figs
            if figs:
                _log(f"{label}: arrive {figs['arrive_s']}, click {figs['click_s']}")
        if entry.get("with"):
            entry["abuser"] = entry["with"].pop("abuser", None)
        entry["with_over_without"] = ratio_of(entry.get("with"), entry.get("without"))
        p95 = [entry["with_over_without"][k] for k in ("arrive_p95", "click_p95")]
        entry["students_p95_within_2x"] = (
            None if None in p95 else all(x <= 2.0 for x in p95)  # issue 23's criterion
        )
        out["abuse"][str(n)] = entry
    out["errors"] = errors
    return out


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "abuser":
        sys.exit(_abuser_main(sys.argv[2:]))
    print("usage: python -m bench.scaleout abuser BASE [options]  (see python -m bench)")
    sys.exit(2)
