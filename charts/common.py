"""What several lessons' figures write alike: a layout of a title and two titled axes, and
lines each drawn in a model's or an architecture's one look (``core.lexicon``). No
streamlit here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
import plotly.graph_objects as go

from charts import base
from core import lexicon


class Titles(NamedTuple):
    """A chart's words: its title and its axes', already translated. A builder takes them
    as one keyword, ``titles``; ``_asdict()`` gives the keyword arguments of
    ``charts.base``'s charts."""

    title: str
    x_title: str
    y_title: str


def titled_layout(
    presenter: bool,
    titles: Titles,
    *,
    xaxis: Mapping | None = None,
    yaxis: Mapping | None = None,
    **extra: object,
) -> dict:
    """A layout of the template, the title and both axes titled (``titles``; ``xaxis``,
    ``yaxis``: the axes' other properties; ``extra``: the layout's). Fonts and margins are the
    template's: unlike :func:`charts.base.layout`, nothing is set on the figure itself."""
    return dict(
        template=base.template(presenter),
        title=dict(text=titles.title),
        xaxis=dict(title=dict(text=titles.x_title), **(xaxis or {})),
        yaxis=dict(title=dict(text=titles.y_title), **(yaxis or {})),
        **extra,
    )


def look_lines(
    x: Sequence[float] | np.ndarray,
    series: Mapping[str, Sequence[float] | np.ndarray],
    looks: Mapping[str, lexicon.Look],
    titles: Titles,
    presenter: bool,
    *,
    log_y: bool = False,
    markers: bool = False,
) -> go.Figure:
    """:func:`charts.base.line_chart` of lines without markers, each series named in
    ``looks`` drawn in its look: its colour and dash, and its marker's colour and symbol
    (``markers``: the markers shown too, at the scale's size, where a colour alone does not
    tell two solid lines apart). Series without a look keep the palette's colour."""
    fig = base.line_chart(
        x, series, **titles._asdict(), presenter=presenter, log_y=log_y, markers=False
    )
    s = base.scale(presenter)
    for trace in fig.data:
        lk = looks.get(trace.name)
        if lk is None:
            continue
        trace.line = dict(color=lk.color, dash=lk.dash, width=s.line)
        if markers:
            trace.mode = "lines+markers"
            trace.marker = dict(color=lk.color, symbol=lk.marker, size=s.marker)
        else:
            trace.marker = dict(color=lk.color, symbol=lk.marker)
    return fig
