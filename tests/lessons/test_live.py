"""The live page through AppTest: a teacher starts a run, its progress reaches the page, a
second browser that pressed Start too late is told a run is in progress, a student reads the
run without Start or Cancel, and the teacher's Cancel stops it. The process is a stand-in
that writes records without torch (``tests/live_fake.py``; the real one is tested in
``tests/serve/test_live.py``); ~20 s."""

from __future__ import annotations

import time

import pytest

from lessons.live import common
from tests.conftest import main_text, make_app
from tests.live_fake import fake_child

LIVE = "pages/live.py"


def _labels(at) -> list[str]:
    return [b.label for b in at.button]


def _until(at, pred, timeout: float = 120.0):
    t0 = time.monotonic()
    while not pred(at.run(timeout=120)):
        if time.monotonic() - t0 > timeout:
            raise AssertionError("timed out: " + main_text(at)[-300:])
        time.sleep(0.5)
    return at


@pytest.fixture
def fresh(monkeypatch):
    monkeypatch.setenv(common.STEPS_ENV, "400")
    common.manager.clear()
    common.manager().target = fake_child
    yield
    common.manager().shutdown()
    common.manager.clear()


def _progress(at) -> str:
    return " ".join(p.proto.text for p in at.get("progress"))


def test_start_progress_busy_student_cancel(fresh):
    late = make_app(LIVE, lang="en").run(timeout=120)  # sees Start, presses it too late
    teacher = make_app(LIVE, lang="en").run(timeout=120)
    assert not teacher.exception and "Start" in _labels(teacher)
    teacher.button(key="live_start").click().run(timeout=120)
    assert "Cancel" in _labels(teacher) and "Start" not in _labels(teacher)
    late.button(key="live_start").click().run(timeout=120)
    assert "already training" in main_text(late)  # one run at a time, and it says so
    _until(teacher, lambda at: "Step " in _progress(at))  # records reach the store and the page
    student = make_app(LIVE, lang="zh").run(timeout=120)
    assert not student.exception
    assert not {"开始", "取消"} & set(_labels(student))  # read-only
    assert "老师的训练" in main_text(student) and len(student.get("plotly_chart")) == 2
    teacher.button(key="live_cancel").click().run(timeout=120)
    assert "Stopped at step" in _progress(teacher) and "Cancel" not in _labels(teacher)
    assert common.manager().current() is None
