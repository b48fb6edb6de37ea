"""Servers on loopback and their memory, read from /proc (psutil is not a dependency)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")


def nginx_binary() -> str | None:
    """nginx on this machine (PATH, else Debian's /usr/sbin/nginx), or None."""
    import shutil

    return shutil.which("nginx") or (
        "/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None
    )


def port_free(port: int) -> bool:
    """Whether ``port`` can be bound on 127.0.0.1 now (as the servers bind it: a closed
    connection's TIME_WAIT does not make a port busy)."""
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


def streamlit_command(target: str, port: int) -> list[str]:
    """``streamlit run <target>`` (or ``streamlit hello`` when target is "hello") on loopback."""
    head = ["hello"] if target == "hello" else ["run", target]
    return [
        sys.executable,
        "-m",
        "streamlit",
        *head,
        "--server.headless",
        "true",
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--server.fileWatcherType",
        "none",
        "--browser.gatherUsageStats",
        "false",
    ]


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


def start_server(target: str, cwd: Path, log: Path, timeout: float = 120.0) -> Server:
    """Spawn a Streamlit server on a free loopback port and wait (bounded) for its health."""
    port = free_port()
    log.parent.mkdir(parents=True, exist_ok=True)
    launched = time.monotonic()
    proc = subprocess.Popen(
        streamlit_command(target, port), cwd=cwd, stdout=log.open("w"), stderr=subprocess.STDOUT
    )
    base = f"http://127.0.0.1:{port}"
    deadline = launched + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited early ({target}):\n{log.read_text()}")
        try:
            with urllib.request.urlopen(base + "/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return Server(base, proc, log, launched, time.monotonic())
        except OSError:
            time.sleep(0.05)
    stop_server_proc(proc)
    raise RuntimeError(f"streamlit ({target}) not healthy in {timeout:.0f} s:\n{log.read_text()}")


def stop_server_proc(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def stop_server(server: Server) -> None:
    stop_server_proc(server.proc)


def _ppid(pid: int) -> int | None:
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    # comm (field 2) may hold spaces or parentheses: split after its closing parenthesis
    return int(stat.rsplit(")", 1)[1].split()[1])


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (children, grandchildren, ...)."""
    children: dict[int, list[int]] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            parent = _ppid(int(entry.name))
            if parent is not None:
                children.setdefault(parent, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def vm_rss_kb(status_text: str) -> int:
    """The ``VmRSS`` figure (kB) of a /proc/<pid>/status text; 0 if absent (a zombie)."""
    for line in status_text.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def rss_mb(pid: int, include_children: bool = True) -> float:
    """Resident memory of ``pid`` (and its descendants) in MB (1 MB = 2**20 bytes)."""
    pids = [pid] + (descendants(pid) if include_children else [])
    total_kb = 0
    for p in pids:
        try:
            total_kb += vm_rss_kb((PROC / str(p) / "status").read_text())
        except OSError:
            continue  # the process ended between listing and reading
    return round(total_kb / 1024.0, 1)


def machine() -> dict:
    """What the figures were measured on: cores, CPU model, load averages, memory."""
    info: dict = {"cores": os.cpu_count(), "python": sys.version.split()[0]}
    try:
        for line in (PROC / "cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    info["loadavg"] = load_average()
    try:
        mem = (PROC / "meminfo").read_text().splitlines()[0].split()[1]
        info["mem_total_mb"] = round(int(mem) / 1024.0)
    except (OSError, IndexError, ValueError):
        pass
    return info


def load_average() -> list[float] | None:
    try:
        return [round(float(v), 2) for v in os.getloadavg()]
    except OSError:
        return None


def run_meta() -> dict:
    """The first keys of every bench result's ``meta``: when (UTC), on what, how busy."""
    import datetime as dt

    return {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": machine(),
        "load_start": load_average(),
    }
