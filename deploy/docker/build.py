"""Build the image with podman where no image registry is reachable (CI, a school's server).

    python deploy/docker/build.py [--tag TAG] [--status FILE]

The base is a local Debian 12 (deploy/docker/base.sh, made once per machine); torch's CPU
index is used when it answers, else PyPI with the wheel folders and local indexes of this
machine's pip configuration mounted read-only into the build. FILE receives the outcome as
JSON (exit status, seconds, image size, machine load) once the build has ended.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[2]
BASE_TAG = "localhost/road-base:bookworm"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
PYPI = "https://pypi.org/simple"


def reachable(url: str, timeout: float = 5.0) -> bool:
    """Whether the host of ``url`` resolves and accepts a TCP connection."""
    host = urlparse(url).hostname or ""
    try:
        with socket.create_connection((host, 443), timeout=timeout):
            return True
    except OSError:
        return False


def pip_settings() -> dict[str, list[str]]:
    """This machine's pip settings that decide where packages come from and which
    certificates it trusts (config files and PIP_* variables): ``{"find-links": [...], ...}``."""
    out = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True
    ).stdout
    found: dict[str, list[str]] = {
        name: [] for name in ("find-links", "extra-index-url", "index-url", "cert")
    }
    for line in out.splitlines():
        key, _, value = line.partition("=")
        name = key.rsplit(".", 1)[-1]
        if name in found:
            for item in value.strip().strip("'\"").split():
                if item not in found[name]:
                    found[name].append(item)
    return found


def local_dir(location: str) -> Path | None:
    """The folder behind a pip location (a path or a file:// URL), if it is one here."""
    path = Path(urlparse(location).path if location.startswith("file:") else location)
    return path if path.is_absolute() and path.is_dir() else None


def mirror_args(settings: dict[str, list[str]]) -> tuple[list[str], list[str]]:
    """(podman volume options, pip options) that give the build this machine's local wheel
    folders and indexes at the same paths; remote locations are passed on as they are. A
    certificate bundle of its own (a proxy's authority) is mounted over the image's during
    the build only."""
    volumes: list[str] = []
    pip: list[str] = []
    for cert in settings["cert"][:1]:
        if Path(cert).is_file():
            volumes += ["-v", f"{cert}:{cert}:ro"]
            pip += ["--cert", cert]
    for name in ("find-links", "extra-index-url"):
        for location in settings[name]:
            folder = local_dir(location)
            if folder is not None:
                # an index's files may sit beside its simple/ folder (../../files/...)
                mount = folder.parent if folder.name == "simple" else folder
                volumes += ["-v", f"{mount}:{mount}:ro"]
            pip += [f"--{name}", location]
    return volumes, pip


def ensure_base(tag: str) -> float:
    """Make the local base unless present; its seconds (0 when reused)."""
    start = time.monotonic()
    subprocess.run(["bash", str(ROOT / "deploy" / "docker" / "base.sh"), tag], check=True)
    return time.monotonic() - start


def build(tag: str, base: str, log, no_cache: bool = False) -> int:
    """``podman build`` of the repository; its exit status. Output goes to ``log``."""
    settings = pip_settings()
    volumes, pip = mirror_args(settings)
    torch_index = CPU_INDEX
    if not reachable(CPU_INDEX):
        torch_index = (settings["index-url"] or [PYPI])[0]
        # requirements.txt names torch's CPU page (for hosts that install it as is): where
        # it cannot be reached, one try per lookup instead of pip's five with back-off
        # (measured: resolving the file went from 14 s to 386 s with retries, 10 s without)
        pip += ["--retries", "0"]
    cmd = [
        "podman", "build", "--isolation=chroot", "--format=docker", "--layers",
        "--pull=never", *(["--no-cache"] if no_cache else []),
        "-t", tag, "-f", str(ROOT / "Dockerfile"),
        "--build-arg", f"BASE_IMAGE={base}",
        "--build-arg", f"TORCH_INDEX_URL={torch_index}",
        "--build-arg", f"EXTRA_PIP_ARGS={shlex.join(pip)}",
        *volumes, str(ROOT),
    ]  # fmt: skip
    print("build.py:", shlex.join(cmd), file=log, flush=True)
    return subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode


def image_size(tag: str) -> int:
    out = subprocess.run(
        ["podman", "image", "inspect", "--format", "{{.Size}}", tag],
        capture_output=True,
        text=True,
    )
    return int(out.stdout.strip() or 0) if out.returncode == 0 else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tag", default="localhost/road-to-attention:test")
    parser.add_argument("--base", default=BASE_TAG, help="the local base image's tag")
    parser.add_argument("--status", type=Path, help="write the outcome here as JSON")
    parser.add_argument("--no-cache", action="store_true", help="rebuild every layer")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    result = {"tag": args.tag, "base": args.base, "load_before": round(load, 2)}
    start = time.monotonic()
    try:
        result["base_seconds"] = round(ensure_base(args.base), 1)
        step = time.monotonic()
        result["status"] = build(args.tag, args.base, sys.stdout, args.no_cache)
        result["build_seconds"] = round(time.monotonic() - step, 1)
    except Exception as exc:  # any failure is reported in the status file, never a hang
        print(f"build.py: {exc!r}", file=sys.stderr)
        result["status"] = 1
    result["seconds"] = round(time.monotonic() - start, 1)
    result["size_bytes"] = image_size(args.tag) if result["status"] == 0 else 0
    result["load_after"] = round(os.getloadavg()[0], 2)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    result["cpu_seconds"] = round(usage.ru_utime + usage.ru_stime, 1)  # every step, all cores
    print("build.py:", json.dumps(result), flush=True)
    if args.status:
        tmp = args.status.with_suffix(".tmp")
        tmp.write_text(json.dumps(result))
        tmp.replace(args.status)  # whole or absent: a waiting test never reads half of it
    return result["status"]


if __name__ == "__main__":
    sys.exit(main())
