"""A throwaway PostgreSQL server for the tests: Debian's binaries, a data directory in a
temporary folder, listening only on a Unix socket in that folder (no TCP port at all).

``.ci/run`` installs Debian's ``postgresql`` package; elsewhere the tests that need it skip
with a message (in CI a missing server is a failure). PostgreSQL refuses to run as root,
so as root the server runs as the ``postgres`` user the package creates.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path


def bin_dir() -> Path | None:
    """The newest ``/usr/lib/postgresql/<version>/bin`` that has a server, if any."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"))
    return Path(found[-1]).parent if found else None


@dataclass
class PgServer:
    folder: Path
    bin: Path
    user: str | None  # run as this user (when the tests run as root)

    @property
    def socket_dir(self) -> Path:
        return self.folder / "sock"

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@/postgres?host={self.socket_dir}"

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        cmd = [str(self.bin / args[0]), *args[1:]]
        if self.user:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        return subprocess.run(cmd, check=check, capture_output=True, text=True, timeout=120)

    def start(self) -> None:
        data = self.folder / "data"
        self.socket_dir.mkdir(parents=True, exist_ok=True)
        if self.user:
            shutil.chown(self.folder, self.user)
            shutil.chown(self.socket_dir, self.user)
        self._run("initdb", "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8")
        opts = f"-c listen_addresses='' -c unix_socket_directories='{self.socket_dir}'"
        self._run(
            "pg_ctl",
            "-D",
            str(data),
            "-o",
            opts,
            "-l",
            str(self.folder / "pg.log"),
            "-w",
            "-t",
            "60",
            "start",
        )
        deadline = time.monotonic() + 30
        while not list(self.socket_dir.glob(".s.PGSQL.*")):
            if time.monotonic() > deadline:
                raise RuntimeError("PostgreSQL did not open its socket")
            time.sleep(0.1)

    def stop(self) -> None:
        self._run(
            "pg_ctl", "-D", str(self.folder / "data"), "-m", "fast", "-w", "stop", check=False
        )


def start(folder: Path) -> PgServer:
    """Start a server in ``folder`` (which must be writable by the server's user)."""
    bindir = bin_dir()
    if bindir is None:
        raise FileNotFoundError("PostgreSQL server binaries not found (apt-get install postgresql)")
    user = "postgres" if os.geteuid() == 0 else None
    server = PgServer(folder, bindir, user)
    server.start()
    return server
