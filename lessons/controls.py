"""Controls several lessons draw alike: a row of buttons (a segmented control) tied to a URL
parameter, so a copied link reopens the choice."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import streamlit as st

import ui

T = TypeVar("T")


def segmented(
    label: str,
    options: Sequence[T],
    value: T,
    *,
    param: str,
    key: str,
    format_func: Callable[[T], str] = str,
    **kw: object,
) -> T:
    """One of ``options`` on a segmented control (one is always chosen) showing ``value``,
    what the link says (read with ``ui.params.get_choice(param, ...)``); the choice is written
    back to the link as ``param``. ``kw`` goes to the widget (``help``)."""
    value = st.segmented_control(
        label,
        options,
        format_func=format_func,
        required=True,
        **kw,
        **ui.params.bound(param, value, key=key),
    )
    ui.params.set_params(**{param: value})
    return value
