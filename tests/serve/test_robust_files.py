"""Broken files and a read-only install.

- A missing, corrupted or checksum-failing weight file, or a broken manifest, gives a
  page-level message naming the file and the rebuild command; the other pages keep
  working (no exception anywhere).
- The app writes nothing at run time: every page runs from a read-only copy of the app,
  with a read-only HOME, as a user that cannot override file permissions.

Each scenario runs in a subprocess on a copy of the app, so the copy's ``core.zoo`` reads
the copy's ``assets/models`` (in-process, ``core`` is already imported from the checkout).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from bench import procs
from tests.conftest import APP_PACKAGES, ROOT
from ui.nav import PAGES

MODELS = ROOT / "assets" / "models"
pytestmark = [
    pytest.mark.skipif(
        not (MODELS / "manifest.json").is_file(),
        reason="model zoo not built (python -m core.train --all)",
    ),
    pytest.mark.timeout(1500),
]

# Runs pages with AppTest inside the app copy; prints one JSON line per page.
RUNNER = r"""
import json, sys
from streamlit.testing.v1 import AppTest
for spec in json.loads(sys.argv[1]):
    at = AppTest.from_file("app.py", default_timeout=600)
    for k, v in spec["params"].items():
        at.query_params[k] = v
    at.switch_page(spec["page"])
    at.run()
    out = {
        "page": spec["page"],
        "params": spec["params"],
        "exception": [str(e.value) for e in at.exception],
        "title": [str(e.value) for e in at.main.title],
        "error": [str(e.value) for e in at.main.error],
    }
    print("RESULT " + json.dumps(out, ensure_ascii=False), flush=True)
"""


def copy_app(dest: Path, models: bool = True) -> Path:
    """A full copy of the app (weights copied, not linked, so they can be damaged)."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ROOT / "app.py", dest / "app.py")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for d in (*APP_PACKAGES, "static", ".streamlit"):
        if (ROOT / d).exists():
            shutil.copytree(ROOT / d, dest / d, ignore=ignore)
    (dest / "assets").mkdir()
    for item in (ROOT / "assets").iterdir():
        if item.name == "models" and not models:
            continue
        if item.is_dir():
            shutil.copytree(item, dest / "assets" / item.name, ignore=ignore)
        else:
            shutil.copy2(item, dest / "assets" / item.name)
    return dest


def run_pages(app: Path, specs: list[dict], *, env: dict | None = None, prefix=()) -> list[dict]:
    proc = subprocess.run(
        [*prefix, sys.executable, "-c", RUNNER, json.dumps(specs)],
        cwd=app,
        env={**os.environ, "PYTHONPATH": str(app), "PYTHONDONTWRITEBYTECODE": "1", **(env or {})},
        capture_output=True,
        text=True,
        timeout=1400,
    )
    results = [
        json.loads(line[7:]) for line in proc.stdout.splitlines() if line.startswith("RESULT ")
    ]
    assert proc.returncode == 0 and len(results) == len(specs), proc.stderr[-3000:]
    return results


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def spec(slug: str, **params: str) -> dict:
    return {"page": f"pages/{slug}.py", "params": params}


def test_damaged_weights_name_the_file_and_other_pages_keep_working(tmp_path):
    app = copy_app(tmp_path / "app")
    models = app / "assets" / "models"
    manifest = json.loads((models / "manifest.json").read_text(encoding="utf-8"))
    # transformer.pt: garbage bytes whose checksum the manifest agrees with -> "corrupt"
    (models / "transformer.pt").write_bytes(b"PK\x03\x04 not a torch file" * 100)
    manifest["models"]["transformer"]["sha256"] = sha(models / "transformer.pt")
    # lm_gru.pt: deleted -> "missing"
    (models / "lm_gru.pt").unlink()
    # cnn_s2s.pt: one byte appended, manifest unchanged -> "checksum"
    with (models / "cnn_s2s.pt").open("ab") as f:
        f.write(b"\0")
    (models / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")

    results = run_pages(
        app,
        [
            spec("attention", part="align", model="transformer"),
            spec("autoregressive", part="lm"),
            spec("cnn_receptive_field", part="measured", sent="en"),  # the part with cnn_s2s
            spec("path_length"),
            spec("home"),
        ],
    )
    for r in results:
        assert r["exception"] == [], r
        assert r["title"], r
    trf, lm, cnn, path, home = results
    assert any("assets/models/transformer.pt" in e and "core.train" in e for e in trf["error"]), trf
    assert any("assets/models/lm_gru.pt" in e and "core.train" in e for e in lm["error"]), lm
    assert any("assets/models/cnn_s2s.pt" in e and "core.train" in e for e in cnn["error"]), cnn
    for r in (path, home):  # pages that do not need the damaged files keep working
        assert not any("assets/models" in e for e in r["error"]), r


# A page whose default part reads no model opens on a part that reads the manifest.
MANIFEST_PART = {
    "path_length": "probes",
    "cnn_receptive_field": "probes",
    "rnn_gradients": "trained",  # its first part is a formula with a fresh, untrained cell
}


def test_broken_manifest_is_named_on_every_page(tmp_path):
    app = copy_app(tmp_path / "app")
    (app / "assets" / "models" / "manifest.json").write_text('{"models": {', encoding="utf-8")
    lessons = [p for p in PAGES if p.listed]  # the poll room reads no model
    specs = [
        spec(p.slug, part=MANIFEST_PART[p.slug]) if p.slug in MANIFEST_PART else spec(p.slug)
        for p in lessons
    ]
    results = run_pages(app, specs, env={})
    named = set()
    for r in results:
        assert r["exception"] == [], r
        assert r["title"], r
        if any("manifest.json" in e and "core.train" in e for e in r["error"]):
            named.add(r["page"])
    # home names it in its model list; live trains its own models and reads none
    want = {s["page"] for s in specs} - {"pages/home.py", "pages/live.py"}
    assert want <= named, [(r["page"], r["error"]) for r in results]


def _snapshot(root: Path) -> dict[str, tuple[int, float]]:
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime)
        for p in sorted(root.rglob("*"))
        if not p.is_symlink()
    }


def _read_only(root: Path) -> None:
    for p in [root, *root.rglob("*")]:
        mode = p.stat().st_mode
        p.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def _writable(root: Path) -> None:
    for p in [root, *root.rglob("*")]:
        p.chmod(p.stat().st_mode | stat.S_IWUSR)


def _unprivileged() -> tuple[str, ...]:
    """As root, permissions bind only without CAP_DAC_OVERRIDE: drop it (setpriv)."""
    if os.geteuid() != 0:
        return ()
    if not shutil.which("setpriv"):
        pytest.skip("running as root without setpriv: a read-only directory would not bind")
    return ("setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", "--")


@pytest.mark.long
def test_every_page_runs_from_a_read_only_directory(tmp_path):
    app = copy_app(tmp_path / "app")
    home = tmp_path / "home"
    home.mkdir()
    prefix = _unprivileged()
    _read_only(app)
    _read_only(home)
    before = _snapshot(app)
    env = {"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
    try:
        # the permissions really bind for the subprocess user
        probe = subprocess.run([*prefix, "touch", str(app / "probe")], capture_output=True)
        assert probe.returncode != 0, "the read-only copy is writable: the test would prove nothing"
        results = run_pages(app, [spec(p.slug) for p in PAGES], env=env, prefix=prefix)
        for r in results:
            assert r["exception"] == [], r
            assert r["title"], r
            assert not any("ermission" in e or "Read-only" in e for e in r["error"]), r
        # a real server starts and answers from the read-only directory too (its log is
        # written by this process, outside the copy)
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **env}
        log = tmp_path / "server.log"
        try:
            server = procs.start_server("app.py", app, log, 120, env=env, prefix=prefix)
        except RuntimeError as exc:
            raise AssertionError(f"streamlit did not start from a read-only directory: {exc}")
        try:
            with urllib.request.urlopen(server.url("/attention"), timeout=10) as r:
                assert r.status == 200
        finally:
            procs.stop_server(server)
        out = log.read_text(errors="replace")
        assert "Traceback" not in out, out[-3000:]
        assert _snapshot(app) == before, "the app wrote into its own directory"
        assert not any(home.rglob("*")), "the app wrote into HOME"
    finally:
        _writable(app)
        _writable(home)
