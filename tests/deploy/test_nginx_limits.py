"""The repo's nginx limits tell a school from an attacker, and its internal endpoints are shut.

A real nginx from deploy/nginx/ (layout.sh) in front of a stand-in app, all on loopback;
each client binds its own loopback address, as nginx limits per address. New sessions are
GETs of the websocket's path: nginx's limits act before the app is asked, and the stand-in
answers 200 where Streamlit would switch protocols. Every loop is bounded."""

from __future__ import annotations

import http.client
import json
import secrets
import subprocess
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from tests.deploy.test_config import (
    NGINX,
    _FakeApp,
    _get,
    _nginx_or_skip,
    _start_nginx,
    _tear_down,
)

NGINX_PORT, APP_PORT = 8716, 8717  # test_config's range: 8700-8729
HALL, SCRIPT, FORGER, ONE_BROWSER = "127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"
STREAM = "/_stcore/stream"


def _status(path: str, source: str, cookie: str | None = None) -> int:
    conn = http.client.HTTPConnection(
        "127.0.0.1", NGINX_PORT, timeout=20, source_address=(source, 0)
    )
    try:
        headers = {"Upgrade": "websocket", "Connection": "Upgrade"} if path == STREAM else {}
        conn.request("GET", path, headers=headers | ({"Cookie": cookie} if cookie else {}))
        resp = conn.getresponse()
        resp.read()
        return resp.status
    finally:
        conn.close()


def _route() -> str:
    """A browser's route cookie, as nginx gives it with the first page ($request_id)."""
    return f"road_route={secrets.token_hex(16)}"


def _sessions(source: str, cookies: list[str | None], spread_s: float = 0.0) -> list[int]:
    """One new session per cookie from ``source``, started evenly over ``spread_s`` seconds
    (0: all at once, 8 at a time): the statuses in order."""
    t0 = time.monotonic()

    def one(i: int) -> int:
        wait = t0 + spread_s * i / max(1, len(cookies)) - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        return _status(STREAM, source, cookies[i])

    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(one, range(len(cookies))))


def _flood(source: str, cookies: list[str | None], burst: int, per_s: float) -> list[int]:
    """New sessions from ``source`` as fast as they are answered: the first ``burst`` + 1
    get in, then no more than ``per_s`` a second of the time it took; the rest get 429."""
    t0 = time.monotonic()
    statuses = _sessions(source, cookies)
    took = time.monotonic() - t0
    admitted = statuses.count(200)
    assert burst + 1 <= admitted <= burst + 1 + per_s * took + 2, (source, admitted, took)
    assert statuses.count(429) == len(statuses) - admitted, (source, sorted(set(statuses)))
    return statuses


@contextmanager
def _served() -> Iterator[tuple[_FakeApp, Path, Path]]:
    """nginx from the repo's files before a stand-in app: (the app, nginx's prefix, the
    folder of both), torn down after."""
    _nginx_or_skip()
    folder = Path(tempfile.mkdtemp(prefix="road-limits-"))
    folder.chmod(0o755)
    app = proxy = None
    try:
        app, prefix = _FakeApp(APP_PORT), folder / "nginx"
        layout = ["sh", str(NGINX / "layout.sh"), str(prefix), f"127.0.0.1:{NGINX_PORT}"]
        subprocess.run([*layout, f"127.0.0.1:{APP_PORT}"], check=True, timeout=30)
        proxy = _start_nginx(_nginx_or_skip(), prefix, folder / "nginx.log")
        _get(NGINX_PORT, "/_stcore/health", {}, folder / "nginx.log")  # waits until it listens
        yield app, prefix, folder
    finally:
        _tear_down(proxy, app, folder)


def test_internal_endpoints_are_shut_and_health_stays_open():
    with _served() as (app, _, _):
        shut = [
            "/_stcore/metrics",
            "/_stcore/metrics/",
            "/_stcore//metrics",
            "/_stcore/%6Detrics",
            "/_stcore/script-health-check",
            "/_stcore/script-health-check?x=1",
        ]
        assert [_status(p, "127.0.0.1") for p in shut] == [404] * len(shut)
        assert not [p for p in app.seen if "metrics" in p or "script-health" in p], app.seen
        assert _status("/_stcore/health", "127.0.0.1") == 200  # probes through nginx
        assert _status("/_stcore/host-config", "127.0.0.1") == 200


def test_a_lecture_hall_behind_one_address_gets_in_and_floods_do_not():
    """400 browsers behind one address arriving within 20 s all get a session (each has its
    route cookie, as a browser has after its first page); from other addresses, a script
    without cookies is refused after its address's burst (120), one browser after its own
    (30), and a flood making up a new cookie for every session after the address's (300)."""
    with _served() as (_, prefix, folder):
        hall = _sessions(HALL, [_route() for _ in range(400)], spread_s=20.0)
        assert hall.count(200) == 400, f"{hall.count(429)} of 400 students refused"

        script = _flood(SCRIPT, [None] * 200, burst=120, per_s=2)
        browser = _route()
        tabs = _flood(ONE_BROWSER, [browser] * 60, burst=30, per_s=1)
        forged = _flood(FORGER, [_route() for _ in range(450)], burst=300, per_s=10)

        # the refusals are in the access log, per address as nginx saw it (loopback whole)
        time.sleep(0.5)
        lines = (prefix / "logs" / "access.log").read_text().splitlines()
        entries = [json.loads(line) for line in lines]
        refused = {
            a: sum(e["status"] == 429 and e["addr"] == a for e in entries)
            for a in (HALL, SCRIPT, ONE_BROWSER, FORGER)
        }
        assert refused == {
            HALL: 0,
            SCRIPT: script.count(429),
            ONE_BROWSER: tabs.count(429),
            FORGER: forged.count(429),
        }
        assert "limiting" not in (folder / "nginx.log").read_text()  # no address logged there
