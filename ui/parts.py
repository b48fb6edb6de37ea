"""A lesson page's parts: the part selector (in the URL as ``part``), the dispatch to the
chosen part's ``show()``, and a page link that degrades to text outside the navigation."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from ui import params
from ui.i18n import deck_path, labeler, presenter, t
from ui.nav import Stop, deck, neighbours, page_parts
from ui.slide import start_part


def part_selector(prefix: str, parts: Sequence[str], *, key: str) -> str:
    """The part of a lesson page on screen: one segmented control (options
    ``<prefix>part.<name>``), in the URL as ``part`` (the first part by default; a bad value
    falls back with the usual notice). Returns the chosen part's name.

    ``prefix`` is ``"<slug>."``; ``parts`` must be the page's parts as declared in
    ``ui.nav.PAGES`` (the deck walks those). In presenter mode the label says where the
    part is in the page and in the deck's path ("Part 2 of 5 · slide 12 of 19"), or that the
    class path passes over it."""
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
        _, _, k, n = neighbours(slug, part, deck_path())
        where = {"k": list(parts).index(part) + 1, "n": len(parts), "total": n}
        label = t("shell.part_of", slide=k, **where) if k else t("shell.part_off", **where)
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
    try:
        st.page_link(path, label=label, **kwargs)
    except StreamlitPageNotFoundError:
        st.caption(label)


def show_part(slug: str, shows: Mapping[str, Callable[[], None]]) -> None:
    """A lesson page's part selector (:func:`part_selector`, widget key ``<slug>_part``),
    then the chosen part (its first slide glosses the words it introduces,
    :func:`ui.slide.new_words`): ``shows`` maps each part declared in ``ui.nav.PAGES``,
    in that order, to the function of ``lessons.<slug>.<part>`` that draws it."""
    part = part_selector(f"{slug}.", tuple(shows), key=f"{slug}_part")
    start_part(slug, part)  # its first slide shows the part's new words
    shows[part]()


def shown_before(slug: str, part: str, here: tuple[str, str]) -> int:
    """The slide on the deck's current path where the part ``(slug, part)`` comes before the
    part ``here`` (by the path's order, or the lesson's where the path passes over
    ``here``), or 0 when the path does not show it first: a picture shown earlier is linked
    back to, not drawn again."""
    path = deck_path()
    _, _, k, _ = neighbours(slug, part, path)
    _, _, mine, _ = neighbours(*here, path)
    if not k:
        return 0
    if mine:
        return k if k < mine else 0
    full = deck("full")
    return k if full.index(Stop(slug, part)) < full.index(Stop(*here)) else 0
