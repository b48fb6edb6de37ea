"""``python -m bench``: every subcommand parses its options and refuses bad ones, a saved
result prints as its tables, and a dry run measures the bare page end to end."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys

import pytest

from bench.__main__ import main, parse
from bench.procs import RESULTS
from bench.scaleout import Abuse
from bench.schema import validate
from tests.conftest import ROOT


def test_every_subcommand_parses_with_its_defaults():
    assert (parse(["pages"]).reps, parse(["pages"]).paired) == (20, True)
    assert parse(["pages"]).first_pairs == 3
    args = parse(["class", "10,30", "--json"])
    assert (args.klass, args.replicas, args.abuser, args.json) == ([10, 30], None, False, True)
    assert parse(["flood", "--inputs", "30", "--pages", "attention"]).pages == ["attention"]
    assert parse(["phone", "--all"]).runs == [
        "direct/none",
        "direct/phone",
        "proxy/none",
        "proxy/phone",
    ]
    assert parse(["profile", "--pages", "bottleneck"]).reruns == 10


@pytest.mark.parametrize(
    "command", ["pages", "class", "capacity", "rooms", "flood", "phone", "profile"]
)
def test_help_of_every_subcommand(command, capsys):
    with pytest.raises(SystemExit) as stop:
        parse([command, "--help"])
    assert stop.value.code == 0
    assert "--out" in capsys.readouterr().out


@pytest.mark.parametrize(
    "bad, says",
    [
        (["pages", "--reps", "0"], "--reps must be at least 1"),
        (["pages", "--aa", "-1"], "--aa must be 0 or more"),
        (["class", "30", "--abuser", "--replicas", "1,2"], "one replica count"),
        (["class", "30", "--replicas", "0"], "--replicas must be within 1..8"),
        (["class", "30", "--replicas", "1,1"], "a count twice"),
        (["class", "30", "--abuser", "--abuse-attempts", "0"], "--abuse-attempts"),
        (["class", "0"], "class sizes must be within 1..500"),
        (["flood", "--inputs", "0"], "--inputs must be within"),
        (["flood", "--pages", "nowhere"], "pages must be among"),
        (["phone", "--runs", "proxy/tablet"], "unknown runs"),
        (["class"], "give the class sizes"),
        (["capacity", "0", "--ceiling", "0"], "give class sizes or --ceiling sizes"),
        (["capacity", "100,100"], "a count twice"),
        (["capacity", "--replicas", "9"], "--replicas must be within 1..8"),
        (["rooms", "--classes", "5"], "--classes must be within 1..4"),
        (["rooms", "--vote-for", "1"], "--vote-for >= 5"),
        (["rooms", "--port", "80"], "--port must be within"),
        ([], "required"),
    ],
)
def test_bad_options_are_refused_with_a_reason(bad, says, capsys):
    with pytest.raises(SystemExit) as stop:
        parse(bad)
    assert stop.value.code == 2
    assert says in capsys.readouterr().err


@pytest.mark.parametrize("doc", ["README.md", "bench/README.md", "deploy/README.md"])
def test_every_bench_command_in_the_docs_parses(doc):
    text = (ROOT / doc).read_text(encoding="utf-8")
    commands = [c.split("#")[0] for c in re.findall(r"python -m bench\b[^`\n]*", text)]
    for command in commands:
        argv = shlex.split(command)[3:]
        if argv and "|" not in argv[0]:  # `python -m bench` alone, or its list, names the CLI
            parse(argv)
    assert commands or doc != "bench/README.md"


def test_the_abuser_process_gets_its_settings_through_the_command_line():
    cfg = Abuse(attempts=7, open_seconds=3.5, seconds=9.0, rerun_sessions=2, openers=1)
    argv = cfg.argv("http://127.0.0.1:8670", ("attention", "lang=en"))
    assert argv[:3] == [sys.executable, "-m", "bench"]
    spec = json.loads(parse(argv[3:]).spec)
    assert (spec.pop("base"), spec.pop("page")) == (
        "http://127.0.0.1:8670",
        ["attention", "lang=en"],
    )
    assert Abuse(**spec) == cfg


@pytest.mark.parametrize(
    "command, saved, shows",
    [
        ("pages", "pages.json", "| bare page (baseline) |"),
        ("class", "class.json", "| students | arrive p50 (s) |"),
        ("class", "abuse.json", "with the abuser"),
        ("flood", "flood.json", "ceiling"),
        ("phone", "phone.json", "| page | MB direct |"),
        ("capacity", "capacity.json", "| where | students | arrived | refused |"),
        ("rooms", "rooms.json", "| class | room | arrived |"),
    ],
)
def test_a_saved_result_prints_as_its_tables(command, saved, shows, capsys):
    assert main([command, "--table", str(RESULTS / saved)]) == 0
    assert shows in capsys.readouterr().out


def test_dry_run_prints_a_valid_bare_result():
    if not os.path.exists("/usr/bin/chromium"):
        msg = "/usr/bin/chromium not found: apt-get install chromium"
        if os.environ.get("CI"):
            pytest.fail(msg + " -- CI is set, so this is a failure, not a skip")
        pytest.skip(msg)
    cmd = [sys.executable, "-m", "bench", "pages", "--dry-run", "--json", "--reps", "2"]
    run = subprocess.run(
        cmd + ["--again", "1"], cwd=ROOT, capture_output=True, text=True, timeout=280
    )
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout)
    assert result["schema_problems"] == [] and result["errors"] == []
    assert validate(result, full=False) == []
    assert result["bare"]["reruns"] == 2
    assert result["bare"]["first_render_again_s"] > 0  # one later visit, timed
    assert result["bare"]["control"].startswith("slider[0]")
    assert "pages" not in result and "model_ms" not in result
