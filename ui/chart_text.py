"""A chart's text alternative on the page (built by ``core.figures.describe``).

:func:`show` goes right under the chart it describes (``ui.chart`` calls it): what the
chart shows and its key numbers for a screen reader, and its data as a table on request.
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from core.figures import describe
from ui.i18n import current_lang


def show(fig: go.Figure) -> None:
    """The text alternative of ``fig`` in the visitor's language, under the chart."""
    # the figure's own property dicts: no copy, no validation (see base.fit_projector)
    spec = {"data": fig._data, "layout": fig._layout}  # noqa: SLF001
    st.html(describe.alternative_html(spec, current_lang()))
