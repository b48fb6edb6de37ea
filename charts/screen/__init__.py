"""Screen fitting: the one owner of making a figure readable on the screen it is drawn on.

``ui.chart`` calls :func:`fit` on every figure before it is sent; builders never fit, they
only lay a figure out for its screen with the sizes of :mod:`charts.screen.sizes` and
measure their own text with :mod:`charts.screen.text`. The parts: :mod:`.projector` (every
text at projector size, the title wrapped, the height capped), :mod:`.phone` (the title
taken out, panel titles, legend and colour bars fitted to a phone's width) and
:mod:`.margins` (axis titles and category labels fitted to the room they have, and the
margins plotly would grow to, set in advance so the browser draws the chart once).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from charts.screen.margins import label_every_category, preset, wrap_x_titles
from charts.screen.phone import fit_phone, take_title
from charts.screen.projector import fit_projector
from charts.screen.sizes import (
    LAPTOP_WIDTH,
    MIN_PHONE_FONT,
    MIN_PHONE_TICK,
    MIN_PROJECTOR_FONT,
    PHONE_WIDTH,
    PRESENTER_WIDTH,
    SLIDE_HEIGHT,
)

if TYPE_CHECKING:
    import plotly.graph_objects as go

SCREENS = ("laptop", "projector", "phone")


def fit(
    fig: go.Figure, *, screen: str, width: float = 1.0, height: int | None = None
) -> str | None:
    """Fit ``fig`` (it is changed) to ``screen``, one of :data:`SCREENS`; returns the title a
    phone shows above the chart as text (``None`` elsewhere, or when the figure had none).

    - ``"projector"``: :func:`.projector.fit_projector`, the title wrapped to ``width`` (the
      fraction of the main column the chart gets, 0.5 in one of two columns) and the height
      capped at ``height`` (default :data:`.sizes.SLIDE_HEIGHT`;
      :data:`.sizes.STEP_SLIDE_HEIGHT` for a chart with step controls under it);
    - ``"phone"``: the title taken out (:func:`.phone.take_title`), panel titles, legend and
      colour bars fitted (:func:`.phone.fit_phone`), every category of an axis labelled
      (smaller labels, :func:`.margins.label_every_category`);
    - on every screen a horizontal axis title wider than its room is wrapped
      (:func:`.margins.wrap_x_titles`), then the margins are set to what plotly would grow
      them to (:func:`.margins.preset`)."""
    if screen not in SCREENS:
        raise ValueError(f"screen must be one of {SCREENS}, got {screen!r}")
    title = None
    if screen == "projector":
        fit_projector(fig, width=width, height=height or SLIDE_HEIGHT)
        room = PRESENTER_WIDTH * width
    elif screen == "phone":
        title = take_title(fig) or None
        fit_phone(fig)
        room = PHONE_WIDTH
        # every word of a heatmap's axis, not every second one
        label_every_category(fig, width_px=room, smallest=MIN_PHONE_TICK)
    else:
        room = LAPTOP_WIDTH * width
    # a horizontal axis title wider than its room: on more lines (over another panel,
    # smaller), not past the chart's edges
    smallest = MIN_PROJECTOR_FONT if screen == "projector" else MIN_PHONE_FONT
    wrap_x_titles(fig, width_px=room, smallest=smallest)
    preset(fig, width_px=room)
    return title
