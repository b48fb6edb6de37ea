"""The capacity bench (``bench/capacity.py``): how py-spy's samples become the share of time
the GIL was held, which class sizes count as held, where clicks cross the goal, and that the
number ``streamlit run app.py`` tells a teacher is the one the latest result holds."""

from __future__ import annotations

import json

from bench import capacity as C
from bench.__main__ import parse
from bench.procs import RESULTS

RAW = """\
thread (0x7F01): "MainThread";_run_once (asyncio/base_events.py:1922);select (selectors.py:468) 30
thread (0x7F02): "ScriptRunner.scriptThread";_run_script (script_runner.py:600) 50
thread (0x7F03): "ScriptRunner.scriptThread";run (app.py:20);chart (ui/draw.py:40) 10
thread (0x7F04): "road-warm-up";_import_all (serve/warmup.py:90) 5
"""


def test_the_gil_share_is_its_samples_over_the_samples_of_the_window():
    by = C.gil_by_thread(RAW)
    assert by == {"MainThread": 30, "ScriptRunner.scriptThread": 60, "road-warm-up": 5}
    figs = C.gil_figures(by, rate_hz=25, seconds=4.0)  # 100 samples expected
    assert figs["held_share"] == 0.95
    assert figs["by_thread"] == {
        "ScriptRunner.scriptThread": 0.6,
        "MainThread": 0.3,
        "road-warm-up": 0.05,
    }
    assert C.gil_figures(C.gil_by_thread(""), 25, 4.0)["held_share"] == 0.0


def row(p95, n, errors=0, refused=0, arrived=None):
    return {
        "click_s": {"p95": p95},
        "errors": errors,
        "refused": refused,
        "arrived": n if arrived is None else arrived,
    }


def test_a_size_is_held_only_with_everyone_in_and_clicks_within_the_goal():
    rows = {
        "100": row(0.2, 100),
        "200": row(0.6, 200),
        "300": row(0.9, 300, refused=12, arrived=288),
        "400": row(1.4, 400),
    }
    assert C.held(rows) == 200  # 300 refused some students at the door
    assert C.crossing(rows) == 400
    rows["300"] = row(0.9, 300)
    assert C.held(rows) == 300
    rows["200"] = row(0.6, 200, errors=1)
    assert C.held(rows) == 100  # a size above one that failed is not counted as held
    assert C.held({"100": row(1.2, 100)}) is None
    assert C.crossing({"100": row(0.3, 100), "200": None}) is None


def test_the_command_line():
    args = parse(["capacity"])
    assert (args.sizes, args.ceiling, args.gil) == ([100, 200, 300, 400, 500], [100, 200], True)
    args = parse(["capacity", "0", "--ceiling", "100", "--no-gil", "--replicas", "3"])
    assert (args.sizes, args.ceiling, args.gil, args.replicas) == ([], [100], False, 3)


def test_the_start_hint_says_what_the_latest_result_measured():
    from serve import warmup

    result = json.loads((RESULTS / "capacity.json").read_text(encoding="utf-8"))
    summary = C.summary(result)
    assert warmup.STUDENTS_PER_PROCESS == summary["one_process_holds"]
    assert warmup.STUDENTS_PER_MACHINE == summary["machine_holds"]


def test_the_start_hint_names_the_figures_in_both_languages(monkeypatch):
    from serve import warmup

    monkeypatch.setattr(warmup, "STUDENTS_PER_PROCESS", 123)
    monkeypatch.setattr(warmup, "STUDENTS_PER_MACHINE", 456)
    for lang in ("en", "zh"):
        hint = warmup.capacity_hint(lang)
        assert "123" in hint and "456" in hint and "nginx" in hint
    monkeypatch.setattr(warmup, "STUDENTS_PER_MACHINE", None)
    assert warmup.capacity_hint("en") is None
