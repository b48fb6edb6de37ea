"""The image a school deploys, built from this repository and served as a school runs it.

Built with podman from a local Debian base (deploy/docker/build.py; .ci/run starts that
build in the background and this module waits for it through ``ROAD_IMAGE_BUILD_STATUS``).
Then the image's own command runs from its mounted files (deploy/docker/chroot-run.sh: a
read-only root, a writable data volume, the image's user and environment): the health
check answers, a lesson page and the poll page render in Chromium through the image's
nginx with compression and the security headers, a page that raises shows no traceback.
Without podman, debootstrap or root the tests skip with a message; with ``CI`` set that is
a failure.
"""

from __future__ import annotations

import gzip
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import brotli
import pytest

from bench.browser import CHROMIUM_ARGS
from core.i18n import translate
from deploy.space import SPACE_ENV, USER_ID
from poll import questions as pq
from tests.conftest import APP_PACKAGES, ROOT, in_fresh_thread, need

BUILD = ROOT / "deploy" / "docker" / "build.py"
RUN = ROOT / "deploy" / "docker" / "chroot-run.sh"
TAG = "localhost/road-to-attention:test"
ARTIFACTS = ROOT / "tests" / "artifacts"
PORT = 8794  # this module's ports: 8794 (the image's nginx) and 8795 (its Streamlit)
BUILD_WAIT_S = 40 * 60  # a background build (.ci/run) measured ~12 min on a loaded machine
CHROMIUM = "/usr/bin/chromium"
LESSON = "bottleneck"  # a lesson page with charts
SECRET = "road-secret-image-5c1e"  # the raising page's message: never shown to a visitor
IN_IMAGE = ["app.py", *APP_PACKAGES, "assets", "deploy/docker/start.sh"]
NOT_IN_IMAGE = ["tests", "bench", "results", ".env", ".git", ".ci", "requirements-dev.txt"]


def _build_log() -> Path:
    return ARTIFACTS / "image-build.log"


def _wait_for_status(status: Path) -> dict:
    """The outcome of the build that .ci/run started in the background."""
    deadline = time.monotonic() + BUILD_WAIT_S
    while not status.exists():
        if time.monotonic() > deadline:
            pytest.fail(f"the image build did not finish within {BUILD_WAIT_S} s ({status})")
        time.sleep(5)
    return json.loads(status.read_text())


@pytest.fixture(scope="module")
def image() -> dict:
    """The built image: build.py's outcome (tag, seconds, size)."""
    need("podman", shutil.which("podman") is not None, "apt-get install podman")
    need(
        "debootstrap",
        shutil.which("debootstrap") is not None,
        "apt-get install debootstrap",
    )
    need("root", os.geteuid() == 0, "run as root (podman image mount, chroot)")
    waiting = os.environ.get("ROAD_IMAGE_BUILD_STATUS")
    if waiting:
        result = _wait_for_status(Path(waiting))
    else:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        status = ARTIFACTS / "image-build.json"
        status.unlink(missing_ok=True)
        with _build_log().open("w") as log:
            cmd = [sys.executable, str(BUILD), "--tag", TAG, "--status", str(status)]
            subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, timeout=BUILD_WAIT_S)
        result = json.loads(status.read_text())
    if result["status"] != 0:
        log = Path(waiting).with_suffix(".log") if waiting else _build_log()
        tail = log.read_text()[-3000:] if log.exists() else "(no log)"
        pytest.fail(f"the image did not build: {result}\n{tail}")
    return result


@pytest.fixture(scope="module")
def rootfs(image) -> Iterator[Path]:
    """The image's files, mounted read-only by podman for this module."""
    out = subprocess.run(
        ["podman", "image", "mount", image["tag"]], capture_output=True, text=True, check=True
    )
    yield Path(out.stdout.strip())
    subprocess.run(["podman", "image", "unmount", image["tag"]], capture_output=True)


def _inspect(tag: str) -> dict:
    out = subprocess.run(
        ["podman", "image", "inspect", tag], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)[0]


def _user(rootfs: Path, name: str) -> tuple[int, int]:
    for line in (rootfs / "etc" / "passwd").read_text().splitlines():
        fields = line.split(":")
        if fields[0] == name:
            return int(fields[2]), int(fields[3])
    raise AssertionError(f"the image has no user {name!r}")


@pytest.mark.timeout(BUILD_WAIT_S + 300)
def test_image_holds_the_app_and_nothing_else(image, rootfs):
    config = _inspect(image["tag"])["Config"]
    app = rootfs / config["WorkingDir"].lstrip("/")
    for name in IN_IMAGE:
        assert (app / name).exists(), f"the image lacks {name}"
    # every top-level package of the repository that .dockerignore lets in is there
    for init in ROOT.glob("*/__init__.py"):
        if init.parent.name not in {"tests", "bench"}:
            assert (app / init.parent.name / "__init__.py").exists(), init.parent.name
    for name in NOT_IN_IMAGE:
        assert not (app / name).exists(), f"the image holds {name}"
    assert not list(app.rglob("results")), "a results folder reached the image"
    assert not list(app.rglob("__pycache__")), "bytecode of the build context reached the image"
    # the unprivileged user reads the code and never owns it
    uid, _ = _user(rootfs, config["User"])
    assert uid != 0
    assert (app / "app.py").stat().st_uid == 0 and (app / "core").stat().st_uid == 0
    assert (rootfs / "data").stat().st_uid == uid  # the volume's mount point is the user's
    mirror = rootfs / "opt" / "road-static" / "static"
    assert any(mirror.rglob("*.js.br"))
    # the icon font nginx serves is the subset (deploy/material-icons.txt), not the 0.37 MB one
    (font,) = mirror.glob("media/MaterialSymbols-Rounded.*.woff2")
    assert 0 < font.stat().st_size < 40_000, font.stat().st_size
    assert any((rootfs / "opt" / "road-cache").iterdir())
    # the build arguments keep their defaults in the file; the healthcheck survived the build
    docker = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^ARG BASE_IMAGE=python:3\.11-slim-bookworm$", docker, re.M)
    assert re.search(r"^ARG TORCH_INDEX_URL=https://download\.pytorch\.org/whl/cpu$", docker, re.M)
    assert _inspect(image["tag"]).get("Healthcheck", {}).get("Test"), "no HEALTHCHECK in the image"
    assert image["size_bytes"] > 0


# --- the Hugging Face Space ----------------------------------------------------------------

SPACE_APP_PORT = 8796  # the Space run's Streamlit; its nginx is on the Space's port (7860)


@pytest.mark.timeout(BUILD_WAIT_S + 600)
def test_the_image_serves_as_a_hugging_face_space(image, rootfs, tmp_path):
    """The image run the way a Space runs it. The Space's Dockerfile (python -m deploy.space)
    is this image's with deploy.space.SPACE_ENV in its ENV and its port exposed, nothing else
    (tests/deploy/test_space.py; EXPOSE is only metadata), so this image started with
    SPACE_ENV (PORT=7860, ROAD_FORWARDED_FOR=1, the Space's page as a frame ancestor) is the
    Space's image. As a Space runs it: as uid 1000 by number, a read-only root, a /data
    volume, here on the host's loopback (chroot-run.sh). The health check and the home page
    answer on port 7860, every process runs as uid 1000, a visitor's address is the one the
    Space's proxy appends to X-Forwarded-For (nginx's access log), uid 1000 writes to /data.
    Its Streamlit listens on SPACE_APP_PORT instead of 8502 (inside the container nothing
    else listens; here it must not meet another server). Runs before ``served`` starts."""
    port = int(SPACE_ENV["PORT"])
    if not (_free(port) and _free(SPACE_APP_PORT)):
        pytest.fail(f"ports {port}/{SPACE_APP_PORT} are taken: another run of this test?")
    data = tmp_path / "data"
    data.mkdir()
    os.chown(data, USER_ID, USER_ID)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log = ARTIFACTS / "image-space.log"
    cmd = ["bash", str(RUN), "-u", str(USER_ID), "-e", f"ROAD_APP_PORT={SPACE_APP_PORT}"]
    for name, value in SPACE_ENV.items():
        cmd += ["-e", f"{name}={value}"]
    cmd += [image["tag"], str(rootfs), str(data)]
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        started = _wait_healthy(proc, log, port=port)
        status, headers, html = _get("/", {"Accept-Encoding": "identity"}, port=port)
        assert status == 200 and b"<html" in html.lower(), html[:500]
        ancestors = f"frame-ancestors 'self' {SPACE_ENV['ROAD_FRAME_ANCESTORS']}"
        assert ancestors in headers.get("content-security-policy", ""), headers
        procs = _processes(proc.pid)
        assert len(procs) >= 3, procs  # start.sh, Streamlit, nginx (and its worker)
        assert {_uid(p) for p in procs} == {USER_ID}, "every process runs as uid 1000"
        forwarded = {"X-Forwarded-For": "198.51.100.66, 203.0.113.7"}  # forged, then the visitor
        assert _get("/_stcore/health", forwarded, port=port)[0] == 200
        deadline = time.monotonic() + 15
        # the access log keeps the visitor's network (/24), never its whole address
        while '"addr":"203.0.113.0/24"' not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.5)
        assert '"addr":"203.0.113.0/24"' in log.read_text(), "nginx took another address"
        assert '"addr":"198.51.100.0/24"' not in log.read_text(), "nginx took the forged one"
        assert "203.0.113.7" not in log.read_text(), "a visitor's address in the log"
        run = _run_in_image(image["tag"], rootfs, data, "touch", "/data/probe", user="1000")
        assert run.returncode == 0, run.stderr
        assert (data / "probe").stat().st_uid == USER_ID
        summary = {**image, "space_seconds_to_health": round(started, 1)}
        (ARTIFACTS / "image-space.json").write_text(json.dumps(summary))
    finally:
        _stop(proc)


# --- serving -----------------------------------------------------------------------------


def _free(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def _get(path: str, headers: dict | None = None, timeout: float = 30.0, port: int = PORT):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def _wait_healthy(
    proc: subprocess.Popen, log: Path, limit_s: float = 300.0, port: int = PORT
) -> float:
    start = time.monotonic()
    while time.monotonic() - start < limit_s:
        if proc.poll() is not None:
            pytest.fail(
                f"the image's command ended ({proc.returncode}):\n{log.read_text()[-3000:]}"
            )
        try:
            status, _, body = _get("/_stcore/health", timeout=5, port=port)
            if status == 200 and body.strip() == b"ok":
                return time.monotonic() - start
        except OSError:
            pass
        time.sleep(1)
    pytest.fail(f"no health answer through nginx in {limit_s} s:\n{log.read_text()[-3000:]}")


def _run_in_image(
    tag: str, rootfs: Path, data: Path, *cmd: str, user: str = "", port: int = PORT
) -> subprocess.CompletedProcess:
    """One command in a second container of the same image (same read-only root and
    volume, the host's network, so the running server is on 127.0.0.1)."""
    run = ["bash", str(RUN), "-e", f"PORT={port}", *(["-u", user] if user else [])]
    run += [tag, str(rootfs), str(data), *cmd]
    return subprocess.run(run, capture_output=True, text=True, timeout=120)


def _processes(pid: int) -> list[int]:
    """``pid`` and all its descendants."""
    found = [pid]
    for p in found:
        for task in Path(f"/proc/{p}/task").glob("*"):
            children = (task / "children").read_text().split() if task.exists() else []
            found += [int(c) for c in children if int(c) not in found]
    return found


def _uid(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"^Uid:\s+(\d+)", status, re.M).group(1))


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)  # start.sh stops Streamlit and nginx
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)


@pytest.fixture(scope="module")
def served(image, rootfs, tmp_path_factory):
    """The image's own command, as the image's user, on a read-only root with a writable
    data volume; one page file replaced by a copy that raises (bound over it read-only)."""
    need("unshare or chroot not found", bool(shutil.which("unshare")), "apt-get install util-linux")
    if not (_free(PORT) and _free(PORT + 1)):
        pytest.fail(f"ports {PORT}/{PORT + 1} are taken: another run of this test?")
    config = _inspect(image["tag"])["Config"]
    uid, gid = _user(rootfs, config["User"])
    work = tmp_path_factory.mktemp("image")
    data = work / "data"
    data.mkdir()
    os.chown(data, uid, gid)  # as a runtime gives a new volume the mount point's owner
    pages = rootfs / config["WorkingDir"].lstrip("/") / "pages"
    victim = sorted(p.stem for p in pages.glob("*.py") if p.stem not in {"home", "poll", LESSON})[0]
    raising = work / f"{victim}.py"
    raising.write_text(
        (pages / f"{victim}.py").read_text()
        + f'\nraise RuntimeError("{SECRET} in /srv/road/internal_path.py")\n'
    )
    raising.chmod(0o644)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log = ARTIFACTS / "image-serve.log"
    cmd = ["bash", str(RUN), "-e", f"PORT={PORT}", "-e", f"ROAD_APP_PORT={PORT + 1}"]
    cmd += ["-v", f"{raising}:{config['WorkingDir']}/pages/{victim}.py"]
    cmd += [image["tag"], str(rootfs), str(data)]
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        started = _wait_healthy(proc, log)
        summary = {**image, "seconds_to_health": round(started, 1), "load": os.getloadavg()[0]}
        (ARTIFACTS / "image-serve.json").write_text(json.dumps(summary))
        yield {
            "proc": proc,
            "log": log,
            "data": data,
            "uid": uid,
            "victim": victim,
        }
    finally:
        _stop(proc)


@pytest.mark.timeout(BUILD_WAIT_S + 300)
def test_image_runs_as_its_user_read_only_with_a_writable_volume(image, rootfs, served):
    procs = _processes(served["proc"].pid)
    assert len(procs) >= 3, procs  # start.sh, Streamlit, nginx (and its worker)
    assert {_uid(p) for p in procs} == {served["uid"]}, "every process runs as the image's user"
    health = _inspect(image["tag"])["Healthcheck"]["Test"]
    kind, *args = health
    check = ["/bin/sh", "-c", args[0]] if kind == "CMD-SHELL" else args
    run = _run_in_image(image["tag"], rootfs, served["data"], *check)
    assert run.returncode == 0, f"the image's health check failed: {run.stderr}"
    # and it can fail: the same check against a port where nothing listens
    run = _run_in_image(image["tag"], rootfs, served["data"], *check, port=9)
    assert run.returncode != 0
    # the root is read-only even for root; the volume is the user's to write
    run = _run_in_image(image["tag"], rootfs, served["data"], "touch", "/app/probe", user="root")
    assert run.returncode != 0 and "Read-only file system" in run.stderr, run.stderr
    run = _run_in_image(image["tag"], rootfs, served["data"], "touch", "/data/probe")
    assert run.returncode == 0, run.stderr
    assert (served["data"] / "probe").stat().st_uid == served["uid"]
    assert not (rootfs / "app" / "probe").exists()
    root = next(
        line.split()
        for line in Path(f"/proc/{served['proc'].pid}/mountinfo").read_text().splitlines()
        if line.split()[4] == "/"
    )
    assert "ro" in root[5].split(","), root


@pytest.mark.timeout(BUILD_WAIT_S + 600)
def test_pages_render_through_the_images_nginx(image, served):
    status, headers, html = _get("/", {"Accept-Encoding": "identity"})
    assert status == 200 and b"<html" in html.lower(), html[:500]
    added = dict(
        re.findall(
            r'^add_header ([\w-]+) "([^"]*)"',
            (ROOT / "deploy/nginx/headers.conf").read_text(),
            re.M,
        )
    )
    assert "Content-Security-Policy" in added
    for name, value in added.items():
        assert headers.get(name.lower()) == value, f"nginx in the image sends {name}: {headers}"
    script = re.search(rb'src="\.?/?(static/js/[^"]+\.js)"', html)
    assert script, "no script in Streamlit's index.html"
    path = "/" + script.group(1).decode()
    _, plain_h, plain = _get(path, {"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain_h and len(plain) > 10_000
    for enc, decode in (("br", brotli.decompress), ("gzip", gzip.decompress)):
        status, h, body = _get(path, {"Accept-Encoding": enc})
        assert status == 200 and h.get("content-encoding") == enc, h
        assert decode(body) == plain and len(body) < len(plain) / 2
    _browse(served)


@in_fresh_thread
def _browse(served) -> None:
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        need("Chromium", False, "apt-get install chromium")
    base = f"http://127.0.0.1:{PORT}"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
            page = context.new_page()
            csp, encodings = [], set()
            page.on("console", lambda m: "Content Security Policy" in m.text and csp.append(m.text))
            page.on("response", lambda r: encodings.add(r.headers.get("content-encoding")))

            first = page.goto(f"{base}/{LESSON}?lang=en")
            assert "content-security-policy" in first.headers
            _wait_rendered(page, translate(f"page.{LESSON}.title", "en"), charts=True)
            page.screenshot(path=str(ARTIFACTS / "image_lesson.png"))

            # a teacher opens a poll: the room is written to the store on the data volume
            page.goto(f"{base}/poll?ask={next(iter(pq.BY_ID))}&lang=en")
            page.wait_for_url(re.compile(r"[?&]room=\w+"), timeout=180_000)
            room = re.search(r"[?&]room=([^&#]+)", page.url).group(1)
            _wait_rendered(page, translate("page.poll.title", "en"), charts=True)
            page.screenshot(path=str(ARTIFACTS / "image_poll.png"))
            assert encodings & {"br", "gzip"}, encodings
            assert not csp, csp

            page.goto(f"{base}/{served['victim']}?lang=en")
            page.locator('[data-testid="stException"], [data-testid="stAlert"]').first.wait_for(
                timeout=180_000
            )
            page.wait_for_timeout(500)
            shown = page.locator('[data-testid="stApp"]').inner_text()
            page.locator(
                '[data-testid="stException"], [data-testid="stAlert"]'
            ).last.scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / "image_error.png"))
        finally:
            browser.close()
    for leak in (SECRET, "Traceback", "RuntimeError", "internal_path", f"{served['victim']}.py"):
        assert leak not in shown, f"the image shows {leak!r} to a visitor:\n{shown}"
    log = served["log"].read_text()
    assert SECRET in log and "Traceback" in log, "the server log keeps the traceback"
    stored = b"".join(f.read_bytes() for f in served["data"].glob("polls.sqlite3*"))
    assert room.encode() in stored, f"room {room} is not in the poll store on the volume"


def _wait_rendered(page, title: str, charts: bool) -> None:
    """Until the page's title shows, Streamlit is idle and (``charts``) a chart has drawn."""
    main = page.locator('[data-testid="stMain"]')
    main.get_by_text(title, exact=False).first.wait_for(state="visible", timeout=180_000)
    if charts:
        page.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=180_000)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=180_000
    )
    page.wait_for_timeout(800)
