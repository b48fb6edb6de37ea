"""bench/stats.py: the median, percentiles and ratios every bench figure goes through."""

from __future__ import annotations

import pytest

from bench.stats import median, percentile, ratio, summary_ms


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


def test_summary_ms_converts_seconds():
    assert summary_ms([0.1, 0.2, 0.3]) == {"rerun_ms_median": 200.0, "rerun_ms_p95": 290.0}


def test_ratio_handles_missing_and_zero_baselines():
    assert ratio(3.0, 2.0) == 1.5
    assert ratio(None, 2.0) is None
    assert ratio(1.0, None) is None
    assert ratio(1.0, 0.0) is None
