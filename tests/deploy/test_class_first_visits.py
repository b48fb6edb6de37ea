"""A class arriving from one school address never meets a 429 at the repo's nginx.

60 phones behind one NAT address make their first visits at once: each asks for the page
and Streamlit's start-up calls (the app's locations) and for every asset a first visit
loads (deploy/first-visit-assets.txt, ~120), 25 at a time. 25 requests in flight per phone
is what HTTP/2 does (every stream counts as a connection for nginx's ``limit_conn``; a
browser on HTTP/1.1 opens 6): 60 phones hold up to ~1,500 requests at once. The limits
stand on the app's locations only, never on the assets: checked in the configuration too."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.conftest import ROOT
from tests.deploy.test_config import NGINX, _FakeApp, _nginx_or_skip

PHONES, IN_FLIGHT = 60, 25
NGINX_PORT, APP_PORT = 8712, 8713  # test_config's range: 8700-8729
APP_PATHS = ("/", "/_stcore/health", "/_stcore/host-config", "/?lang=zh")


def _run(coro):
    """``asyncio.run`` in a thread of its own: a test run earlier in this worker may have
    left an event loop set as running on the main thread (asyncio then refuses a second)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _assets() -> list[str]:
    lines = (ROOT / "deploy" / "first-visit-assets.txt").read_text().splitlines()
    return ["/static/" + s.strip() for s in lines if s.strip() and not s.startswith("#")]


def _mirror(folder: Path, assets: list[str]) -> Path:
    """deploy/precompress.py's folder from a stand-in of Streamlit's static folder holding
    every first-visit asset (the image makes the same from the real one)."""
    src = folder / "src"
    for path in assets:
        f = src / path.removeprefix("/static/")
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(b"/* stand-in */\n" + b"x" * 3000)
    mirror = folder / "mirror"
    cmd = [sys.executable, str(ROOT / "deploy" / "precompress.py"), str(mirror), "--src", str(src)]
    subprocess.run(cmd + ["--jobs", "1"], check=True, capture_output=True, timeout=300)
    return mirror


async def _get(path: str) -> int:
    reader, writer = await asyncio.open_connection("127.0.0.1", NGINX_PORT)
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: school\r\nConnection: close\r\n\r\n".encode())
        await writer.drain()
        line = await reader.readline()
        if not line:  # closed without an answer (nginx out of connections says so in its log)
            raise ConnectionError(f"{path}: the connection closed without an answer")
        status = int(line.split()[1])
        await reader.read()  # the whole answer
        return status
    finally:
        writer.close()


async def _class(paths: list[str]) -> list[int]:
    async def phone() -> list[int]:
        gate = asyncio.Semaphore(IN_FLIGHT)

        async def one(path: str) -> int:
            async with gate:
                return await _get(path)

        return await asyncio.gather(*(one(p) for p in paths))

    visits = await asyncio.wait_for(asyncio.gather(*(phone() for _ in range(PHONES))), 240)
    return [s for v in visits for s in v]


def _serve_and_visit(folder: Path, mirror: Path) -> list[int]:
    prefix = folder / "nginx"
    env = dict(os.environ, ROAD_STATIC_DIR=str(mirror), ROAD_NGINX_WORKERS="2")
    layout = ["sh", str(NGINX / "layout.sh"), str(prefix), f"127.0.0.1:{NGINX_PORT}"]
    subprocess.run(layout + [f"127.0.0.1:{APP_PORT}"], check=True, timeout=30, env=env)
    log = (folder / f"{prefix.name}.log").open("w")
    proxy = subprocess.Popen(
        [_nginx_or_skip(), "-p", f"{prefix}/", "-c", str(prefix / "conf" / "nginx.conf")]
        + ["-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                _run(_get("/_stcore/health"))
                break
            except OSError:
                assert time.monotonic() < deadline, (folder / f"{prefix.name}.log").read_text()
                time.sleep(0.1)
        try:
            return _run(_class([*APP_PATHS, *_assets()]))
        except ConnectionError as exc:  # with what nginx said about it
            log.flush()
            raise AssertionError(f"{exc}\n{(folder / f'{prefix.name}.log').read_text()}") from exc
    finally:
        proxy.terminate()
        proxy.wait(timeout=15)


def test_sixty_first_visits_from_one_address_get_no_429():
    _nginx_or_skip()
    folder = Path(tempfile.mkdtemp(prefix="road-class-"))
    folder.chmod(0o755)  # nginx's workers (nobody, when run as root) read the mirror
    app = _FakeApp(APP_PORT)
    try:
        mirror = _mirror(folder, _assets())
        statuses = _serve_and_visit(folder, mirror)
        assert len(statuses) == PHONES * (len(APP_PATHS) + len(_assets()))
        assert statuses.count(429) == 0, f"{statuses.count(429)} of {len(statuses)} refused"
        assert set(statuses) == {200}, sorted(set(statuses))
    finally:
        app.close()
        shutil.rmtree(folder, ignore_errors=True)


def _blocks(conf: str) -> dict[str, str]:
    """The server block's own lines and each location's body, by location name."""
    server = conf[conf.index("server {") :]
    out, depth, name, body, own = {}, 0, None, [], []
    for line in server.splitlines()[1:]:
        stripped = line.strip()
        if depth == 0 and stripped.startswith("location"):
            name, body, depth = stripped.removesuffix("{").strip(), [], 1
            continue
        if name is None:
            own.append(stripped)
            continue
        depth += stripped.count("{") - stripped.count("}")
        if depth == 0:
            out[name], name = "\n".join(body), None
        else:
            body.append(stripped)
    out["server"] = "\n".join(own)
    return out


def test_connection_and_request_limits_only_on_the_app_locations():
    blocks = _blocks((NGINX / "road.conf").read_text())
    assets = ("location /static/", "location @static_app")
    app = ("location = /_stcore/stream", "location /")
    assert set(assets) | set(app) <= set(blocks), sorted(blocks)
    for name in ("server", *assets):  # nothing a location could inherit, nothing on assets
        assert "limit_conn " not in blocks[name] and "limit_req " not in blocks[name], name
    for name in app:
        assert "limit_conn road_conn" in blocks[name] and "limit_req zone=" in blocks[name], name
