"""serve.cpus: the cores a process may use are capped by its container's CPU quota."""

from __future__ import annotations

import os

from serve import cpus


def _cgroup(tmp_path, v2: str | None = None, v1: tuple[str, str] | None = None):
    tmp_path.mkdir(exist_ok=True)
    if v2 is not None:
        (tmp_path / "cpu.max").write_text(v2 + "\n")
    if v1 is not None:
        (tmp_path / "cpu").mkdir()
        (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text(v1[0] + "\n")
        (tmp_path / "cpu" / "cpu.cfs_period_us").write_text(v1[1] + "\n")
    return tmp_path


def test_a_quota_caps_the_cores(tmp_path):
    affinity = len(os.sched_getaffinity(0))
    assert cpus.quota(_cgroup(tmp_path / "a", "100000 100000")) == 1.0
    assert cpus.cores(_cgroup(tmp_path / "b", "100000 100000")) == 1
    assert cpus.cores(_cgroup(tmp_path / "c", "50000 100000")) == 1  # half a CPU: one slot
    # 1.5 CPUs rounds up, never above the affinity
    assert cpus.cores(_cgroup(tmp_path / "d", "150000 100000")) == min(2, affinity)
    assert cpus.cores(_cgroup(tmp_path / "e", "6400000 100000")) == affinity  # 64 CPUs


def test_no_quota_is_the_affinity(tmp_path):
    affinity = len(os.sched_getaffinity(0))
    for d, kw in (("a", {"v2": "max 100000"}), ("b", {"v1": ("-1", "100000")}), ("c", {})):
        root = tmp_path / d
        root.mkdir()
        assert cpus.quota(_cgroup(root, **kw)) is None
        assert cpus.cores(root) == affinity


def test_cgroup_v1_quota(tmp_path):
    assert cpus.quota(_cgroup(tmp_path, v1=("200000", "100000"))) == 2.0
