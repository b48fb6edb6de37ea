"""The "it" race on the live page through AppTest: the which-race choice shows the race's own
start state (even bars, the words that say so), Start queues a run of kind ``coref`` in the
same slot, its records reach the page as two sharpening bar rows, a phone reads it without
Start, and the end's sentence and the poll's answer come from the run. The process is a
stand-in that writes coref-shaped records without torch; the real one is tested in
``tests/poll/test_training.py``."""

from __future__ import annotations

import time

import pytest

from core import live_coref
from lessons.live import common
from poll import questions as pq
from poll.runs import RunStore
from poll.store import DATA_DIR_ENV
from tests.conftest import main_text, make_app
from tests.lessons.test_live import _until

LIVE = "pages/live.py"
TOKENS = ["the", "cat", "drank", "the", "milk", "because", "it", "was"]


def fake_coref_child(run_id, url, config, parent, heartbeat_timeout, nice=0, idle=False):
    """Rows that sharpen from even to one bar on the right noun, as the real run's do."""
    runs = RunStore.at(url)
    assert config["kind"] == live_coref.KIND  # the manager passed the kind through
    steps, records = config["steps"], []
    for step in range(1, steps + 1):
        if runs.control(run_id)[0]:
            runs.write(run_id, "cancelled", records)
            return
        f = step / steps
        rows = {}
        for p, right in (("hungry", 1), ("sweet", 4)):
            w = [(1 - f) / 9] * 9
            w[right] += f
            rows[p] = [round(x, 3) for x in w]
        rec = {"step": step, "steps": steps, "loss": 5 - 4 * f, "lesson": rows, "elapsed": step}
        rec["held"] = round(f, 3)
        records.append(rec)
        runs.write(run_id, "running", records)
        time.sleep(0.1)
    lesson = {
        p: {"tokens": [*TOKENS, p], "weights": rows[p], "right": rows[p][i], "wrong": 0.0}
        for p, i in (("hungry", 1), ("sweet", 4))
    }
    result = {
        "records": records,
        "steps_done": steps,
        "elapsed": steps * 0.1,
        "lesson": lesson,
        "first": {"hungry": 2, "sweet": 3, "both": 3},
        "held": 1.0,
        "held_n": 200,
        "cancelled": False,
    }
    runs.write(run_id, "done", records, result)


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    monkeypatch.setenv(common.STEPS_ENV, "30")
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path))
    common.manager.clear()
    common.manager().target = fake_coref_child
    yield
    common.manager().shutdown()
    common.manager.clear()


def _bars(at) -> list[list[float]]:
    import json

    fig = json.loads(at.get("plotly_chart")[0].proto.spec)
    return [d["x"] for d in fig["data"]]  # the bars lie down: weights on x


def test_the_it_race_starts_sharpens_and_ends_in_its_own_words(fresh):
    at = make_app(LIVE, lang="en").run(timeout=120)
    assert not at.exception and "live_start" in [b.key for b in at.button]  # translation first
    at.segmented_control(key="live_which_pick").set_value("coref").run(timeout=120)
    assert not at.exception, at.exception
    assert 'which noun "it" names' in main_text(at)
    assert "an even spread at first" in " ".join(x.value for x in at.success)
    rows = _bars(at)  # before any step: what the words say, an even spread
    assert len(rows) == 2 and all(max(r) == min(r) for r in rows)
    at.button(key="live_it_start").click().run(timeout=120)
    run = common.manager().runs.latest()
    assert run is not None and run.kind == "coref" and run.config["steps"] == 30
    phone = make_app(LIVE, lang="zh").run(timeout=120)  # follows the race that trains
    assert not {"开始", "取消"} & {b.label for b in phone.button}
    _until(at, lambda a: "Step " in " ".join(p.proto.text for p in a.get("progress")))
    _until(at, lambda a: len(_bars(a)) == 4)  # the end: each row beside the shipped head
    rows = _bars(at)
    assert rows[0][1] > 0.9 and rows[-1][4] > 0.5  # sharpened on cat (hungry), milk (sweet)
    done = common.manager().runs.get(run.id)
    said, values = live_coref.story(done.result)
    assert said == "both" and f"at step **{values['first_both']}**" in main_text(at)
    assert f"**{values['cat']}** of its attention on “cat”" in main_text(at)
    sol = pq.BY_ID["live_it"].solve(done)  # the poll's answer is the run's
    assert pq.LIVE_WHEN[sol.correct] == live_coref.when(done.result) == "early"
    assert common.manager().runs.done_since(0, None, "translation") is None
    assert common.manager().runs.done_since(0, None, "coref").id == run.id
