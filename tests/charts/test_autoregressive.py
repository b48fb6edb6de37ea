"""The forced-slip distribution: shares per bin, the last bin open, one look per model."""

from __future__ import annotations

import math

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
    assert fig.layout.yaxis.range[0] == 0 and fig.layout.yaxis.range[1] > 8
    with pytest.raises(ValueError, match="never negative"):
        figures.cost_chart([4], {"write": [-1.0]}, titles=Titles("t", "N", "ms"))


@pytest.mark.parametrize("top", [0.0, 0.03, 0.31, 1.7, 4.9, 9.4, 9.9, 64, 99, 130, 4321.0])
def test_zero_based_ticks_label_every_step_from_zero_past_the_top(top):
    """The labels the margins are estimated from are the ones drawn: given, one step apart
    (1, 2 or 5 times a power of ten), from 0 to the top of the axis, which the largest value
    stays under."""
    axis = figures.zero_based_ticks(top)
    values, text = axis["tickvals"], axis["ticktext"]
    assert axis["range"][0] == 0 and axis["range"][1] > top and values[0] == 0 and text[0] == "0"
    assert values[-1] <= axis["range"][1] < values[-1] + (values[1] - values[0])
    steps = {round(b - a, 12) for a, b in zip(values, values[1:])}
    assert len(steps) == 1
    step = steps.pop()
    assert round(step / 10 ** math.floor(math.log10(step)), 9) in (1, 2, 5)
    assert 3 <= len(values) <= 8
    assert [float(t) for t in text] == pytest.approx(values)
    with pytest.raises(ValueError, match="finite"):
        figures.zero_based_ticks(-1)


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
