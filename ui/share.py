"""Share to the room: the current view's full link and a QR code of it."""

from __future__ import annotations

import io
from urllib.parse import urlencode, urlsplit

import streamlit as st

from ui.i18n import presenter, t


def current_url(page_url_path: str = "") -> str:
    """The full link of the current view: page address plus all query parameters."""
    base = st.context.url or f"http://localhost:8501/{page_url_path}"
    query = urlencode([(k, v) for k in st.query_params for v in st.query_params.get_all(k)])
    return f"{base}?{query}" if query else base


class DataOverflow(ValueError):
    """A link longer than a QR code holds."""


def qr_png(url: str, scale: int = 10) -> bytes:
    """A QR code of ``url`` as PNG bytes (pure Python, no network)."""
    import segno  # with the share dialog, not with every page's first run

    buf = io.BytesIO()
    try:
        code = segno.make(url, error="m", micro=False)
    except segno.DataOverflowError as exc:
        raise DataOverflow(str(exc)) from exc
    code.save(buf, kind="png", scale=scale, border=4)
    return buf.getvalue()


def _body(url: str) -> None:
    st.code(url, language=None, wrap_lines=True)
    host = urlsplit(url).hostname or ""
    if host in ("localhost", "127.0.0.1", "::1"):
        st.info(t("share.localhost_hint"), icon=":material/wifi:")
    try:
        png = qr_png(url)
    except DataOverflow:  # a link longer than a QR code holds (~2.3 kB)
        st.warning(t("share.too_long", chars=len(url)), icon=":material/qr_code_2:")
        return
    st.image(png, width=520 if presenter() else 360, caption=t("share.qr_caption"))


def show_dialog(url: str) -> None:
    """Open the share dialog (a modal, large enough to scan from the back row)."""
    st.dialog(t("share.title"), width="large")(_body)(url)
