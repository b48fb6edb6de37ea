"""The handout, built on the server in the background for the presenter's sidebar.

A build is ``python -m lessons handout`` in a process of its own at the lowest CPU priority
(niceness 19 and, on Linux, the idle scheduling class: it takes a core only when the class
leaves one idle), writing its progress to a file; its files are kept per language and path
in the cache folder, under a key of what they are made from (the app's version and code, the
models' manifest, the text catalogues), so a new release or retrained model builds afresh
and nothing else ever does. One build per language and path at a time per server.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from core.i18n import catalogue_files

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "assets" / "models" / "manifest.json"  # core.zoo.MANIFEST_PATH


@dataclass(frozen=True)
class State:
    """Where one handout is: ``ready`` (its files), ``building`` (``done`` of ``total``
    steps), ``failed`` (``error``), or none of them yet."""

    ready: bool = False
    building: bool = False
    done: int = 0
    total: int = 0
    html: Path | None = None
    pdf: Path | None = None
    error: str | None = None


# What a handout is drawn by, besides the models and the texts: the app's code and its chart code
SOURCES = ("charts", "core", "lessons", "pages", "poll", "serve", "ui", "static")


def source_key() -> str:
    """What a handout is made from, as a short hash: the app's version and code, the models'
    manifest and every text catalogue (~10 ms, once per server)."""
    digest = hashlib.sha256()
    files = [ROOT / "pyproject.toml", MANIFEST, *catalogue_files("en"), *catalogue_files("zh")]
    for folder in SOURCES:
        files += sorted(p for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".js"))
    for path in files:
        digest.update(path.read_bytes() if path.exists() else b"")
    return digest.hexdigest()[:16]


class Builds:
    """The server's handouts (one instance per server process: ``ui`` keeps it)."""

    def __init__(self, root: Path | None = None, command: list[str] | None = None) -> None:
        if root is None:
            # here, not at the top: the sidebar imports this module on a cold server's first
            # page, and the corpus package costs ~40 ms of it (bench: cold start)
            from core.corpus.splits import cache_dir

            root = cache_dir() / "handout"
        self.root = root / source_key()
        self.command = command or [sys.executable, "-m", "lessons", "handout", "--idle"]
        self._running: dict[tuple[str, str], subprocess.Popen] = {}
        self._failed: dict[tuple[str, str], str] = {}
        self._lock = threading.Lock()

    def _folder(self, lang: str, path: str) -> Path:
        return self.root / f"{path}-{lang}"

    def state(self, lang: str, path: str) -> State:
        key = (lang, path)
        folder = self._folder(lang, path)
        with self._lock:
            proc = self._running.get(key)
            if proc is not None and proc.poll() is not None:
                del self._running[key]
                self._finish(key, proc)
                proc = None
            if proc is not None:
                try:
                    seen = json.loads(
                        (folder.with_suffix(".building") / "progress.json").read_text()
                    )
                except (OSError, ValueError):
                    seen = {}
                return State(building=True, done=seen.get("done", 0), total=seen.get("total", 0))
            if key in self._failed:
                return State(error=self._failed[key])
        html = next(folder.glob("*.html"), None) if folder.is_dir() else None
        if html is None:
            return State()
        pdf = html.with_suffix(".pdf")
        return State(ready=True, html=html, pdf=pdf if pdf.exists() else None)

    def _finish(self, key: tuple[str, str], proc: subprocess.Popen) -> None:
        """A build ended: its folder becomes the handout's, or its error is kept."""
        lang, path = key
        work = self._folder(lang, path).with_suffix(".building")
        if proc.returncode == 0 and any(work.glob("*.html")):
            (work / "progress.json").unlink(missing_ok=True)
            final = self._folder(lang, path)
            shutil.rmtree(final, ignore_errors=True)
            work.rename(final)
            return
        log = work / "build.log"
        last = log.read_text(errors="replace").strip().splitlines()[-1:] if log.exists() else []
        self._failed[key] = (last[0] if last else f"exit {proc.returncode}")[:200]

    def start(self, lang: str, path: str) -> None:
        """Start building the handout of ``path`` in ``lang`` unless it is built or building."""
        if self.state(lang, path).ready:
            return
        key = (lang, path)
        with self._lock:
            if key in self._running:
                return
            self._failed.pop(key, None)
            work = self._folder(lang, path).with_suffix(".building")
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir(parents=True)
            args = ["--out", str(work), "--lang", lang, "--path", path]
            args += ["--progress", str(work / "progress.json")]
            with (work / "build.log").open("wb") as log:
                self._running[key] = subprocess.Popen(
                    [*self.command, *args],
                    cwd=ROOT,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
