"""The four-classes bench (``bench/rooms.py``): its cross-talk check finds a phone or a
projector shown another room's question, room code, votes or race, and passes a class that
saw only its own; the histogram is read from the chart the app really sends."""

from __future__ import annotations

import json

import pytest

from bench import rooms as R
from charts import poll as poll_charts
from ui import plot

RACE_A = [(10, 5.1), (20, 4.2), (30, 3.9)]  # (step, loss) of each room's race
RACE_B = [(10, 5.3), (20, 4.6), (30, 4.4)]
TRUTH = {
    0: R.Truth(
        "ABCDEFGH",
        "Which word does “it” point to?",
        [3, 1, 0, 1],
        R.Race("race-a", RACE_A, seen=[(100.0, 1), (101.0, 2), (102.0, 3)]),
    ),
    1: R.Truth(
        "JKLMNPQR",
        "How far back does the RNN remember?",
        [2, 2, 1],
        R.Race("race-b", RACE_B, seen=[(100.0, 0), (110.0, 1), (120.0, 3)]),
    ),
}


def view(records, at: float) -> R.RaceView:
    return R.RaceView(at, tuple(s for s, _ in records), tuple(x for _, x in records))


def clean(klass: int, role: str = "student") -> R.Seen:
    mine = TRUTH[klass]
    return R.Seen(
        klass,
        role,
        texts={mine.question, f"Room code: {mine.room[:4]} {mine.room[4:]}"},
        queries={f"room={mine.room}&lang=en"},
        histograms=[[1, 0, 0, 0][: len(mine.counts)], list(mine.counts)],
        revealed=list(mine.counts),
        races=[view([], 99.0), view(mine.race.records[:1], 121.0), view(mine.race.records, 125.0)],
    )


def test_a_class_that_saw_only_its_own_passes():
    got = R.cross_talk([clean(0), clean(0, "teacher"), clean(1)], TRUTH)
    assert got == {0: [], 1: []}


@pytest.mark.parametrize(
    "change, says",
    [
        (lambda s: s.texts.add(TRUTH[1].question), "saw class 1's question"),
        (lambda s: s.texts.add("Room code: JKLM NPQR"), "saw class 1's room code"),
        (lambda s: s.texts.add("…/poll?room=JKLMNPQR&lang=en"), "saw class 1's room code"),
        (lambda s: s.queries.add("room=JKLMNPQR"), "was in room(s) ['JKLMNPQR']"),
        (lambda s: s.histograms.append([3, 2, 1, 1]), "saw a histogram [3, 2, 1, 1]"),
        (lambda s: s.histograms.append([2, 2, 1]), "saw a histogram [2, 2, 1]"),
        (lambda s: setattr(s, "revealed", [5, 3, 1, 2]), "revealed [5, 3, 1, 2]"),
        (lambda s: s.races.append(view(RACE_B[:2], 125.0)), "saw class 1's race"),
        (lambda s: s.races.append(view([(10, 5.1), (20, 4.0)], 125.0)), "not its room's"),
    ],
)
def test_a_phone_shown_another_rooms_data_is_cross_talk(change, says):
    phone = clean(0)
    change(phone)
    got = R.cross_talk([phone, clean(1)], TRUTH)
    assert got[1] == []
    assert got[0] and any(says in p for p in got[0]), got[0]


def test_a_race_ahead_of_the_rooms_own_is_not_its_own():
    # room 1's race had no record yet at 100 s: a phone sent two records then was shown
    # another room's race, even one whose numbers happen to be the same as its own's
    twin = R.Race("race-c", list(RACE_B), seen=[(90.0, 3)])
    truth = dict(TRUTH) | {2: R.Truth("STUVWXYZ", "Another question?", [1, 0], twin)}
    phone = clean(1)
    phone.races.append(view(RACE_B[:2], 100.5))
    got = R.cross_talk([phone], truth)[1]
    assert any("2 records of a race when its own had 0" in p for p in got), got


@pytest.mark.parametrize(
    "change, says",
    [
        (lambda s: s.histograms.append([1, 1]), "saw a histogram [1, 1]"),
    ],
)
def test_a_histogram_of_another_shape_is_not_its_own(change, says):
    phone = clean(0)
    change(phone)
    got = R.cross_talk([phone, clean(1)], TRUTH)
    assert got[1] == []
    assert got[0] and any(says in p for p in got[0]), got[0]


def test_a_phone_that_missed_its_reveal_is_not_blamed_for_it():
    phone = clean(0)
    phone.revealed = None
    assert R.cross_talk([phone], TRUTH)[0] == []


@pytest.mark.parametrize("reveal", [None, 1])
def test_the_histogram_is_read_from_the_chart_the_app_sends(reveal):
    counts = [4, 0, 7, 1]
    fig = poll_charts.histogram(
        ["cat", "milk", "it", "none"], counts, reveal, title="t", y_title="y", presenter=True
    )
    payload = json.loads(plot.payload(fig, {}))
    assert R.histogram_counts(payload["spec"]) == counts
