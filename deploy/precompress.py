"""Mirror Streamlit's hashed assets, pre-compressed, for nginx to serve from disk.

    python deploy/precompress.py OUT [--min-bytes 1024] [--jobs N] [--only-these LIST]

Copies every file of ``streamlit/static/static/`` (what Streamlit serves under ``/static/``)
of at least ``--min-bytes`` to ``OUT/static/`` and writes, next to each text asset (JS, CSS,
SVG, JSON, ...), ``<name>.br`` (brotli, quality 11) and ``<name>.gz`` (gzip, level 9),
made once instead of on every first visit. nginx serves them with ``brotli_static`` and
``gzip_static`` (deploy/nginx/road.conf, root given by ``ROAD_STATIC_DIR`` to
deploy/nginx/layout.sh); a smaller file, or any path not here, is proxied to the app and
compressed on the fly as before.

``--only-these LIST`` compresses only the text assets named in LIST (one per line, the
content hash left out: ``js/PlotlyChart.js``; ``deploy/first-visit-assets.txt`` lists what a
first visit loads): the tests' mirror, made in ~1/3 of the time; the others are proxied or
compressed on the fly. ``OUT/STAMP`` names the Streamlit version and the settings: a second
run with the same ones returns at once (the tests keep the folder in the system's temporary
folder). Files and folders are world-readable: nginx's workers may run as another user.
The folder is written beside ``OUT`` and renamed into place, so a reader never sees half
of it.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

# What nginx's gzip_types / brotli_types list (deploy/nginx/road.conf), by file extension.
TEXT = {".js", ".mjs", ".css", ".svg", ".json", ".txt", ".map", ".wasm", ".html"}
BROTLI_QUALITY = 11
GZIP_LEVEL = 9


def streamlit_static() -> Path:
    """The folder Streamlit serves as ``/static/`` (``streamlit/static/static``)."""
    import streamlit

    return Path(streamlit.__file__).parent / "static" / "static"


def stamp(min_bytes: int, only: frozenset[str] | None = None) -> dict:
    import hashlib

    import streamlit

    out = {
        "streamlit": streamlit.__version__,
        "min_bytes": min_bytes,
        "brotli": BROTLI_QUALITY,
        "gzip": GZIP_LEVEL,
    }
    if only is not None:
        out["only"] = hashlib.sha256("\n".join(sorted(only)).encode()).hexdigest()[:16]
    return out


_HASH = re.compile(r"\.[A-Za-z0-9_-]{8}(\.[a-z0-9]+)$")


def unhashed(rel: str) -> str:
    """``js/PlotlyChart.D9Z0_fxz.js`` -> ``js/PlotlyChart.js`` (Vite's content hash out)."""
    return _HASH.sub(r"\1", rel)


def read_list(path: Path) -> frozenset[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return frozenset(x.strip() for x in lines if x.strip() and not x.startswith("#"))


def _compress(job: tuple[str, str]) -> tuple[str, int, int, int]:
    """Write ``dst.br`` and ``dst.gz`` for one text asset: (name, raw, br, gz) bytes."""
    import brotli

    src, dst = job
    data = Path(src).read_bytes()
    br = brotli.compress(data, quality=BROTLI_QUALITY)
    gz = gzip.compress(data, compresslevel=GZIP_LEVEL, mtime=0)
    mtime = os.stat(src).st_mtime
    for suffix, body in ((".br", br), (".gz", gz)):
        out = Path(dst + suffix)
        out.write_bytes(body)
        out.chmod(0o644)
        os.utime(out, (mtime, mtime))
    return dst, len(data), len(br), len(gz)


def build(
    out: Path,
    min_bytes: int = 1024,
    jobs: int | None = None,
    src: Path | None = None,
    only: frozenset[str] | None = None,
):
    """Make ``out`` (skipped when its STAMP already matches). Returns the summary dict."""
    want = stamp(min_bytes, only) | ({"src": str(src)} if src else {})
    src = src or streamlit_static()
    stamp_file = out / "STAMP"
    if stamp_file.exists():
        have = json.loads(stamp_file.read_text())
        if {k: have.get(k) for k in want} == want:
            return have | {"cached": True}
    started = time.monotonic()
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    todo = []
    copied = 0
    for path in sorted(src.rglob("*")):
        if not path.is_file() or path.stat().st_size < min_bytes:
            continue
        dst = tmp / "static" / path.relative_to(src)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, dst)
        dst.chmod(0o644)
        copied += 1
        rel = path.relative_to(src).as_posix()
        if path.suffix in TEXT and (only is None or unhashed(rel) in only):
            todo.append((str(path), str(dst)))
    # the biggest first: the pool's two workers end at about the same time
    todo.sort(key=lambda j: -os.path.getsize(j[0]))
    jobs = jobs or min(2, os.cpu_count() or 1)
    raw = br = gz = 0
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for _, r, b, g in pool.map(_compress, todo, chunksize=1):
            raw, br, gz = raw + r, br + b, gz + g
    for d in [tmp, *tmp.rglob("*")]:
        if d.is_dir():
            d.chmod(0o755)
    summary = want | {
        "files": copied,
        "compressed": len(todo),
        "raw_bytes": raw,
        "br_bytes": br,
        "gz_bytes": gz,
        "seconds": round(time.monotonic() - started, 1),
        "jobs": jobs,
    }
    (tmp / "STAMP").write_text(json.dumps(summary, indent=1) + "\n")
    (tmp / "STAMP").chmod(0o644)
    shutil.rmtree(out, ignore_errors=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp.rename(out)
    return summary | {"cached": False}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="the folder nginx serves /static/ from (its root)")
    ap.add_argument("--min-bytes", type=int, default=1024, help="smaller files stay proxied")
    ap.add_argument("--jobs", type=int, default=None, help="compressing processes (default 2)")
    ap.add_argument("--src", type=Path, default=None, help="another folder than Streamlit's")
    ap.add_argument("--only-these", type=Path, default=None, help="compress only these assets")
    args = ap.parse_args(argv)
    only = read_list(args.only_these) if args.only_these else None
    summary = build(args.out.resolve(), args.min_bytes, args.jobs, args.src, only)
    print(json.dumps(summary), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
