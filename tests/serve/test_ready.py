"""A fresh replica says it is ready only once it is warm, with no visitor needed.

Kubernetes' startup probe asks Streamlit's script health check, which runs ``app.py`` once
in a session of its own (the home page): that starts the warm-up, and the warm-up writes
``ROAD_READY_FILE`` when it is done; the readiness probe tests that file. Here the same
with a real server on loopback."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from serve.warmup import DONE, READY_ENV
from tests.conftest import ROOT

PORT = 8741  # this test's port


def _get(path: str) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{PORT}{path}", timeout=120) as r:
            return r.status
    except urllib.error.HTTPError as err:
        return err.code


@pytest.mark.timeout(600)
def test_the_script_health_check_warms_the_server_and_the_ready_file_follows(tmp_path):
    ready = tmp_path / "ready"
    log = tmp_path / "server.log"
    env = dict(
        os.environ,
        STREAMLIT_SERVER_SCRIPT_HEALTH_CHECK_ENABLED="true",
        ROAD_WARMUP_DELAY_S="0",
        **{READY_ENV: str(ready)},
    )
    cmd = [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py")]
    cmd += ["--server.port", str(PORT), "--server.address", "127.0.0.1"]
    cmd += ["--server.headless", "true"]
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if _get("/_stcore/health") == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline and proc.poll() is None, log.read_text()
            time.sleep(0.25)
        time.sleep(3)
        assert not ready.exists(), "ready before any script ran: the file says nothing"
        assert _get("/_stcore/script-health-check") == 200, log.read_text()
        deadline = time.monotonic() + 300
        while not ready.exists():
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.5)
        assert DONE in log.read_text()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
