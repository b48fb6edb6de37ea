"""The benchmark harness's own logic (bench/): statistics, /proc memory, the JSON schema,
the budget arithmetic, the README table, and a dry run on the bare page.

No timed assertion here: benchmark figures never decide whether the suite passes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from bench import procs
from bench.__main__ import BARE_APP, parse
from bench.schema import budget, markdown_table, ratio_budget, validate
from bench.stats import median, percentile, ratio, summary_ms
from tests.conftest import ROOT

PAGES = ("home", "arena")


def _result(**over) -> dict:
    page = {"first_render_s": 1.0, "rerun_ms_median": 300.0, "rerun_ms_p95": 500.0}
    result = {
        "cold_start_s": {"app_home": 3.0, "hello": 2.0},
        "bare": {"first_render_s": 0.8, "rerun_ms_median": 200.0, "rerun_ms_p95": 260.0},
        "pages": {slug: dict(page) for slug in PAGES},
        "rss_mb": {"after_all_pages": 500.0, "sessions_20": 700.0, "after_close": 520.0},
        "model_ms": {"transformer": {"10": 5.0, "30": 31.0, "50": 60.0}},
        "zoo_load_s": 1.5,
        "errors": [],
    }
    result.update(over)
    return result


# ---- statistics --------------------------------------------------------------------------


def test_median_odd_even_and_unsorted():
    assert median([3.0, 1.0, 2.0]) == 2.0
    assert median([4.0, 1.0, 3.0, 2.0]) == 2.5
    assert median([7]) == 7.0


def test_percentile_interpolates_between_ranks():
    values = list(range(1, 21))  # 1..20
    assert percentile(values, 0) == 1
    assert percentile(values, 100) == 20
    assert percentile(values, 50) == median(values)
    assert percentile(values, 95) == pytest.approx(19.05)
    assert percentile([5.0], 95) == 5.0


@pytest.mark.parametrize("bad", [[], ()])
def test_statistics_refuse_empty_input(bad):
    with pytest.raises(ValueError, match="empty"):
        median(bad)
    with pytest.raises(ValueError, match="empty"):
        percentile(bad, 50)


def test_percentile_refuses_q_outside_0_100():
    with pytest.raises(ValueError, match="0..100"):
        percentile([1.0], 101)


def test_summary_ms_converts_seconds():
    assert summary_ms([0.1, 0.2, 0.3]) == {"rerun_ms_median": 200.0, "rerun_ms_p95": 290.0}


def test_ratio_handles_missing_and_zero_baselines():
    assert ratio(3.0, 2.0) == 1.5
    assert ratio(None, 2.0) is None
    assert ratio(1.0, None) is None
    assert ratio(1.0, 0.0) is None


# ---- memory from /proc ---------------------------------------------------------------------


def test_vm_rss_parse():
    status = "Name:\tpython\nVmPeak:\t 9 kB\nVmRSS:\t  204800 kB\nThreads:\t1\n"
    assert procs.vm_rss_kb(status) == 204800
    assert procs.vm_rss_kb("Name:\tzombie\n") == 0


@pytest.mark.skipif(not procs.PROC.joinpath("self", "status").exists(), reason="no /proc")
def test_rss_counts_children():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        # bounded wait until the child has replaced its forked image (its RSS is then >0)
        for _ in range(200):
            if child.pid in procs.descendants(os.getpid()) and procs.rss_mb(child.pid) > 1:
                break
            subprocess.run(["sleep", "0.05"], check=True)
        assert child.pid in procs.descendants(os.getpid())
        alone = procs.rss_mb(os.getpid(), include_children=False)
        assert alone > 0
        assert procs.rss_mb(os.getpid()) > alone
    finally:
        child.kill()
        child.wait()


# ---- schema, budget, table ----------------------------------------------------------------


def test_a_complete_result_validates():
    assert validate(_result(), PAGES) == []


def test_validate_names_what_is_missing_or_wrong():
    result = _result()
    del result["zoo_load_s"]
    result["pages"].pop("arena")
    result["bare"]["rerun_ms_p95"] = "fast"
    result["model_ms"]["transformer"].pop("50")
    problems = validate(result, PAGES)
    assert "missing top-level key zoo_load_s" in problems
    assert "pages.arena is missing" in problems
    assert any(p.startswith("bare.rerun_ms_p95 should be a non-negative number") for p in problems)
    assert "model_ms.transformer should have the keys 10, 30, 50" in problems


def test_a_missing_figure_needs_an_error_saying_why():
    result = _result()
    result["pages"]["home"]["rerun_ms_median"] = None
    assert validate(result, PAGES) == [
        "pages.home.rerun_ms_median is missing and no error says why"
    ]
    result["errors"] = ["page home: did not settle"]
    assert validate(result, PAGES) == []


def test_dry_run_only_needs_the_bare_page():
    result = {"bare": _result()["bare"], "errors": []}
    assert validate(result, full=False) == []
    assert validate(result, PAGES) != []


def test_budget_lines_are_ratios_against_the_same_run():
    b = budget(_result())
    assert b["cold_start.home_over_hello"] == {"value": 1.5, "limit": 1.5, "ok": True}
    assert b["pages.home.rerun_median_over_bare"] == {"value": 1.5, "limit": 1.5, "ok": True}
    assert b["pages.home.rerun_p95_over_bare_median"] == {"value": 2.5, "limit": 2.0, "ok": False}
    assert b["pages.arena.first_render_s"]["ok"] is True
    assert b["rss.after_all_pages_mb"]["ok"] is True
    assert b["rss.sessions_20_added_mb"] == {"value": 200.0, "limit": 150.0, "ok": False}
    assert b["model_ms.transformer.30"] == {"value": 31.0, "limit": 30.0, "ok": False}


def test_ratio_budget_of_issue_21_is_every_line_against_the_same_run():
    result = _result()
    result["pages"]["home"].update(bare_rerun_ms_median=300.0, first_render_s=0.8)
    result["model_ms"]["gru_plain_256"] = {"10": 4.0, "30": 10.0, "50": 20.0}
    result["model_ms"]["transformer"]["30"] = 19.0
    rb = ratio_budget(result)
    lines = rb["lines"]
    assert lines["cold_start.home_over_hello"] == {"value": 1.5, "limit": 1.0, "ok": False}
    # home: 300 / its paired 300 -> 1.0 (within), p95 500 / 300 = 1.67 (not within 1.5)
    assert lines["pages.home.rerun_median_over_bare"]["ok"] is True
    assert lines["pages.home.rerun_p95_over_bare_median"] == {
        "value": 1.67,
        "limit": 1.5,
        "ok": False,
    }
    # first render against the bare page's own first render in the same run (0.8 s)
    assert lines["pages.home.first_render_over_bare"] == {"value": 1.0, "limit": 1.0, "ok": True}
    assert lines["pages.arena.first_render_over_bare"]["value"] == 1.25
    # models: against gru_plain_256 at 30 words, and 30 ms absolute
    assert lines["model_ms.transformer.30_over_gru_plain_256"] == {
        "value": 1.9,
        "limit": 2.0,
        "ok": True,
    }
    assert lines["model_ms.transformer.30"]["ok"] is True
    assert not rb["met"] and "cold_start.home_over_hello" in rb["failed"]
    assert "pages.home.rerun_median_over_bare" not in rb["failed"]


def test_ratio_budget_met_only_when_every_line_is_measured_and_within():
    page = {"first_render_s": 1.0, "rerun_ms_median": 100.0, "rerun_ms_p95": 120.0}
    result = _result(
        cold_start_s={"app_home": 1.9, "hello": 2.0},
        bare={"first_render_s": 1.0, "rerun_ms_median": 100.0, "rerun_ms_p95": 110.0},
        pages={"home": dict(page)},
        model_ms={"gru_plain_256": {"10": 3.0, "30": 8.0, "50": 12.0}},
    )
    assert ratio_budget(result)["met"]
    result["pages"]["home"]["rerun_ms_p95"] = None  # unmeasured: not met, never passed
    assert ratio_budget(result)["failed"] == ["pages.home.rerun_p95_over_bare_median"]


def test_a_page_without_a_control_is_judged_by_its_first_render():
    result = _result()
    result["pages"]["arena"] = {
        "first_render_s": 0.7,
        "control": None,
        "reruns": 0,
        "rerun_ms_median": None,
        "rerun_ms_p95": None,
    }
    assert validate(result, PAGES) == []
    lines = ratio_budget(result)["lines"]
    assert "pages.arena.rerun_median_over_bare" not in lines
    assert lines["pages.arena.first_render_over_bare"]["ok"] is True
    result["pages"]["arena"]["first_render_s"] = None
    assert validate(result, PAGES) == [
        "pages.arena.first_render_s is missing and no error says why"
    ]


def test_budget_marks_unmeasured_figures_unknown_not_passed():
    result = _result()
    result["bare"]["rerun_ms_median"] = None
    assert budget(result)["pages.home.rerun_median_over_bare"]["ok"] is None


def test_a_page_is_compared_with_the_bare_reruns_paired_with_its_own():
    result = _result()
    result["pages"]["home"].update(bare_rerun_ms_median=250.0, bare_rerun_ms_p95=300.0)
    b = budget(result)
    # home: 300 / 250 (its paired bare), not 300 / 200 (the bare run at the start)
    assert b["pages.home.rerun_median_over_bare"] == {"value": 1.2, "limit": 1.5, "ok": True}
    assert b["pages.home.rerun_p95_over_bare_median"] == {"value": 2.0, "limit": 2.0, "ok": True}
    # arena has no paired figures: the bare run at the start
    assert b["pages.arena.rerun_median_over_bare"]["value"] == 1.5
    assert validate(result, PAGES) == []
    assert "| home | 1 | — | 1.25 | — | 300 | 500 | 250 | 1.2 | 2 |" in markdown_table(result)
    result["pages"]["home"]["bare_rerun_ms_median"] = "quick"
    assert any("bare_rerun_ms_median" in p for p in validate(result, PAGES))


def test_a_first_render_is_compared_with_the_bare_first_render_paired_with_it():
    result = _result()
    result["pages"]["home"]["bare_first_render_s"] = 1.1
    lines = ratio_budget(result)["lines"]
    # home: 1.0 s against its paired bare 1.1 s, not the 0.8 s of the bare run at the start
    assert lines["pages.home.first_render_over_bare"] == {"value": 0.91, "limit": 1.0, "ok": True}
    assert lines["pages.arena.first_render_over_bare"]["value"] == 1.25  # no pair: the start
    assert validate(result, PAGES) == []
    assert "| home | 1 | 1.1 | 0.91 | — |" in markdown_table(result)
    result["pages"]["home"]["bare_first_render_s"] = -1
    assert any("bare_first_render_s" in p for p in validate(result, PAGES))


def test_phone_budget_is_the_median_of_paired_ratios():
    from bench.phone import paired_summary

    got = paired_summary([9.0, 12.0, 8.0], [10.0, 10.0, 10.0])
    assert got["ratios"] == [0.9, 1.2, 0.8]
    assert got["ratio_median"] == 0.9 and got["within"] and got["missing"] == 0
    # one slow pair does not decide; the median does, against the limit
    assert not paired_summary([11.0, 12.0, 8.0], [10.0, 10.0, 10.0])["within"]
    assert paired_summary([10.0], [10.0])["within"]  # 1.0x is within 1.0x


def test_phone_budget_counts_a_visit_without_a_chart_as_not_met():
    from bench.phone import paired_summary

    got = paired_summary([None, 8.0, 8.0], [10.0, 10.0, 10.0])
    assert got["missing"] == 1 and got["ratios"] == [0.8, 0.8]
    assert not got["within"]
    nothing = paired_summary([None], [None])
    assert nothing["ratio_median"] is None and not nothing["within"]


def test_markdown_table_has_a_row_per_page_and_model():
    result = _result()
    result["pages"]["home"]["first_render_again_s"] = 0.9
    table = markdown_table(result)
    assert "| bare page (baseline) | 0.8 | — | 1 | — | 200 | 260 | — | 1 | 1.3 |" in table
    assert "| home | 1 | — | 1.25 | 0.9 | 300 | 500 | — | 1.5 | 2.5 |" in table
    assert "| transformer | 5 | 31 | 60 |" in table
    assert "| 3 | 2 | 1.5 |" in table


def test_cli_refuses_zero_repetitions(capsys):
    with pytest.raises(SystemExit):
        parse(["--reps", "0"])
    assert "--reps must be at least 1" in capsys.readouterr().err


def test_model_sentences_are_fixed_and_have_the_asked_lengths():
    from bench import models

    first = models.sentences()
    assert {n: len(s) for n, s in first.items()} == {10: 10, 30: 30, 50: 50}
    assert models.sentences() == first


# ---- a dry run: the bare page only ---------------------------------------------------------


def test_bare_app_serves_on_loopback(tmp_path):
    server = procs.start_server(str(BARE_APP), tmp_path, tmp_path / "bare.log")
    try:
        assert server.base.startswith("http://127.0.0.1:")
        assert server.healthy >= server.launched
        assert procs.rss_mb(server.pid) > 0
    finally:
        procs.stop_server(server)
    assert server.proc.poll() is not None


def test_dry_run_prints_a_valid_bare_result():
    if not os.path.exists("/usr/bin/chromium"):
        msg = "/usr/bin/chromium not found: apt-get install chromium"
        if os.environ.get("CI"):
            pytest.fail(msg + " -- CI is set, so this is a failure, not a skip")
        pytest.skip(msg)
    cmd = [sys.executable, "-m", "bench", "--dry-run", "--json", "--reps", "2", "--again", "1"]
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=280)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout)
    assert result["schema_problems"] == [] and result["errors"] == []
    assert validate(result, full=False) == []
    assert result["bare"]["reruns"] == 2
    assert result["bare"]["first_render_again_s"] > 0  # one later visit, timed
    assert result["bare"]["control"].startswith("slider[0]")
    assert "pages" not in result and "model_ms" not in result
