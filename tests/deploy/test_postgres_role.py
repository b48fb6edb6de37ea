"""The database's init script (deploy/k8s/db-init/) against a real PostgreSQL (tests/pg.py):
the role it makes is no superuser, cannot make roles or databases, yet the app's store
creates its schema and opens a poll as that role."""

from __future__ import annotations

import os
import subprocess

import pytest
import sqlalchemy as sa

from poll.store import PollStore
from tests import pg
from tests.deploy.test_config import K8S

INIT = K8S / "db-init" / "10-app-role.sh"  # kustomization.yaml's road-db-init, Compose's mount


@pytest.mark.timeout(180)
def test_the_app_role_owns_its_polls_and_nothing_more(pg_road):
    server = pg_road
    script = INIT
    env = dict(
        os.environ,
        POSTGRES_USER="postgres",
        POSTGRES_DB="road",
        APP_DB_PASSWORD="pw-'quoted'",  # psql's :'pw' quotes it
        PGHOST=str(server.socket_dir),
        PATH=f"{pg.bin_dir()}:{os.environ['PATH']}",
    )
    done = subprocess.run(
        ["bash", str(script)], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    road = server.url.replace("postgres@/postgres?", "postgres@/road?")
    with sa.create_engine(road).connect() as conn:
        row = conn.execute(
            sa.text(
                "SELECT rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls,"
                " rolcanlogin FROM pg_roles WHERE rolname = 'road_app'"
            )
        ).one()
        owner = conn.execute(
            sa.text("SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'road'")
        ).scalar_one()
    assert tuple(row) == (False, False, False, False, False, True)
    assert owner == "road_app"
    # the app as road_app: its schema made, a poll opened (the socket trusts the name)
    app_url = server.url.replace("postgres@/postgres?", "road_app@/road?")
    store = PollStore(app_url)
    assert store.open("q", 3, "b" * 32)
    with store.engine.connect() as conn:
        with pytest.raises(sa.exc.ProgrammingError):  # no role making for the app
            conn.execute(sa.text("CREATE ROLE intruder"))
    store.engine.dispose()
