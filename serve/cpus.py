"""How many cores this process may really use: its CPU affinity capped by its container's
CPU quota. A pod limited to 1 CPU on a 32-core node sees 32 in ``os.cpu_count()``; sizing
page-run slots or nginx workers from that would admit 32 runs at once on one core.

``python -m serve.cpus`` prints the number (deploy/nginx/layout.sh sizes nginx's workers).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

CGROUP = Path("/sys/fs/cgroup")


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def quota(root: Path = CGROUP) -> float | None:
    """The cgroup's CPU quota in CPUs (quota / period), or None where there is none:
    cgroup v2's ``cpu.max`` ("max 100000", "150000 100000"), else v1's cfs files."""
    v2 = _read(root / "cpu.max")
    if v2 is not None:
        fields = v2.split()
        q, period = (fields + ["", ""])[:2]
    else:
        q = _read(root / "cpu" / "cpu.cfs_quota_us") or ""
        period = _read(root / "cpu" / "cpu.cfs_period_us") or ""
    if not (q.isdigit() and period.isdigit()) or int(q) == 0 or int(period) == 0:
        return None  # "max", "-1" or nothing: no quota
    return int(q) / int(period)


def cores(root: Path = CGROUP) -> int:
    """The cores this process may use: affinity, capped by the quota rounded up; >= 1."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        n = os.cpu_count() or 1
    q = quota(root)
    return max(1, min(n, math.ceil(q))) if q else max(1, n)


if __name__ == "__main__":
    print(cores())
