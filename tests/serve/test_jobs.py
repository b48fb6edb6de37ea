"""serve.jobs: background jobs hand back results and errors; failed jobs are retried."""

from __future__ import annotations

import threading

import pytest

from serve import jobs


def test_result_and_thread():
    names = []

    def work(a, b):
        names.append(threading.current_thread().name)
        return a + b

    assert jobs.in_thread("road-test-job", work, 2, 3).result(timeout=30) == 5
    assert names == ["road-test-job"]


def test_error_reaches_the_waiter_and_the_job_is_retried():
    calls = []

    class Cached:  # the shape of an st.cache_resource function: call it, or clear it
        job = None

        def __call__(self, x):
            if self.job is None:
                calls.append(x)
                self.job = jobs.in_thread("road-test-fail", lambda: 1 / x)
            return self.job

        def clear(self):
            self.job = None

    start = Cached()
    with pytest.raises(ZeroDivisionError):
        jobs.result_of(start, 0)
    assert start.job is None  # dropped, so the next visit runs it again
    with pytest.raises(ZeroDivisionError):
        jobs.result_of(start, 0)
    assert calls == [0, 0]
    start.clear()
    assert jobs.result_of(start, 4) == 0.25
    assert jobs.result_of(start, 4) == 0.25 and calls == [0, 0, 4]  # kept once it worked
