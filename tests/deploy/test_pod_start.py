"""A pod's container at start: markers left by its previous run are gone, and it turns ready
only once its warm-up is done AND its poll database answers (with the reason in its log
while it does not).

deploy/docker/start.sh runs for real (with a stand-in ``streamlit`` on PATH that records what
it found); the database check asks a real loopback port where nothing listens, and a real
PostgreSQL socket folder before and after a server opens it (tests/pg.py)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

from serve import warmup
from tests import pg
from tests.conftest import ROOT, need
from tests.deploy.test_config import START

STAND_IN = """#!/bin/sh
# streamlit's stand-in: what the real one would find when start.sh hands over to it
for f in "$ROAD_READY_FILE" "$ROAD_DRAIN_FILE"; do
    if [ -e "$f" ]; then echo "present $f"; else echo "absent $f"; fi
done > "$ROAD_TEST_SEEN"
echo "args $*" >> "$ROAD_TEST_SEEN"
"""


def _start(tmp_path: Path, role: str) -> tuple[subprocess.CompletedProcess, list[str], Path]:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "streamlit").write_text(STAND_IN)
    (bindir / "streamlit").chmod(0o755)
    ready, drain, seen = tmp_path / "road-ready", tmp_path / "road-draining", tmp_path / "seen"
    ready.write_text("warm\n")  # what a run killed for its memory leaves
    drain.touch()  # what a run killed by its liveness probe during a drain leaves
    env = dict(
        os.environ,
        PATH=f"{bindir}:{os.environ['PATH']}",
        ROAD_ROLE=role,
        ROAD_READY_FILE=str(ready),
        ROAD_DRAIN_FILE=str(drain),
        ROAD_TEST_SEEN=str(seen),
        PORT="8799",
    )
    done = subprocess.run(
        ["bash", str(START)], env=env, cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    lines = seen.read_text().splitlines() if seen.exists() else []
    return done, lines, tmp_path


def test_start_clears_the_ready_and_drain_markers_before_the_app_starts(tmp_path):
    done, seen, folder = _start(tmp_path, "app")
    assert done.returncode == 0, done.stderr
    ready, drain = folder / "road-ready", folder / "road-draining"
    assert seen[:2] == [f"absent {ready}", f"absent {drain}"], (seen, done.stderr)
    assert seen[2].startswith("args run app.py"), seen
    assert f"removed {ready}" in done.stderr and f"removed {drain}" in done.stderr


def test_a_bad_role_still_leaves_no_stale_marker(tmp_path):
    done, seen, folder = _start(tmp_path, "nonsense")
    assert done.returncode == 2 and "ROAD_ROLE must be" in done.stderr
    assert seen == []  # nothing started
    assert not (folder / "road-ready").exists() and not (folder / "road-draining").exists()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_database_is_reported_without_its_password():
    port = _free_port()  # closed again: nothing listens there
    url = f"postgresql+psycopg://road_app:s3cret-pw@127.0.0.1:{port}/road"
    problem = warmup.database_problem(url)
    assert problem and str(port) in problem, problem
    assert "s3cret-pw" not in problem
    assert warmup.database_problem("sqlite:////nowhere/polls.sqlite3") is None  # a local file
    assert "not a database URL" in warmup.database_problem("no url at all")


@pytest.mark.timeout(180)
def test_the_pod_is_unready_while_its_database_is_down_and_ready_once_it_answers(
    tmp_path, monkeypatch, capfd
):
    need("PostgreSQL", pg.bin_dir() is not None, "apt-get install postgresql")
    folder = Path(tempfile.mkdtemp(prefix="road-pg-"))
    folder.chmod(0o755)
    server = pg.PgServer(folder, pg.bin_dir(), "postgres" if os.geteuid() == 0 else None)
    ready = tmp_path / "road-ready"
    monkeypatch.setenv(warmup.READY_ENV, str(ready))
    monkeypatch.setenv(warmup.DATABASE_ENV, server.url)  # its socket folder: no server yet
    monkeypatch.setattr(warmup, "DATABASE_RETRY_S", 0.2)
    # the warm-up's own steps are other tests' business: here only what gates readiness
    monkeypatch.setattr(warmup, "_warm_corpus", lambda: None)
    monkeypatch.setattr(warmup, "_freeze", lambda: None)
    thread = threading.Thread(target=warmup._import_all, args=((), True, 0.0, None))
    thread.start()
    try:
        time.sleep(2.0)  # ten attempts
        assert thread.is_alive() and not ready.exists(), "ready without a database"
        log = capfd.readouterr().err
        assert warmup.DONE in log  # warm, yet not ready
        assert warmup.DATABASE_WAITING in log and str(server.socket_dir) in log, log
        assert log.count(warmup.DATABASE_WAITING) == 1  # once per reason, not every attempt
        server.start()
        thread.join(60)
        assert not thread.is_alive() and ready.read_text() == "warm\n"
        assert "the poll database answers after" in capfd.readouterr().err
    finally:
        thread.join(1)
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
