"""The server harness of the bench and the tests, on loopback: Streamlit servers
(:func:`start_server`), nginx from ``deploy/nginx/`` (:func:`start_nginx`), app replicas
behind it (:func:`cluster`); each waited for (bounded) and stopped. Memory and CPU from /proc.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

PROC = Path("/proc")
ROOT = Path(__file__).resolve().parent.parent
BARE_APP = Path(__file__).resolve().parent / "bare_app.py"
RESULTS = Path(__file__).resolve().parent / "results"
LOGS = Path(tempfile.gettempdir()) / "road_to_attention_bench"
LAYOUT = ROOT / "deploy" / "nginx" / "layout.sh"
MAX_REPLICAS = 8
HOSTED_ENV = {
    "STREAMLIT_CLIENT_SHOW_ERROR_DETAILS": "none",
    "ROAD_PUBLIC": "1",
    "ROAD_TRUST_PROXY": "1",
}  # as deploy/compose.yaml


def log(msg: str, who: str = "bench") -> None:
    print(f"[{who} {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def nginx_binary() -> str | None:
    """nginx on this machine (PATH, else Debian's /usr/sbin/nginx), or None."""
    debian = Path("/usr/sbin/nginx")
    return shutil.which("nginx") or (str(debian) if debian.exists() else None)


def missing_nginx() -> list[str]:
    """What this machine lacks to run the repo's nginx: the binary, its ``load_module``s."""
    out = [] if nginx_binary() else ["nginx not found: apt-get install nginx"]
    text = (ROOT / "deploy" / "nginx" / "nginx.conf").read_text(encoding="utf-8")
    for found in re.findall(r"^\s*load_module\s+([^;\s]+)\s*;", text, flags=re.MULTILINE):
        module = Path(found)
        if not module.exists():
            name = module.stem.removeprefix("ngx_http_").removesuffix("_module")
            out.append(
                f"{module} not found: apt-get install libnginx-mod-http-{name.replace('_', '-')}"
            )
    return out


def port_free(port: int) -> bool:
    """Whether ``port`` can be bound on 127.0.0.1 now (TIME_WAIT does not make it busy)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def hosted_env(folder: Path, **extra: str) -> dict[str, str]:
    """This environment, the hosted settings, its own data folder, no poll database URL."""
    env = dict(os.environ, ROAD_DATA_DIR=str(folder / "data"), **HOSTED_ENV)
    env.pop("ROAD_DATABASE_URL", None)
    env.update(extra)
    return env


def streamlit_command(target: str, port: int) -> list[str]:
    """``streamlit run <target>`` (or ``streamlit hello`` when target is "hello") on loopback."""
    head = ["hello"] if target == "hello" else ["run", target]
    flags = {
        "server.headless": "true",
        "server.port": str(port),
        "server.address": "127.0.0.1",
        "browser.gatherUsageStats": "false",
    }
    return [sys.executable, "-m", "streamlit", *head, *(f"--{k}={v}" for k, v in flags.items())]


@dataclass
class Server:
    base: str
    proc: subprocess.Popen
    log: Path
    launched: float  # time.monotonic() just before the process was spawned
    healthy: float  # time.monotonic() when /_stcore/health first answered 200

    def url(self, path: str = "/") -> str:
        return self.base + path

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def upstream(self) -> str:
        return self.base.removeprefix("http://")


def wait_healthy(base: str, proc: subprocess.Popen, log: Path, deadline: float) -> float:
    """Poll ``base``/_stcore/health until 200 (the time); the process's exit or ``deadline``
    (time.monotonic()) is a RuntimeError with the log's tail."""
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{base}: the process exited early:\n{log.read_text()[-3000:]}")
        with contextlib.suppress(OSError):
            with urllib.request.urlopen(base + "/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return time.monotonic()
        time.sleep(0.05)
    raise RuntimeError(f"{base}: not healthy in time:\n{log.read_text()[-3000:]}")


def spawn_server(
    target: str, cwd: Path, log: Path, *, port=None, env=None, prefix: Sequence[str] = ()
) -> Server:
    """Spawn a Streamlit server on ``port`` (default: a free one) without waiting."""
    port = port or free_port()
    log.parent.mkdir(parents=True, exist_ok=True)
    launched = time.monotonic()
    cmd = [*prefix, *streamlit_command(target, port)]
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)
    return Server(f"http://127.0.0.1:{port}", proc, log, launched, 0.0)


def start_server(target: str, cwd: Path, log: Path, timeout: float = 120.0, **spawn) -> Server:
    """:func:`spawn_server`, then wait (bounded) for its health; stopped if it never answers."""
    server = spawn_server(target, cwd, log, **spawn)
    try:
        server.healthy = wait_healthy(server.base, server.proc, log, server.launched + timeout)
    except RuntimeError:
        stop_proc(server.proc)
        raise
    return server


def stop_proc(proc: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    """Stop a process (``sig``, then SIGKILL after 15 s) unless it has ended already."""
    if proc.poll() is not None:
        return
    proc.send_signal(sig)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def stop_server(server: Server) -> None:
    stop_proc(server.proc)


@contextlib.contextmanager
def serving(target: str, cwd: Path, log: Path, timeout: float = 120.0, **spawn) -> Iterator[Server]:
    """:func:`start_server`, stopped on the way out."""
    server = start_server(target, cwd, log, timeout, **spawn)
    try:
        yield server
    finally:
        stop_server(server)


@contextlib.contextmanager
def hosted_app(port: int, timeout: float = 180.0, prefix: str = "road-") -> Iterator[Server]:
    """``app.py`` on 127.0.0.1:``port`` with the hosted settings and a data folder of its own."""
    if not port_free(port):
        raise RuntimeError(f"port {port} is taken: stop whatever listens there")
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        env = hosted_env(folder)
        with serving("app.py", ROOT, folder / "app.log", timeout, port=port, env=env) as server:
            yield server
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def wait_log(server: Server, text: str, timeout: float) -> float | None:
    """Seconds since launch until ``text`` is in the server's log (bounded), else None."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if text in server.log.read_text(errors="replace"):
            return round(time.monotonic() - server.launched, 2)
        time.sleep(0.25)
    return None


def wait_warm(server: Server, timeout: float = 300.0) -> float | None:
    """Seconds since launch until the app's warm-up is done (``serve.warmup.DONE``), or None."""
    from serve.warmup import DONE

    return wait_log(server, DONE, timeout)


# ---- nginx from deploy/nginx/ ----------------------------------------------------------------


@dataclass
class Proxy:
    prefix: Path
    port: int
    proc: subprocess.Popen

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def access_path(self) -> Path:
        return self.prefix / "logs" / "access.log"

    def log_mark(self) -> int:
        """Where the access log ends now (bytes): read what comes after it later."""
        try:
            return self.access_path.stat().st_size
        except OSError:
            return 0

    def access_log(self, since: int = 0) -> list[dict]:
        """The access log's JSON lines after byte ``since``."""
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

    def stop(self) -> None:
        stop_proc(self.proc)  # SIGTERM: nginx's fast shutdown cuts open websockets


def spawn_nginx(
    prefix: Path, port: int, upstreams: list[str], static_dir: Path | None = None
) -> Proxy:
    """nginx laid out by ``deploy/nginx/layout.sh`` in ``prefix``, not waited for."""
    nginx = nginx_binary()
    if nginx is None:
        raise RuntimeError("nginx not found: apt-get install nginx")
    prefix.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.pop("ROAD_STATIC_DIR", None)
    if static_dir is not None:
        env["ROAD_STATIC_DIR"] = str(static_dir)
    layout = ["sh", str(LAYOUT), str(prefix), f"127.0.0.1:{port}", *upstreams]
    subprocess.run(layout, check=True, timeout=30, env=env)
    conf = str(prefix / "conf" / "nginx.conf")
    argv = [nginx, "-p", f"{prefix}/", "-c", conf, "-g", "daemon off;"]
    log = (prefix / "nginx.log").open("w")
    return Proxy(prefix, port, subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT))


def start_nginx(
    prefix: Path, port: int, upstreams: list[str], static_dir: Path | None = None, timeout=30.0
) -> Proxy:
    """:func:`spawn_nginx`, then wait (bounded) until it answers ``/_stcore/health``."""
    proxy = spawn_nginx(prefix, port, upstreams, static_dir)
    try:
        wait_healthy(proxy.base, proxy.proc, prefix / "nginx.log", time.monotonic() + timeout)
    except RuntimeError:
        proxy.stop()
        raise
    return proxy


@dataclass
class Cluster(Proxy):
    """nginx (the :class:`Proxy`) in front of app replicas, each on its own loopback port."""

    replicas: list[Server] = field(default_factory=list)
    logs: dict[str, Path] = field(default_factory=dict)


@contextlib.contextmanager
def cluster(
    replicas: int, port: int, *, env=None, startup_timeout=240.0, keep_logs=None, label="scaleout"
) -> Iterator[Cluster]:
    """``replicas`` hosted app processes (``env`` added) on ports ``port+1..`` behind nginx on
    ``port``, all stopped on the way out; their logs copied to ``keep_logs`` as ``<label>_*``."""
    lacks = missing_nginx()
    if lacks:
        raise RuntimeError("; ".join(lacks))
    ports = [port + 1 + i for i in range(replicas)]
    busy = [p for p in (port, *ports) if not port_free(p)]
    if busy:
        raise RuntimeError(f"ports {busy} are taken: stop whatever listens there")
    folder = Path(tempfile.mkdtemp(prefix="road-scaleout-"))
    folder.chmod(0o755)  # nginx's workers (nobody, when run as root) traverse it
    app_env = hosted_env(folder, **(env or {}))
    servers: list[Server] = []
    proxy = None
    try:
        for p in ports:  # all at once: their cold starts overlap
            servers.append(
                spawn_server("app.py", ROOT, folder / f"app{p}.log", port=p, env=app_env)
            )
        proxy = spawn_nginx(folder / "nginx", port, [s.upstream for s in servers])
        deadline = time.monotonic() + startup_timeout
        for s in servers:
            s.healthy = wait_healthy(s.base, s.proc, s.log, deadline)
        wait_healthy(proxy.base, proxy.proc, proxy.prefix / "nginx.log", deadline)
        logs = {f"app{s.upstream.rsplit(':', 1)[1]}": s.log for s in servers}
        logs["nginx"] = proxy.prefix / "nginx.log"
        cl = Cluster(proxy.prefix, proxy.port, proxy.proc, servers, logs)
        # nginx logs the health probe after answering it: a later log_mark() comes after it
        for _ in range(100):
            if cl.access_log():
                break
            time.sleep(0.05)
        yield cl
    finally:
        if proxy is not None:
            proxy.stop()
        for s in servers:
            stop_server(s)
        if keep_logs is not None:
            keep_logs.mkdir(parents=True, exist_ok=True)
            for src in [*folder.glob("*.log"), folder / "nginx" / "nginx.log"]:
                if src.exists():
                    shutil.copy2(src, keep_logs / f"{label}_{src.name}")
            if proxy is not None and proxy.access_path.exists():
                shutil.copy2(proxy.access_path, keep_logs / f"{label}_access.log")
        shutil.rmtree(folder, ignore_errors=True)


# ---- memory and CPU from /proc ---------------------------------------------------------------


def _stat_fields(pid: int) -> list[str] | None:
    """/proc/<pid>/stat after the command name: state [0], parent [1], utime [11], stime [12]."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (children, grandchildren, ...)."""
    children: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            fields = _stat_fields(int(entry.name))
            if fields is not None:
                children.setdefault(int(fields[1]), []).append(int(entry.name))
    out = [pid]
    for p in out:  # the list grows while it is read: every generation in turn
        out.extend(children.get(p, []))
    return out[1:]


def cpu_seconds(pid: int) -> float | None:
    """utime + stime of ``pid`` (seconds), from /proc/<pid>/stat; ``None`` if it is gone."""
    f = _stat_fields(pid)
    return None if f is None else (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def _rss_kb(pid: int) -> int | None:
    """``VmRSS`` (kB) from /proc/<pid>/status: 0 without one (a zombie), None when gone."""
    try:
        lines = (PROC / str(pid) / "status").read_text().splitlines()
    except OSError:
        return None
    return next((int(x.split()[1]) for x in lines if x.startswith("VmRSS:")), 0)


def rss_now_mb(pid: int) -> float | None:
    """VmRSS of ``pid`` alone in MB, from /proc/<pid>/status; ``None`` if it is gone."""
    kb = _rss_kb(pid)
    return None if kb is None else round(kb / 1024.0, 1)


def rss_mb(pid: int, include_children: bool = True) -> float:
    """Resident memory of ``pid`` (and its descendants) in MB (1 MB = 2**20 bytes)."""
    pids = [pid] + (descendants(pid) if include_children else [])
    return round(sum(_rss_kb(p) or 0 for p in pids) / 1024.0, 1)


class RssSampler:
    """VmRSS of each of ``{key: pid}`` every ``every`` s in a thread while the ``with`` runs."""

    def __init__(self, pids: dict[str, int], every: float = 0.5) -> None:
        self.pids, self.every = pids, every
        self.samples: list[tuple[float, str, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rss-sampler", daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            for key, pid in self.pids.items():
                rss = rss_now_mb(pid)
                if rss is not None:
                    self.samples.append((time.monotonic(), key, rss))
            self._stop.wait(self.every)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(5)

    def peak(self, key: str, since: float = 0.0) -> float | None:
        vals = [mb for t, k, mb in self.samples if k == key and t >= since]
        return max(vals) if vals else None

    def peaks(self) -> dict[str, float]:
        """Each key's peak (keys never sampled left out)."""
        return {k: p for k in self.pids if (p := self.peak(k)) is not None}


def machine() -> dict:
    """What the figures were measured on: cores, CPU model, load averages, memory."""
    info: dict = {"cores": os.cpu_count(), "python": sys.version.split()[0]}
    with contextlib.suppress(OSError):
        for line in (PROC / "cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
    info["loadavg"] = load_average()
    with contextlib.suppress(OSError, IndexError, ValueError):
        mem = (PROC / "meminfo").read_text().splitlines()[0].split()[1]
        info["mem_total_mb"] = round(int(mem) / 1024.0)
    return info


def load_average() -> list[float]:
    return [round(float(v), 2) for v in os.getloadavg()]


def run_meta() -> dict:
    """The first keys of every bench result's ``meta``: when (UTC), on what, how busy."""
    return {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": machine(),
        "load_start": load_average(),
    }
