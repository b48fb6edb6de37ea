"""bench/phone.py: the phone budget's arithmetic on made-up paired visits."""

from __future__ import annotations

from bench.phone import paired_summary


def test_phone_budget_is_the_median_of_paired_ratios():
    got = paired_summary([7.0, 12.0, 8.0], [10.0, 10.0, 10.0])
    assert got["ratios"] == [0.7, 1.2, 0.8]
    assert got["ratio_median"] == 0.8 and got["within"] and got["missing"] == 0
    # one slow pair does not decide; the median does, against the limit (0.8x the bare page)
    assert not paired_summary([9.0, 12.0, 7.0], [10.0, 10.0, 10.0])["within"]
    assert paired_summary([8.0], [10.0])["within"]  # 0.8x is within 0.8x
    assert not paired_summary([8.5], [10.0])["within"]


def test_phone_budget_counts_a_visit_without_a_chart_as_not_met():
    got = paired_summary([None, 7.0, 7.0], [10.0, 10.0, 10.0])
    assert got["missing"] == 1 and got["ratios"] == [0.7, 0.7]
    assert not got["within"]
    nothing = paired_summary([None], [None])
    assert nothing["ratio_median"] is None and not nothing["within"]
