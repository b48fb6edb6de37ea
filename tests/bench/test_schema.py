"""bench/schema.py: the pages bench's JSON check, its ratio budget and its tables.

No timed assertion here: benchmark figures never decide whether the suite passes.
"""

from __future__ import annotations

from bench.pages import aa_positions
from bench.schema import aa_ratios, aa_summary, markdown_table, ratio_budget, validate

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


def test_ratio_budget_is_every_line_against_the_same_run():
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
    rb = ratio_budget(result)
    assert rb["lines"]["pages.home.rerun_median_over_bare"]["ok"] is None
    assert "pages.home.rerun_median_over_bare" in rb["failed"] and not rb["met"]


def test_a_page_is_compared_with_the_bare_reruns_paired_with_its_own():
    result = _result()
    result["pages"]["home"].update(bare_rerun_ms_median=250.0, bare_rerun_ms_p95=300.0)
    b = ratio_budget(result)["lines"]
    # home: 300 / 250 (its paired bare), not 300 / 200 (the bare run at the start)
    assert b["pages.home.rerun_median_over_bare"] == {"value": 1.2, "limit": 1.0, "ok": False}
    assert b["pages.home.rerun_p95_over_bare_median"] == {"value": 2.0, "limit": 1.5, "ok": False}
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


def test_markdown_table_has_a_row_per_page_and_model():
    result = _result()
    result["pages"]["home"]["first_render_again_s"] = 0.9
    table = markdown_table(result)
    assert "| bare page (baseline) | 0.8 | — | 1 | — | 200 | 260 | — | 1 | 1.3 |" in table
    assert "| home | 1 | — | 1.25 | 0.9 | 300 | 500 | — | 1.5 | 2.5 |" in table
    assert "| transformer | 5 | 31 | 60 |" in table
    assert "| 3 | 2 | 1.5 |" in table


def test_aa_rows_are_spread_across_the_pages():
    assert aa_positions(11, 2) == [3, 8]
    assert aa_positions(11, 1) == [6]
    assert aa_positions(4, 4) == [0, 2, 2, 4]  # never past the end (after the last page)
    assert aa_positions(3, 0) == []
    assert aa_positions(0, 2) == [0, 0]  # no page: both after the (absent) last


def test_aa_rows_are_ratios_against_their_own_pairs_never_budget_lines():
    aa = [
        {"first_render_s": 2.0, "rerun_ms_median": 110.0, "rerun_ms_p95": 150.0,
         "bare_first_render_s": 1.6, "bare_rerun_ms_median": 100.0},
        {"first_render_s": 0.8, "rerun_ms_median": 180.0, "rerun_ms_p95": 300.0},  # not paired
    ]  # fmt: skip
    result = _result(aa=aa)
    assert aa_ratios(result) == [
        {"first_render": 1.25, "rerun_median": 1.1, "rerun_p95": 1.5},
        {"first_render": 1.0, "rerun_median": 0.9, "rerun_p95": 1.5},  # the bare run at the start
    ]
    assert ratio_budget(result) == ratio_budget(_result())  # information, not a budget line
    assert validate(result, PAGES) == []
    table = markdown_table(result)
    assert (
        "| bare page as a page (A/A 1) | 2 | 1.6 | 1.25 | — | 110 | 150 | 100 | 1.1 | 1.5 |"
        in table
    )
    assert "first render 1-1.25, rerun median 0.9-1.1, p95 1.5;" in aa_summary(result)
    assert aa_summary(result) in table
    assert aa_summary(_result()) == "" and "A/A" not in markdown_table(_result())


def test_an_aa_row_with_a_missing_figure_needs_an_error():
    result = _result(aa=[{"first_render_s": 1.0, "rerun_ms_median": None, "rerun_ms_p95": 2.0}])
    assert validate(result, PAGES) == ["aa.1.rerun_ms_median is missing and no error says why"]
