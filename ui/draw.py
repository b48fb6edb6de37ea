"""The chart element: ``chart(fig)`` shows a figure from ``charts`` fitted to the visitor's
screen (the laptop, the projector or a phone: :func:`charts.screen.fit`), with its text
alternative, through the one chart element of :mod:`ui.plot`; :func:`on_a_phone` tells a
phone by its browser.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING

import streamlit as st

from core import mdtable
from ui.i18n import current_lang, presenter

if TYPE_CHECKING:
    import plotly.graph_objects as go


def on_a_phone() -> bool:
    """Whether the visitor's browser says it is a phone ("Mobi" in its User-Agent, the
    test MDN recommends): the server never learns the screen's width, and plotly cuts a
    title wider than the chart instead of wrapping it."""
    try:
        return "Mobi" in (st.context.headers.get("User-Agent") or "")
    except Exception:  # noqa: BLE001 - no request (a test harness): not a phone
        return False


def chart(
    fig: go.Figure | Callable[[], go.Figure],
    *,
    key: str | None = None,
    width: float = 1.0,
    height: int | None = None,
    memo: Hashable | None = None,
    kept: str = "lesson",
) -> None:
    """Show a figure from ``charts`` full width, without plotly's logo, fitted to the screen
    (:func:`charts.screen.fit`): on the projector (presenter mode) every text at projector
    size, the title wrapped to ``width`` -- the fraction of the main column the chart gets,
    0.5 in one of two columns -- and the height capped so the chart stays on the first
    screen (``height``: a lower cap, :data:`charts.screen.sizes.STEP_SLIDE_HEIGHT` for a
    chart with step controls under it); on a phone (:func:`on_a_phone`) the title as text
    above the chart, which wraps, and plotly's tool bar off (without hover it would stay
    over the chart's top); on every screen the margins set to what plotly would grow them
    to, so that the browser draws the chart once.

    ``memo``: everything the figure depends on besides the language, presenter mode, the
    phone, ``width``, ``height`` and the shipped models (each in the key already), with
    ``fig`` a function that builds it. The chart as sent (title, figure JSON, text
    alternative) is then kept for the whole server (:data:`ui.plot.DRAWN`): the next visitor, or
    the same one sliding back, gets it without building, fitting or encoding it again (a
    class moving one slider between a few values; bench: reruns). ``kept="live"`` keeps it
    in a store of its own (:data:`ui.plot.LIVE`): a race's charts, new every second, would
    otherwise push the lesson's out."""
    # here, not at the top: numpy and the chart code load with a page's first chart, not
    # with the home page a cold server shows first (its first run, bench: cold start)
    from ui import plot

    phone = on_a_phone()
    figure = fig if callable(fig) else (lambda: fig)
    if memo is None:
        drawn = _prepare(figure(), width, height, phone)
    else:
        from ui import cache

        ck = (key, memo, current_lang(), presenter(), phone, width, height, cache.zoo_key())
        store = plot.LIVE if kept == "live" else plot.DRAWN
        drawn = store.get(ck)
        if drawn is None:
            drawn = _prepare(figure(), width, height, phone)
            store.put(ck, drawn, len(drawn[1]))
    title, data, room = drawn
    if title:
        st.markdown(f"**{mdtable.escape(title)}**")
    plot.draw_payload(data, key=key, height=room)


def _prepare(
    fig: go.Figure, width: float, height: int | None, phone: bool
) -> tuple[str | None, bytes, int]:
    """:func:`chart`'s work on ``fig`` (it is changed): the phone's title taken out, what the
    browser gets (:func:`ui.plot.payload`) and the room the chart takes (:func:`ui.plot.room`)."""
    from charts import screen  # with the first chart, not the home page (see chart)
    from ui import plot

    # presenter mode never on a phone (ui.shell: a phone keeps its own layout)
    kind = "projector" if presenter() else "phone" if phone else "laptop"
    title = screen.fit(fig, screen=kind, width=width, height=height)
    config = {"displaylogo": False, "responsive": True}
    if phone:
        # a screen without hover shows plotly's tool bar all the time, over the chart's top
        # (an attention map's words); a phone zooms with two fingers, resets with a double tap
        config["displayModeBar"] = False
    # under the chart, what it shows for a screen reader, and its data as a table
    alt = _alternative(fig)
    # presenter mode hides the data table's fold (ui.style.PRESENTER_CSS)
    room = plot.room(fig, alt, fold_shown=kind != "projector")
    return title, plot.payload(fig, config, alt), room


def _alternative(fig: go.Figure) -> str:
    """``fig``'s text alternative and data table in the visitor's language (escaped html)."""
    from charts import describe  # with the first chart, not the home page (see chart)

    # the figure's own property dicts: no copy, no validation (see charts.screen.projector)
    spec = {"data": fig._data, "layout": fig._layout}  # noqa: SLF001
    return describe.alternative_html(spec, current_lang())
