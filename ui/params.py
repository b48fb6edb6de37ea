"""Deep links: page state read from and written to the URL's query parameters.

A bad value (unknown option, not a number, out of range) never raises: it falls back to
the default and shows a short notice in the user's language. User-controlled text is
shown only inside a code span, clipped, so it cannot inject markdown or HTML. A page reads
a value with a ``get_*`` reader and ties its widget to the URL with :func:`bound`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import streamlit as st

from ui.i18n import t

T = TypeVar("T")
N = TypeVar("N", int, float)

_MAX_SHOWN = 40


def safe_value(raw: object) -> str:
    """A user-supplied value made safe to show inside a markdown code span."""
    text = "".join(ch for ch in str(raw) if ch.isprintable()).replace("`", "'")
    if len(text) > _MAX_SHOWN:
        text = text[: _MAX_SHOWN - 1] + "…"
    return text or " "


def notice(name: str, raw: object, default: object) -> None:
    """Tell the user a URL value was not understood and which default is used instead."""
    st.warning(
        t("notice.bad_param", name=safe_value(name), value=safe_value(raw), default=default),
        icon=":material/link_off:",
    )


def _raw(name: str) -> str | None:
    values = st.query_params.get_all(name)
    return values[-1] if values else None


def get_choice(name: str, options: Sequence[T], default: T) -> T:
    """The URL value of ``name`` if it is one of ``options`` (compared as text)."""
    raw = _raw(name)
    if raw is None:
        return default
    by_text = {str(o): o for o in options}
    if raw in by_text:
        return by_text[raw]
    notice(name, raw, default)
    return default


def get_int(name: str, lo: int, hi: int, default: int) -> int:
    """The URL value of ``name`` as an integer in ``[lo, hi]``."""
    return _get_number(name, int, lo, hi, default)


def get_float(name: str, lo: float, hi: float, default: float) -> float:
    """The URL value of ``name`` as a finite float in ``[lo, hi]``."""
    return _get_number(name, float, lo, hi, default)


def _get_number(name: str, parse: Callable[[str], N], lo: N, hi: N, default: N) -> N:
    raw = _raw(name)
    if raw is None:
        return default
    try:
        value = parse(raw.strip())
    except ValueError:
        notice(name, raw, default)
        return default
    if not lo <= value <= hi:  # also rejects nan
        notice(name, raw, default)
        return default
    return value


def get_bool(name: str, default: bool) -> bool:
    """The URL value of ``name`` as ``0``/``1``."""
    raw = _raw(name)
    if raw is None:
        return default
    if raw in ("0", "1"):
        return raw == "1"
    notice(name, raw, int(default))
    return default


def get_text(name: str, default: str, max_len: int = 300) -> str:
    """Free text from the URL (e.g. a sentence), clipped to ``max_len`` characters."""
    raw = _raw(name)
    if raw is None:
        return default
    text = "".join(ch for ch in raw if ch.isprintable()).strip()
    if not text or len(text) > max_len:
        notice(name, raw, default)
        return default
    return text


def set_params(**values: object) -> None:
    """Write page state to the URL so a copied link reopens it (bools become 0/1)."""
    for name, value in values.items():
        text = _text(value)
        if st.query_params.get(name) != text:
            st.query_params[name] = text


def _text(value: object) -> str:
    return str(int(value)) if isinstance(value, bool) else str(value)


def _write_from_widget(name: str, key: str) -> None:
    st.query_params[name] = _text(st.session_state[key])


def bound(name: str, value: object, *, key: str) -> dict[str, object]:
    """Keyword arguments that tie a widget to the URL parameter ``name``.

    ``value`` is what the URL says (from one of the ``get_*`` readers). The widget shows
    it, and a change in the widget is written back to the URL before the next run, so the
    address bar, the widget and the page always agree::

        task = ui.params.get_choice("task", TASKS, default="all")
        task = st.segmented_control(label, TASKS, **ui.params.bound("task", task, key="p_task"))
    """
    st.session_state[key] = value
    return {"key": key, "on_change": _write_from_widget, "args": (name, key)}
