"""The poll survives its replica: two replicas behind the repo's nginx, sharing PostgreSQL.

PostgreSQL on a Unix socket (tests/pg.py), two ``streamlit run app.py`` on free loopback
ports, nginx laid out from ``deploy/nginx/`` (its CSP included). A teacher (Chromium,
1280x800) and a student (a phone) land on replica A by their route cookies; the teacher
opens a poll, the student votes. Replica A is killed: both tabs reconnect through nginx to
replica B, in new sessions; the teacher is still the teacher there and reveals, and the
student, changing the vote from B, is still one voter. No CSP violation on either tab.
Without nginx or PostgreSQL the test skips (with ``CI`` set it fails).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from bench import procs
from core.i18n import translate
from poll.store import PollStore
from tests import pg
from tests.browser.conftest import PHONE, PHONE_UA, wait_idle
from tests.conftest import ROOT, need

pytestmark = pytest.mark.browser

QID = "cnn_layers"  # answers 5, 10, 20, 39
ROUTE = "road_route"  # nginx's route cookie (deploy/nginx/road.conf)


def _healthy(port: int, proc: subprocess.Popen, deadline: float) -> None:
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the process on port {port} exited"
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"nothing healthy on port {port}")


@pytest.fixture
def cluster():
    """(nginx port, {app port: process}, PostgreSQL URL, nginx access log); all stopped after."""
    nginx = procs.nginx_binary()
    need("nginx", nginx is not None, "apt-get install nginx postgresql")
    need("PostgreSQL", pg.bin_dir() is not None, "apt-get install postgresql")
    folder = Path(tempfile.mkdtemp(prefix="road-poll-replicas-"))
    folder.chmod(0o755)  # nginx workers and postgres traverse it
    server, apps, proxy = None, {}, None
    try:
        server = pg.start(folder / "pg")
        env = dict(os.environ, ROAD_DATABASE_URL=server.url, ROAD_TRUST_PROXY="1")
        ports = [procs.free_port(), procs.free_port()]
        for p in ports:
            log = (folder / f"app{p}.log").open("w")
            apps[p] = subprocess.Popen(
                procs.streamlit_command("app.py", p), cwd=ROOT, env=env, stdout=log, stderr=log
            )
        front = procs.free_port()
        upstreams = [f"127.0.0.1:{p}" for p in ports]
        layout = ROOT / "deploy" / "nginx" / "layout.sh"
        prefix = folder / "nginx"
        subprocess.run(
            ["sh", str(layout), str(prefix), f"127.0.0.1:{front}", *upstreams], check=True
        )
        conf = prefix / "conf" / "nginx.conf"
        proxy = subprocess.Popen([nginx, "-p", f"{prefix}/", "-c", str(conf), "-g", "daemon off;"])
        deadline = time.monotonic() + 180
        for p in ports:
            _healthy(p, apps[p], deadline)
        _healthy(front, proxy, deadline)
        yield front, apps, server.url, prefix / "logs" / "access.log"
    finally:
        # every stop runs even if one before it raises (ExitStack calls them all, last first)
        with contextlib.ExitStack() as stops:
            stops.callback(shutil.rmtree, folder, ignore_errors=True)
            if server is not None:
                stops.callback(server.stop)
            for proc in (*apps.values(), *([proxy] if proxy is not None else [])):
                stops.callback(procs.stop_proc, proc)


def _routes_on_one_replica(front: int, access_log: Path, want: int) -> tuple[int, list[str]]:
    """``want`` route cookies that nginx hashes to the same replica (read in its access log)."""
    by_port: dict[int, list[str]] = {}
    for _ in range(100):
        with urllib.request.urlopen(f"http://127.0.0.1:{front}/_stcore/health") as resp:
            cookies = "; ".join(resp.headers.get_all("Set-Cookie") or [])
        route = re.search(rf"{ROUTE}=([^;]+)", cookies).group(1)
        for _ in range(50):  # nginx logs a request as it ends
            entries = [json.loads(x) for x in access_log.read_text().splitlines() if x.strip()]
            hit = [e for e in entries if e["route"] == route and e["upstream"]]
            if hit:
                break
            time.sleep(0.02)
        port = int(hit[0]["upstream"].rsplit(":", 1)[1])
        by_port.setdefault(port, []).append(route)
        if len(by_port[port]) >= want:
            return port, by_port[port]
    raise AssertionError(f"no replica got {want} routes: {by_port}")


def _answer(page, label: str):
    return page.locator('[data-testid="stMain"] button', has_text=re.compile(rf"^(✓ )?{label}$"))


@pytest.mark.long
@pytest.mark.timeout(900)
def test_the_teacher_and_a_voter_outlive_their_replica(browser, cluster):
    front, apps, db_url, access_log = cluster
    base = f"http://127.0.0.1:{front}"
    port_a, (teacher_route, student_route) = _routes_on_one_replica(front, access_log, 2)
    csp: list[str] = []
    contexts = []
    store = PollStore(db_url)
    try:
        tctx = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
        sctx = browser.new_context(viewport=PHONE, user_agent=PHONE_UA, is_mobile=True)
        contexts += [tctx, sctx]
        for ctx, route in ((tctx, teacher_route), (sctx, student_route)):
            ctx.set_default_timeout(240_000)
            ctx.add_cookies([{"name": ROUTE, "value": route, "url": base}])
        tp, sp = tctx.new_page(), sctx.new_page()
        for page in (tp, sp):
            page.on(
                "console",
                lambda m: csp.append(m.text) if "Content Security Policy" in m.text else None,
            )
        tp.goto(f"{base}/poll?ask={QID}&lang=en&present=1")
        tp.wait_for_function("() => location.href.includes('room=')")
        code = re.search(r"room=([A-Z0-9]+)", tp.url).group(1)
        wait_idle(tp)
        sp.goto(f"{base}/poll?room={code}&lang=en")
        _answer(sp, "20").first.click()
        _answer(sp, "✓ 20").first.wait_for()
        assert store.tally(code).counts == (0, 0, 1, 0)

        # replica A dies; the two tabs reconnect through nginx to replica B
        apps[port_a].kill()
        apps[port_a].wait(timeout=15)
        time.sleep(3)  # the tabs notice and reconnect (new sessions on B)
        # the student, moved to B, changes the vote: still one voter
        deadline = time.monotonic() + 120
        while store.tally(code).counts != (0, 0, 0, 1) and time.monotonic() < deadline:
            _answer(sp, "39").first.click()
            sp.wait_for_timeout(2000)
        _answer(sp, "✓ 39").first.wait_for()
        tally = store.tally(code)
        assert tally.voters == 1 and tally.counts == (0, 0, 0, 1), tally
        # the teacher, now on B, is still the teacher there: one tap reveals
        tp.get_by_role("button", name=translate("poll.reveal", "en")).click()
        deadline = time.monotonic() + 120
        while store.get(code).state != "revealed" and time.monotonic() < deadline:
            time.sleep(0.5)
        assert store.get(code).state == "revealed", "the teacher lost the poll with its replica"
        tp.locator('[data-testid="stMain"] [data-testid="stAlert"]').first.wait_for()
        _answer(sp, "✓ 39").first.wait_for()  # and the student's phone shows the reveal
        sp.locator('[data-testid="stMain"] [data-testid="stAlert"]').first.wait_for()
    finally:
        for ctx in contexts:
            ctx.close()
        store.dispose()
    entries = [json.loads(x) for x in access_log.read_text().splitlines() if x.strip()]
    survivors = {e["upstream"] for e in entries if e["route"] == teacher_route}
    # B served the teacher: nginx lists every upstream it tried ("A, B" when A was dead), the
    # last one answered
    served = {u.split(", ")[-1] for u in survivors}
    assert any(not u.endswith(f":{port_a}") for u in served), survivors
    assert not csp, f"Content-Security-Policy violations: {csp[:5]}"
