"""The one cache decorator of the lessons' ``data.py`` modules.

``@cache.data(max_entries=64)`` is ``st.cache_data`` whose key also holds the checksums of
every shipped model (the manifest's sha256s): retrained weights mean new entries, never a
stale chart. A cache keyed on what a visitor sends must give ``max_entries`` (a public link
must not grow the server's memory without end); one keyed on a closed set may leave it out.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from typing import Any, TypeVar

import streamlit as st

from core import zoo

F = TypeVar("F", bound=Callable[..., Any])


@st.cache_resource(show_spinner=False)
def zoo_key() -> str:
    """A short digest of every model's checksum in the manifest ("" without a manifest)."""
    try:
        models = zoo.load_manifest().get("models", {})
    except zoo.ZooError:
        return ""
    shas = sorted((name, str(m.get("sha256", ""))) for name, m in models.items())
    return hashlib.sha256(repr(shas).encode()).hexdigest()[:16]


def data(fn: F | None = None, *, max_entries: int | None = None) -> Any:
    """``st.cache_data`` keyed on the arguments and :func:`zoo_key` (no spinner)."""

    def wrap(fn: F) -> F:
        def keyed(zoo: str, args: tuple, kwargs: dict) -> Any:
            return fn(*args, **kwargs)

        # Streamlit tells caches apart by module and qualified name: give each its own.
        keyed.__module__, keyed.__qualname__ = fn.__module__, f"{fn.__qualname__}.cached"
        cached = st.cache_data(show_spinner=False, max_entries=max_entries)(keyed)

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            return cached(zoo_key(), args, kwargs)

        call.clear = cached.clear  # type: ignore[attr-defined]
        return call  # type: ignore[return-value]

    return wrap(fn) if fn is not None else wrap
