"""The live page through AppTest: a teacher starts a run, its progress reaches the page, a
second browser that pressed Start too late is told a run is in progress, a student reads the
run without Start or Cancel, and the teacher's Cancel stops it. The process is a stand-in
that writes records without torch (``tests/live_fake.py``; the real one is tested in
``tests/poll/test_training.py``); ~20 s."""

from __future__ import annotations

import time

import pytest

from lessons.live import common
from poll import views
from poll.store import DATA_DIR_ENV
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
def fresh(monkeypatch, tmp_path):
    monkeypatch.setenv(common.STEPS_ENV, "400")
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path))  # no room or run of another test
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


TEACHER, STUDENT = "teacher-browser-0001", "student-browser-0001"


def _as(browser: str, lang: str = "en"):
    at = make_app(LIVE, lang=lang)
    at.session_state[views.BROWSER] = browser  # as the browser's cookie would say
    return at.run(timeout=120)


def test_with_a_class_on_only_its_teacher_starts_and_cancels(fresh):
    """No class on: a student alone may race (the test above). A student who started a run
    before the class began cannot keep the teacher out: once the teacher has opened a room,
    only the teacher sees Start, and the teacher may cancel the student's run."""
    early = _as(STUDENT)
    early.button(key="live_start").click().run(timeout=120)
    assert "Cancel" in _labels(early)
    common.manager().polls.open("lm_next", 3, TEACHER)  # the teacher opens the class's room
    teacher = _as(TEACHER)
    assert "Cancel" in _labels(teacher)  # not the teacher's run, but the teacher's class
    teacher.button(key="live_cancel").click().run(timeout=120)
    assert common.manager().current() is None
    student = _as(STUDENT).run(timeout=120)
    assert not {"Start", "Cancel"} & set(_labels(student))
    assert "The teacher starts the next run" in main_text(student)
    assert "Start" in _labels(_as(TEACHER))
