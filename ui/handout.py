"""The presenter's "Download the handout" in the sidebar: the handout of the deck's path in
the visitor's language, built in the background by the server (:mod:`serve.handout`), with
its progress while it builds and its files to download once built."""

from __future__ import annotations

import streamlit as st

from serve import handout
from ui.gate import fragment
from ui.i18n import current_lang, deck_path, t

POLL_S = 1.0  # s between two looks at a build's progress


@st.cache_resource(show_spinner=False)
def builds() -> handout.Builds:
    """The server's one set of handout builds."""
    return handout.Builds()


def offer() -> None:
    """The sidebar's handout: a button that starts the build, its progress, or the files."""
    lang, path = current_lang(), deck_path()
    state = builds().state(lang, path)
    if state.building:
        _progress(lang, path)
    else:
        _ready_or_start(lang, path, state)


def _ready_or_start(lang: str, path: str, state: handout.State) -> None:
    if state.ready and state.html is not None:
        html = state.html
        st.download_button(
            t("handout.html"),
            data=html.read_bytes,
            file_name=html.name,
            mime="text/html",
            on_click="ignore",
            icon=":material/download:",
            help=t("handout.help"),
            width="stretch",
            key="ui_handout_html",
        )
        if state.pdf is not None:
            st.download_button(
                t("handout.pdf"),
                data=state.pdf.read_bytes,
                file_name=state.pdf.name,
                mime="application/pdf",
                on_click="ignore",
                icon=":material/picture_as_pdf:",
                width="stretch",
                key="ui_handout_pdf",
            )
        return
    if state.error:
        st.warning(t("handout.failed", error=state.error), icon=":material/error:")
    st.button(
        t("handout.button"),
        key="ui_handout_start",
        on_click=builds().start,
        args=(lang, path),
        icon=":material/description:",
        help=t("handout.help"),
        width="stretch",
    )


@fragment(run_every=POLL_S)
def _progress(lang: str, path: str) -> None:
    """The build's progress, looked at every second; when it ends, the whole run again (the
    sidebar then offers the files, and this fragment stops polling)."""
    state = builds().state(lang, path)
    if not state.building:
        st.rerun(scope="app")
    if state.total:
        st.progress(
            state.done / state.total, t("handout.building", done=state.done, total=state.total)
        )
    else:
        st.caption(t("handout.queued"))
