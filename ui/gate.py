"""The fair gate as a visitor meets it: ``serve.admission`` decides whether a run may go,
this module tells a refused visitor why (in their language) and what to do (a retry button),
and gives every part a gated fragment.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import streamlit as st

from serve import admission
from serve.fairshare import BUSY
from ui.i18n import t
from ui.slide import fragment_depth, fragment_run


def refusal(reason: str | None, retry_key: str) -> None:
    """Why the run was refused (a busy server, or too many runs waiting from this browser or
    its address) and the button that tries again."""
    key = "admission.busy" if reason == BUSY else "admission.crowded"
    st.warning(t(key), icon=":material/hourglass_top:")
    st.button(t("admission.retry"), key=retry_key, type="primary")


@contextmanager
def admitted(retry_key: str = "ui_admission_retry") -> Iterator[bool]:
    """``with admitted() as ok:`` around a page run. Not ok: the visitor has been told why
    (and what to do: the ``retry_key`` button); the caller stops the run."""
    with admission.admitted() as decision:
        if not decision.ok:
            refusal(decision.reason, retry_key)
        yield decision.ok


def fragment(func: Callable[..., Any] | None = None, *, run_every: float | None = None):
    """``st.fragment`` whose own reruns pass the gate too: a fragment's rerun runs only the
    fragment (not app.py and its frame), so without this a client could rerun the heaviest
    part of a page as often as it likes, past every limit. Drawn by a full run, whose frame
    already holds a slot, it runs straight away. Use as ``@ui.fragment`` or
    ``@ui.fragment(run_every=2)``."""

    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(f)
        def gated(*args: Any, **kwargs: Any) -> Any:
            with fragment_run(f"{f.__module__}.{f.__qualname__}"):
                if admission.holding():
                    return f(*args, **kwargs)
                with admitted(f"ui_admission_retry_{f.__module__}.{f.__qualname__}") as ok:
                    return f(*args, **kwargs) if ok else None

        as_fragment = st.fragment(gated, run_every=run_every)
        if run_every is not None:  # a timer must stay a fragment: inline, it would stop
            return as_fragment

        @functools.wraps(f)
        def call(*args: Any, **kwargs: Any) -> Any:
            return gated(*args, **kwargs) if inline() else as_fragment(*args, **kwargs)

        return call

    return decorate(func) if func is not None else decorate


def inline() -> bool:
    """Whether a gated fragment called now runs as part of its caller, not as a fragment of
    its own: during a fragment's rerun, two or more gated fragments deep (the bottleneck's
    model switch, in its part, in the page's fragment rerun by the part selector).

    Streamlit 1.67 lets a fragment rerun write into a place made outside the nested fragment
    only when the fragment that made the place is the one rerun; the model switch writes into
    its part's slide, made by the part's fragment, so on the page fragment's rerun every
    such write raised StreamlitInvalidLayoutContextError and the part lost its switch and
    chart until the next full run. Inline, it writes as its part does; the next full run
    nests it again (a click on it meanwhile reruns its part)."""
    if fragment_depth() < 2:
        return False
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return bool(ctx is not None and ctx.fragment_ids_this_run)
