"""The flood bench (``bench/flood.py``) on a tiny count: a real app
server, distinct valid inputs through two pages' input parts, the server's RSS sampled,
the report's shape and the ceiling's verdict (it fails below the measured peak)."""

from __future__ import annotations

import urllib.parse

import pytest

from bench import flood
from bench.__main__ import parse
from tests.conftest import in_fresh_thread

PORT = 8762  # the flood bench's test port (its range: 8760-8769)
PAGES = ["attention"]  # one page keeps the CI test short; the bench floods all
N = 8  # every part of the page gets 2 or more


def test_plan_inputs_are_distinct_and_carry_every_param():
    pool = flood.sentences(40)
    assert len(set(pool)) == 40
    for page in flood.PAGES:
        items = flood.plan(page, 40, pool)
        queries = [q for _, q in items]
        assert len(set(queries)) == len(queries), page
        for target, query in items:
            values = urllib.parse.parse_qs(query)
            assert values["part"] == [target.part]
            missing = [p for p in target.params if p not in values]
            assert not missing, (page, target.part, missing)


def test_sentences_are_in_the_vocabulary():
    from core import zoo
    from core.translate import prepare

    src_vocab, _ = zoo.load_vocabs()
    for s in flood.sentences(60):
        assert prepare(s, src_vocab)  # raises InputError on an unknown word


def test_cache_bounds_are_read_from_the_source():
    bounds = flood.cache_bounds()
    assert bounds["ui.word_pair.sentence"] == 256
    # a page's cache is named __main__.<function> by the server's metrics
    assert flood.bound_of("__main__.measured_field", bounds) == 128
    assert flood.bound_of("ui.models.get_manifest", bounds) is None


def test_cache_bounds_read_the_lessons_cache_decorator(tmp_path):
    (tmp_path / "lessons" / "x").mkdir(parents=True)
    (tmp_path / "lessons" / "x" / "data.py").write_text(
        "@cache.data(max_entries=64)\ndef run_model(a):\n    pass\n\n\n"
        "@cache.data\ndef vocabs():\n    pass\n"
    )
    bounds = flood.cache_bounds(tmp_path)
    assert bounds["lessons.x.data.run_model"] == 64
    # ui.cache.data gives each cache the name <module>.<function>.cached in the metrics
    assert flood.bound_of("lessons.x.data.run_model.cached", bounds) == 64
    assert flood.bound_of("lessons.x.data.vocabs.cached", bounds) is None  # a closed set


@pytest.mark.long
@in_fresh_thread
def test_flood_a_few_inputs_and_judge_the_ceiling():
    args = parse(
        ["flood", "--inputs", str(N), "--pages", ",".join(PAGES), "--students", "2"]
        + ["--port", str(PORT)]
    )
    args.session_inputs = 4  # sessions come and go even in a short run
    result = flood.run(args)

    assert result["schema_problems"] == []
    assert result["errors"] == []
    for page in PAGES:
        figs = result["pages"][page]
        assert figs["inputs"] == N and figs["distinct"] == N and figs["duplicates"] == 0
        assert figs["errors"] == 0  # no exception element, no lost run
        assert figs["rejected"] == 0  # no "unknown words" message for these valid inputs
        assert set(figs["parts"]) == {t.part for t in flood.TARGETS if t.page == page}
        assert all(p["inputs"] >= 2 for p in figs["parts"].values())
        rss = figs["rss_mb"]
        assert all(rss[k] > 50 for k in ("start", "at_25", "at_50", "at_75", "at_100", "peak"))
    assert result["rss_mb"]["samples"] >= 4  # sampled every 0.5 s while the pages ran
    assert result["rss_mb"]["peak"] >= result["rss_mb"]["warm"] > 50

    ceiling = result["ceiling"]
    parts = ("warm_mb", "caches_mb", "charts_mb", "margin_mb")
    assert ceiling["mb"] == pytest.approx(sum(ceiling[k] for k in parts), abs=0.2)
    assert ceiling["charts_mb"] == flood.charts_bound_mb() > 0
    # the page computed on the inputs: the caches keyed on them filled
    assert ceiling["caches"]["lessons.attention.data.run_model.cached"]["misses"] >= 2
    assert result["under_ceiling"] is True and result["ceiling_mb"] == ceiling["mb"]

    peak = result["rss_mb"]["peak"]
    flood.judge(result, ceiling_mb=peak - 1.0)  # a ceiling below the measured peak fails
    assert result["under_ceiling"] is False and result["ceiling_mb"] == peak - 1.0
    flood.judge(result, ceiling_mb=peak)
    assert result["under_ceiling"] is True
