"""The live race's charts keep their legends off the data: above the plotting area on every
screen (laptop, projector, phone), after ``charts.screen.fit`` has done its work."""

from __future__ import annotations

import pytest

from charts import live as figures
from charts.common import Titles
from charts.screen import SCREENS, fit

TITLES = Titles("A title long enough to wrap on a phone", "training step", "loss")
NAMES = {"live_plain": "GRU, only C (trained now)", "live_attention": "GRU + attention"}


def _loss(presenter: bool, legend: bool = True):
    steps = list(range(5, 505, 5))
    losses = {
        "live_plain": [4.0 - 2.5 * s / 500 for s in steps],
        "live_attention": [4.0 - 3.9 * s / 500 for s in steps],
    }
    return figures.loss_curves(
        steps, losses, total=500, titles=TITLES, presenter=presenter, names=NAMES, legend=legend
    )


def _accuracy(presenter: bool):
    # the default race's old ending: both lines low, through the corner a legend used to fill
    series = {"live_plain": [0.44, 0.19, 0.09], "live_attention": [0.79, 0.47, 0.19]}
    return figures.bucket_accuracy(
        ["1-10", "11-20", "21-30"], series, titles=TITLES, presenter=presenter, names=NAMES
    )


def _outside(fig) -> bool:
    """The legend stands wholly outside the plotting area (paper coordinates 0-1)."""
    legend = fig.layout.legend
    above = legend.y >= 1 and legend.yanchor == "bottom" and legend.yref in (None, "paper")
    below = legend.y <= 0 and legend.yanchor == "top"
    right = legend.x >= 1 and legend.xanchor in (None, "left")
    return above or below or right


@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("build", [_loss, _accuracy])
def test_legends_stand_off_the_plotting_area(build, screen):
    fig = build(screen == "projector")
    fit(fig, screen=screen, width=0.5 if screen == "projector" else 1.0)
    assert fig.layout.showlegend is not False and len(fig.data) == 2
    assert _outside(fig), fig.layout.legend


def test_the_accuracy_axis_leaves_room_for_every_bucket_label():
    fig = _accuracy(True)
    fit(fig, screen="projector", width=0.5)
    lo, hi = fig.layout.xaxis.range
    assert lo < 0 and hi > 2  # the end points are not on the axis's ends


def test_a_loss_chart_beside_the_accuracy_chart_can_leave_the_naming_to_it():
    assert _loss(True, legend=False).layout.showlegend is False
    assert _loss(True).layout.showlegend is not False
