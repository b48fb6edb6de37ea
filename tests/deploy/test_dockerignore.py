""".dockerignore keeps tests, benchmarks, results, secrets and git data out of the image's
build context, and lets every package the app runs in.

The patterns are matched here as Docker and podman read them (``**`` spans folders, a
leading ``/`` is dropped, a later ``!pattern`` lets a path back in), against the files
git tracks plus the untracked ones a developer's checkout typically holds.
"""

from __future__ import annotations

import subprocess
from functools import cache

import pytest

from deploy import dockerignore
from tests.conftest import APP_PACKAGES, ROOT

KEPT_OUT = [
    "tests/conftest.py",
    "tests/deploy/test_image.py",
    "tests/artifacts/page.png",
    "bench/__init__.py",
    "bench/results/2026-11-29.json",
    "results/run.json",
    "core/results/run.json",
    ".env",
    ".env.local",
    "deploy/.env",
    ".git/HEAD",
    ".git",
    ".ci/run",
    ".streamlit/secrets.toml",
    "core/__pycache__/zoo.cpython-311.pyc",
    ".venv/bin/python",
    ".benchmarks/0001.json",
    "requirements-dev.txt",
    "tools/plotly-bundle/package.json",
    "tools/plotly-bundle/node_modules/plotly.js/LICENSE",
]
LET_IN = [
    "app.py",
    "requirements.txt",
    ".streamlit/config.toml",
    "deploy/docker/start.sh",
    "deploy/nginx/road.conf",
    "deploy/precompress.py",
    "deploy/material-icons.txt",
    "lessons/bottleneck/data.py",  # top-level packages the app may grow come along
    "serve/fairshare.py",
    "static/vendor/plotly-road-4.1.1.min.js",
]


@cache
def _rules() -> dockerignore.Rules:
    return dockerignore.read_rules(ROOT / ".dockerignore")


def ignored(path: str) -> bool:
    """Whether the build context leaves ``path`` out (the last matching rule wins)."""
    return dockerignore.ignored(path, _rules())


def test_the_matcher_reads_patterns_as_docker_does():
    rx = dockerignore.pattern_regex
    assert rx("tests").fullmatch("tests/a/b.py")
    assert not rx("tests").fullmatch("mytests/a.py")
    assert rx("**/results").fullmatch("bench/results/x.json")
    assert rx("**/results").fullmatch("results")
    assert rx("*.pyc").fullmatch("x.pyc") and not rx("*.pyc").fullmatch("core/x.pyc")
    assert rx(".env.*").fullmatch(".env.local") and not rx(".env.*").fullmatch(".envx")


@pytest.mark.parametrize("path", KEPT_OUT)
def test_kept_out_of_the_image(path):
    assert ignored(path), f"{path} would be copied into the image: add it to .dockerignore"


@pytest.mark.parametrize("path", LET_IN)
def test_let_into_the_image(path):
    assert not ignored(path), f".dockerignore leaves {path} out of the image"


def test_every_tracked_file_of_the_app_goes_in_and_no_test_or_bench_file():
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert "app.py" in tracked
    kept = [p for p in tracked if not ignored(p)]
    leaked = [p for p in kept if p.split("/")[0] in {"tests", "bench", ".git", ".ci"}]
    assert not leaked, leaked
    for folder in (*APP_PACKAGES, "assets", "deploy"):
        inside = [p for p in tracked if p.startswith(folder + "/")]
        assert inside and all(not ignored(p) for p in inside), folder
    # every top-level Python package the app may import goes in, whatever its name
    packages = {p.split("/")[0] for p in tracked if p.count("/") == 1 and p.endswith("__init__.py")}
    assert {"core", "ui"} <= packages
    assert {p for p in packages if ignored(p + "/__init__.py")} == {"tests", "bench"}
