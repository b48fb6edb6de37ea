"""The frame every page lives in: navigation, language, presenter mode, share.

``app.py`` calls :func:`start` (before the page) and :func:`finish` (after it). Pages call
:func:`begin_page` first; besides drawing the title and claim, it repairs the one case in
which a page runs without the frame (see :func:`_leave_legacy_mode`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from streamlit.navigation.page import StreamlitPage

from core.i18n import LANG_NAMES, LANGS, lang_from_locale
from serve import warmup
from ui import clicker, draw, gate, handout, share, style
from ui.i18n import LANG_KEY, PATH_KEY, PRESENT_KEY, current_lang, deck_path, presenter, t
from ui.nav import (
    DEFAULT_PATH,
    PAGES,
    PATHS,
    ROOT,
    Stop,
    deck,
    is_built,
    neighbours,
    page_parts,
)
from ui.params import notice

SHELL_RAN_KEY = "ui_shell_running"  # True while app.py's frame is around the page
GUARD_KEY = "ui_legacy_repair_pending"  # a repair rerun was asked for and has not arrived
LANG_WIDGET = "ui_lang"
PRESENT_WIDGET = "ui_present"
PATH_WIDGET = "ui_path"
SHARE_WIDGET = "ui_share"
SHARE_OPEN_KEY = "ui_share_open"  # set by the share button, consumed by finish()
PRESENT_PHONE_KEY = "ui_present_phone"  # this run's link asked a phone for presenter mode


def _pages() -> list[st.Page]:
    return [
        st.Page(
            ROOT / spec.path,  # absolute: also right when a page file runs as the main script
            title=t(f"page.{spec.slug}.title"),
            url_path=spec.slug,
            default=(i == 0),
        )
        for i, spec in enumerate(PAGES)
        if is_built(spec.slug)
    ]


def _nav_links() -> None:
    """The app's own navigation, in the sidebar: one link per page, in lesson order.

    Streamlit's sidebar navigation is switched off (``client.showSidebarNavigation =
    false`` in ``.streamlit/config.toml``, which also hides it in the legacy multipage mode a
    fresh server starts in: a first visitor never sees the file names "app, arena, ..."),
    and ``st.navigation`` runs hidden; these links replace it."""
    for spec in PAGES:
        if spec.listed and is_built(spec.slug):
            st.page_link(
                str(ROOT / spec.path),
                label=t(f"page.{spec.slug}.title"),
                query_params={"lang": current_lang(), "present": int(presenter())},
            )
    st.divider()


def _resolve() -> list[tuple[str, str, object]]:
    """Settle language and presenter mode from the URL; return notices to show.

    Order of precedence: a valid URL value, then this session's current value (query
    parameters are cleared when the user switches pages), then the browser locale.
    """
    bad: list[tuple[str, str, object]] = []
    fallback = st.session_state.get(LANG_KEY) or lang_from_locale(st.context.locale)
    lang = _from_link("lang", LANGS, fallback, bad)
    fallback_p = "1" if st.session_state.get(PRESENT_KEY, False) else "0"
    present = _from_link("present", ("0", "1"), fallback_p, bad) == "1"

    # Presenter mode is the projector's layout (text and charts sized for 1280 px and a
    # room): a phone keeps its own, even from a link made in presenter mode (a student
    # scanning the projector's QR code), and says so once.
    phone_asked = present and _on_a_phone()
    st.session_state[PRESENT_PHONE_KEY] = phone_asked and st.query_params.get("present") == "1"
    if phone_asked:
        present = False

    # The deck's path: the link's, else this session's, else the class path. The default is
    # left out of the link (the class path's links read as they always did).
    path = _from_link("path", PATHS, st.session_state.get(PATH_KEY, DEFAULT_PATH), bad)

    st.session_state[LANG_KEY] = lang
    st.session_state[PRESENT_KEY] = present
    st.session_state[PATH_KEY] = path
    # Widgets show the settled values (set before they are created in this run).
    st.session_state[LANG_WIDGET] = lang
    st.session_state[PRESENT_WIDGET] = present
    st.session_state[PATH_WIDGET] = path
    # The URL always carries both, so a copied link reopens exactly this view.
    if st.query_params.get("lang") != lang:
        st.query_params["lang"] = lang
    if st.query_params.get("present") != str(int(present)):
        st.query_params["present"] = str(int(present))
    _write_path(path)
    return bad


def _from_link(
    name: str, valid: tuple[str, ...], fallback: str, bad: list[tuple[str, str, object]]
) -> str:
    """The link's value of ``name`` if it is one of ``valid``; else ``fallback`` (a value
    the link got wrong is added to ``bad``, with the fallback it gave way to)."""
    raw = st.query_params.get(name)
    if raw in valid:
        return raw
    if raw is not None:
        bad.append((name, raw, int(fallback) if name == "present" else fallback))
    return fallback


def _write_path(path: str) -> None:
    """The path in the address bar: ``path=full``, or nothing for the default."""
    if path == DEFAULT_PATH:
        if "path" in st.query_params:
            del st.query_params["path"]
    elif st.query_params.get("path") != path:
        st.query_params["path"] = path


def _keep() -> dict[str, object]:
    """What every link of the deck keeps: language, presenter mode and a path not the
    default."""
    keep: dict[str, object] = {"lang": current_lang(), "present": int(presenter())}
    if deck_path() != DEFAULT_PATH:
        keep["path"] = deck_path()
    return keep


def _on_a_phone() -> bool:
    return draw.on_a_phone()  # through the module: a test fakes a phone there


def _on_lang() -> None:
    st.query_params["lang"] = st.session_state[LANG_WIDGET]


def _on_share() -> None:
    st.session_state[SHARE_OPEN_KEY] = True


def _on_present() -> None:
    st.query_params["present"] = "1" if st.session_state[PRESENT_WIDGET] else "0"


def _on_path() -> None:
    # the session's path too: the class path has no parameter of its own to win over it
    st.session_state[PATH_KEY] = st.session_state[PATH_WIDGET]
    _write_path(st.session_state[PATH_WIDGET])


# Streamlit looks for a leading emoji in every option label whose first word is not ASCII,
# loading its emoji catalogue for that (~35 ms, ~100 ms in a cold server's first run beside
# the browser: bench, cold start); a Material icon in front is found without it. The
# "translate" icon also tells a visitor who reads no English where the Chinese page is.
_LANG_ICON = {"zh": ":material/translate:"}


def _lang_option(lang: str) -> str:
    icon = _LANG_ICON.get(lang)
    return f"{icon} {LANG_NAMES[lang]}" if icon else LANG_NAMES[lang]


def _sidebar() -> None:
    """Language, presenter mode, the deck's path and sharing, in the place the caller is in
    (the sidebar's, held until the stylesheet is in: :func:`_held`)."""
    # Two-option segmented controls, not a select box and a toggle: one click instead of two
    # for the language, and the browser loads no extra code for them (the pages use
    # segmented controls anyway). A select box and a toggle made every first visit fetch
    # ~20 more script chunks (Streamlit loads each widget's code on first use): bottleneck's
    # first render 1.27x -> 1.10x the bare page's (3 A/B pairs; README, Benchmarks).
    st.segmented_control(
        "Language · 语言",  # bilingual on purpose: findable whatever the current language
        LANGS,
        format_func=_lang_option,
        key=LANG_WIDGET,
        on_change=_on_lang,
        required=True,
    )
    phone = _on_a_phone()
    st.segmented_control(
        t("shell.presenter"),
        (False, True),
        format_func=lambda on: t("shell.presenter_on" if on else "shell.presenter_off"),
        key=PRESENT_WIDGET,
        on_change=_on_present,
        help=t("shell.presenter_phone" if phone else "shell.presenter_help"),
        disabled=phone,
        required=True,
    )
    # labels made now: Streamlit (and AppTest) may call format_func outside the run
    paths = {path: t(f"shell.path_{path}", n=len(deck(path))) for path in PATHS}
    st.segmented_control(
        t("shell.path"),
        PATHS,
        format_func=paths.__getitem__,
        key=PATH_WIDGET,
        on_change=_on_path,
        help=t("shell.path_help"),
        required=True,
    )
    st.button(
        t("share.button"),
        key=SHARE_WIDGET,
        on_click=_on_share,
        icon=":material/qr_code_2:",
        help=t("share.help"),
        width="stretch",
    )
    if presenter():  # the teacher's: the lesson to hand out, in this language and path
        handout.offer()
    st.caption(t("shell.sidebar_note"))


def _held(parent, key: str) -> DeltaGenerator:
    """A container in ``parent`` (the main column or the sidebar) that shows nothing until the
    app's stylesheet is in the page, then all it holds where it would be without it
    (``ui.style.MAIN_KEY``): before the stylesheet, Streamlit would draw the page's pieces as
    they come, and they would move as the rest came."""
    return parent.container(key=key, height=style.UNSTYLED_HEIGHT, border=False)


# What the app draws after a part (slug, part): the class poll's offers (``poll.panel``).
AfterPart = Callable[[str, str | None], None]


@contextmanager
def frame(
    after_part: AfterPart | None = None, warm_ups: warmup.WarmUps | None = None
) -> Iterator[StreamlitPage]:
    """The frame around one run of a page: ``with shell.frame() as page: page.run()``;
    ``after_part`` and ``warm_ups`` are handed to :func:`finish`."""
    try:
        bad = _resolve()  # the language first: a refusal speaks the visitor's language
        # One fair gate around everything the run draws (serve/admission.py): on a busy public
        # server, the address and session that used least recently go first; a refused run
        # says why and stops. (A fragment's own reruns pass it too: ui.gate.fragment.)
        with gate.admitted() as ok:
            if not ok:
                st.stop()
            page = start(bad)
            with _held(st, style.MAIN_KEY):
                yield page
                finish(page, after_part, warm_ups)
    finally:
        # Marks "no frame" again, so a later run that skips app.py is noticed.
        st.session_state[SHELL_RAN_KEY] = False


def start(bad: list[tuple[str, str, object]]) -> StreamlitPage:
    """Everything before the page (the URL already settled): navigation, sidebar, styles,
    notices."""
    st.session_state[SHELL_RAN_KEY] = True
    st.session_state[GUARD_KEY] = False
    st.set_page_config(
        page_title=t("app.title"),
        initial_sidebar_state="collapsed" if presenter() else "auto",
    )
    page = st.navigation(_pages(), position="hidden")
    # the stylesheet before the sidebar: what holds the page still while it loads is in it
    # (ui.style), and Streamlit loads the code that shows it only when the first one comes
    style.apply(presenter())
    with _held(st.sidebar, style.SIDE_KEY):
        _nav_links()  # the lesson first, then language, presenter mode and sharing
        _sidebar()
    if presenter():
        clicker.install()
    for name, raw, default in bad:
        notice(name, raw, default)
    if st.session_state.get(PRESENT_PHONE_KEY):
        st.info(t("shell.presenter_phone"), icon=":material/smartphone:")
    return page


def _slug(page: StreamlitPage) -> str:
    return page.url_path or PAGES[0].slug  # the default page's url_path is ""


def _stop_label(stop: Stop) -> str:
    title = t(f"page.{stop.slug}.title")
    if stop.part is None:
        return title
    return t("deck.where", page=title, part=t(f"{stop.slug}.part.{stop.part}"))


def _stop_link(stop: Stop, label: str) -> None:
    """A deep link to a stop of the deck (language, presenter mode and path kept)."""
    keep = _keep()
    st.page_link(
        str(ROOT / f"pages/{stop.slug}.py"),
        label=label,
        query_params=dict(keep, part=stop.part) if stop.part else keep,
    )


def deck_links(slug: str, part: str | None) -> None:
    """ "◂ previous" / "next ▸" under the part: the whole lesson as one deck, every step a
    deep link to a page and part. In presenter mode also the first and the last stop,
    hidden: the clicker's Home and End (``ui.clicker``; each link sits in the container
    the clicker looks for)."""
    prev, nxt, _, _ = neighbours(slug, part, deck_path())
    if prev is None and nxt is None:
        return
    st.divider()
    left, right = st.columns(2)
    for col, stop, key, go in (
        (left, prev, "deck.prev", "prev"),
        (right, nxt, "deck.next", "next"),
    ):
        if stop is not None:
            with col, st.container(key=clicker.LINKS[go]):
                _stop_link(stop, t(key, where=_stop_label(stop)))
    if presenter():
        stops = deck(deck_path())
        here = Stop(slug, part if part in page_parts(slug) else None)
        with st.container(key=clicker.JUMP):
            for stop, go in ((stops[0], "first"), (stops[-1], "last")):
                if stop != here:
                    with st.container(key=clicker.LINKS[go]):
                        _stop_link(stop, _stop_label(stop))


def finish(
    page: StreamlitPage | None = None,
    after_part: AfterPart | None = None,
    warm_ups: warmup.WarmUps | None = None,
) -> None:
    """Everything after the page (which has written its state to the URL): ``after_part``
    (the class poll's "Ask the class" and "Predict, then check", after the whole part so it
    never pushes a chart down), the deck's previous/next links, sharing, and (once per
    process) the background import of what the lesson pages need, then ``warm_ups``."""
    if page is not None:
        slug, part = _slug(page), st.query_params.get("part")
        if after_part is not None:
            after_part(slug, part)
        deck_links(slug, part)
    # Write the address bar once per full run, changed or not: a deck link to another part
    # of the same page sets the query string on the server, and the browser's address
    # would otherwise keep the old part whenever the new part writes nothing new.
    st.query_params["lang"] = current_lang()
    if st.session_state.pop(SHARE_OPEN_KEY, False):
        share.show_dialog(share.current_url())
    warmup.start(warm_ups=warm_ups)


def _leave_legacy_mode() -> None:
    """Repair a page run that did not go through ``app.py``.

    While a ``pages/`` folder sits next to ``app.py``, a freshly started Streamlit server
    is in its legacy multipage mode until some session calls ``st.navigation``: a deep
    link such as ``/bottleneck?lang=zh`` as the first request runs the page file alone
    (no sidebar, no language, ``app`` listed as a page). Here the page notices that the
    frame did not run, declares the real navigation (which switches the whole server out
    of legacy mode for good) and reruns; the rerun goes through ``app.py`` with the same
    page and query string. (``AppTest`` recreates that legacy state before every run, so
    the AppTest suites go through this repair on each rerun.) Should the frame still be
    missing after the rerun (a page file run as a script of its own), the page gets the
    sidebar inline instead of a loop.
    """
    if not st.session_state.get(GUARD_KEY):
        st.session_state[GUARD_KEY] = True
        st.navigation(_pages(), position="hidden")
        st.rerun()
    bad = _resolve()
    style.apply(presenter())
    with _held(st.sidebar, style.SIDE_KEY):
        _nav_links()
        _sidebar()
    for name, raw, default in bad:
        notice(name, raw, default)


def begin_page(slug: str) -> None:
    """First call of every page: make sure the frame ran, then the title and the claim."""
    if not st.session_state.get(SHELL_RAN_KEY):
        _leave_legacy_mode()
    st.title(t(f"page.{slug}.title"))
    st.markdown(f"**{t(f'page.{slug}.claim')}**")


def secondary() -> AbstractContextManager:
    """A place for secondary controls: inline on a laptop, folded away in presenter mode."""
    if presenter():
        return st.expander(t("shell.more_controls"), icon=":material/tune:")
    return st.container()


def lang() -> str:
    return current_lang()
