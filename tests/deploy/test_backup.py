"""The hourly backup (deploy/k8s/db-backup/, postgres-backup.yaml) against a real PostgreSQL
(tests/pg.py): a dump holds only the polls opened within its window (their votes, their
teachers) and the races started in it, older dumps are deleted, and restore.sh reads a dump
back into a database whose schema the app made: the poll, its votes and its race return."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from poll import store as ps
from poll.runs import RunStore
from tests import pg
from tests.deploy.test_config import K8S

SCRIPTS = K8S / "db-backup"
HOUR = 3600.0


def _run(script: str, server: pg.PgServer, database: str, *args: str, ok=True, **env: str):
    full = dict(
        os.environ,
        PGHOST=str(server.socket_dir),
        PGUSER="postgres",
        PGDATABASE=database,
        PATH=f"{pg.bin_dir()}:{os.environ['PATH']}",
        **env,
    )
    done = subprocess.run(
        ["sh", str(SCRIPTS / script), *args], env=full, capture_output=True, text=True, timeout=60
    )
    assert (done.returncode == 0) == ok, done.stderr
    return done


def _aged(path: Path, minutes: float) -> Path:
    path.write_text("-- an earlier dump\n")
    then = time.time() - minutes * 60
    os.utime(path, (then, then))
    return path


@pytest.mark.timeout(180)
def test_a_dump_holds_only_its_window_and_restores(pg_road):
    server = pg_road
    backups = Path(server.folder) / "backup"
    backups.mkdir()
    if server.user:
        shutil.chown(backups, server.user)
    admin = sa.create_engine(server.url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text("CREATE DATABASE road_restored"))
    admin.dispose()
    url = server.url.replace("postgres@/postgres?", "postgres@/road?")
    now = time.time()
    made = {}
    for name, age_h in (("old", 12.0), ("new", 1.0)):  # the window is 11 h
        polls = ps.PollStore(url, clock=lambda a=age_h: now - a * HOUR)
        code = polls.open("q", 3, name * 8 + "t" * 24)
        polls.vote(code, name * 8 + "v" * 24, 2)
        made[name] = (code, RunStore(polls).start(name * 8 + "t" * 24, {"k": 1}, code))
        polls.dispose()
    stale = _aged(backups / "road-20261206T080000Z.sql", 601)
    recent = _aged(backups / "road-20261206T100000Z.sql", 599)

    _run("backup.sh", server, "road", BACKUP_DIR=str(backups))
    assert not stale.exists() and recent.exists()  # kept 600 minutes, no longer
    (dump,) = [p for p in backups.glob("road-*.sql") if p != recent]
    assert not list(backups.glob("*.part"))
    text = dump.read_text()
    old_code, old_run = made["old"]
    new_code, new_run = made["new"]
    assert new_code in text and new_run in text
    assert old_code not in text and old_run not in text  # opened 12 h ago: not copied
    assert "poll_keys" not in text  # the digests' key never travels with them

    restored_url = url.replace("/road?", "/road_restored?")
    ps.PollStore(restored_url).dispose()  # the schema, made by the app
    _run("restore.sh", server, "road_restored", str(dump))
    back = ps.PollStore(restored_url)
    try:
        poll = back.get(new_code)
        assert (poll.question, poll.n_answers) == ("q", 3)
        assert poll.created == pytest.approx(now - HOUR)  # its opening time, kept
        assert back.tally(new_code).counts == (0, 0, 1)
        assert back.is_teacher(new_code, "new" * 8 + "t" * 24)
        assert RunStore(back).get(new_run).room == new_code
        with pytest.raises(ps.PollError):
            back.get(old_code)
        with back.engine.connect() as conn:
            oldest = conn.execute(sa.select(sa.func.min(ps.polls.c.created))).scalar_one()
        assert now - oldest < 11 * HOUR
        # a dump that does not fit changes nothing: with the poll gone but its vote still
        # there, the polls' rows would go in and the votes' fail; the poll stays gone
        with back.engine.begin() as conn:
            conn.execute(ps.polls.delete())
        _run("restore.sh", server, "road_restored", str(dump), ok=False)
        with back.engine.connect() as conn:
            assert conn.execute(sa.select(sa.func.count()).select_from(ps.polls)).scalar() == 0
    finally:
        back.dispose()
