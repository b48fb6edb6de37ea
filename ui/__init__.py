"""Streamlit-side helpers shared by ``app.py`` and every page (``core`` stays UI-free).

Pages use: ``begin_page(slug)``, ``t(key, **fmt)``, ``current_lang()``, ``presenter()``,
``secondary()``, ``labeler(prefix)``, ``chart(fig)`` and the deep-link helpers in ``ui.params``.
"""

from __future__ import annotations

from collections.abc import Sequence

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
    "part_selector",
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


def part_selector(prefix: str, parts: Sequence[str], *, key: str) -> str:
    """The part of a lesson page on screen: a segmented control labelled ``<prefix>part``
    (options ``<prefix>part.<name>``), in the URL as ``part`` (the first part by default; a
    bad value falls back with the usual notice). Returns the chosen part's name."""
    part = params.get_choice("part", parts, default=parts[0])
    part = st.segmented_control(
        t(prefix + "part"),
        parts,
        format_func=labeler(prefix + "part."),
        required=True,
        **params.bound("part", part, key=key),
    )
    params.set_params(part=part)
    return part


def page_link(path: str, *, label: str, **kwargs: object) -> None:
    """``st.page_link`` that degrades to plain text when no navigation is registered (a page
    file run on its own, outside ``app.py``): the link is then simply not clickable."""
    from streamlit.errors import StreamlitPageNotFoundError

    try:
        st.page_link(path, label=label, **kwargs)
    except StreamlitPageNotFoundError:
        st.caption(label)
