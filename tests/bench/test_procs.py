"""bench/procs.py, the server harness: memory from /proc, a server started, waited for and
stopped, a log line waited for."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from bench import procs
from bench.procs import BARE_APP


@pytest.mark.skipif(not procs.PROC.joinpath("self", "status").exists(), reason="no /proc")
def test_rss_counts_children():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        # bounded wait until the child has replaced its forked image (its RSS is then >0)
        for _ in range(200):
            if child.pid in procs.descendants(os.getpid()) and procs.rss_mb(child.pid) > 1:
                break
            subprocess.run(["sleep", "0.05"], check=True)
        assert child.pid in procs.descendants(os.getpid())
        alone = procs.rss_mb(os.getpid(), include_children=False)
        assert alone > 0
        assert procs.rss_mb(os.getpid()) > alone
    finally:
        child.kill()
        child.wait()


def test_bare_app_serves_on_loopback(tmp_path):
    server = procs.start_server(str(BARE_APP), tmp_path, tmp_path / "bare.log")
    try:
        assert server.base.startswith("http://127.0.0.1:")
        assert server.healthy >= server.launched
        assert procs.rss_mb(server.pid) > 0
    finally:
        procs.stop_server(server)
    assert server.proc.poll() is not None


def test_a_log_line_is_waited_for_within_the_time_given(tmp_path):
    log = tmp_path / "app.log"
    log.write_text("starting\n")
    server = procs.Server("http://127.0.0.1:1", None, log, 0.0, 0.0)
    assert procs.wait_log(server, "warm-up done", timeout=0.3) is None
    log.write_text("starting\nroad-to-attention: warm-up done in 3.0 s\n")
    assert procs.wait_log(server, "warm-up done", timeout=5) is not None


def test_a_server_that_exits_is_reported_with_its_log(tmp_path):
    # a prefix runs before the streamlit command (setpriv does): here it exits at once
    exits = [sys.executable, "-c", "print('no server here', flush=True); raise SystemExit(3)"]
    with pytest.raises(RuntimeError, match="exited early:\n.*no server here"):
        procs.start_server("app.py", tmp_path, tmp_path / "s.log", 30, prefix=exits)


def test_the_hosted_settings_and_a_data_folder_of_its_own(tmp_path, monkeypatch):
    monkeypatch.setenv("ROAD_DATABASE_URL", "postgresql://elsewhere")
    env = procs.hosted_env(tmp_path)
    assert env["ROAD_DATA_DIR"] == str(tmp_path / "data")
    assert env["STREAMLIT_CLIENT_SHOW_ERROR_DETAILS"] == "none" and env["ROAD_PUBLIC"] == "1"
    assert "ROAD_DATABASE_URL" not in env
    assert procs.hosted_env(tmp_path, ROAD_DATABASE_URL="x")["ROAD_DATABASE_URL"] == "x"


def test_a_cluster_refuses_a_busy_port():
    if procs.missing_nginx():
        pytest.skip("; ".join(procs.missing_nginx()))
    with socket.socket() as s:  # a port someone listens on: nothing is started
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(RuntimeError, match="taken"), procs.cluster(1, port):
            pass
