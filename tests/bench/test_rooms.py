"""The four-classes bench (``bench/rooms.py``): its cross-talk check finds a phone or a
projector shown another room's question, room code, votes or race, and passes a class that
saw only its own; the histogram is read from the chart the app really sends."""

from __future__ import annotations

import json

import pytest

from bench import rooms as R
from charts import poll as poll_charts
from ui import plot

TRUTH = {
    0: R.Truth("ABCDEFGH", "Which word does “it” point to?", [3, 1, 0, 1], race="race-a"),
    1: R.Truth("JKLMNPQR", "How far back does the RNN remember?", [2, 2, 1], race="race-b"),
}


def clean(klass: int, role: str = "student") -> R.Seen:
    mine = TRUTH[klass]
    return R.Seen(
        klass,
        role,
        texts={mine.question, f"Room code: {mine.room[:4]} {mine.room[4:]}"},
        queries={f"room={mine.room}&lang=en"},
        histograms=[[1, 0, 0, 0][: len(mine.counts)], list(mine.counts)],
        revealed=list(mine.counts),
        races={mine.race},
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
        (lambda s: s.races.add("race-b"), "saw class 1's race"),
    ],
)
def test_a_phone_shown_another_rooms_data_is_cross_talk(change, says):
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
