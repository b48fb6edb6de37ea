"""Capacity per machine: the class bench at growing sizes through the repo's nginx onto
replicas of this machine (``machine``), and the same class against one process alone with its
interpreter lock sampled (``one_process``): how many students one process and one machine
hold with clicks' p95 within :data:`CLICK_GOAL_S`, and whether the GIL is the ceiling.

One cluster serves every size (warm once, sizes in increasing order: each class closes its
sessions before the next arrives); the simulated students run on the same machine, their CPU
counted (``clients``). The lock is sampled with py-spy (``record --gil``: a sample is kept only
while a thread holds the GIL), so its share of samples is the share of time the lock was held.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from bench import procs
from bench import scaleout as S
from bench.classroom import ClassPlan, Student, run_class
from bench.procs import LOGS, ROOT

CLICK_GOAL_S = 1.0  # a click's p95 a class still calls instant
SIZES = (100, 200, 300, 400, 500)
CEILING_SIZES = (100, 200)
GIL_RATE_HZ = 25  # py-spy's samples a second (non-blocking: the process is never paused)
WINDOW_S = 10.0  # s of one py-spy window


def pyspy() -> str | None:
    """py-spy on this machine (``pip install py-spy``), or None."""
    return shutil.which("py-spy")


def gil_by_thread(raw: str) -> Counter:
    """Samples per thread name in py-spy's raw output (``thread (tid): name;frames count``)."""
    out: Counter = Counter()
    for line in raw.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        head = stack.split(";", 1)[0]
        name = head.split(": ", 1)[1] if head.startswith("thread (") and ": " in head else head
        out[name.strip('"')] += int(count)
    return out


def gil_figures(by_thread: Counter, rate_hz: float, seconds: float) -> dict:
    """The share of the window the GIL was held, in all and by thread (names grouped: every
    script run's thread is ``ScriptRunner.scriptThread``)."""
    expected = rate_hz * seconds
    held = sum(by_thread.values())
    share = {k: round(v / expected, 3) for k, v in by_thread.most_common(6)} if expected else {}
    return {
        "held_share": round(held / expected, 3) if expected else None,
        "by_thread": share,
        "samples_held": held,
        "samples_expected": round(expected),
        "rate_hz": rate_hz,
        "seconds": round(seconds, 1),
    }


class GilSampler:
    """``py-spy record --gil`` on ``pid`` in windows of ``window_s`` while the ``with`` runs:
    per window the share of time the lock was held and the process's CPU (cores), so the
    busiest seconds are not averaged away by a class's quiet ones."""

    def __init__(self, pid: int, out: Path, rate_hz=GIL_RATE_HZ, window_s=WINDOW_S) -> None:
        self.pid, self.out, self.rate_hz, self.window_s = pid, out, rate_hz, window_s
        self.figures: dict = {}
        self.windows: list[dict] = []
        self._by_thread: Counter = Counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="gil-sampler", daemon=True)

    def _window(self, exe: str, i: int) -> bool:
        """One window (cut short by the end of the ``with``); False when py-spy failed."""
        out = self.out.with_suffix(f".{i}.txt")
        argv = [exe, "record", "--pid", str(self.pid), "--rate", str(self.rate_hz), "--gil"]
        argv += ["--threads", "--nonblocking", "--format", "raw", "-o", str(out)]
        argv += ["--duration", str(max(1, round(self.window_s)))]
        t0, cpu0 = time.monotonic(), procs.cpu_seconds(self.pid)
        with self.out.with_suffix(".log").open("a") as log:
            proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
        while proc.poll() is None:
            if self._stop.wait(0.2):
                proc.send_signal(signal.SIGINT)  # py-spy writes its file and exits
                break
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        seconds, cpu1 = time.monotonic() - t0, procs.cpu_seconds(self.pid)
        try:
            by = gil_by_thread(out.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            return False
        self._by_thread += by
        window = gil_figures(by, self.rate_hz, seconds)
        cores = None if cpu0 is None or cpu1 is None else round((cpu1 - cpu0) / seconds, 2)
        self.windows.append({k: window[k] for k in ("held_share", "seconds")} | {"cores": cores})
        return True

    def _run(self) -> None:
        exe = pyspy()
        i = 0
        while exe and not self._stop.is_set() and self._window(exe, i):
            i += 1

    def __enter__(self) -> GilSampler:
        self.out.parent.mkdir(parents=True, exist_ok=True)
        if pyspy() is None:
            self.figures = {"error": "py-spy not found: pip install py-spy"}
        else:
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if not self._thread.is_alive():
            return
        self._stop.set()
        self._thread.join(60)
        seconds = sum(w["seconds"] for w in self.windows)
        self.figures = gil_figures(self._by_thread, self.rate_hz, seconds)
        # the busiest window: where a ceiling shows (the class's clicks at their densest)
        full = [w for w in self.windows if w["cores"] is not None and w["seconds"] >= 5]
        self.figures["busiest"] = max(full, key=lambda w: w["cores"], default=None)
        self.figures["windows"] = self.windows


class Samplers(contextlib.ExitStack):
    """A :class:`GilSampler` per ``{name: pid}`` while the ``with`` runs (none unless ``on``);
    ``figures`` afterwards."""

    def __init__(self, pids: dict[str, int], folder: Path, label: str, on: bool) -> None:
        super().__init__()
        self.samplers = {
            name: GilSampler(pid, folder / f"{label}_{name.replace(':', '_')}.gil.txt")
            for name, pid in (pids.items() if on else ())
        }

    def __enter__(self) -> Samplers:
        super().__enter__()
        for sampler in self.samplers.values():
            self.enter_context(sampler)
        return self

    def figures(self, name: str) -> dict | None:
        sampler = self.samplers.get(name)
        return None if sampler is None else sampler.figures


def refused(entries: list[dict], addr: str = S.CLASS_ADDR) -> int:
    """Websocket sessions nginx refused to ``addr`` (HTTP 429)."""
    return S.statuses(entries, addr, sessions_only=True).get("429", 0)


def within_goal(figs: dict | None, n: int, goal: float = CLICK_GOAL_S) -> bool:
    """A class held: every student admitted and arrived, no error, clicks' p95 within goal."""
    if not figs:
        return False
    p95 = (figs.get("click_s") or {}).get("p95")
    admitted = figs.get("arrived") == n and not figs.get("refused")
    return p95 is not None and p95 <= goal and admitted and figs.get("errors") == 0


def crossing(rows: dict[str, dict | None], goal: float = CLICK_GOAL_S) -> int | None:
    """The smallest size whose clicks' p95 went over ``goal`` (``None``: none did)."""
    for n in sorted(rows, key=int):
        p95 = ((rows[n] or {}).get("click_s") or {}).get("p95")
        if p95 is not None and p95 > goal:
            return int(n)
    return None


def held(rows: dict[str, dict | None], goal: float = CLICK_GOAL_S) -> int | None:
    """The largest size held (:func:`within_goal`) with every smaller size held too."""
    best = None
    for n in sorted(rows, key=int):
        if not within_goal(rows[n], int(n), goal):
            break
        best = int(n)
    return best


def _plan(args, sizes) -> ClassPlan:
    return ClassPlan(
        list(sizes), arrive_within=args.class_arrive, duration=args.class_duration,
        seed=args.seed, timeout=args.class_timeout, port=args.port, keep_logs=LOGS,
    )  # fmt: skip


def _short(figs: dict) -> str:
    keep = ("arrive_s", "click_s", "errors", "arrived", "refused", "cpu_s", "cpu_cores_busy")
    return str({k: figs.get(k) for k in keep})


async def _one_process_class(server: procs.Server, n: int, plan: ClassPlan, gil: bool):
    errors: list[str] = []
    async with Student(server.base, timeout=300, name="teacher") as teacher:
        t = await teacher.arrive(plan.page[0], plan.page[1] + "&present=1")
        if not t.ok:
            errors.append(f"one process, class {n}: the teacher's page: {t.error}")
        own0 = S.own_cpu_s()
        busy0 = S.machine_busy_s()
        with Samplers({"app": server.pid}, LOGS, f"one_process_{n}", gil) as samplers:
            figs = await run_class(server.base, n, plan, server.pid)
        own, busy = S.own_cpu_s() - own0, S.machine_busy_s()
    figs["gil"] = samplers.figures("app")
    figs["refused"] = 0  # no proxy in front
    figs["clients"] = {"cpu_s": round(own, 2)}
    if busy is not None and busy0 is not None and figs["wall_s"]:
        figs["machine"] = {"busy_cores": round((busy - busy0) / figs["wall_s"], 2)}
    figs["teacher_s"] = t.seconds
    if figs["errors"]:
        errors.append(f"one process, class {n}: {figs['errors']} errors: {figs['error_samples']}")
    return figs, errors


def run_one_process(args, sizes) -> tuple[dict, list[str]]:
    """Each size against one ``streamlit run app.py`` (fresh, warm first), no proxy."""
    out: dict = {}
    errors: list[str] = []
    plan = _plan(args, sizes)
    for n in sizes:
        folder = Path(tempfile.mkdtemp(prefix="road-capacity-"))
        env = dict(os.environ, ROAD_DATA_DIR=str(folder / "data"))
        env.pop("ROAD_DATABASE_URL", None)
        procs.log(f"one process, class of {n}")
        try:
            server = procs.start_server("app.py", ROOT, LOGS / f"one_process_{n}.log", env=env)
        except RuntimeError as exc:
            errors.append(f"one process, class {n}: {exc}")
            out[str(n)] = None
            continue
        try:

            async def go(server=server, n=n):
                async with Student(server.base, timeout=300, name="warm") as s:
                    await s.arrive(plan.page[0], plan.page[1] + "&present=1")
                warm = await asyncio.to_thread(procs.wait_warm, server, 300.0)
                figs, errs = await _one_process_class(server, n, plan, args.gil)
                figs["warm_up_s"] = warm
                return figs, errs

            figs, errs = asyncio.run(go())
        finally:
            procs.stop_server(server)
            shutil.rmtree(folder, ignore_errors=True)
        errors += errs
        out[str(n)] = figs
        procs.log(f"one process, class {n}: {_short(figs)}, gil {figs.get('gil')}")
    return out, errors


def run_machine(args, sizes) -> tuple[dict, list[str], dict]:
    """Each size through nginx onto ``args.replicas`` replicas (one warm cluster)."""
    out: dict = {}
    errors: list[str] = []
    plan = _plan(args, sizes)
    warm: dict = {}

    async def go(cl: procs.Cluster) -> None:
        nonlocal warm
        warm, errs = await S.warm_replicas(cl, plan.page)
        errors.extend(errs)
        for n in sizes:
            procs.log(f"one machine, class of {n} through nginx onto {len(cl.replicas)}")
            mark = cl.log_mark()
            pids = {s.upstream: s.pid for s in cl.replicas}
            with Samplers(pids, LOGS, f"machine_{n}", args.gil) as samplers:
                figs, errs = await S.measure_class(cl, n, plan)
            errors.extend(errs)
            figs["refused"] = refused(cl.access_log(mark))
            for up in pids:
                figs["replicas"].setdefault(up, {})["gil"] = samplers.figures(up)
            out[str(n)] = figs
            procs.log(f"one machine, class {n}: {_short(figs)}")
            await asyncio.sleep(5.0)  # the sessions closed, the replicas idle again

    try:
        label = f"capacity_r{args.replicas}"
        with procs.cluster(args.replicas, args.port, keep_logs=LOGS, label=label) as cl:
            asyncio.run(go(cl))
    except (RuntimeError, OSError) as exc:
        errors.append(f"one machine: {exc}")
    return out, errors, warm


def summary(result: dict) -> dict:
    """How many students one process and one machine hold, where clicks cross the goal."""
    one, machine = result.get("one_process") or {}, result.get("machine") or {}
    return {
        "click_goal_s": CLICK_GOAL_S,
        "one_process_holds": held(one),
        "one_process_crosses_at": crossing(one),
        "machine_holds": held(machine),
        "machine_crosses_at": crossing(machine),
        "machine_refused": {n: (f or {}).get("refused") for n, f in machine.items()},
    }


def run(args) -> dict:
    LOGS.mkdir(parents=True, exist_ok=True)
    meta = procs.run_meta() | _plan(args, args.sizes).meta()
    meta |= {
        "replicas": args.replicas,
        "through": "nginx from deploy/nginx/ (one warm cluster for every size, in order)",
        "one_process": "streamlit run app.py alone, no proxy, fresh and warm for each size",
        "class_address": S.CLASS_ADDR,
        "clients": "the simulated students run on this machine too (clients.cpu_s)",
        "gil": f"py-spy record --gil at {GIL_RATE_HZ} Hz" if args.gil else None,
    }
    result: dict = {"meta": meta}
    errors: list[str] = []
    lacks = procs.missing_nginx()
    if args.gil and pyspy() is None:
        errors.append("py-spy not found (pip install py-spy): no GIL figures")
        args.gil = False
    if args.ceiling:
        result["one_process"], errs = run_one_process(args, args.ceiling)
        errors += errs
    if lacks:
        errors += lacks
    elif args.sizes:
        result["machine"], errs, result["warm"] = run_machine(args, args.sizes)
        errors += errs
    result["summary"] = summary(result)
    result["meta"]["load_end"] = procs.load_average()
    result["errors"] = errors
    return result


def _gil(figs: dict | None) -> str:
    """``held share (busiest window: cores, held share)`` of one process's GIL figures."""
    g = figs or {}
    if g.get("held_share") is None:
        return "—"
    b = g.get("busiest") or {}
    busiest = f" ({b['cores']} cores, {b['held_share']:.2f})" if b else ""
    return f"{g['held_share']:.2f}{busiest}"


def table(result: dict) -> str:
    """Markdown: one row per size and setting."""
    head = "| where | students | arrived | refused | arrival p95 (s) | click p95 (s) | errors "
    head += "| CPU-s per process | cores busy | GIL held (busiest 10 s) |\n|---|" + "---:|" * 9
    rows = [head]
    for where in ("one_process", "machine"):
        for n, f in (result.get(where) or {}).items():
            if not f:
                rows.append(f"| {where} | {n} | not run |||||||")
                continue
            if where == "machine":
                cpu = ", ".join(str(r.get("cpu_s")) for r in f["replicas"].values())
                gil = "; ".join(_gil(r.get("gil")) for r in f["replicas"].values())
            else:
                cpu, gil = str(f.get("cpu_s")), _gil(f.get("gil"))
            rows.append(
                f"| {where} | {n} | {f.get('arrived')} | {f.get('refused')} "
                f"| {f['arrive_s']['p95']} | {f['click_s']['p95']} | {f['errors']} | {cpu} "
                f"| {f.get('cpu_cores_busy')} | {gil} |"
            )
    s = result.get("summary", {})
    rows.append(
        f"\none process holds {s.get('one_process_holds')} (crosses {CLICK_GOAL_S:g} s at "
        f"{s.get('one_process_crosses_at')}); one machine holds {s.get('machine_holds')} "
        f"(crosses at {s.get('machine_crosses_at')}); load {result['meta'].get('load_start')}"
    )
    return "\n".join(rows)
