"""Streamlit-side helpers shared by ``app.py`` and every page (``core`` stays UI-free).

Pages use: ``begin_page(slug)``, ``t(key, **fmt)``, ``current_lang()``, ``presenter()``,
``secondary()``, ``labeler(prefix)``, ``chart(fig)`` and the deep-link helpers in ``ui.params``.
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from ui import params
from ui.i18n import current_lang, labeler, presenter, t
from ui.shell import begin_page, secondary

__all__ = [
    "begin_page",
    "chart",
    "current_lang",
    "labeler",
    "page_link",
    "params",
    "presenter",
    "secondary",
    "t",
]


def chart(fig: go.Figure, *, key: str | None = None) -> None:
    """Show a figure from ``core.charts`` full width, without plotly's logo."""
    st.plotly_chart(
        fig, width="stretch", key=key, config={"displaylogo": False, "responsive": True}
    )


def page_link(path: str, *, label: str, **kwargs: object) -> None:
    """``st.page_link`` that degrades to plain text when no navigation is registered (a page
    file run on its own, outside ``app.py``): the link is then simply not clickable."""
    from streamlit.errors import StreamlitPageNotFoundError

    try:
        st.page_link(path, label=label, **kwargs)
    except StreamlitPageNotFoundError:
        st.caption(label)
