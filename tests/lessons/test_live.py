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
    # one race at a time for the visitors in no room, and it says so
    assert "already waiting or training" in main_text(late)
    _until(teacher, lambda at: "Step " in _progress(at))  # records reach the store and the page
    student = make_app(LIVE, lang="zh").run(timeout=120)
    assert not student.exception
    assert not {"开始", "取消"} & set(_labels(student))  # read-only
    assert "老师的训练" in main_text(student) and len(student.get("plotly_chart")) == 2
    teacher.button(key="live_cancel").click().run(timeout=120)
    assert "Stopped at step" in _progress(teacher) and "Cancel" not in _labels(teacher)
    assert common.manager().current() is None


TEACHER, STUDENT = "teacher-browser-0001", "student-browser-0001"
OTHER = "teacher-browser-0002"


def _as(browser: str, lang: str = "en", joined: str | None = None, **params: str):
    at = make_app(LIVE, lang=lang, **params)
    at.session_state[views.BROWSER] = browser  # as the browser's cookie would say
    if joined:
        at.session_state[views.ROOM] = joined  # this session showed that poll room
    return at.run(timeout=120)


def test_each_room_sees_its_own_race_which_queues_for_the_slot(fresh):
    """A student's own race (no class) holds the one slot. A teacher who opened a room sees
    that room, not the student's race: Start, then the room's race waits first in line. The
    room's phones (by the link, or by the poll room they showed) watch that race, read-only;
    another room's phone and its teacher see none of it. When the student stops, the slot
    takes the room's race; only its teacher stops that."""
    common.manager().slots = 1
    early = _as(STUDENT)
    early.button(key="live_start").click().run(timeout=120)
    assert "Cancel" in _labels(early)
    polls = common.manager().polls
    room_a, room_b = polls.open("live_winner", 3, TEACHER), polls.open("live_winner", 3, OTHER)
    teacher = _as(TEACHER)
    assert "Start" in _labels(teacher) and "Cancel" not in _labels(teacher)
    assert "No model has trained yet" in _progress(teacher)  # the room has no race yet
    teacher.button(key="live_start").click().run(timeout=120)
    assert "Cancel" in _labels(teacher)
    assert "number 1 in line" in _progress(teacher)
    by_link = _as("phone-browser-a001", "zh", room=room_a)
    by_poll = _as("phone-browser-a002", joined=room_a)
    for phone in (by_link, by_poll):
        assert not {"Start", "Cancel", "开始", "取消"} & set(_labels(phone))
    assert "排在第 1 位" in _progress(by_link) and "老师的训练" in main_text(by_link)
    assert "排队等训练位" in main_text(by_link)  # not "started N s ago" while it waits
    assert "number 1 in line" in _progress(by_poll)
    shown_a = f"Room {room_a[:4]} {room_a[4:]}"  # whose race: the room's code, as on the poll
    assert shown_a in main_text(by_poll) and shown_a in main_text(teacher)
    other_phone = _as("phone-browser-b001", room=room_b)
    other_teacher = _as(OTHER)
    assert "No model has trained yet" in _progress(other_phone)
    assert f"Room {room_b[:4]} {room_b[4:]}" in main_text(other_phone)
    assert "The teacher starts the next run" in main_text(other_phone)
    assert "Start" in _labels(other_teacher) and "in line" not in _progress(other_teacher)
    early.button(key="live_cancel").click().run(timeout=120)
    _until(by_poll, lambda at: "Step " in _progress(at))  # the freed slot took the room's
    assert "watching the teacher's run (started" in main_text(by_poll)  # training: since when
    race = common.manager().current()
    assert race is not None and common.manager().runs.get(race).room == room_a
    assert "Cancel" in _labels(teacher.run(timeout=120))
    teacher.button(key="live_cancel").click().run(timeout=120)
    assert common.manager().current() is None
    assert "Stopped at step" in _progress(by_link.run(timeout=120)) or "停止" in _progress(by_link)
