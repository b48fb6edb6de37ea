"""Streamlit-side helpers shared by ``app.py`` and every page (``core`` stays UI-free).

Pages use: ``begin_page(slug)``, ``t(key, **fmt)``, ``current_lang()``, ``presenter()``,
``labeler(prefix)``, ``part_selector``, the one part layout ``slide(lead)`` with
``takeaway``, ``try_this``, ``curious``, ``mixed`` and ``hold`` (see ``ui.slide``), ``chart(fig)``,
``model_name(model)`` and the deep-link helpers in ``ui.params``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TYPE_CHECKING

import streamlit as st

from core import lexicon, mdtable
from ui import params
from ui.gate import fragment
from ui.i18n import current_lang, labeler, presenter, t
from ui.nav import neighbours, page_parts
from ui.shell import begin_page, secondary
from ui.slide import curious, hold, mixed, slide, takeaway, try_this

if TYPE_CHECKING:
    import plotly.graph_objects as go

__all__ = [
    "begin_page",
    "chart",
    "current_lang",
    "curious",
    "fragment",
    "hold",
    "labeler",
    "mixed",
    "model_name",
    "page_link",
    "part_selector",
    "params",
    "presenter",
    "secondary",
    "show_part",
    "slide",
    "t",
    "takeaway",
    "try_this",
]


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
) -> None:
    """Show a figure from ``charts.base`` full width, without plotly's logo.

    On a phone (:func:`on_a_phone`) the title is text above the chart, which wraps
    (:func:`charts.base.take_title`), long panel titles are wrapped
    (:func:`charts.base.fit_phone`), a category axis labels every category (smaller labels,
    :func:`charts.margins.label_every_category`), and plotly's tool bar is off (without
    hover it would stay over the chart's top). On every screen a horizontal axis title wider
    than its room is wrapped (:func:`charts.margins.wrap_x_titles`).

    In presenter mode the figure is first fitted to the projector
    (:func:`charts.base.fit_projector`: every text at projector size, the title wrapped to
    ``width`` -- the fraction of the main column the chart gets, 0.5 in one of two
    columns -- and the height capped so the chart stays on the first screen; ``height``:
    a lower cap, :data:`charts.base.STEP_SLIDE_HEIGHT` for a chart with step
    controls under it).

    Last, the margins are set to what plotly would grow them to
    (:func:`charts.margins.preset`), so that the browser draws the chart once instead
    of drawing it, growing the margins and drawing it again.

    ``memo``: everything the figure depends on besides the language, presenter mode, the
    phone, ``width``, ``height`` and the shipped models (each in the key already), with
    ``fig`` a function that builds it. The chart as sent (title, figure JSON, text
    alternative) is then kept for the whole server (:data:`ui.plot.DRAWN`): the next visitor, or
    the same one sliding back, gets it without building, fitting or encoding it again (a
    class moving one slider between a few values; bench: reruns)."""
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
        drawn = plot.DRAWN.get(ck)
        if drawn is None:
            drawn = _prepare(figure(), width, height, phone)
            plot.DRAWN.put(ck, drawn, len(drawn[1]))
    title, data = drawn
    if title:
        st.markdown(f"**{mdtable.escape(title)}**")
    plot.draw_payload(data, key=key)


def _prepare(
    fig: go.Figure, width: float, height: int | None, phone: bool
) -> tuple[str | None, bytes]:
    """:func:`chart`'s work on ``fig`` (it is changed): the phone's title taken out, and what
    the browser gets (:func:`ui.plot.payload`)."""
    from charts import base, margins
    from ui import plot

    title = None
    if presenter():  # never on a phone (ui.shell: a phone keeps its own layout)
        base.fit_projector(fig, width=width, height=height or base.SLIDE_HEIGHT)
        room = base.PRESENTER_WIDTH * width
    elif phone:
        title = base.take_title(fig) or None
        base.fit_phone(fig)
        room = base.PHONE_WIDTH
        # every word of a heatmap's axis, not every second one
        margins.label_every_category(fig, width_px=room, smallest=base.MIN_PHONE_TICK)
    else:
        room = base.LAPTOP_WIDTH * width
    # a horizontal axis title wider than its room: on more lines (over another panel,
    # smaller), not past the chart's edges
    smallest = base.MIN_PROJECTOR_FONT if presenter() else base.MIN_PHONE_FONT
    margins.wrap_x_titles(fig, width_px=room, wrap=base.wrap, smallest=smallest)
    margins.preset(fig, width_px=room)
    config = {"displaylogo": False, "responsive": True}
    if phone:
        # a screen without hover shows plotly's tool bar all the time, over the chart's top
        # (an attention map's words); a phone zooms with two fingers, resets with a double tap
        config["displayModeBar"] = False
    # under the chart, what it shows for a screen reader, and its data as a table
    return title, plot.payload(fig, config, _alternative(fig))


def _alternative(fig: go.Figure) -> str:
    """``fig``'s text alternative and data table in the visitor's language (escaped html)."""
    from charts import describe

    # the figure's own property dicts: no copy, no validation (see base.fit_projector)
    spec = {"data": fig._data, "layout": fig._layout}  # noqa: SLF001
    return describe.alternative_html(spec, current_lang())


def model_name(model: str) -> str:
    """The one display name of a model or probe, in the session's language."""
    return lexicon.name(model, current_lang())


def part_selector(prefix: str, parts: Sequence[str], *, key: str) -> str:
    """The part of a lesson page on screen: one segmented control (options
    ``<prefix>part.<name>``), in the URL as ``part`` (the first part by default; a bad value
    falls back with the usual notice). Returns the chosen part's name.

    ``prefix`` is ``"<slug>."``; ``parts`` must be the page's parts as declared in
    ``ui.nav.PAGES`` (the deck walks those). In presenter mode the label says where the
    part is in the page and in the whole lesson ("Part 2 of 5 · slide 12 of 31")."""
    slug = prefix.rstrip(".")
    declared = page_parts(slug)
    if declared and tuple(parts) != declared:
        raise ValueError(
            f"page {slug!r} shows parts {tuple(parts)} but ui.nav.PAGES declares {declared}; "
            "keep them the same (the deck walks the declared ones)"
        )
    part = params.get_choice("part", parts, default=parts[0])
    label = t("shell.part")
    if presenter():
        _, _, k, n = neighbours(slug, part)
        label = t("shell.part_of", k=list(parts).index(part) + 1, n=len(parts), slide=k, total=n)
    part = st.segmented_control(
        label,
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


def show_part(slug: str, shows: Mapping[str, Callable[[], None]]) -> None:
    """A lesson page's part selector (:func:`part_selector`, widget key ``<slug>_part``),
    then the chosen part: ``shows`` maps each part declared in ``ui.nav.PAGES``, in that
    order, to the function of ``lessons.<slug>.<part>`` that draws it."""
    part = part_selector(f"{slug}.", tuple(shows), key=f"{slug}_part")
    shows[part]()
