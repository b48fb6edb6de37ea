"""Mirror Streamlit's hashed assets, pre-compressed, for nginx to serve from disk.

    python deploy/precompress.py OUT [--min-bytes 1024] [--jobs N] [--only-these LIST]
                                     [--icons deploy/material-icons.txt]
    python deploy/precompress.py --list-icons .   # the icons the app and Streamlit name

Each text asset of ``streamlit/static/static/`` gets ``.br`` (brotli 11) and ``.gz`` beside
it for nginx's ``brotli_static``/``gzip_static``; ``--icons`` swaps in an icon-font subset;
``--only-these`` limits it to a first visit's assets (the tests' mirror). deploy/README.md
says more."""

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


def stamp(
    min_bytes: int, only: frozenset[str] | None = None, icons: frozenset[str] | None = None
) -> dict:
    import hashlib

    import streamlit

    out = {
        "streamlit": streamlit.__version__,
        "min_bytes": min_bytes,
        "brotli": BROTLI_QUALITY,
        "gzip": GZIP_LEVEL,
    }
    for key, names in (("only", only), ("icons", icons)):
        if names is not None:
            out[key] = hashlib.sha256("\n".join(sorted(names)).encode()).hexdigest()[:16]
    return out


_HASH = re.compile(r"\.[A-Za-z0-9_-]{8}(\.[a-z0-9]+)$")


def unhashed(rel: str) -> str:
    """``js/PlotlyChart.D9Z0_fxz.js`` -> ``js/PlotlyChart.js`` (Vite's content hash out)."""
    return _HASH.sub(r"\1", rel)


def read_list(path: Path) -> frozenset[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return frozenset(x.strip() for x in lines if x.strip() and not x.startswith("#"))


# --- the icon font: only the icons that can be drawn ------------------------------------------
# Streamlit's chrome and every `:material/name:` in a label or a text draw with one font,
# Material Symbols Rounded: 0.37 MB of woff2 holding ~4,000 icons, fetched on every first
# visit (the biggest file after the chart bundle). The mirror holds a subset instead, under
# the same hashed name: the icons named in Streamlit's code and the app's (the list
# deploy/material-icons.txt, which a test keeps equal to the code), and the letters their
# names are typed with. An icon is a ligature of its name's letters (GSUB).
ICON_FONT = re.compile(r"^media/MaterialSymbols-Rounded\.[A-Za-z0-9_-]{8}\.woff2$")
ICON_NAME = re.compile(r":material/([a-z0-9_]+):")
ICON_LETTERS = "abcdefghijklmnopqrstuvwxyz0123456789_"
APP_CODE = (
    "app.py",
    "pages",
    "lessons",
    "poll",
    "ui",
    "serve",
    "charts",
    "core",
)  # what draws the app's icons
ICON_LIST_HEADER = (
    "The icons the deploy's icon font keeps: python deploy/precompress.py --list-icons . "
    "> deploy/material-icons.txt"
)


def used_icons(app_root: Path, src: Path | None = None) -> frozenset[str]:
    """Every icon name written ``:material/name:`` in Streamlit (its JS bundle and its Python)
    and in the app (its code and its catalogues, whose texts are markdown)."""
    import streamlit

    files = [*(src or streamlit_static()).rglob("*.js")]
    files += Path(streamlit.__file__).parent.rglob("*.py")
    for part in APP_CODE:
        path = app_root / part
        files += [path] if path.is_file() else path.rglob("*.py")
    files += (app_root / "assets" / "i18n").rglob("*.json")
    names: set[str] = set()
    for path in files:
        names.update(ICON_NAME.findall(path.read_text(encoding="utf-8", errors="replace")))
    return frozenset(names)


def ligature(font, name: str) -> str | None:
    """The glyph ``name``'s letters turn into in ``font`` (a fontTools TTFont), or ``None``."""
    cmap = font.getBestCmap()
    seq = [cmap.get(ord(c)) for c in name]
    if not seq or None in seq:
        return None
    for lookup in font["GSUB"].table.LookupList.Lookup:
        for sub in lookup.SubTable:
            sub = sub.ExtSubTable if sub.LookupType == 7 else sub
            if sub.LookupType != 4:  # ligature substitution
                continue
            for lig in sub.ligatures.get(seq[0], ()):
                if list(lig.Component) == seq[1:]:
                    return lig.LigGlyph
    return None


def subset_icon_font(data: bytes, names: frozenset[str]) -> bytes:
    """The woff2 ``data`` with only the icons ``names`` (unknown names are left out: the full
    font would not draw them either) and the letters that spell them."""
    import io

    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(io.BytesIO(data))
    glyphs = sorted({g for g in (ligature(font, n) for n in names) if g})
    opts = subset.Options()
    opts.layout_closure = False  # a ligature stays only if its icon is kept
    opts.layout_features = ["*"]
    opts.name_IDs = ["*"]
    opts.notdef_outline = True
    opts.flavor = "woff2"
    subsetter = subset.Subsetter(opts)
    subsetter.populate(glyphs=glyphs, text=ICON_LETTERS)
    subsetter.subset(font)
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


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
    icons: frozenset[str] | None = None,
):
    """Make ``out`` (skipped when its STAMP already matches). Returns the summary dict.
    ``icons``: the icon font is replaced by its subset holding these icons."""
    want = stamp(min_bytes, only, icons) | ({"src": str(src)} if src else {})
    src = src or streamlit_static()
    stamp_file = out / "STAMP"
    if stamp_file.exists():
        have = json.loads(stamp_file.read_text())
        keys = {*want, "only", "icons", "src"}  # a setting one of the two lacks differs too
        if {k: have.get(k) for k in keys} == {k: want.get(k) for k in keys}:
            return have | {"cached": True}
    started = time.monotonic()
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    todo = []
    copied = 0
    font_bytes: dict = {}
    for path in sorted(src.rglob("*")):
        if not path.is_file() or path.stat().st_size < min_bytes:
            continue
        dst = tmp / "static" / path.relative_to(src)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, dst)
        dst.chmod(0o644)
        copied += 1
        rel = path.relative_to(src).as_posix()
        if icons is not None and ICON_FONT.match(rel):
            small = subset_icon_font(path.read_bytes(), icons)
            font_bytes = {"font": rel, "full": path.stat().st_size, "subset": len(small)}
            dst.write_bytes(small)
            mtime = path.stat().st_mtime
            os.utime(dst, (mtime, mtime))
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
    if font_bytes:
        summary["icon_font"] = font_bytes
    (tmp / "STAMP").write_text(json.dumps(summary, indent=1) + "\n")
    (tmp / "STAMP").chmod(0o644)
    shutil.rmtree(out, ignore_errors=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp.rename(out)
    return summary | {"cached": False}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "out", type=Path, nargs="?", help="the folder nginx serves /static/ from (its root)"
    )
    ap.add_argument("--min-bytes", type=int, default=1024, help="smaller files stay proxied")
    ap.add_argument("--jobs", type=int, default=None, help="compressing processes (default 2)")
    ap.add_argument("--src", type=Path, default=None, help="another folder than Streamlit's")
    ap.add_argument("--only-these", type=Path, default=None, help="compress only these assets")
    ap.add_argument("--icons", type=Path, default=None, help="keep only these icons in the font")
    ap.add_argument(
        "--list-icons", type=Path, default=None, metavar="APP", help="print the icons APP uses"
    )
    args = ap.parse_args(argv)
    if args.list_icons is not None:
        names = sorted(used_icons(args.list_icons, args.src))
        print(f"# {ICON_LIST_HEADER}\n" + "\n".join(names))
        return 0
    if args.out is None:
        ap.error("the folder to write (OUT) is missing")
    only = read_list(args.only_these) if args.only_these else None
    icons = read_list(args.icons) if args.icons else None
    summary = build(args.out.resolve(), args.min_bytes, args.jobs, args.src, only, icons)
    print(json.dumps(summary), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
