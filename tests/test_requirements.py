"""requirements.txt serves two readers: a host that installs it as it is (Streamlit Community
Cloud, with uv or pip) must get torch's CPU build, and the README's first command must still
resolve on a machine that reaches only a PyPI mirror and its own wheel folders."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REQUIREMENTS = ROOT / "requirements.txt"
# torch's CPU wheels, one page of links: a source for torch alone (an extra index would be
# asked for every package, and uv would take each from the first index that lists it)
CPU_PAGE = "https://download.pytorch.org/whl/cpu/torch/"
CUDA_ONLY = ("nvidia-", "cuda-", "triton")  # what PyPI's Linux torch brings along


def lines(path: Path) -> list[str]:
    """The file's requirement and option lines, comments and blank lines left out."""
    found = (ln.split(" #")[0].strip() for ln in path.read_text(encoding="utf-8").splitlines())
    return [ln for ln in found if ln and not ln.startswith("#")]


def pins(path: Path = REQUIREMENTS) -> dict[str, str]:
    """``{name: version}`` of the file's ``name[extras]==version`` lines (an extra that names
    a package of its own, ``psycopg[binary]``, pins ``psycopg-binary`` too)."""
    out = {}
    for line in lines(path):
        m = re.fullmatch(r"([A-Za-z0-9_.\-]+)(?:\[([\w,\-]+)\])?==([\w.+\-]+)", line)
        if m:
            name, extras, version = m.group(1).lower(), m.group(2), m.group(3)
            out[name] = version
            if name == "psycopg" and extras and "binary" in extras.split(","):
                out["psycopg-binary"] = version
    return out


def test_torch_comes_from_its_cpu_page_and_nothing_else_does():
    options = [ln for ln in lines(REQUIREMENTS) if ln.startswith("-")]
    assert options == [f"--find-links {CPU_PAGE}"], (
        f"requirements.txt's only option must be torch's CPU page: {options}"
    )
    requirements = [ln for ln in lines(REQUIREMENTS) if not ln.startswith("-")]
    assert all("==" in ln for ln in requirements), f"every requirement pinned: {requirements}"
    # no local label: 2.13.0+cpu from the page outranks PyPI's 2.13.0 where the page answers,
    # and a PyPI-only mirror still has a torch that satisfies the pin
    assert "+" not in pins()["torch"], "pin torch without +cpu: a PyPI mirror has no such build"


def test_the_dev_requirements_and_the_image_install_the_same_runtime():
    dev = lines(ROOT / "requirements-dev.txt")
    assert "-r requirements.txt" in dev, "requirements-dev.txt must include requirements.txt"
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert f"torch=={pins()['torch']}" in dockerfile, "the image's torch is not requirements.txt's"


def test_the_readme_first_command_resolves_with_this_machines_pip(tmp_path):
    """``pip install -r requirements.txt`` as the README says, resolved (not installed) from
    the sources this machine's pip is set up with. Where torch's CPU page cannot be reached,
    pip asks it once for each package (``PIP_RETRIES=0``; by default five times, with pauses)."""
    report = tmp_path / "report.json"
    cmd = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "-q"]
    cmd += ["--report", str(report), "-r", str(REQUIREMENTS)]
    env = dict(os.environ, PIP_RETRIES="0", PIP_DISABLE_PIP_VERSION_CHECK="1")
    run = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    chosen = {
        i["metadata"]["name"].lower(): i["metadata"]["version"]
        for i in json.loads(report.read_text())["install"]
    }
    for name, version in pins().items():
        assert chosen[name].split("+")[0] == version, f"{name}: {chosen[name]} for {version}"
    if chosen["torch"].endswith("+cpu"):  # the CPU build brings no CUDA libraries along
        assert not [n for n in chosen if n.startswith(CUDA_ONLY)], sorted(chosen)
