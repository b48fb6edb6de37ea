"""Every part's default view draws the figures the oracle recorded (laptop and projector,
English and Chinese; floats within 1e-4, as model outputs differ in their last bits from one
CPU to another): refactoring the lessons changes no chart. A figure changed on purpose is
re-recorded with ``python -m tests.lessons.figure_oracle --write``."""

from __future__ import annotations

import json

import pytest

from tests.lessons import figure_oracle as oracle

WANT = json.loads(oracle.ORACLE.read_text(encoding="utf-8"))


def test_the_oracle_covers_every_view():
    assert sorted(WANT) == sorted(oracle.view_id(*v) for v in oracle.views())


@pytest.mark.parametrize("view", oracle.views(), ids=lambda v: oracle.view_id(*v))
def test_the_view_draws_the_recorded_figures(view):
    got = oracle.figures(*view)
    assert oracle.same(got, WANT[oracle.view_id(*view)]), (
        "a chart changed; if on purpose, re-record: python -m tests.lessons.figure_oracle --write"
    )
