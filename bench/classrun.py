"""The class bench: simulated students on one fresh server, or through nginx.

``python -m bench class N[,N...]``: per class size a fresh app server, the teacher's page
opened first, the warm-up waited for, then N students (``bench.classroom.run_class``); the
first size also compares simulated and Chromium sessions (:func:`browser_check`). With
``--replicas`` or ``--abuser`` the class goes through the repo's nginx (``bench.scaleout``).
With ``--live P`` each class size plays P pairs of classes on its server, without and then
with a live training run beside it (:class:`LiveRace`), and compares their clicks.
"""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import asdict

from bench import browser as B
from bench import procs
from bench.pages import RERUN_TIMEOUT_S
from bench.procs import LOGS, ROOT, log
from bench.schema import validate_class
from bench.stats import median


def _in_thread(coro_fn, *args):
    """Run an async function to completion in a fresh thread and loop (Playwright's sync
    API owns this thread's loop while a browser is open)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro_fn(*args)).result()


async def _student_visit(base: str, page: str, query: str, label: str, reruns: int) -> dict:
    """One simulated session: arrival, then ``reruns`` changes of the control whose label
    is ``label`` (one notch each way, like the browser's arrow keys)."""
    from bench import classroom as C

    async with C.Student(base, timeout=RERUN_TIMEOUT_S * 4) as s:
        a = await s.arrive(page, query)
        out: dict = {"arrive_s": a.seconds, "rerun_s": [], "errors": [] if a.ok else [a.error]}
        if not reruns:
            return out
        match = [
            (C.widget_key(i), kind, w)
            for i, (kind, w) in s.widgets().items()
            if getattr(w, "label", None) == label
        ]
        if not match:
            out["errors"].append(f"no control labelled {label!r} for the simulated student")
            return out
        key, kind, _ = match[0]
        for i in range(reruns):  # one notch each way, like the browser's arrow keys
            if kind == "slider":
                r = await s.set(key, C.notch(s, key, lambda: i % 2 == 0))
            else:
                labels, now = s.options(key), C._current_index(kind, s.widget(key)[1])
                r = await s.set(key, labels[(now + 1) % len(labels)])
            out["rerun_s"].append(r.seconds)
            if not r.ok:
                out["errors"].append(r.error)
        return out


def browser_check(server: procs.Server, page: str, query: str, pairs: int, errors) -> dict:
    """``pairs`` Chromium sessions and ``pairs`` simulated ones on the same URL, alternated,
    on an otherwise idle server: first render and reruns of the same control. The browser's
    figure ends at the last DOM change (it includes loading the frontend, drawing and the
    charts), the simulator's at ``script_finished``."""
    url = server.url(f"/{page}?{query}")
    browser_arrive, browser_rerun, student_arrive, student_rerun = [], [], [], []
    label = ""
    with B.chromium() as browser:
        for _ in range(pairs):
            with B.tab(browser, errors) as tab:
                try:
                    browser_arrive.append(B.render(tab, url))
                    control = B.pick_control(tab, ("slider", 0))
                    label = control.label
                    for _ in range(2):
                        browser_rerun.append(B.rerun(tab, control, RERUN_TIMEOUT_S))
                except B.BenchTimeout as exc:
                    errors.append(f"browser check (Chromium): {exc}")
            if not label:
                continue
            visit = _in_thread(_student_visit, server.base, page, query, label, 2)
            errors.extend(f"browser check (simulated): {e}" for e in visit["errors"])
            if visit["arrive_s"] is not None:
                student_arrive.append(visit["arrive_s"])
            student_rerun += [x for x in visit["rerun_s"] if x is not None]

    def med(xs):
        return round(median(xs), 3) if xs else None

    figs = {
        "browser": {"arrive_s": med(browser_arrive), "rerun_s": med(browser_rerun)},
        "simulated": {"arrive_s": med(student_arrive), "rerun_s": med(student_rerun)},
    }
    from bench.stats import ratio

    return {
        "url": f"/{page}?{query}",
        "control": label,
        "sessions": pairs,
        **figs,
        "simulated_over_browser": {
            k: ratio(figs["simulated"][k], figs["browser"][k]) for k in ("arrive_s", "rerun_s")
        },
        "runs": {
            "browser_arrive_s": [round(x, 3) for x in browser_arrive],
            "browser_rerun_s": [round(x, 3) for x in browser_rerun],
            "simulated_arrive_s": student_arrive,
            "simulated_rerun_s": student_rerun,
        },
    }


async def _one_class(server: procs.Server, n: int, plan) -> tuple[dict, list[str]]:
    from bench import classroom as C

    page, query = plan.page
    class_errors: list[str] = []
    # the teacher's browser is on the page before the class arrives (on the projector),
    # and the server has finished its one-time warm-up by then (a lesson starts minutes
    # after the teacher opens it): the class measures what every student repeats
    async with C.Student(server.base, timeout=300, name="teacher") as teacher:
        t = await teacher.arrive(page, query + "&present=1")
        if not t.ok:
            class_errors.append(f"class {n}: the teacher's page: {t.error}")
        warm_s = await asyncio.to_thread(procs.wait_warm, server, 300.0)
        if warm_s is None:
            class_errors.append(f"class {n}: no warm-up line in the server log after 300 s")
        figs = await C.run_class(server.base, n, server_pid=server.pid, **plan.class_args())
    figs["teacher_s"] = t.seconds
    figs["warm_up_s"] = warm_s
    if figs["errors"]:
        class_errors.append(f"class {n}: {figs['errors']} errors: {figs['error_samples']}")
    return figs, class_errors


class LiveRace:
    """Live training beside a class, as the live page's Start makes it: the page's
    :class:`serve.live.RunManager` spawns ``core.live.race`` (its own process, one thread,
    nice 10, SCHED_IDLE) from this process, which shares the server's session and so its
    scheduling group, as the server's own child would. A race that ends is started again at once, so
    the whole class runs beside training. Its own database under ``bench/results/logs``."""

    OWNER = "bench-live-teacher-0001"

    def __init__(self) -> None:
        from serve.live import RunManager

        self.manager = RunManager(f"sqlite:///{LOGS / 'live-bench.sqlite3'}", heartbeat_timeout=1e9)
        self.runs: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._keep_training, daemon=True)

    def _keep_training(self) -> None:
        from core import live

        while not self._stop.is_set():
            if self.manager.current() is None:
                started = self.manager.start(self.OWNER, asdict(live.DEFAULT))
                if isinstance(started, str):
                    self.runs.append(started)
            self._stop.wait(0.5)

    def __enter__(self) -> LiveRace:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.manager.shutdown()

    def summary(self) -> dict:
        """The races run beside the class: how many, and the steps they trained."""
        runs = [self.manager.runs.get(r) for r in self.runs]
        steps = [run.progress[-1]["step"] if run and run.progress else 0 for run in runs]
        self.manager.polls.dispose()
        return {"races": len(runs), "steps_trained": sum(steps), "steps_per_race": steps}


def _live_pairs(server: procs.Server, n: int, plan, pairs: int, errors: list[str]) -> dict:
    """``pairs`` classes of ``n`` without and then with live training, back to back on the
    same warm server: their click and arrival p95 and the ratios with / without."""
    out = []
    for i in range(pairs):
        row: dict = {}
        for mode in ("without", "with"):
            log(f"class {n}, pair {i + 1}/{pairs}: {mode} live training")
            if mode == "with":
                with LiveRace() as race:
                    figs, class_errors = _in_thread(_one_class, server, n, plan)
                row["training"] = race.summary()
            else:
                figs, class_errors = _in_thread(_one_class, server, n, plan)
            errors += class_errors
            row[mode] = {k: figs[k] for k in ("click_s", "arrive_s", "errors", "cpu_s")}
        for k in ("click_s", "arrive_s"):
            base, loaded = row["without"][k]["p95"], row["with"][k]["p95"]
            row[f"{k}_p95_ratio"] = round(loaded / base, 2) if base and loaded else None
        log(f"class {n}, pair {i + 1}: " + json.dumps({k: row[k] for k in row if "ratio" in k}))
        out.append(row)
    ratios = [r["click_s_p95_ratio"] for r in out if r["click_s_p95_ratio"] is not None]
    return {"pairs": out, "click_p95_ratio_median": median(ratios) if ratios else None}


def run_classes(args) -> dict:
    from bench import classroom as C

    LOGS.mkdir(parents=True, exist_ok=True)
    plan = C.ClassPlan.from_args(args)
    errors: list[str] = []
    result: dict = {"meta": {**procs.run_meta(), **plan.meta()}, "class": {}, "browser_check": None}
    for i, n in enumerate(args.klass):
        try:
            server = procs.start_server("app.py", ROOT, LOGS / f"class_{n}.log")
        except RuntimeError as exc:
            errors.append(f"class {n}: server: {exc}")
            result["class"][str(n)] = None
            continue
        try:
            if i == 0 and args.browser_check:
                page, query = C.TEACHER_PAGE
                # the server's one-time work first (as the teacher's first visit does)
                warm = _in_thread(_student_visit, server.base, page, query, "", 0)
                result["meta"]["first_render_fresh_server_s"] = warm["arrive_s"]
                log(f"browser check: {args.browser_check} Chromium vs simulated sessions")
                try:
                    result["browser_check"] = browser_check(
                        server, page, query, args.browser_check, errors
                    )
                except (B.BenchTimeout, RuntimeError) as exc:
                    errors.append(f"browser check: {exc}")
                log(f"browser check: {result['browser_check']}")
            log(f"class of {n} ({args.scenario}), {args.class_duration:g} s of clicks")
            figs, class_errors = _in_thread(_one_class, server, n, plan)
            errors += class_errors
            result["class"][str(n)] = figs
            if getattr(args, "live", 0):
                live = result.setdefault("live", {})
                live[str(n)] = _live_pairs(server, n, plan, args.live, errors)
            log(f"class {n}: " + json.dumps({k: figs[k] for k in list(figs)[:8]}))
        finally:
            procs.stop_server(server)
    result["meta"]["load_end"] = procs.load_average()
    result["errors"] = errors
    result["schema_problems"] = validate_class(result, args.klass)
    return result


def run_scaleout(args) -> dict:
    """The class through nginx: replica counts compared, or the abuse scenario."""
    from bench import classroom as C
    from bench import scaleout as S
    from bench.schema import validate_abuse, validate_scaleout

    LOGS.mkdir(parents=True, exist_ok=True)
    plan = C.ClassPlan.from_args(args, keep_logs=LOGS)
    replicas = args.replicas or [1]
    result: dict = {
        "meta": {
            **procs.run_meta(),
            **plan.meta(),
            "page": f"/{plan.page[0]}?{plan.page[1]}",
            "replicas": replicas,
            "through": "nginx from deploy/nginx/ (fresh replicas for every class, warm first)",
            "class_address": S.CLASS_ADDR,
            "clients": "the simulated students run on this machine too (see clients.cpu_s)",
        }
    }
    lacks = procs.missing_nginx()
    if lacks:
        result["errors"] = lacks
        result["schema_problems"] = [f"not run: {m}" for m in lacks]
        return result
    if args.abuser:
        cfg = S.Abuse(
            attempts=args.abuse_attempts,
            open_seconds=args.abuse_seconds,
            # until the class ends (it is stopped then), bounded in any case
            seconds=args.class_arrive + args.class_duration + 3 * args.class_timeout,
        )
        result["meta"]["abuser"] = {
            "address": cfg.source,
            "attempts": cfg.attempts,
            "open_seconds": cfg.open_seconds,
            "openers": cfg.openers,
            "reruns": "on every session it gets, as fast as answered, until the class ends",
        }
        part = S.run_abuse(plan, replicas[0], cfg)
        problems = validate_abuse(dict(part, errors=part["errors"]), args.klass)
    else:
        part = S.run_replicas(plan, replicas)
        problems = validate_scaleout(dict(part, errors=part["errors"]), args.klass, replicas)
    result.update(part)
    result["meta"]["load_end"] = procs.load_average()
    result["schema_problems"] = problems
    return result
