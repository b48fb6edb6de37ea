"""``python -m bench --json``: cold start, every page's render and rerun, memory, models.

Starts its own Streamlit servers on 127.0.0.1 (the app, ``streamlit hello`` and the bare
page ``bench/bare_app.py``), drives Debian's Chromium through Playwright and prints one JSON
object (issue 10). Every budget is a ratio against a baseline measured in the same run: each
rerun of a page is followed by one rerun of the bare page in another tab, and the page's
ratio uses those paired bare reruns (``--no-paired``: the bare run at the start only).

    python -m bench --json                       # the full run (~10+ minutes on 2 cores)
    python -m bench --json --reps 3 --cold-reps 1 --sessions 3   # a quick look
    python -m bench --dry-run --json             # the bare page only (used by the tests)
    python -m bench --table bench/results/2026-11-29.json   # the README table
    python -m bench --class 10,30,60,100 --json  # a class of simulated students (issue 20)
    python -m bench --class 30 --replicas 1,2 --json   # through nginx: 1 replica vs 2
    python -m bench --class 30 --abuser --json   # 30 students with and without an abuser

``--class`` runs the class simulator only (``bench/classroom.py``): for each N a fresh app
server, the teacher's page opened first (``teacher_s``), a short comparison of simulated
and Chromium sessions on it (``browser_check``, first N only; ``--browser-check 0``: none),
then N students. It prints ``{"meta", "class": {"N": {...}}, "browser_check", "errors",
"schema_problems"}``; ``--merge FILE`` adds those keys to an earlier full-bench JSON
instead, so one object holds both.

``--replicas`` / ``--abuser`` run the class through the repo's nginx (``deploy/nginx/``,
``bench/scaleout.py``) in front of fresh app replicas, every replica warm first; the class
connects from 127.0.0.2 (one school NAT address), the abuser from 127.0.0.3. ``--replicas
1,2`` prints ``{"meta", "replicas": {"1": {"class": {"N": {...}}}, "2": ...},
"replica_ratio": {"N": {"arrive_p95": r1/r2, ...}}, "errors", "schema_problems"}``;
``--abuser`` prints ``{"meta", "abuse": {"N": {"without", "with", "abuser",
"with_over_without"}}, ...}`` (on one replica count, default 1).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench import browser as B
from bench import procs
from bench.schema import budget, markdown_table, ratio_budget, validate, validate_class
from bench.stats import median, summary_ms

ROOT = Path(__file__).resolve().parent.parent
BARE_APP = Path(__file__).resolve().parent / "bare_app.py"
RESULTS = Path(__file__).resolve().parent / "results"
LOGS = Path(tempfile.gettempdir()) / "road_to_attention_bench"
RERUN_TIMEOUT_S = 30.0  # a rerun slower than this is reported as lost

# The control changed on each page: (kind, index among that kind in the main area).
# Chosen by hand from the page in its default state (a control whose change redraws a
# chart); a page missing from here gets its first slider, else its first segmented control.
CONTROLS: dict[str, tuple[str, int]] = {
    "home": ("segmented", 0),  # Show: which task's scores the chart plots
    # How the next word is chosen (greedy / sampling); the temperature slider is disabled
    # while decoding is greedy, the page's default
    "autoregressive": ("segmented", 1),
    # Plain model (size of C), under part 1's header (the part selector is segmented 0)
    "bottleneck": ("segmented", 1),
    "path_length": ("slider", 0),  # Sequence length n
    "cnn_receptive_field": ("slider", 0),  # Number of stacked layers (under the chart)
    "rnn_gradients": ("slider", 0),  # spectral radius of the recurrent weights
    "attention": ("slider", 0),  # Decoding step
    "arena": ("slider", 0),  # Length of the sentence every model translates
}
# A page whose default part has no control of its own (only the part selector) is clicked
# on this part: after the first render of the default part, the same session opens it
# (untimed), then the control above is changed there.
RERUN_PART: dict[str, str] = {
    "bottleneck": "read",  # part 1 (latent) is one chart and words; part 2 has the switch
}


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def page_slugs(only: str | None = None) -> list[str]:
    """The registered, built pages in navigation order (optionally only some of them)."""
    from ui.nav import PAGES, is_built

    slugs = [p.slug for p in PAGES if is_built(p.slug)]
    if only:
        wanted = [s.strip() for s in only.split(",") if s.strip()]
        unknown = sorted(set(wanted) - set(slugs))
        if unknown:
            raise SystemExit(f"unknown pages {unknown}; the registered pages are {slugs}")
        slugs = [s for s in slugs if s in wanted]
    return slugs


def page_url(server: procs.Server, slug: str, part: str | None = None) -> str:
    path = ("/" if slug == "home" else f"/{slug}") + "?lang=en"
    return server.url(path + (f"&part={part}" if part else ""))


def render_again(browser, url: str, n: int, errors: list[str] | None = None) -> float | None:
    """Median first render of ``url`` in ``n`` more new sessions, once the page's one-time
    work is cached on the server: what a later visitor waits (information, not a budget)."""
    times = []
    for _ in range(n):
        tab = B.new_tab(browser, errors)
        try:
            times.append(B.render(tab, url))
        except B.BenchTimeout as exc:
            if errors is not None:
                errors.append(f"render again {url}: {exc}")
        finally:
            tab.context.close()
    return round(median(times), 3) if times else None


@dataclass
class Paired:
    """A tab on the bare page, rerun once after every rerun of the page being measured: the
    baseline of each page's ratio is timed in the same minute as the page (the machine's
    speed drifts over a run, by ~20% between runs here)."""

    tab: object
    control: B.Control
    url: str = ""  # the bare page, for a first render in a new session after each page's


def measure_interactive(
    browser,
    url: str,
    reps: int,
    prefer=None,
    errors: list[str] | None = None,
    again: int = 0,
    paired: Paired | None = None,
    rerun_url: str | None = None,
) -> dict:
    """First render of ``url`` in a new session, then ``reps`` reruns of one control (each
    followed by one rerun of the bare page with ``paired``; on ``rerun_url``, opened in the
    same session, when given), then (with ``again``) the median first render of ``again``
    more new sessions."""
    out = _first_and_reruns(browser, url, reps, prefer, errors, paired, rerun_url)
    if again:
        out["first_render_again_s"] = render_again(browser, url, again, errors)
    return out


def _first_and_reruns(
    browser,
    url: str,
    reps: int,
    prefer,
    errors: list[str] | None,
    paired: Paired | None,
    rerun_url: str | None = None,
) -> dict:
    tab = B.new_tab(browser, errors)
    try:
        out: dict = {"first_render_s": round(B.render(tab, url), 3)}
        if paired is not None and paired.url:
            # the bare page's first render right after (a new session): a page's first
            # render is compared with the bare one of the same minute, like its reruns
            out["bare_first_render_s"] = render_again(browser, paired.url, 1, errors)
        if rerun_url and rerun_url != url:
            B.render(tab, rerun_url)  # the part with the control (untimed)
            out["rerun_url"] = rerun_url.split("/", 3)[-1]
        if prefer is None and not [c for c in B.list_controls(tab) if not c.disabled]:
            # a page with no control of its own (the poll room): its first render only
            out.update(control=None, reruns=0, rerun_ms_median=None, rerun_ms_p95=None)
            return out
        control = B.pick_control(tab, prefer)
        out["control"] = control.describe()
        times, bare, lost = [], [], 0
        for i in range(reps):
            try:
                times.append(B.rerun(tab, control, RERUN_TIMEOUT_S))
                lost = 0
            except B.BenchTimeout as exc:  # one lost interaction must not end the run
                if errors is not None:
                    errors.append(f"rerun {i + 1} of {control.describe()} on {url}: {exc}")
                lost += 1
                if lost >= 2:  # twice in a row: this control does not rerun the page
                    break
            if paired is not None:
                try:
                    bare.append(B.rerun(paired.tab, paired.control, RERUN_TIMEOUT_S))
                except B.BenchTimeout as exc:
                    if errors is not None:
                        errors.append(f"paired bare rerun {i + 1} for {url}: {exc}")
        if not times:
            raise B.BenchTimeout(f"no rerun of {control.describe()} on {url} finished")
        out.update(summary_ms(times))
        out["reruns"] = len(times)
        if bare:
            paired_figs = summary_ms(bare)
            out["bare_rerun_ms_median"] = paired_figs["rerun_ms_median"]
            out["bare_rerun_ms_p95"] = paired_figs["rerun_ms_p95"]
        return out
    finally:
        tab.context.close()


def cold_start(browser, target: str, cwd: Path, need_title: bool = True) -> float:
    """Seconds from spawning the server to its home page rendered in a fresh session."""
    server = procs.start_server(target, cwd, LOGS / f"cold_{Path(target).stem}.log")
    try:
        tab = B.new_tab(browser)
        try:
            goto = time.monotonic()
            rendered = B.render(tab, server.url("/"), need_title=need_title)
            return round(goto - server.launched + rendered, 3)
        finally:
            tab.context.close()
    finally:
        procs.stop_server(server)


def run_cold(browser, reps: int, errors: list[str]) -> dict:
    app, hello = [], []
    for i in range(reps):  # alternating, so a change of load hits both alike
        for name, bucket, target, cwd in (
            ("app", app, "app.py", ROOT),
            ("hello", hello, "hello", LOGS),
        ):
            try:
                bucket.append(cold_start(browser, target, cwd))
                log(f"cold start {name} #{i + 1}: {bucket[-1]:.2f} s")
            except (B.BenchTimeout, RuntimeError) as exc:
                errors.append(f"cold start {name}: {exc}")
    return {
        "app_home": round(median(app), 3) if app else None,
        "hello": round(median(hello), 3) if hello else None,
        "runs": {"app_home": app, "hello": hello},
    }


def run_bare(browser, reps: int, errors: list[str], again: int = 0) -> dict:
    server = procs.start_server(str(BARE_APP), LOGS, LOGS / "bare.log")
    try:
        out = measure_interactive(browser, server.url("/"), reps, errors=errors, again=again)
        out["rss_mb"] = procs.rss_mb(server.pid)
        return out
    finally:
        procs.stop_server(server)


def _visit(tab, server, slug: str) -> None:
    """Switch an open session to ``slug`` through the sidebar (keeps the session), or
    load the URL when the link is not there."""
    link = tab.locator(f'[data-testid="stSidebarNav"] a[href$="/{slug}"]')
    if slug != "home" and link.count():
        link.first.click()
    else:
        tab.goto(page_url(server, slug), wait_until="commit")


def run_sessions(browser, server, slugs: list[str], n: int, timeout_s: float, errors) -> dict:
    """``n`` concurrent sessions, each visiting every page; RSS with them open and after."""
    tabs = [B.new_tab(browser) for _ in range(n)]
    peak = 0.0
    try:
        for slug in slugs:
            for tab in tabs:
                _visit(tab, server, slug)
            deadline = time.monotonic() + timeout_s
            settled = 0
            for tab in tabs:
                left = deadline - time.monotonic()
                try:
                    B.wait_settled(tab, max(left, 1.0))
                    settled += 1
                except B.BenchTimeout:
                    pass
            peak = max(peak, procs.rss_mb(server.pid))
            log(f"{n} sessions on {slug}: {settled} settled, RSS {procs.rss_mb(server.pid)} MB")
            if settled < n:
                errors.append(f"sessions: only {settled}/{n} settled on {slug} in {timeout_s} s")
        with_sessions = procs.rss_mb(server.pid)
    finally:
        for tab in tabs:
            tab.context.close()
    time.sleep(5)  # let the server notice the closed websockets and drop the sessions
    return {"sessions_20": with_sessions, "sessions_peak": peak, "after_close": None}


def start_paired(browser, errors: list[str]) -> tuple[procs.Server | None, Paired | None]:
    """The bare page in its own server and tab, for the reruns paired with each page's."""
    try:
        server = procs.start_server(str(BARE_APP), LOGS, LOGS / "bare_paired.log")
    except RuntimeError as exc:
        errors.append(f"paired bare page: {exc}")
        return None, None
    try:
        tab = B.new_tab(browser, errors)
        B.render(tab, server.url("/"))
        return server, Paired(tab, B.pick_control(tab), server.url("/"))
    except B.BenchTimeout as exc:
        errors.append(f"paired bare page: {exc}")
        procs.stop_server(server)
        return None, None


def run_app(browser, args, errors) -> tuple:
    server = procs.start_server("app.py", ROOT, LOGS / "app.log")
    pages: dict[str, dict] = {}
    rss: dict = {}
    bare_server, paired = start_paired(browser, errors) if args.paired else (None, None)
    try:
        rss["after_start"] = procs.rss_mb(server.pid)
        warm = B.new_tab(browser)  # the server is warm: home has run once (st.navigation)
        B.render(warm, page_url(server, "home"))
        warm.context.close()
        # ... and its background warm-up has finished (serve/warmup.py: imports, corpus, the
        # compression page's counts), as when a teacher opened the lesson before the class
        warm_s = wait_warm(server, 300.0)
        log(f"warm-up done {warm_s} s after launch" if warm_s is not None else "no warm-up line")
        rss["after_home"] = procs.rss_mb(server.pid)
        slugs = page_slugs(args.pages)
        for slug in slugs:
            try:
                pages[slug] = measure_interactive(
                    browser,
                    page_url(server, slug),
                    args.reps,
                    CONTROLS.get(slug),
                    errors,
                    again=args.again,
                    paired=paired,
                    rerun_url=page_url(server, slug, RERUN_PART[slug])
                    if slug in RERUN_PART
                    else None,
                )
                log(f"page {slug}: {pages[slug]}")
            except (B.BenchTimeout, RuntimeError) as exc:
                errors.append(f"page {slug}: {exc}")
                pages[slug] = {k: None for k in ("first_render_s", "rerun_ms_median")}
                pages[slug]["rerun_ms_p95"] = None
        if paired is not None:
            paired.tab.context.close()
            procs.stop_server(bare_server)
            paired = None
        rss["after_all_pages"] = procs.rss_mb(server.pid)
        log(f"RSS after all pages: {rss['after_all_pages']} MB")
        rss.update(
            run_sessions(browser, server, slugs, args.sessions, args.session_timeout, errors)
        )
        rss["after_close"] = procs.rss_mb(server.pid)
        rss["sessions"] = args.sessions
        log(f"RSS: {rss}")
    finally:
        if paired is not None:
            procs.stop_server(bare_server)
        procs.stop_server(server)
    return pages, rss


def run(args) -> dict:
    from playwright.sync_api import sync_playwright

    LOGS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    result: dict = {
        "meta": {
            **procs.run_meta(),
            "reps": args.reps,
            "again": args.again,
            "cold_reps": args.cold_reps,
            "sessions": args.sessions,
            "pages": args.pages or "all",
            "paired": bool(args.paired),
            "dry_run": bool(args.dry_run),
        }
    }
    if not args.dry_run and not args.skip_models:
        from bench import models

        log("zoo load and model latency")
        result["zoo_load_s"], load_errors = models.zoo_load_s()
        result["model_ms"], result["meta"]["model_inputs"] = models.model_ms(args.model_reps)
        errors += [f"zoo: {e}" for e in load_errors.values()]
    elif not args.dry_run:
        result["zoo_load_s"], result["model_ms"] = None, {}
        errors.append("model_ms, zoo_load_s: not measured (--skip-models)")
    with sync_playwright() as pw:
        browser = B.launch(pw)
        try:
            log("bare page")
            try:
                result["bare"] = run_bare(browser, args.reps, errors, args.again)
            except (B.BenchTimeout, RuntimeError) as exc:
                errors.append(f"bare page: {exc}")
                result["bare"] = {"first_render_s": None, "rerun_ms_median": None}
                result["bare"]["rerun_ms_p95"] = None
            log(f"bare: {result['bare']}")
            if not args.dry_run:
                result["cold_start_s"] = run_cold(browser, args.cold_reps, errors)
                result["pages"], result["rss_mb"] = run_app(browser, args, errors)
        finally:
            browser.close()
    result["meta"]["load_end"] = procs.load_average()
    result["errors"] = errors
    if not args.dry_run:
        result["budget"] = budget(result)
        result["ratio_budget"] = ratio_budget(result)
        pages = page_slugs(args.pages)
    else:
        pages = []
    result["schema_problems"] = validate(result, pages, full=not args.dry_run)
    return result


# ---- a class of simulated students (issue 20) ------------------------------------------


def class_sizes(text: str) -> list[int]:
    """``"10,30,60"`` -> ``[10, 30, 60]`` (each at least 1, at most 500)."""
    try:
        sizes = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--class wants sizes like 10,30,60, got {text!r}")
    if not sizes or any(not 1 <= n <= 500 for n in sizes):
        raise argparse.ArgumentTypeError(f"--class sizes must be within 1..500, got {text!r}")
    return sizes


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
        for i in range(reruns):
            _, proto, _ = s.widget(key)
            if kind == "slider" and len(proto.options):
                labels = s.options(key)
                now = C._current_index(kind, proto)
                nxt = now + 1 if (i % 2 == 0 and now + 1 < len(labels)) or now == 0 else now - 1
                r = await s.set(key, labels[nxt])
            elif kind == "slider":
                now = (list(proto.value) if proto.set_value else list(proto.default))[0]
                step = proto.step or 1
                r = await s.set(key, now + step if now + step <= proto.max else now - step)
            else:
                labels = s.options(key)
                now = C._current_index(kind, proto)
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
    from playwright.sync_api import sync_playwright

    url = server.url(f"/{page}?{query}")
    browser_arrive, browser_rerun, student_arrive, student_rerun = [], [], [], []
    label = ""
    with sync_playwright() as pw:
        browser = B.launch(pw)
        try:
            for _ in range(pairs):
                tab = B.new_tab(browser, errors)
                try:
                    browser_arrive.append(B.render(tab, url))
                    control = B.pick_control(tab, ("slider", 0))
                    label = control.label
                    for _ in range(2):
                        browser_rerun.append(B.rerun(tab, control, RERUN_TIMEOUT_S))
                except B.BenchTimeout as exc:
                    errors.append(f"browser check (Chromium): {exc}")
                finally:
                    tab.context.close()
                if not label:
                    continue
                visit = _in_thread(_student_visit, server.base, page, query, label, 2)
                errors.extend(f"browser check (simulated): {e}" for e in visit["errors"])
                if visit["arrive_s"] is not None:
                    student_arrive.append(visit["arrive_s"])
                student_rerun += [x for x in visit["rerun_s"] if x is not None]
        finally:
            browser.close()

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


def wait_warm(server: procs.Server, timeout: float) -> float | None:
    """Seconds since the server was launched until its log says the warm-up is done
    (``serve.warmup.DONE``), waiting at most ``timeout`` s; None if it never did."""
    from serve.warmup import DONE

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:  # bounded
        if DONE in server.log.read_text(errors="replace"):
            return round(time.monotonic() - server.launched, 2)
        time.sleep(0.25)
    return None


async def _one_class(server: procs.Server, n: int, args) -> tuple[dict, list[str]]:
    from bench import classroom as C

    page, query = C.TEACHER_PAGE if args.scenario == "page" else ("", "lang=zh")
    class_errors: list[str] = []
    # the teacher's browser is on the page before the class arrives (on the projector),
    # and the server has finished its one-time warm-up by then (a lesson starts minutes
    # after the teacher opens it): the class measures what every student repeats
    async with C.Student(server.base, timeout=300, name="teacher") as teacher:
        t = await teacher.arrive(page, query + "&present=1")
        if not t.ok:
            class_errors.append(f"class {n}: the teacher's page: {t.error}")
        warm_s = await asyncio.to_thread(wait_warm, server, 300.0)
        if warm_s is None:
            class_errors.append(f"class {n}: no warm-up line in the server log after 300 s")
        figs = await C.run_class(
            server.base,
            n,
            scenario=args.scenario,
            arrive_within=args.class_arrive,
            duration=args.class_duration,
            seed=args.seed,
            server_pid=server.pid,
            timeout=args.class_timeout,
            page=(page, query),
        )
    figs["teacher_s"] = t.seconds
    figs["warm_up_s"] = warm_s
    if figs["errors"]:
        class_errors.append(f"class {n}: {figs['errors']} errors: {figs['error_samples']}")
    return figs, class_errors


def run_classes(args) -> dict:
    from bench import classroom as C

    LOGS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    result: dict = {
        "meta": {
            **procs.run_meta(),
            "scenario": args.scenario,
            "class_sizes": args.klass,
            "arrive_within_s": args.class_arrive,
            "duration_s": args.class_duration,
            "click_every_s": [5, 10],
            "seed": args.seed,
        },
        "class": {},
        "browser_check": None,
    }
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
            figs, class_errors = _in_thread(_one_class, server, n, args)
            errors += class_errors
            result["class"][str(n)] = figs
            log(f"class {n}: " + json.dumps({k: figs[k] for k in list(figs)[:8]}))
        finally:
            procs.stop_server(server)
    result["meta"]["load_end"] = procs.load_average()
    result["errors"] = errors
    result["schema_problems"] = validate_class(result, args.klass)
    return result


def replica_counts(text: str) -> list[int]:
    """``"1,2"`` -> ``[1, 2]`` (each within 1..8, no repeats)."""
    from bench.scaleout import MAX_REPLICAS

    try:
        counts = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--replicas wants counts like 1,2, got {text!r}")
    if not counts or any(not 1 <= r <= MAX_REPLICAS for r in counts):
        raise argparse.ArgumentTypeError(
            f"--replicas counts must be within 1..{MAX_REPLICAS}, got {text!r}"
        )
    if len(set(counts)) != len(counts):
        raise argparse.ArgumentTypeError(f"--replicas has a count twice: {text!r}")
    return counts


def run_scaleout(args) -> dict:
    """The class through nginx: replica counts compared, or the abuse scenario."""
    from bench import classroom as C
    from bench import scaleout as S
    from bench.schema import validate_abuse, validate_scaleout

    LOGS.mkdir(parents=True, exist_ok=True)
    page = C.TEACHER_PAGE if args.scenario == "page" else ("", "lang=zh")
    replicas = args.replicas or [1]
    result: dict = {
        "meta": {
            **procs.run_meta(),
            "scenario": args.scenario,
            "page": f"/{page[0]}?{page[1]}",
            "class_sizes": args.klass,
            "replicas": replicas,
            "arrive_within_s": args.class_arrive,
            "duration_s": args.class_duration,
            "click_every_s": [5, 10],
            "seed": args.seed,
            "through": "nginx from deploy/nginx/ (fresh replicas for every class, warm first)",
            "class_address": S.CLASS_ADDR,
            "clients": "the simulated students run on this machine too (see clients.cpu_s)",
        }
    }
    lacks = S.missing()
    if lacks:
        result["errors"] = lacks
        result["schema_problems"] = [f"not run: {m}" for m in lacks]
        return result
    plan = S.ClassPlan(
        sizes=args.klass,
        page=page,
        scenario=args.scenario,
        arrive_within=args.class_arrive,
        duration=args.class_duration,
        seed=args.seed,
        timeout=args.class_timeout,
        port=args.port,
        keep_logs=LOGS,
    )
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


def parse(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.add_argument("--reps", type=int, default=10, help="reruns per page (default 10)")
    p.add_argument(
        "--again", type=int, default=3, help="later first renders per page, median (default 3)"
    )
    p.add_argument("--cold-reps", type=int, default=3, help="cold starts of each (default 3)")
    p.add_argument("--sessions", type=int, default=20, help="concurrent sessions (default 20)")
    p.add_argument("--session-timeout", type=float, default=300.0, help="s per page round")
    p.add_argument("--model-reps", type=int, default=10, help="timed translations per cell")
    p.add_argument("--skip-models", action="store_true", help="no model_ms / zoo_load_s")
    p.add_argument("--dry-run", action="store_true", help="the bare page only")
    p.add_argument(
        "--no-paired",
        dest="paired",
        action="store_false",
        help="no bare rerun after each page rerun (ratios against the bare run at the start)",
    )
    p.add_argument("--pages", help="comma-separated slugs to measure (default: every page)")
    p.add_argument("--out", type=Path, help="also write the JSON here ('auto': results/<date>)")
    p.add_argument("--table", type=Path, help="print the README table of a saved result")
    c = p.add_argument_group("a class of simulated students (issue 20)")
    c.add_argument(
        "--class",
        dest="klass",
        type=class_sizes,
        metavar="N[,N...]",
        help="class sizes to simulate, e.g. 10,30,60,100 (runs only the class part)",
    )
    c.add_argument("--scenario", choices=("page", "walk"), default="page")
    c.add_argument("--class-duration", type=float, default=120.0, help="s of clicks (120)")
    c.add_argument("--class-arrive", type=float, default=10.0, help="arrival window, s (10)")
    c.add_argument("--class-timeout", type=float, default=60.0, help="s before an action is lost")
    c.add_argument("--browser-check", type=int, default=2, help="Chromium sessions to compare")
    c.add_argument("--seed", type=int, default=0, help="arrival times and clicks")
    c.add_argument("--merge", type=Path, help="add the class figures to this bench JSON")
    c.add_argument(
        "--replicas",
        type=replica_counts,
        metavar="R[,R...]",
        help="run the class through the repo's nginx with R app replicas, e.g. 1,2",
    )
    c.add_argument(
        "--abuser",
        action="store_true",
        help="the class with and without one abusive client (through nginx, issue 23)",
    )
    c.add_argument("--abuse-attempts", type=int, default=400, help="its new sessions, at most")
    c.add_argument(
        "--abuse-seconds", type=float, default=60.0, help="it opens sessions for this long, at most"
    )
    c.add_argument("--port", type=int, default=8670, help="nginx's port; replicas take the next")
    args = p.parse_args(argv)
    for name in ("reps", "cold_reps", "sessions", "model_reps"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.again < 0:
        p.error("--again must be 0 or more")
    if args.class_duration < 0 or args.class_arrive < 0 or args.class_timeout <= 0:
        p.error("--class-duration and --class-arrive must be >= 0, --class-timeout > 0")
    if args.browser_check < 0:
        p.error("--browser-check must be 0 or more")
    if args.merge and not args.klass:
        p.error("--merge needs --class")
    if (args.replicas or args.abuser) and not args.klass:
        p.error("--replicas and --abuser need --class")
    if (args.replicas or args.abuser) and args.merge:
        p.error("--merge does not take --replicas or --abuser results")
    if args.abuser and args.replicas and len(args.replicas) > 1:
        p.error("--abuser runs on one replica count: give --replicas R with one R")
    if args.abuse_attempts < 1 or args.abuse_seconds <= 0:
        p.error("--abuse-attempts must be >= 1 and --abuse-seconds > 0")
    if not 1024 <= args.port <= 65535 - 9:
        p.error("--port must be within 1024..65526")
    return args


def main(argv=None) -> int:
    args = parse(argv)
    if args.table:
        print(markdown_table(json.loads(args.table.read_text(encoding="utf-8"))))
        return 0
    if args.klass and (args.replicas or args.abuser):
        result = run_scaleout(args)
    elif args.klass:
        result = run_classes(args)
        if args.merge:
            merged = json.loads(args.merge.read_text(encoding="utf-8"))
            merged["meta"] = dict(merged.get("meta", {}), class_run=result["meta"])
            merged["class"], merged["browser_check"] = result["class"], result["browser_check"]
            merged["errors"] = list(merged.get("errors", [])) + result["errors"]
            merged["schema_problems"] = list(merged.get("schema_problems", []))
            merged["schema_problems"] += result["schema_problems"]
            result = merged
    else:
        result = run(args)
    text = json.dumps(result, indent=2, ensure_ascii=False)
    if args.out:
        out = args.out
        if str(out) == "auto":
            out = RESULTS / f"{result['meta']['date'][:10]}.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text + "\n", encoding="utf-8")
        log(f"wrote {out}")
    if args.json:
        print(text)
    else:
        print(markdown_table(result))
    return 1 if result["schema_problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
