"""Every part's default view draws the figures the oracle recorded (laptop and projector,
English and Chinese; floats within 1e-4, as model outputs differ in their last bits from one
CPU to another): refactoring the lessons changes no chart. A figure changed on purpose is
re-recorded with ``python -m tests.lessons.figure_oracle --write``. The same runs check that
every chart has its text alternative in the view's language (``chart_text.problems``)."""

from __future__ import annotations

import json

import pytest

from tests.lessons import chart_text
from tests.lessons import figure_oracle as oracle

WANT = json.loads(oracle.ORACLE.read_text(encoding="utf-8"))


def test_the_oracle_covers_every_view():
    assert sorted(WANT) == sorted(oracle.view_id(*v) for v in oracle.views())


@pytest.mark.parametrize("view", oracle.views(), ids=lambda v: oracle.view_id(*v))
def test_the_view_draws_the_recorded_figures(view):
    """The view draws the recorded figures, and each chart carries its text alternative
    (one run of the view checks both)."""
    at = oracle.run_view(*view)
    got = oracle.figures(*view, at=at)
    assert oracle.same(got, WANT[oracle.view_id(*view)]), (
        "a chart changed; if on purpose, re-record: python -m tests.lessons.figure_oracle --write"
    )
    assert chart_text.problems(at, view[2]) == []


def test_fingerprints_forgive_last_bits_and_catch_real_changes():
    """A float array that moved by 1e-6 (another CPU) still agrees; by 1e-3, or a changed
    title, it does not."""
    import base64

    import numpy as np

    def chart(z, title="t"):
        data = {"bdata": base64.b64encode(np.asarray(z, "f4").tobytes()).decode(), "dtype": "f4"}
        return oracle.fingerprint({"spec": {"data": [{"z": data}], "layout": {"title": title}}})

    z = np.linspace(0.1, 0.9, 50)
    want = [chart(z)]
    assert oracle.same([chart(z * (1 + 1e-6))], want)  # a few float32 ulps
    assert not oracle.same([chart(z * (1 + 1e-3))], want)
    assert not oracle.same([chart(z, title="other")], want)
    assert not oracle.same([chart(z), chart(z)], want)
    # near zero: float32 noise of either sign (seen between two CPUs) agrees, a real value not
    zero = np.array([0.5, 1.4e-8])
    assert oracle.same([chart(zero * [1, -0.5])], [chart(zero)])
    assert not oracle.same([chart(zero + [0, 1e-3])], [chart(zero)])
