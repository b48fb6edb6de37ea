"""The "it" race (``core.live_coref``): a reduced run trains and reports progress; the
lesson pair's first resolved steps agree with the records; cancel stops at once; the pace
holds; the answers and the words come from the run's numbers; the default budget is the
recorded search's choice, and one of its seeds comes out the same again."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import pytest

from core import live_coref as lc
from core.analysis.coref import MARGIN

TINY = replace(lc.DEFAULT, steps=12, log_every=4, eval_every=6, held_per_frame=2, pace=0.0)


@pytest.fixture(scope="module")
def vocab():
    return lc.load_vocab()


def test_a_reduced_run_trains_reports_and_is_the_same_twice(vocab):
    seen: list[dict] = []
    a = lc.race(TINY, report=seen.append, vocab=vocab)
    b = lc.race(TINY, vocab=vocab)

    def curves(result):
        return [{k: v for k, v in r.items() if k != "elapsed"} for r in result["records"]]

    assert [r["step"] for r in a["records"]] == [4, 6, 8, 12] and seen == a["records"]
    assert curves(a) == curves(b) and a["first"] == b["first"]
    assert [("held" in r) for r in a["records"]] == [False, True, False, True]
    assert a["held_n"] == 2 * 4 and 0.0 <= a["held"] <= 1.0 and not a["cancelled"]
    for rec in a["records"]:  # a row of weights over each lesson sentence, summing to one
        assert set(rec["lesson"]) == set(lc.PREDICATES)
        assert all(abs(sum(w) - 1) < 0.01 for w in rec["lesson"].values())
    assert a["records"][-1]["lesson"] == {p: a["lesson"][p]["weights"] for p in lc.PREDICATES}
    assert a["records"][0]["loss"] > a["records"][-1]["loss"]  # it learns
    c = lc.race(replace(TINY, seed=1), vocab=vocab)
    assert curves(c) != curves(a)


def test_a_cancelled_run_stops_at_once_and_keeps_its_last_numbers(vocab):
    calls: list[dict] = []
    res = lc.race(TINY, report=calls.append, should_stop=lambda: len(calls) >= 1, vocab=vocab)
    assert res["cancelled"] and res["steps_done"] == 4 and res["held"] is not None


def test_the_run_keeps_its_pace(vocab):
    t0 = time.perf_counter()
    res = lc.race(replace(TINY, steps=10, pace=40.0), vocab=vocab)
    assert time.perf_counter() - t0 >= 10 / 40 and res["elapsed"] >= 10 / 40


def _result(first_both, right=(0.97, 0.95), wrong=(0.01, 0.02)):
    lesson = {p: {"right": r, "wrong": w} for p, r, w in zip(lc.PREDICATES, right, wrong)}
    first = {"hungry": first_both, "sweet": first_both, "both": first_both}
    return {"lesson": lesson, "first": first, "steps_done": 300, "elapsed": 31.4, "held": 0.9375}


@pytest.mark.parametrize(
    ("first", "answer"),
    [(1, "early"), (lc.EARLY, "early"), (lc.EARLY + 1, "middle"), (lc.LATE, "middle")]
    + [(lc.LATE + 1, "late"), (None, "never")],
)
def test_the_answer_is_when_the_run_first_chose_right_in_both(first, answer):
    assert lc.when(_result(first)) == answer


def test_the_words_quote_the_runs_numbers():
    said, values = lc.story(_result(96))
    assert said == "both" and values["cat"] == "0.97" and values["milk"] == "0.95"
    assert values["held"] == 94 and values["first_both"] == 96 and values["s"] == 31
    said, _ = lc.story(_result(None, right=(0.97, 0.5), wrong=(0.01, 0.5 - MARGIN / 2)))
    assert said == "partly"  # a margin below MARGIN: not resolved


def test_the_poll_bins_are_the_races():
    from poll import questions as pq

    assert (pq.IT_EARLY, pq.IT_LATE) == (lc.EARLY, lc.LATE) and pq.LIVE_WHEN == lc.WHEN
    from core.i18n import LANGS, load_catalogue

    for lang in LANGS:  # the answers name the bins' steps
        cat = load_catalogue(lang)
        assert str(lc.EARLY) in cat["poll.q.live_it.a0"]
        assert f"{lc.EARLY}–{lc.LATE}" in cat["poll.q.live_it.a1"]
        assert str(lc.LATE) in cat["poll.q.live_it.a2"]


def test_choose_takes_the_cheapest_budget_that_settles():
    def row(steps, held, first, cpu=10.0, w=0.99):
        return {"config": {"steps": steps}, "held": held, "first_both": first} | {
            "cat": [w] * 3,
            "milk": [w] * 3,
            "cpu_s": cpu,
        }

    rows = [
        row(200, [0.95] * 3, [96, 90, 91]),  # settled for only half the run
        row(300, [0.95] * 3, [96, 90, 91]),
        row(500, [0.99] * 3, [96, 90, 91]),
        row(900, [0.99] * 3, [96, 90, 91], cpu=99.0),  # over the CPU budget
    ]
    assert lc.choose(rows)["config"] == {"steps": 300}
    rows[1]["held"] = [0.95, 0.8, 0.95]  # one seed below HELD_MIN
    assert lc.choose(rows)["config"] == {"steps": 500}
    assert lc.choose([row(100, [0.5] * 3, [None] * 3)])["config"] == {"steps": 100}


def test_the_default_is_the_recorded_search_and_a_seed_repeats(vocab):
    """~10 s: the search file (``python -m core.live_coref --search``) chose the default
    budget; seed 0 of that configuration gives the recorded numbers again."""
    record = json.loads(Path(lc.SEARCH_FILE).read_text())
    assert record["command"] == "python -m core.live_coref --search"
    assert lc.choose(record["rows"]) == record["chosen"]
    assert record["chosen"]["config"] == {"steps": lc.DEFAULT.steps}
    res = lc.race(replace(lc.DEFAULT, pace=0.0, seed=record["seeds"][0]), vocab=vocab)
    assert res["held"] == record["chosen"]["held"][0]
    assert res["first"]["both"] == record["chosen"]["first_both"][0]
    assert res["lesson"]["hungry"]["right"] == record["chosen"]["cat"][0]


def test_one_noun_for_both_sentences_is_named_only_when_both_rows_agree():
    from core import corpus

    cases = {c.predicate: c for c in corpus.lesson_coref_cases()}

    def rows(on: dict[str, int]):
        out = {}
        for p, c in cases.items():
            w = [0.0] * len(c.tokens)
            w[on[p]] = 0.6
            out[p] = {"tokens": list(c.tokens), "weights": w}
        return out

    milk = cases["sweet"].antecedent
    cat = cases["hungry"].antecedent
    assert lc.same_noun(rows({"hungry": milk, "sweet": milk}), 44) == {"step": 44, "word": "milk"}
    assert lc.same_noun(rows({"hungry": cat, "sweet": cat}), 7)["word"] == "cat"
    assert lc.same_noun(rows({"hungry": cat, "sweet": milk}), 9) is None  # chosen: not stared
    said, values = lc.story({**_result(96), "stare": {"step": 44, "word": "milk"}})
    assert (values["stare_step"], values["stare_word"]) == (44, "milk")
