"""One browser, one vote; the teacher keeps the poll -- in Chromium against a live server.

A server of its own (a copy of the app whose config says ``disconnectedSessionTTL = 2``):
the teacher opens a poll, reloads the projector tab and still has reveal / close / next;
a student votes, reloads, votes again: one voter, the vote changed; then the student's
phone "sleeps" (its websocket cut by Playwright) past the session TTL, wakes in a new
session (the server's log says so) and is still the same voter.
"""

from __future__ import annotations

import re
import time

import pytest

from core.i18n import translate
from poll.store import PollStore, default_url
from poll.views import COOKIE
from tests.browser.conftest import (
    DESKTOP,
    PHONE,
    PHONE_UA,
    copy_app,
    screenshot,
    start_server,
    stop_server,
    wait_idle,
)

pytestmark = pytest.mark.browser

QID = "cnn_layers"  # answers 5, 10, 20, 39
TTL_S = 2


def _answer(page, label: str):
    return page.locator('[data-testid="stMain"] button', has_text=re.compile(rf"^(✓ )?{label}$"))


def _chosen(page, label: str, timeout: float = 60_000) -> None:
    _answer(page, "✓ " + label).first.wait_for(timeout=timeout)


def _cookie(ctx) -> str:
    found = [c for c in ctx.cookies() if c["name"] == COOKIE]
    assert len(found) == 1, ctx.cookies()
    c = found[0]
    assert c["path"] == "/" and c["sameSite"] == "Lax" and c["expires"] > time.time() + 3600
    return c["value"]


def _teacher_buttons(page, lang: str) -> None:
    for key in ("poll.reveal", "poll.close", "poll.next"):
        page.get_by_role("button", name=translate(key, lang)).first.wait_for(timeout=60_000)


def _sessions(log) -> int:
    return len(re.findall(r"new session \w+", log.read_text(errors="replace")))


@pytest.mark.long
@pytest.mark.timeout(900)
def test_reloads_and_an_expired_session_keep_one_vote_and_the_teacher(
    browser, tmp_path, monkeypatch
):
    monkeypatch.setenv("ROAD_DATA_DIR", str(tmp_path / "data"))  # the server inherits it
    app = copy_app(tmp_path)
    config = app / ".streamlit" / "config.toml"
    text, n = re.subn(
        r"disconnectedSessionTTL = \d+", f"disconnectedSessionTTL = {TTL_S}", config.read_text()
    )
    assert n == 1
    config.write_text(text)
    log = tmp_path / "server.log"
    srv = start_server(app, log)
    contexts = []
    try:
        tctx = browser.new_context(viewport=DESKTOP, locale="en-US")
        tctx.set_default_timeout(180_000)
        contexts.append(tctx)
        tp = tctx.new_page()
        tp.goto(srv.url(f"/poll?ask={QID}&lang=en&present=1"))
        tp.wait_for_function("() => location.href.includes('room=')")
        wait_idle(tp)
        code = re.search(r"room=([A-Z0-9]+)", tp.url).group(1)
        _teacher_buttons(tp, "en")
        teacher_id = _cookie(tctx)
        assert teacher_id not in tp.url
        assert teacher_id not in tp.locator('[data-testid="stMain"]').inner_text()

        # the projector's tab is reloaded: a new session, the same browser, the teacher's view
        tp.reload()
        wait_idle(tp)
        _teacher_buttons(tp, "en")
        assert _cookie(tctx) == teacher_id

        sctx = browser.new_context(viewport=PHONE, user_agent=PHONE_UA, is_mobile=True)
        sctx.set_default_timeout(180_000)
        contexts.append(sctx)
        asleep = {"on": False}
        sockets: list = []

        def through(ws) -> None:  # every websocket of the phone passes here
            if asleep["on"]:
                ws.close()
                return
            sockets.append((ws, ws.connect_to_server()))

        sp = sctx.new_page()
        sp.route_web_socket(re.compile(r".*/_stcore/stream$"), through)
        sp.goto(srv.url(f"/poll?room={code}&lang=en"))
        _answer(sp, "20").first.click()
        _chosen(sp, "20")
        student_id = _cookie(sctx)
        assert student_id != teacher_id
        store = PollStore(default_url())
        assert store.tally(code).counts == (0, 0, 1, 0)

        sp.reload()  # a reload: the vote is still this browser's, and changes
        _chosen(sp, "20")
        _answer(sp, "39").first.click()
        _chosen(sp, "39")
        assert store.tally(code).counts == (0, 0, 0, 1)
        assert store.tally(code).voters == 1

        # the phone sleeps past the session TTL: its websocket is cut and stays cut
        before = _sessions(log)
        asleep["on"] = True
        for page_side, server_side in sockets:
            server_side.close()
            page_side.close()
        time.sleep(3 * TTL_S + 2)
        asleep["on"] = False  # it wakes and reconnects: its old session is gone, a new one
        # runs the page at the student's next tap (which, in a session that has not drawn
        # the button yet, only reruns the page: a second tap votes, as a student would do)
        deadline = time.monotonic() + 120
        while not _answer(sp, "✓ 10").count() and time.monotonic() < deadline:
            _answer(sp, "10").first.click()
            sp.wait_for_timeout(3000)
        _chosen(sp, "10")
        assert _sessions(log) > before, "the phone came back to its old session, not a new one"
        assert store.tally(code).counts == (0, 1, 0, 0)
        assert store.tally(code).voters == 1, "an expired session made a second voter"
        assert _cookie(sctx) == student_id

        # the teacher, after all that, still reveals from the projector
        tp.get_by_role("button", name=translate("poll.reveal", "en")).first.click()
        tp.locator('[data-testid="stMain"] [data-testid="stAlert"]').first.wait_for()
        assert store.get(code).state == "revealed"
        screenshot(tp, "poll_identity_teacher_revealed")
        store.dispose()
    finally:
        for ctx in contexts:
            ctx.close()
        stop_server(srv)
