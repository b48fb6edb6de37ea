"""Two replicas behind the repo's own nginx, sharing PostgreSQL (Unix socket), no Docker.

One cluster (``bench.procs.cluster``), one test in order: clients spread over both replicas
and each stays on its replica (nginx's access log); Streamlit's plotly chunk compressed with
a year's cache, the public headers; a poll opened on one replica (Chromium, no CSP
violation) is voted on from the other (``bench.classroom.Student``), killing the students'
replica loses no vote and a student whose cookie names the dead one votes on the survivor;
one address opening sessions as fast as it can gets 429 after at least 60 got in.
Missing nginx, brotli, PostgreSQL or Chromium skips (fails in CI); logs go to
tests/artifacts/scale_out_*.log."""

from __future__ import annotations

import asyncio
import gzip
import http.client
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench import procs
from bench.browser import CHROMIUM, CHROMIUM_ARGS
from core.i18n import translate
from poll import questions as pq
from poll.store import PollStore
from tests import pg
from tests.browser.conftest import wait_counts
from tests.conftest import ROOT, in_fresh_thread, need

NGINX_PORT = 8630  # this module's ports: 8630-8632 (the helper's range 8630-8659)
APP_PORTS = (8631, 8632)
BROTLI_MODULE = Path("/usr/lib/nginx/modules/ngx_http_brotli_filter_module.so")
IMMUTABLE = "public, max-age=31536000, immutable"
COOKIE = "road_route"
ARTIFACTS = ROOT / "tests" / "artifacts"
QID = "cnn_layers"  # the poll of tests/browser/test_poll.py: answers 5, 10, 20, 39


def _get(port: int, path: str, headers: dict | None = None, timeout: float = 30.0):
    """One HTTP/1.1 GET on loopback: (status, lower-cased headers, raw body). No cookie jar
    and no decompression: the bytes exactly as nginx sent them."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path, headers=headers or {})
        resp = conn.getresponse()
        body = resp.read()
        hdrs: dict[str, str] = {}
        for k, v in resp.getheaders():
            hdrs[k.lower()] = f"{hdrs[k.lower()]}, {v}" if k.lower() in hdrs else v
        return resp.status, hdrs, body
    finally:
        conn.close()


def _route_of(headers: dict) -> str | None:
    m = re.search(rf"(?:^|, ){COOKIE}=([^;,]+)", headers.get("set-cookie", ""))
    return m.group(1) if m else None


@dataclass
class Cluster:
    """The harness's cluster (bench.procs.cluster) and the PostgreSQL server it shares."""

    cl: procs.Cluster
    pg: pg.PgServer

    @property
    def base(self) -> str:
        return self.cl.base

    @property
    def apps(self) -> dict[int, subprocess.Popen]:  # port -> process
        return {int(s.upstream.rsplit(":", 1)[1]): s.proc for s in self.cl.replicas}

    @property
    def logs(self) -> dict[str, Path]:
        return self.cl.logs

    def upstream(self, port: int) -> str:
        return f"127.0.0.1:{port}"

    def access_log(self) -> list[dict]:
        return self.cl.access_log()

    def logged(self, route: str) -> dict:
        """The access-log entry of a route's first request (nginx writes it as the request
        ends, which can be a moment after the client has read the response)."""
        for _ in range(100):
            entry = next((e for e in self.access_log() if e["route"] == route), None)
            if entry is not None:
                return entry
            time.sleep(0.02)
        raise AssertionError(f"route {route} is not in nginx's access log")

    def routes_by_replica(self, want: int) -> dict[int, list[str]]:
        """Route cookies (``want`` per replica) as nginx hands them to new clients, each
        with the replica that served its first request (from the access log)."""
        found: dict[int, list[str]] = {p: [] for p in APP_PORTS}
        for _ in range(200):
            if all(len(v) >= want for v in found.values()):
                break
            status, headers, _ = _get(NGINX_PORT, "/_stcore/health")
            assert status == 200, status
            route = _route_of(headers)
            assert route, headers
            port = int(self.logged(route)["upstream"].rsplit(":", 1)[1])
            found[port].append(route)
        assert all(len(v) >= want for v in found.values()), found
        return found


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    need("nginx", procs.nginx_binary() is not None, "apt-get install nginx")
    need(
        str(BROTLI_MODULE),
        BROTLI_MODULE.exists(),
        "apt-get install libnginx-mod-http-brotli-filter",
    )
    need("PostgreSQL", pg.bin_dir() is not None, "apt-get install postgresql")
    busy = [p for p in (NGINX_PORT, *APP_PORTS) if not procs.port_free(p)]
    assert not busy, f"ports {busy} are taken: stop whatever listens there and rerun"

    folder = Path(tempfile.mkdtemp(prefix="road-scale-"))
    folder.chmod(0o755)  # postgres (its own user, when run as root) traverses it
    server = None
    try:
        server = pg.start(folder / "pg")
        # the logs outlive the run (CI keeps tests/artifacts): nginx's access log says
        # which replica served what
        with procs.cluster(
            len(APP_PORTS),
            NGINX_PORT,
            env={"ROAD_DATABASE_URL": server.url},
            startup_timeout=150,
            keep_logs=ARTIFACTS,
            label="scale_out",
        ) as cl:
            yield Cluster(cl, server)
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(folder, ignore_errors=True)


def _websocket(route: str):
    """Open Streamlit's websocket through nginx with a route cookie (handshake checked)."""
    from websockets.sync.client import connect

    return connect(
        f"ws://127.0.0.1:{NGINX_PORT}/_stcore/stream",
        additional_headers={"Cookie": f"{COOKIE}={route}"},
        subprotocols=["streamlit"],
        open_timeout=30,
    )


def _spread_and_stickiness(cluster: Cluster) -> None:
    """20 new clients are spread over both replicas; each stays on its replica for its
    page, its health probe and its websocket (nginx's access log, server-side)."""
    start = len(cluster.access_log())
    routes = []
    for _ in range(20):  # 20 new clients, no cookie: each gets one from nginx
        status, headers, body = _get(NGINX_PORT, "/")
        assert status == 200 and b"<html" in body.lower()
        route = _route_of(headers)
        assert route, f"no {COOKIE} cookie on a first response: {headers}"
        assert "httponly" in headers["set-cookie"].lower()
        routes.append(route)
    assert len(set(routes)) == 20, "every new client needs a route of its own"
    for route in routes:  # the same client again: page, health probe, its websocket
        cookie = {"Cookie": f"{COOKIE}={route}"}
        status, headers, _ = _get(NGINX_PORT, "/", cookie)
        assert status == 200 and _route_of(headers) is None  # a client with one keeps it
        assert _get(NGINX_PORT, "/_stcore/health", cookie)[0] == 200
        with _websocket(route) as ws:
            assert ws.subprotocol == "streamlit"
    time.sleep(0.3)  # nginx logs a request as it ends
    entries = cluster.access_log()[start:]
    served: dict[str, set[str]] = {}
    for e in entries:
        served.setdefault(e["route"], set()).add(e["upstream"])
    for route in routes:
        mine = [e for e in entries if e["route"] == route]
        kinds = {e["request"].split()[1] for e in mine}
        assert kinds == {"/", "/_stcore/health", "/_stcore/stream"}, (route, kinds)
        assert any(e["status"] == 101 for e in mine), "the websocket upgrade is logged"
        assert len(served[route]) == 1, f"route {route} was served by {served[route]}"
    used = {next(iter(served[r])) for r in routes}
    assert used == {cluster.upstream(p) for p in APP_PORTS}, (
        f"20 new clients all landed on {used}: the route hash does not spread them"
    )


def _static_assets(cluster: Cluster) -> dict[str, int]:
    """Streamlit's plotly chunk through nginx: identical bytes, gzip and brotli, a year's
    immutable cache; an unknown asset path (index.html) is not cached; page headers."""
    import streamlit

    js = sorted(Path(streamlit.__file__).parent.glob("static/static/js/PlotlyChart.*.js"))
    assert js, "Streamlit's plotly chunk not found in the installed package"
    raw = js[0].read_bytes()
    path = "/static/js/" + js[0].name
    sizes = {}
    for enc in ("identity", "gzip", "br"):
        status, headers, body = _get(NGINX_PORT, path, {"Accept-Encoding": enc})
        assert status == 200, (enc, status)
        assert headers.get("cache-control") == IMMUTABLE, headers
        assert "accept-encoding" in headers.get("vary", "").lower(), headers
        assert headers.get("x-content-type-options") == "nosniff"
        sizes[enc] = len(body)
        if enc == "identity":
            assert "content-encoding" not in headers and body == raw
        elif enc == "gzip":
            assert headers.get("content-encoding") == "gzip"
            assert gzip.decompress(body) == raw
        else:
            assert headers.get("content-encoding") == "br"
            assert body[:2] != b"\x1f\x8b" and len(body) < len(raw) // 2
            try:
                import brotli
            except ImportError:  # the header and the size are checked above
                brotli = None
            if brotli is not None:
                assert brotli.decompress(body) == raw
    print(f"\nplotly chunk through nginx (bytes): {sizes}", file=sys.stderr)
    # Streamlit answers an unknown /static/ path with its index page: never cache that
    status, headers, body = _get(NGINX_PORT, "/static/js/no-such-chunk.js")
    assert headers.get("cache-control") == "no-cache", (status, headers)
    # the page itself: public-page headers, a revalidated (not immutable) index
    status, headers, _ = _get(NGINX_PORT, "/", {"Accept-Encoding": "gzip"})
    assert status == 200 and headers.get("cache-control") == "no-cache"
    assert headers.get("referrer-policy") == "same-origin"
    csp = headers.get("content-security-policy", "")
    assert "frame-ancestors 'self'" in csp and "object-src 'none'" in csp
    assert headers.get("content-encoding") == "gzip"
    assert "nginx/" not in headers.get("server", "")  # no version on show
    return sizes


# --- the class poll across replicas ----------------------------------------------------------


def _tally(url: str, code: str) -> tuple[int, ...]:
    store = PollStore(url)
    try:
        return store.tally(code).counts
    finally:
        store.dispose()


class Students:
    """Simulated students (bench.classroom: Streamlit's own websocket protocol, no
    browser) on an event loop of their own, so they stay connected while Chromium runs."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.all: list = []

    def run(self, coro, timeout: float = 400):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def vote(self, base: str, route: str, code: str, answer: int):
        """A new student with ``route`` as its cookie: opens the room, presses an answer."""
        from bench.classroom import Student

        async def go():
            s = Student(base, timeout=300, name=f"student-{route[:6]}")
            self.all.append(s)
            s.http.cookies.set(COOKIE, route)
            arrive = await s.arrive("poll", f"room={code}&lang=en")
            assert arrive.ok, arrive.error
            press = await s.press(f"poll_answer_{answer}")
            assert press.ok, press.error
            return s

        return self.run(go())

    def close(self) -> None:
        async def close_all():
            for s in self.all:
                await s.close()
                s.close_http()

        try:
            self.run(close_all(), timeout=60)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=10)
            self.loop.close()


def _the_app_sees_each_client_address(cluster: Cluster) -> None:
    """The fair gate shares the cores among client addresses (ui/admission): through nginx
    the app must see each visitor's own address (X-Real-IP) on the websocket, where a
    page runs, not nginx's. (An nginx location that sets a header of its own drops every
    inherited one: the websocket's did, and every visitor was one address.)"""
    from bench.classroom import Student

    async def visit(address: str) -> None:
        s = Student(cluster.base, timeout=300, name=f"from-{address}", source_address=address)
        try:
            arrived = await s.arrive("", "lang=en")
            assert arrived.ok, arrived.error
        finally:
            await s.close()
            s.close_http()

    students = Students()
    try:
        for address in ("127.0.0.2", "127.0.0.3"):
            students.run(visit(address))
    finally:
        students.close()
    logs = "".join(cluster.logs[f"app{p}"].read_text(errors="replace") for p in APP_PORTS)
    for address in ("127.0.0.2", "127.0.0.3"):
        assert re.search(rf"new session \w+ from {re.escape(address)}\b", logs), (
            f"no replica saw a session from {address}: the websocket lost X-Real-IP"
        )


def _poll_across_replicas(cluster: Cluster) -> None:
    """A teacher (Chromium) opens a poll on one replica; students on the other vote; that
    replica is killed; a new student routed to it is served by the survivor; no vote lost."""
    from playwright.sync_api import sync_playwright

    teacher_port, student_port = APP_PORTS
    routes = cluster.routes_by_replica(want=3)
    question = pq.BY_ID[QID]
    answers = question.answers  # ("5", "10", "20", "39")
    picks = [2, 3]  # the two students' answers: "20" and "39"
    csp_errors: list[str] = []
    start = len(cluster.access_log())
    students = Students()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            ctx = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
            ctx.set_default_timeout(300_000)  # a cold replica's first page on a busy machine
            ctx.add_cookies(
                [{"name": COOKIE, "value": routes[teacher_port][0], "url": cluster.base}]
            )
            teacher = ctx.new_page()
            teacher.on(
                "console",
                lambda m: (
                    csp_errors.append(m.text) if "Content Security Policy" in m.text else None
                ),
            )
            teacher.goto(f"{cluster.base}/poll?ask={QID}&lang=en")
            teacher.wait_for_function("() => location.href.includes('room=')")
            code = re.search(r"room=([A-Z0-9]+)", teacher.url).group(1)
            teacher.get_by_text(translate("poll.room_label", "en")).first.wait_for()

            voters = [
                students.vote(cluster.base, route, code, pick)
                for route, pick in zip(routes[student_port], picks, strict=False)
            ]
            for s, pick in zip(voters, picks, strict=True):
                assert f"✓ {answers[pick]}" in s.texts(), s.texts()
                assert s.cookies.get(COOKIE) in routes[student_port]
            assert _tally(cluster.pg.url, code) == (0, 0, 1, 1)
            # the teacher's live histogram (one replica) shows the votes cast on the other
            want = {a: 0 for a in answers} | {answers[2]: 1, answers[3]: 1}
            assert wait_counts(teacher, want, limit_s=60) == want

            # the students' replica dies mid-poll
            time.sleep(0.5)  # nginx logs a request as it ends
            kill_at = len(cluster.access_log())
            victim = cluster.apps[student_port]
            victim.kill()
            victim.wait(timeout=15)
            assert _tally(cluster.pg.url, code) == (0, 0, 1, 1), "a committed vote was lost"
            deadline = time.monotonic() + 30
            while any(s.connected for s in voters) and time.monotonic() < deadline:
                time.sleep(0.2)
            assert not any(s.connected for s in voters), "their sessions were on that replica"

            # a new student whose cookie still points at the dead replica: the survivor
            late = students.vote(cluster.base, routes[student_port][2], code, 2)
            assert f"✓ {answers[2]}" in late.texts(), late.texts()
            assert _tally(cluster.pg.url, code) == (0, 0, 2, 1)
            want[answers[2]] = 2
            assert wait_counts(teacher, want, limit_s=60) == want
            # the teacher's session never moved: its key still reveals
            teacher.get_by_text(translate("poll.reveal", "en")).first.click()
            right = answers[question.solve().correct]
            said = translate("poll.answer", "en", answer=right).replace("**", "")
            teacher.get_by_text(said.split(":")[0]).first.wait_for()
            rss = procs.rss_mb(cluster.apps[teacher_port].pid)
            print(f"\nRSS of the surviving replica (MB): {rss}", file=sys.stderr)
        finally:
            browser.close()
            students.close()

    assert not csp_errors, f"Content-Security-Policy violations: {csp_errors[:5]}"
    time.sleep(0.3)
    log = cluster.access_log()
    up = {p: cluster.upstream(p) for p in APP_PORTS}

    def served(route: str, entries: list[dict]) -> set[str]:
        return {e["upstream"] for e in entries if e["route"] == route and e["upstream"]}

    # until the kill, every session stayed on its replica: page, probes, websocket, clicks
    # (the teacher's for the whole test)
    assert served(routes[teacher_port][0], log[start:]) == {up[teacher_port]}
    for route in routes[student_port][:2]:
        before = served(route, log[start:kill_at])
        assert before == {up[student_port]}, (route, before)
        # a websocket is logged as it closes: here, when its replica died
        assert any(
            e["route"] == route
            and e["status"] == 101
            and "/_stcore/stream" in e["request"]
            and e["upstream"] == up[student_port]
            for e in log[start:]
        ), "a student's websocket went through nginx to its replica"
    # the late student: every request ended on the survivor (a first try at the dead
    # replica shows as "dead, survivor" in $upstream_addr)
    late_ups = served(routes[student_port][2], log[kill_at:])
    assert late_ups and all(u.endswith(up[teacher_port]) for u in late_ups), late_ups


def _one_address_is_limited(cluster: Cluster) -> int:
    """New sessions from one address: a class of 60 gets in at once, a script opening
    sessions as fast as it can is refused with 429 (not queued) soon after the burst."""
    from websockets.exceptions import InvalidStatus

    opened, refused = 0, None
    for i in range(300):
        try:
            with _websocket(f"abuse-{i:04d}"):
                opened += 1
        except InvalidStatus as err:
            refused = err.response.status_code
            break
    assert refused == 429, f"no refusal after {opened} new sessions from one address"
    assert opened >= 60, f"only {opened} sessions before the limit: a class of 60 must get in"
    return opened


@pytest.mark.long
@pytest.mark.browser
@pytest.mark.timeout(900)  # about a minute on an idle 2-core machine; generous when busy
@in_fresh_thread
def test_two_replicas_behind_the_repos_nginx(cluster):
    """One test on one cluster (xdist may not split it): spread and stickiness, compressed
    and cached assets, the poll across replicas and the loss of one (it kills a replica),
    then the per-address limit on new sessions."""
    need(str(CHROMIUM), CHROMIUM.exists(), "apt-get install chromium")
    _spread_and_stickiness(cluster)
    _static_assets(cluster)
    _the_app_sees_each_client_address(cluster)
    _poll_across_replicas(cluster)
    opened = _one_address_is_limited(cluster)  # last: it spends the address's burst
    print(f"\nnew sessions from one address before a 429: {opened}", file=sys.stderr)
