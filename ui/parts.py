"""A lesson page's parts: the part selector (in the URL as ``part``), the dispatch to the
chosen part's ``show()``, and a page link that degrades to text outside the navigation."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from core import glossary
from ui import params
from ui.i18n import current_lang, deck_path, labeler, presenter, t
from ui.nav import Stop, deck, neighbours, page_parts


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
    the glosses of the words the part introduces (:func:`new_words`), then the chosen
    part: ``shows`` maps each part declared in ``ui.nav.PAGES``, in that order, to the
    function of ``lessons.<slug>.<part>`` that draws it."""
    part = part_selector(f"{slug}.", tuple(shows), key=f"{slug}_part")
    new_words(slug, part)
    shows[part]()


def new_words(slug: str, part: str) -> None:
    """The one-line gloss of each concept the part introduces (``core.glossary``), above
    its lead: a newcomer meets every term of the class path with its meaning."""
    new = glossary.introduced_at(slug, part)
    if not new:
        return
    lang = current_lang()
    glosses = " · ".join(f"**{c.term[lang]}**: {c.gloss[lang]}" for c in new)
    st.caption(f":material/menu_book: {t('shell.new_words')} {glosses}")


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
