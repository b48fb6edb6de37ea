"""The pages bench: cold start, every page's first render and reruns, memory, models.

Its own servers on 127.0.0.1 (the app, ``streamlit hello``, the bare page) and Chromium.
Every budget is a ratio to a baseline of the same run: each of a page's reruns and its first
render is followed by the bare page's (:class:`Paired`). Method: bench/README.md.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bench import browser as B
from bench import procs
from bench.procs import BARE_APP, LOGS, ROOT, log
from bench.schema import RERUN_KEYS, ratio_budget, validate
from bench.stats import med, summary_ms

RERUN_TIMEOUT_S = 30.0  # a rerun slower than this is reported as lost

# The control changed on each page: (kind, index among that kind in the main area), one
# whose change redraws a chart; a page missing here gets its first slider, else segmented.
CONTROLS: dict[str, tuple[str, int]] = {
    "home": ("segmented", 0),  # Show: which task's scores the chart plots
    "autoregressive": ("segmented", 1),  # greedy / sampling (temperature: off while greedy)
    "bottleneck": ("segmented", 1),  # Plain model (size of C); the part selector is 0
    "path_length": ("slider", 0),  # Sequence length n
    "cnn_receptive_field": ("slider", 0),  # Number of stacked layers (under the chart)
    "rnn_gradients": ("slider", 0),  # spectral radius of a fresh RNN (part "fresh")
    "attention": ("slider", 0),  # Decoding step
    "arena": ("slider", 0),  # Length of the sentence every model translates
}
# A page whose default part has no control of its own: the same session opens this part
# (untimed) after its first render, and the control above is changed there.
RERUN_PART: dict[str, str] = {
    "bottleneck": "read",  # part 1 (latent): a chart and words
    "rnn_gradients": "fresh",  # part 1 (fade): the trained models' curves, no control
}


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


def render_again(browser, url: str, n: int, errors: list[str]) -> float | None:
    """Median first render of ``url`` in ``n`` more new sessions: what a later visitor waits."""
    times = []
    for _ in range(n):
        with B.tab(browser, errors) as tab:
            try:
                times.append(B.render(tab, url))
            except B.BenchTimeout as exc:
                errors.append(f"render again {url}: {exc}")
    return med(times)


@dataclass
class Paired:
    """The bare page in a tab of its own, rerun after each of a page's reruns (same minute).
    ``fresh``: each page gets a new bare tab (a new session) of the same age as its own tab,
    instead of this one tab kept for the whole run (``--pair-tab``; bench/README.md)."""

    tab: object
    control: B.Control
    url: str
    fresh: bool = False


@contextlib.contextmanager
def fresh_pair(browser, paired: Paired, errors: list[str]) -> Iterator[tuple[Paired, float | None]]:
    """The bare page opened in a new tab (a new session) now, beside a page just opened: the
    pair for that page's reruns, and its first render (seconds; None if it did not finish:
    the run's long-lived bare tab stands in)."""
    with B.tab(browser, errors) as tab:
        try:
            first = round(B.render(tab, paired.url), 3)
            pair = Paired(tab, B.pick_control(tab), paired.url)
        except B.BenchTimeout as exc:
            errors.append(f"fresh bare tab for {paired.url}: {exc}")
            first, pair = None, paired
        yield pair, first


def first_pairs(browser, url: str, bare_url: str, n: int, errors: list[str]) -> tuple[list, list]:
    """``n`` more first renders of ``url`` and of the bare page, each in a new session, in
    pairs whose order alternates (bare first, then the page first, ...), so that neither
    always meets a machine the other one has just warmed or loaded."""
    page, bare = [], []
    for i in range(n):
        order = ((bare, bare_url), (page, url)) if i % 2 == 0 else ((page, url), (bare, bare_url))
        for bucket, target in order:
            with B.tab(browser, errors) as tab:
                try:
                    bucket.append(round(B.render(tab, target), 3))
                except B.BenchTimeout as exc:
                    errors.append(f"first render pair {i + 1} of {target}: {exc}")
    return page, bare


def measure_interactive(
    browser, url: str, reps: int, errors: list, prefer=None, again=0, paired=None, rerun_url=None,
    first_pairs_n: int = 1,
) -> dict:  # fmt: skip
    """First render of ``url`` in a new session, ``reps`` reruns of one control (on
    ``rerun_url`` when given), the median of ``again`` more first renders; each paired.
    With ``paired``, the first render is the median of ``first_pairs_n`` (page, bare) pairs
    (the first pair the page's own tab and the bare tab its reruns are paired with)."""
    with B.tab(browser, errors) as tab, contextlib.ExitStack() as stack:
        out: dict = {"first_render_s": round(B.render(tab, url), 3)}
        if paired is not None and paired.fresh:
            paired, out["bare_first_render_s"] = stack.enter_context(
                fresh_pair(browser, paired, errors)
            )
        elif paired is not None:
            out["bare_first_render_s"] = render_again(browser, paired.url, 1, errors)
        if rerun_url and rerun_url != url:
            B.render(tab, rerun_url)  # the part with the control (untimed)
            out["rerun_url"] = rerun_url.split("/", 3)[-1]
        if prefer is None and not [c for c in B.list_controls(tab) if not c.disabled]:
            # a page with no control of its own (the poll room): its first render only
            out.update(control=None, reruns=0, rerun_ms_median=None, rerun_ms_p95=None)
        else:
            out.update(_reruns(tab, B.pick_control(tab, prefer), reps, url, errors, paired))
    if paired is not None and first_pairs_n > 1:
        more, more_bare = first_pairs(browser, url, paired.url, first_pairs_n - 1, errors)
        page = [out["first_render_s"], *more]
        bare = [b for b in (out.get("bare_first_render_s"), *more_bare) if b is not None]
        out |= {"first_renders_s": page, "bare_first_renders_s": bare}
        out |= {"first_render_s": med(page), "bare_first_render_s": med(bare)}
    if again:
        out["first_render_again_s"] = render_again(browser, url, again, errors)
    return out


def _reruns(tab, control, reps: int, url: str, errors: list[str], paired) -> dict:
    """``reps`` reruns of ``control`` (each followed by the paired bare rerun)."""
    out: dict = {"control": control.describe()}
    times, bare, lost = [], [], 0
    for i in range(reps):
        try:
            times.append(B.rerun(tab, control, RERUN_TIMEOUT_S))
            lost = 0
        except B.BenchTimeout as exc:  # one lost interaction must not end the run
            errors.append(f"rerun {i + 1} of {control.describe()} on {url}: {exc}")
            lost += 1
            if lost >= 2:  # twice in a row: this control does not rerun the page
                break
        if paired is not None:
            try:
                bare.append(B.rerun(paired.tab, paired.control, RERUN_TIMEOUT_S))
            except B.BenchTimeout as exc:
                errors.append(f"paired bare rerun {i + 1} for {url}: {exc}")
    if not times:
        raise B.BenchTimeout(f"no rerun of {control.describe()} on {url} finished")
    out.update(summary_ms(times))
    out["reruns"] = len(times)
    if bare:
        out |= {f"bare_{k}": v for k, v in summary_ms(bare).items()}
    return out


def cold_start(browser, target: str, cwd: Path) -> float:
    """Seconds from spawning the server to its home page rendered in a fresh session."""
    with procs.serving(target, cwd, LOGS / f"cold_{Path(target).stem}.log") as server:
        with B.tab(browser) as tab:
            goto = time.monotonic()
            return round(goto - server.launched + B.render(tab, server.url("/")), 3)


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
    return {"app_home": med(app), "hello": med(hello), "runs": {"app_home": app, "hello": hello}}


def run_bare(browser, reps: int, errors: list[str], again: int = 0) -> dict:
    with procs.serving(str(BARE_APP), LOGS, LOGS / "bare.log") as server:
        out = measure_interactive(browser, server.url("/"), reps, errors, again=again)
        out["rss_mb"] = procs.rss_mb(server.pid)
        return out


def run_sessions(browser, server, slugs: list[str], n: int, timeout_s: float, errors) -> dict:
    """``n`` concurrent sessions, each visiting every page; RSS with them open and after."""
    tabs = [B.new_tab(browser) for _ in range(n)]
    peak = 0.0
    try:
        for slug in slugs:
            link = f'[data-testid="stSidebarNav"] a[href$="/{slug}"]'
            for tab in tabs:  # through the sidebar (the same session), else its URL
                if slug != "home" and tab.locator(link).count():
                    tab.locator(link).first.click()
                else:
                    tab.goto(page_url(server, slug), wait_until="commit")
            deadline, settled = time.monotonic() + timeout_s, 0
            for tab in tabs:
                with contextlib.suppress(B.BenchTimeout):
                    B.wait_settled(tab, max(deadline - time.monotonic(), 1.0))
                    settled += 1
            peak = max(peak, procs.rss_mb(server.pid))
            log(f"{n} sessions on {slug}: {settled} settled, RSS {procs.rss_mb(server.pid)} MB")
            if settled < n:
                errors.append(f"sessions: only {settled}/{n} settled on {slug} in {timeout_s} s")
        with_sessions = procs.rss_mb(server.pid)
    finally:
        for tab in tabs:
            tab.context.close()
    time.sleep(5)  # let the server notice the closed websockets and drop the sessions
    return {"sessions_20": with_sessions, "sessions_peak": peak}


def start_paired(
    browser, errors: list[str], fresh: bool = True
) -> tuple[procs.Server | None, Paired | None]:
    """The bare page in its own server and tab, for the reruns paired with each page's (with
    ``fresh``, a new tab of it beside each page's new tab: :func:`fresh_pair`)."""
    server = None
    try:
        server = procs.start_server(str(BARE_APP), LOGS, LOGS / "bare_paired.log")
        tab = B.new_tab(browser, errors)
        B.render(tab, server.url("/"))
        return server, Paired(tab, B.pick_control(tab), server.url("/"), fresh)
    except RuntimeError as exc:  # BenchTimeout too
        errors.append(f"paired bare page: {exc}")
        if server is not None:
            procs.stop_server(server)
        return None, None


def run_app(browser, args, errors) -> tuple:
    with procs.serving("app.py", ROOT, LOGS / "app.log") as server:
        rss: dict = {"after_start": procs.rss_mb(server.pid)}
        warm_s = B.warm_app(browser, server, page_url(server, "home"))
        log(f"warm-up done {warm_s} s after launch" if warm_s is not None else "no warm-up line")
        rss["after_home"] = procs.rss_mb(server.pid)
        slugs = page_slugs(args.pages)
        pages, aa = measure_pages(browser, server, slugs, args, errors)
        rss["after_all_pages"] = procs.rss_mb(server.pid)
        log(f"RSS after all pages: {rss['after_all_pages']} MB")
        rss |= run_sessions(browser, server, slugs, args.sessions, args.session_timeout, errors)
        rss["after_close"] = procs.rss_mb(server.pid)
        rss["sessions"] = args.sessions
        log(f"RSS: {rss}")
    return pages, rss, aa


def aa_positions(n_pages: int, n_aa: int) -> list[int]:
    """Where the A/A rows go among ``n_pages`` pages (index ``i``: before page ``i``; ``n_pages``:
    after the last), spread evenly, so the run's noise is sampled across its length."""
    return [min(n_pages, round((j + 0.5) * n_pages / n_aa)) for j in range(n_aa)]


def measure_pages(browser, server, slugs: list[str], args, errors) -> tuple[dict, list]:
    """Every page's renders and reruns (paired with the bare page's unless --no-paired), and
    ``--aa`` times the bare page measured exactly as a page is (a server of its own, the same
    pairing): an A/A comparison whose ratios would all be 1 on a machine without noise."""
    fresh = getattr(args, "pair_tab", "fresh") == "fresh"
    bare_server, paired = start_paired(browser, errors, fresh) if args.paired else (None, None)
    aa_server = None
    pages: dict[str, dict] = {}
    aa: list[dict] = []
    at = aa_positions(len(slugs), getattr(args, "aa", 0))
    try:
        if at:
            aa_server = procs.start_server(str(BARE_APP), LOGS, LOGS / "bare_aa.log")
        for i in range(len(slugs) + 1):
            for _ in range(at.count(i)):
                try:
                    aa.append(measure_interactive(
                        browser, aa_server.url("/"), args.reps, errors, again=args.again,
                        paired=paired, first_pairs_n=getattr(args, "first_pairs", 1),
                    ))  # fmt: skip
                    log(f"A/A {len(aa)}: {aa[-1]}")
                except (B.BenchTimeout, RuntimeError) as exc:
                    errors.append(f"A/A {len(aa) + 1}: {exc}")
            if i == len(slugs):
                break
            slug = slugs[i]
            rerun_url = page_url(server, slug, RERUN_PART[slug]) if slug in RERUN_PART else None
            try:
                pages[slug] = measure_interactive(
                    browser, page_url(server, slug), args.reps, errors, CONTROLS.get(slug),
                    again=args.again, paired=paired, rerun_url=rerun_url,
                    first_pairs_n=getattr(args, "first_pairs", 1),
                )  # fmt: skip
                log(f"page {slug}: {pages[slug]}")
            except (B.BenchTimeout, RuntimeError) as exc:
                errors.append(f"page {slug}: {exc}")
                pages[slug] = dict.fromkeys(RERUN_KEYS)
    finally:
        if paired is not None:
            paired.tab.context.close()
            procs.stop_server(bare_server)
        if aa_server is not None:
            procs.stop_server(aa_server)
    return pages, aa


def run(args) -> dict:
    LOGS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    keys = ("reps", "again", "cold_reps", "first_pairs")
    meta = procs.run_meta() | {k: getattr(args, k, None) for k in keys}
    meta |= {"sessions": args.sessions, "pages": args.pages or "all"}
    meta |= {"paired": bool(args.paired), "pair_tab": args.pair_tab if args.paired else None}
    result: dict = {"meta": meta | {"dry_run": bool(args.dry_run)}}
    if not args.dry_run and not args.skip_models:
        from bench import models

        log("zoo load and model latency")
        result["zoo_load_s"], load_errors = models.zoo_load_s()
        result["model_ms"], result["meta"]["model_inputs"] = models.model_ms(args.model_reps)
        errors += [f"zoo: {e}" for e in load_errors.values()]
    elif not args.dry_run:
        result["zoo_load_s"], result["model_ms"] = None, {}
        errors.append("model_ms, zoo_load_s: not measured (--skip-models)")
    with B.chromium() as browser:
        log("bare page")
        try:
            result["bare"] = run_bare(browser, args.reps, errors, args.again)
        except (B.BenchTimeout, RuntimeError) as exc:
            errors.append(f"bare page: {exc}")
            result["bare"] = dict.fromkeys(RERUN_KEYS)
        log(f"bare: {result['bare']}")
        if not args.dry_run:
            result["cold_start_s"] = run_cold(browser, args.cold_reps, errors)
            result["pages"], result["rss_mb"], result["aa"] = run_app(browser, args, errors)
    result["meta"]["load_end"] = procs.load_average()
    result["errors"] = errors
    if not args.dry_run:
        result["ratio_budget"] = ratio_budget(result)
    pages = [] if args.dry_run else page_slugs(args.pages)
    result["schema_problems"] = validate(result, pages, full=not args.dry_run)
    return result
