"""The README keeps its promises: the two set-up commands first, the manifest's own table,
and (with bench/README.md and deploy/README.md) only files that exist and no issue numbers."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from core import report, zoo

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = (
    "README.md",
    "CONTRIBUTING.md",
    "bench/README.md",
    "deploy/README.md",
    "THIRD_PARTY_NOTICES.md",
)


def test_readme_opens_with_the_two_setup_commands():
    block = README.split("```bash", 1)[1].split("```", 1)[0]
    commands = [line.split("#")[0].strip() for line in block.strip().splitlines()]
    assert commands == [
        "pip install -r requirements.txt && streamlit run app.py",
        "pip install -r requirements-dev.txt && python -m pytest",
    ]
    assert README.index("```bash") < README.index("## ")


@pytest.mark.parametrize("doc", DOCS)
def test_docs_name_only_files_that_exist(doc):
    """Every repository path a document names (in backticks or as a link) is there: a file
    moved or a result replaced must take its mention along (templates like <slug> aside)."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    named = set(re.findall(r"`([\w.\-]+(?:/[\w.\-]*)+)`", text))
    named |= set(re.findall(r"\]\(([^)#\s]+)\)", text))
    here = (ROOT / doc).parent
    missing = [
        p
        for p in sorted(named)
        if "<" not in p
        and not p.startswith(("http", "/", "~"))
        and not (ROOT / p).exists()
        and not (here / p).exists()
    ]
    assert named and not missing, f"{doc} names files that do not exist: {missing}"


@pytest.mark.parametrize("doc", DOCS)
def test_docs_state_claims_not_issue_numbers(doc):
    text = (ROOT / doc).read_text(encoding="utf-8")
    found = re.findall(r"\bissues? \d+", text, flags=re.IGNORECASE)
    assert not found, f"{doc} refers to a tracker that is not in the repository: {found}"


@pytest.mark.skipif(not zoo.MANIFEST_PATH.is_file(), reason="no trained zoo")
def test_readme_models_table_is_the_manifests():
    assert report.START in README and report.END in README, "README lacks the models table"
    shown = README.split(report.START, 1)[1].split(report.END, 1)[0].strip()
    assert shown == report.models_table(zoo.load_manifest()).strip(), (
        "README's model table differs from the manifest: paste `python -m core.report` output"
    )


@pytest.mark.skipif(not zoo.MANIFEST_PATH.is_file(), reason="no trained zoo")
def test_evaluate_json_matches_the_manifest_for_a_small_and_a_probe_model():
    names = ["gru_plain_32", "probe_cnn4"]
    cmd = [sys.executable, "-m", "core.evaluate", "--json"] + [f"--model={n}" for n in names]
    run = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    manifest = zoo.load_manifest()["models"]
    got = result["models"]["gru_plain_32"]
    assert got["params"] == manifest["gru_plain_32"]["params"]
    assert got["by_length"] == manifest["gru_plain_32"]["metrics"]["by_length"]
    assert set(got["by_length"]) == {"1-10", "11-20", "21-30", "31-40", "41+"}
    assert result["probes"]["coref"]["gru_plain_32"] == manifest["gru_plain_32"]["metrics"]["coref"]
    assert (
        result["probes"]["distance"]["probe_cnn4"] == manifest["probe_cnn4"]["metrics"]["distance"]
    )


def test_the_paths_slide_counts_are_the_decks():
    from ui.nav import deck

    assert f"*Class* (the default, {len(deck('class'))} slides)" in README
    assert f"every part of every page ({len(deck('full'))} slides)" in README
