"""Slow, control-independent computations started early and run beside the page.

A part that needs a long computation no control changes (probes trained on the shipped
models, a sweep of training steps) starts it when the part begins, in a thread of its own,
and waits for it only where its result is drawn: meanwhile the script thread draws the
part's text and controls on the other core. Parts not on screen start nothing. The job is
cached once per server (``st.cache_resource`` returning the Future): see :func:`result_of`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any


def in_thread(name: str, fn: Callable[..., Any], *args: Any) -> Future:
    """``fn(*args)`` started in a daemon thread; its result (or its error) in the Future.

    ``fn`` must not call Streamlit (the thread has no script context): load models and
    other cached resources in the script thread and pass them in."""
    job: Future = Future()

    def work() -> None:
        try:
            job.set_result(fn(*args))
        except BaseException as exc:  # handed to whoever waits for the result
            job.set_exception(exc)

    threading.Thread(target=work, name=name, daemon=True).start()
    return job


def result_of(start: Any, *args: Any) -> Any:
    """The result of the cached job ``start(*args)``, waiting for it if needed; a failed job
    is cleared from ``start``'s cache (and its error raised), so the next visit retries::

        @st.cache_resource(show_spinner=False)
        def sweep_job(clip: float) -> Future:
            return jobs.in_thread("sweep", run_sweep, clip)   # no Streamlit calls in run_sweep

        sweep_job(clip)                                      # where the part begins
        ...
        sweep = jobs.result_of(sweep_job, clip)              # where it is drawn
    """
    try:
        return start(*args).result()
    except Exception:
        start.clear()
        raise
