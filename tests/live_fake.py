"""A stand-in for the training process (``poll.training._child``'s signature): it writes a
progress record every 0.2 s without torch, until cancelled, so a page test sees a run grow
in seconds on any machine."""

from __future__ import annotations

import time

from poll.runs import RunStore


def fake_child(
    run_id: str,
    url: str,
    config: dict,
    parent: int,
    heartbeat_timeout: float,
    nice: int = 0,
    idle: bool = False,
):
    runs = RunStore.at(url)
    records = []
    for step in range(1, config["steps"] + 1):
        if runs.control(run_id)[0]:
            runs.write(run_id, "cancelled", records)
            return
        loss = {"plain": 5.0 - step / 100, "attention": 5.0 - step / 80}
        records.append({"step": step, "steps": config["steps"], "loss": loss, "elapsed": step})
        runs.write(run_id, "running", records)
        time.sleep(0.2)
    runs.write(run_id, "done", records)
