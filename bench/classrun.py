"""The class bench: per class size a fresh app server, the teacher's page and the warm-up
first, then N students (the first size also against Chromium: :func:`browser_check`);
through nginx with ``--replicas`` or ``--abuser`` (``bench.scaleout``); with ``--live P``,
P pairs of classes without and with live training beside them (:func:`live_race`; the
translation race, or with ``--live-race coref`` the "it" race, ``core.live_coref``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict

from bench import browser as B
from bench import classroom as C
from bench import procs
from bench.pages import RERUN_TIMEOUT_S
from bench.procs import LOGS, ROOT, log
from bench.schema import validate_class
from bench.stats import med, median, ratio


def _in_thread(coro_fn, *args):
    """Run an async function in a fresh thread (Playwright owns this thread's loop)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro_fn(*args)).result()


async def _student_visit(base: str, page: str, query: str, label: str, reruns: int) -> dict:
    """A simulated session: arrival, then ``reruns`` notches of the slider labelled ``label``."""
    async with C.Student(base, timeout=RERUN_TIMEOUT_S * 4) as s:
        a = await s.arrive(page, query)
        out: dict = {"arrive_s": a.seconds, "rerun_s": [], "errors": [] if a.ok else [a.error]}
        if not reruns:
            return out
        sliders = [(i, w) for i, (kind, w) in s.widgets().items() if kind == "slider"]
        keys = [C.widget_key(i) for i, w in sliders if w.label == label]
        if not keys:
            out["errors"].append(f"no control labelled {label!r} for the simulated student")
            return out
        for i in range(reruns):
            r = await s.set(keys[0], C.notch(s, keys[0], lambda: i % 2 == 0))
            out["rerun_s"].append(r.seconds)
            if not r.ok:
                out["errors"].append(r.error)
        return out


def browser_check(server: procs.Server, page: str, query: str, pairs: int, errors) -> dict:
    """``pairs`` Chromium and ``pairs`` simulated sessions on one URL, alternated, on an idle
    server: first render and reruns of the same slider."""
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

    figs = {
        "browser": {"arrive_s": med(browser_arrive), "rerun_s": med(browser_rerun)},
        "simulated": {"arrive_s": med(student_arrive), "rerun_s": med(student_rerun)},
    }
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
    page, query = plan.page
    class_errors: list[str] = []
    # the teacher's page is open (projected) and warm before the class: as in a lesson
    async with C.Student(server.base, timeout=300, name="teacher") as teacher:
        t = await teacher.arrive(page, query + "&present=1")
        if not t.ok:
            class_errors.append(f"class {n}: the teacher's page: {t.error}")
        warm_s = await asyncio.to_thread(procs.wait_warm, server, 300.0)
        if warm_s is None:
            class_errors.append(f"class {n}: no warm-up line in the server log after 300 s")
        figs = await C.run_class(server.base, n, plan, server.pid)
    figs["teacher_s"] = t.seconds
    figs["warm_up_s"] = warm_s
    if figs["errors"]:
        class_errors.append(f"class {n}: {figs['errors']} errors: {figs['error_samples']}")
    return figs, class_errors


def race_config(kind: str = "translation") -> dict:
    """The stored config the live page's Start makes for a race of ``kind``."""
    if kind == "coref":
        from core import live_coref

        return live_coref.config_dict(live_coref.DEFAULT)
    from core import live

    return asdict(live.DEFAULT)


@contextlib.contextmanager
def live_race(kind: str = "translation"):
    """Live training beside a class, as the live page's Start makes it, restarted as it ends;
    the dict it yields holds, afterwards, the races and the steps they trained."""
    from poll.training import RunManager

    # a store of its own each time: a race left "starting" by an interrupted bench would
    # hold the visitors' one race forever (heartbeat_timeout), and nothing would train
    store = LOGS / "live-bench.sqlite3"
    store.unlink(missing_ok=True)
    manager = RunManager(f"sqlite:///{store}", heartbeat_timeout=1e9)
    runs, stop, summary = [], threading.Event(), {}

    def keep_training() -> None:
        while not stop.is_set():
            if manager.current() is None:
                started = manager.start("bench-live-teacher-0001", race_config(kind))
                if isinstance(started, str):
                    runs.append(started)
            stop.wait(0.5)

    thread = threading.Thread(target=keep_training, daemon=True)
    thread.start()
    try:
        yield summary
    finally:
        stop.set()
        thread.join()
        manager.shutdown()
        done = [manager.runs.get(r) for r in runs]
        steps = [run.progress[-1]["step"] if run and run.progress else 0 for run in done]
        manager.polls.dispose()
        summary |= {"races": len(done), "steps_trained": sum(steps), "steps_per_race": steps}


def _live_pairs(
    server: procs.Server, n: int, plan, pairs: int, errors: list[str], kind: str = "translation"
) -> dict:
    """``pairs`` classes of ``n`` without, then with live training (a race of ``kind``) on
    the same warm server."""
    out = []
    for i in range(pairs):
        row: dict = {}
        for mode in ("without", "with"):
            log(f"class {n}, pair {i + 1}/{pairs}: {mode} live training")
            with live_race(kind) if mode == "with" else contextlib.nullcontext() as training:
                figs, class_errors = _in_thread(_one_class, server, n, plan)
            if training is not None:
                row["training"] = training
                if not training.get("steps_trained"):  # no race beside the class: no pair
                    errors.append(f"class {n}, pair {i + 1}: no race trained beside the class")
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
                    check = browser_check(server, page, query, args.browser_check, errors)
                    result["browser_check"] = check
                except RuntimeError as exc:  # BenchTimeout too
                    errors.append(f"browser check: {exc}")
                log(f"browser check: {result['browser_check']}")
            log(f"class of {n} ({args.scenario}), {args.class_duration:g} s of clicks")
            figs, class_errors = _in_thread(_one_class, server, n, plan)
            errors += class_errors
            result["class"][str(n)] = figs
            if args.live:
                live = result.setdefault("live", {})
                kind = getattr(args, "live_race", "translation")
                result["meta"]["live_race"] = kind
                live[str(n)] = _live_pairs(server, n, plan, args.live, errors, kind)
            log(f"class {n}: " + json.dumps({k: figs[k] for k in list(figs)[:8]}))
        finally:
            procs.stop_server(server)
    result["meta"]["load_end"] = procs.load_average()
    result["errors"] = errors
    result["schema_problems"] = validate_class(result, args.klass)
    return result


def run_scaleout(args) -> dict:
    """The class through nginx: replica counts compared, or the abuse scenario."""
    from bench import scaleout as S
    from bench.schema import validate_abuse, validate_scaleout

    LOGS.mkdir(parents=True, exist_ok=True)
    plan = C.ClassPlan.from_args(args, keep_logs=LOGS)
    replicas = args.replicas or [1]
    meta = procs.run_meta() | plan.meta() | {"page": f"/{plan.page[0]}?{plan.page[1]}"}
    meta["replicas"] = replicas
    meta["through"] = "nginx from deploy/nginx/ (fresh replicas for every class, warm first)"
    meta["class_address"] = S.CLASS_ADDR
    meta["clients"] = "the simulated students run on this machine too (see clients.cpu_s)"
    result: dict = {"meta": meta}
    lacks = procs.missing_nginx()
    if lacks:
        result["errors"] = lacks
        result["schema_problems"] = [f"not run: {m}" for m in lacks]
        return result
    if args.abuser:
        # it runs until the class ends (it is stopped then), bounded in any case
        until = args.class_arrive + args.class_duration + 3 * args.class_timeout
        cfg = S.Abuse(attempts=args.abuse_attempts, open_seconds=args.abuse_seconds, seconds=until)
        limits = {k: getattr(cfg, k) for k in ("attempts", "open_seconds", "openers")}
        reruns = "on every session it gets, as fast as answered, until the class ends"
        result["meta"]["abuser"] = {"address": cfg.source, **limits, "reruns": reruns}
        part = S.run_abuse(plan, replicas[0], cfg)
        problems = validate_abuse(part, args.klass)
    else:
        part = S.run_replicas(plan, replicas)
        problems = validate_scaleout(part, args.klass, replicas)
    result.update(part)
    result["meta"]["load_end"] = procs.load_average()
    result["schema_problems"] = problems
    return result
