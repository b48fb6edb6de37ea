"""The forced-slip distribution: shares per bin, the last bin open, one look per model."""

from __future__ import annotations

import pytest

from charts import autoregressive as figures
from charts.common import Titles
from core import lexicon


def test_slip_shares_bin_and_sum_to_one():
    shares = figures.slip_shares({0: 2, 1: 1, 9: 1, 20: 4}, bins=8)
    assert len(shares) == 9 and sum(shares) == pytest.approx(1.0)
    assert shares[0] == pytest.approx(0.25) and shares[1] == pytest.approx(0.125)
    assert shares[-1] == pytest.approx(5 / 8)  # 9 and 20 edits both in "8+"
    with pytest.raises(ValueError, match="empty"):
        figures.slip_shares({})
    with pytest.raises(ValueError, match=">= 0"):
        figures.slip_shares({-1: 2})


def test_slip_distribution_draws_each_model_in_its_look():
    fig = figures.slip_distribution(
        {"A": {0: 3, 2: 1}, "B": {8: 4}},
        {"A": "gru_attention", "B": "lm_gru"},
        titles=Titles("t", "x", "y"),
    )
    assert [tr.name for tr in fig.data] == ["A", "B"]
    assert fig.data[0].line.color == lexicon.look("gru_attention").color
    assert fig.data[1].marker.symbol == lexicon.look("lm_gru").marker
    assert list(fig.data[1].y) == [0.0] * 8 + [1.0]
    assert fig.layout.xaxis.ticktext[-1] == f"{figures.SLIP_BINS}+"
    with pytest.raises(ValueError, match="no look"):
        figures.slip_distribution({"A": {0: 1}}, {}, titles=Titles("t", "x", "y"))


def test_cost_chart_draws_calls_or_milliseconds_from_zero():
    fig = figures.cost_chart(
        [4, 8], {"write": [4, 8], "read": [1, 1]}, titles=Titles("t", "N", "calls")
    )
    assert [list(tr.y) for tr in fig.data] == [[4, 8], [1, 1]]
    assert fig.layout.yaxis.rangemode == "tozero"
    with pytest.raises(ValueError, match="never negative"):
        figures.cost_chart([4], {"write": [-1.0]}, titles=Titles("t", "N", "ms"))


@pytest.mark.parametrize("presenter", [False, True])
def test_next_token_bars_tick_probabilities_up_to_100_percent(presenter):
    """The axis leaves room after a bar for its number, but its ticks are a probability's:
    none past 100 %."""
    fig = figures.next_token_bars(
        ["a", "b"], [0.9, 0.1], chosen=0, titles=Titles("t", "x", "y"), presenter=presenter
    )
    ticks = fig.layout.xaxis.tickvals
    assert ticks and max(ticks) == 1 and min(ticks) == 0
    assert fig.layout.xaxis.range[1] > 1  # the room for "90%" after the longest bar


def test_cost_chart_draws_a_kind_of_layer_in_its_familys_look():
    from core.lexicon import family_look

    look = family_look("self_attention")
    fig = figures.cost_chart(
        [4, 8],
        {"read": [4, 8], "parallel read": [2, 2]},
        titles=Titles("t", "N", "steps"),
        families={"parallel read": "self_attention"},
    )
    assert fig.data[1].line.color == look.color and fig.data[1].marker.symbol == look.marker
    assert fig.data[0].line.color is None  # the template's black, no model's hue
    with pytest.raises(ValueError, match="not a series"):
        figures.cost_chart(
            [4], {"read": [4]}, titles=Titles("t", "N", "ms"), families={"typo": "cnn"}
        )
