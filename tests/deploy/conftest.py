"""A throwaway PostgreSQL (tests/pg.py) for the deploy tests that run a script of
deploy/k8s against a real server: its socket folder readable by the server's user."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from tests import pg
from tests.conftest import need


@pytest.fixture
def pg_road() -> Iterator[pg.PgServer]:
    """A server with an empty database ``road`` (the one deploy/k8s names), stopped after."""
    need("PostgreSQL", pg.bin_dir() is not None, "apt-get install postgresql")
    folder = Path(tempfile.mkdtemp(prefix="road-pg-"))
    folder.chmod(0o755)
    server = pg.start(folder)
    try:
        admin = sa.create_engine(server.url, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(sa.text("CREATE DATABASE road"))
        admin.dispose()
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
