"""What a host that installs requirements.txt gets: a fresh virtual environment's size and
install time, its first start, and its memory after every page.

    python tools/clean_install.py [--requirements requirements.txt] [--keep DIR] [--timeout 600]

Makes a virtual environment in a temporary folder, runs ``pip install -r`` there (this
machine's pip settings apply: a mirror, a wheel folder), then starts ``streamlit run app.py``
from it as Streamlit Community Cloud does (no environment of ours, a fresh data and corpus
cache folder, a loopback port) and times, from the spawn, the health probe's first answer and
the home page's first run as a simulated visitor sees it (bench.classroom); that visitor then
opens every page once and the server's RSS is read. Everything stops by itself within
``--timeout``; the result is printed as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import procs  # noqa: E402 - the repository's root is put on the path above
from bench.classroom import Student  # noqa: E402
from bench.pages import page_slugs  # noqa: E402


def tree_mb(folder: Path) -> float:
    """The files under ``folder`` in MB (apparent sizes, 1 MB = 10**6 bytes)."""
    total = sum(p.lstat().st_size for p in folder.rglob("*") if p.is_file() or p.is_symlink())
    return round(total / 1e6, 1)


def install(venv: Path, requirements: Path, timeout: float) -> dict:
    """A fresh venv with ``requirements`` installed: seconds, sizes, torch's build."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    t0 = time.monotonic()
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "-r", str(requirements)],
        check=True,
        timeout=timeout,
    )
    seconds = time.monotonic() - t0
    probe = "import torch; print(torch.__version__, torch.version.cuda)"
    version, cuda = subprocess.run(
        [str(python), "-c", probe], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split()
    site = next((venv / "lib").glob("python3*/site-packages"))
    return {
        "install_s": round(seconds, 1),
        "venv_mb": tree_mb(venv),
        "torch_mb": tree_mb(site / "torch"),
        "torch": version,
        "cuda": None if cuda == "None" else cuda,
        "nvidia_mb": tree_mb(site / "nvidia") if (site / "nvidia").is_dir() else 0.0,
    }


async def visit(base: str, slugs: list[str], timeout: float) -> dict:
    """The home page's first run, then every page once, by one simulated visitor."""
    async with Student(base, timeout=timeout) as s:
        home = await s.arrive("")
        if not home.ok:
            raise RuntimeError(f"home page: {home.error}")
        done = time.monotonic()
        pages = {}
        for slug in slugs:
            a = await s.arrive(slug, "lang=en")
            pages[slug] = a.seconds if a.ok else a.error
        return {"home_done": done, "home_s": home.seconds, "pages_s": pages}


def first_start(venv: Path, folder: Path, timeout: float) -> dict:
    """``streamlit run app.py`` from ``venv``: health, home page's first run, RSS after all."""
    port = procs.free_port()
    cmd = procs.streamlit_command("app.py", port)
    cmd[0] = str(venv / "bin" / "python")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ROAD_", "STREAMLIT_"))}
    env |= {"ROAD_DATA_DIR": str(folder / "data"), "ROAD_CACHE_DIR": str(folder / "cache")}
    log = folder / "server.log"
    launched = time.monotonic()
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        healthy = procs.wait_healthy(base, proc, log, launched + timeout)
        seen = asyncio.run(asyncio.wait_for(visit(base, page_slugs(), timeout), timeout))
        return {
            "health_s": round(healthy - launched, 2),
            "home_first_run_s": round(seen["home_done"] - launched, 2),
            "home_run_s": seen["home_s"],
            "rss_after_every_page_mb": procs.rss_mb(proc.pid),
            "pages_s": seen["pages_s"],
        }
    finally:
        procs.stop_proc(proc)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requirements", type=Path, default=ROOT / "requirements.txt")
    ap.add_argument("--keep", type=Path, help="make the venv here and keep it")
    ap.add_argument("--timeout", type=float, default=600.0, help="s for each step (600)")
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="road-clean-"))
    venv = args.keep or folder / "venv"
    try:
        result = {"requirements": str(args.requirements), "machine": procs.machine()}
        result |= install(venv, args.requirements.resolve(), args.timeout)
        result |= first_start(venv, folder, args.timeout)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
