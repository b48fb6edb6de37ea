"""Old home of the margin estimate and the text widths, now in :mod:`charts.screen`: the
names modules outside it still read here (``charts.attention``, the chart tests) stay; new
code imports :mod:`charts.screen.text` and :mod:`charts.screen.margins`."""

from __future__ import annotations

from charts.screen.margins import TEXT_SIZE as TEXT_SIZE
from charts.screen.text import text_width as text_width
