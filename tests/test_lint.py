"""The README's test command also enforces lint: ruff check + ruff format on tracked files."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.conftest import ROOT


def _tracked_python_files() -> list[str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: cannot tell which files are tracked")
    out = subprocess.run(
        ["git", "ls-files", "-z", "--", "*.py"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    return [f for f in out.split("\0") if f and (ROOT / f).is_file()]


@pytest.mark.parametrize("command", [["check"], ["format", "--check"]], ids=["check", "format"])
def test_ruff(command):
    files = _tracked_python_files()
    assert files, "no tracked python files?"
    ruff = shutil.which("ruff")
    assert ruff, "ruff is not installed: pip install -r requirements-dev.txt"
    result = subprocess.run([ruff, *command, *files], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
