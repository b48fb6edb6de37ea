"""charts.screen.fit: the one entry ui.chart calls, one screen at a time."""

from __future__ import annotations

import pytest

from charts import base, screen
from charts.screen import sizes


def _figure():
    fig = base.line_chart([1, 2], {"a": [1, 2], "b": [2, 1]}, title="A <b>title</b>")
    fig.update_layout(height=900)
    return fig


def test_a_phone_gets_the_title_back_as_text_and_other_screens_keep_it():
    phone = _figure()
    assert screen.fit(phone, screen="phone") == "A title"
    assert not phone.layout.title.text
    for kind in ("laptop", "projector"):
        fig = _figure()
        assert screen.fit(fig, screen=kind) is None
        assert fig.layout.title.text == "A <b>title</b>"
    assert phone.layout.margin.l is not None  # the margins are set on every screen


def test_the_projector_caps_the_height_at_the_slide_or_lower():
    fig = _figure()
    screen.fit(fig, screen="projector")
    assert fig.layout.height == sizes.SLIDE_HEIGHT
    fig = _figure()
    screen.fit(fig, screen="projector", height=sizes.STEP_SLIDE_HEIGHT)
    assert fig.layout.height == sizes.STEP_SLIDE_HEIGHT
    fig = _figure()
    screen.fit(fig, screen="laptop")
    assert fig.layout.height == 900


def test_an_unknown_screen_says_which_ones_there_are():
    with pytest.raises(ValueError, match="laptop"):
        screen.fit(_figure(), screen="tablet")
