"""The JSON the benchmarks print: its checks, the pages bench's two budgets, the tables."""

from __future__ import annotations

from collections.abc import Iterable

from bench.stats import ratio

RERUN_KEYS = ("first_render_s", "rerun_ms_median", "rerun_ms_p95")
# A page's own baseline: the bare page rerun right after each of its reruns, and the bare
# page's first render in a new session right after the page's own first render (optional: a
# run with --no-paired, or an older result, has only the bare run at the start).
PAIRED_KEYS = ("bare_rerun_ms_median", "bare_rerun_ms_p95", "bare_first_render_s")
TOP_KEYS = ("cold_start_s", "bare", "pages", "rss_mb", "model_ms", "zoo_load_s")
RSS_KEYS = ("after_all_pages", "sessions_20", "after_close")
MODEL_LENGTHS = ("10", "30", "50")


def _num(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and x >= 0


def validate(result: dict, pages: Iterable[str] = (), full: bool = True) -> list[str]:
    """Problems with a result (an empty list when every figure is there).

    ``full=False`` checks a dry run: only ``bare`` must be there. A figure may be ``None``
    when it could not be measured; the reason is then listed under ``errors``.
    """
    problems: list[str] = []
    if not isinstance(result, dict):
        return ["the result is not a JSON object"]

    def fig(where: str, value) -> None:
        if value is None:
            if not result.get("errors"):
                problems.append(f"{where} is missing and no error says why")
        elif not _num(value):
            problems.append(f"{where} should be a non-negative number, got {value!r}")

    def section(name: str, keys: Iterable[str]) -> None:
        part = result.get(name)
        if not isinstance(part, dict):
            problems.append(f"{name} should be an object")
            return
        for k in keys:
            fig(f"{name}.{k}", part.get(k))

    section("bare", RERUN_KEYS)
    if not full:
        return problems
    for k in TOP_KEYS:
        if k not in result:
            problems.append(f"missing top-level key {k}")
    section("cold_start_s", ("app_home", "hello"))
    section("rss_mb", RSS_KEYS)
    pages_part = result.get("pages")
    if not isinstance(pages_part, dict):
        problems.append("pages should be an object")
        pages_part = {}
    for slug in pages:
        if slug not in pages_part:
            problems.append(f"pages.{slug} is missing")
    for slug, figs in pages_part.items():
        if not isinstance(figs, dict):
            problems.append(f"pages.{slug} should be an object")
            continue
        # a page with no control of its own is measured by its first render only
        for k in RERUN_KEYS if figs.get("reruns") != 0 else RERUN_KEYS[:1]:
            fig(f"pages.{slug}.{k}", figs.get(k))
        for k in PAIRED_KEYS:
            if k in figs:
                fig(f"pages.{slug}.{k}", figs[k])
    models = result.get("model_ms")
    if not isinstance(models, dict) or (not models and not result.get("errors")):
        problems.append("model_ms should be a non-empty object")
    else:
        for name, by_len in models.items():
            if not isinstance(by_len, dict) or set(by_len) != set(MODEL_LENGTHS):
                problems.append(f"model_ms.{name} should have the keys 10, 30, 50")
                continue
            for n in MODEL_LENGTHS:
                fig(f"model_ms.{name}.{n}", by_len[n])
    fig("zoo_load_s", result.get("zoo_load_s"))
    return problems


CLASS_STATS = ("arrive_s", "click_s")
CLASS_QUANTILES = ("p50", "p95", "max")
CLASS_COUNTS = ("errors", "sessions")
CLASS_FIGS = ("rss_mb", "cpu_s")


def validate_class(result: dict, sizes: Iterable[int] = ()) -> list[str]:
    """Problems with the ``class`` part of a result: one entry per class
    size, each with ``arrive_s`` / ``click_s`` ``{p50, p95, max}``, ``errors``, ``sessions``,
    ``rss_mb`` and ``cpu_s``. A figure may be ``None`` only when ``errors`` says why."""
    problems: list[str] = []
    part = result.get("class") if isinstance(result, dict) else None
    if not isinstance(part, dict):
        return ["class should be an object"]
    for n in sizes:
        if str(n) not in part:
            problems.append(f"class.{n} is missing")
    for n, figs in part.items():
        where = f"class.{n}"
        if not isinstance(figs, dict):
            if not result.get("errors"):
                problems.append(f"{where} should be an object")
            continue
        for k in CLASS_COUNTS:
            v = figs.get(k)
            if not (isinstance(v, int) and not isinstance(v, bool) and v >= 0):
                problems.append(f"{where}.{k} should be a whole number >= 0, got {v!r}")
        if figs.get("sessions") is not None and str(figs.get("sessions")) != n:
            problems.append(f"{where}.sessions should be {n}, got {figs.get('sessions')!r}")
        explained = bool(figs.get("errors")) or bool(result.get("errors"))
        for k in CLASS_STATS:
            q = figs.get(k)
            if not isinstance(q, dict) or set(q) != set(CLASS_QUANTILES):
                problems.append(f"{where}.{k} should have the keys p50, p95, max")
                continue
            for name in CLASS_QUANTILES:
                v = q[name]
                if v is None and not explained:
                    problems.append(f"{where}.{k}.{name} is missing and no error says why")
                elif v is not None and not _num(v):
                    problems.append(f"{where}.{k}.{name} should be a non-negative number")
        for k in CLASS_FIGS:
            v = figs.get(k, "absent")
            if v == "absent":
                problems.append(f"{where}.{k} is missing")
            elif v is None and not explained:
                problems.append(f"{where}.{k} is missing and no error says why")
            elif v is not None and not _num(v):
                problems.append(f"{where}.{k} should be a non-negative number, got {v!r}")
    return problems


def class_table(result: dict) -> str:
    """The README's class table: one row per class size."""
    lines = [
        "| students | arrive p50 (s) | arrive p95 (s) | arrive max (s) | click p50 (s) "
        "| click p95 (s) | click max (s) | errors | server CPU (s) | peak RSS (MB) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n, figs in sorted((result.get("class") or {}).items(), key=lambda kv: int(kv[0])):
        figs = figs or {}
        a, c = figs.get("arrive_s") or {}, figs.get("click_s") or {}
        lines.append(
            f"| {n} | {_fmt(a.get('p50'))} | {_fmt(a.get('p95'))} | {_fmt(a.get('max'))} | "
            f"{_fmt(c.get('p50'))} | {_fmt(c.get('p95'))} | {_fmt(c.get('max'))} | "
            f"{_fmt(figs.get('errors'))} | {_fmt(figs.get('cpu_s'))} | {_fmt(figs.get('rss_mb'))} |"
        )
    meta = result.get("meta", {})
    run = meta.get("class_run", meta)
    m = run.get("machine", {})
    check = result.get("browser_check") or {}
    ratio_ = check.get("simulated_over_browser") or {}
    lines.append(
        f"\nScenario `{run.get('scenario', '?')}`, arrivals within "
        f"{_fmt(run.get('arrive_within_s'))} s, clicks every 5–10 s for "
        f"{_fmt(run.get('duration_s'))} s. Measured {run.get('date', '?')} on "
        f"{m.get('cores', '?')} cores ({m.get('cpu', '?')}), load average "
        f"{run.get('load_start', '?')} at the start and {run.get('load_end', '?')} at the end."
    )
    if check:
        lines.append(
            f"Simulated / Chromium on an idle server ({check.get('sessions')} sessions each): "
            f"first render {_fmt(ratio_.get('arrive_s'))}, rerun {_fmt(ratio_.get('rerun_s'))}."
        )
    return "\n".join(lines)


def _check(value: float | None, limit: float) -> dict:
    return {
        "value": value,
        "limit": limit,
        "ok": None if value is None else bool(value <= limit),
    }


def bare_base(result: dict, slug: str) -> float | None:
    """The bare rerun median a page's reruns are compared with: the one timed alongside the
    page's (paired) when the result has it, else the bare page's run at the start."""
    figs = (result.get("pages") or {}).get(slug) or {}
    paired = figs.get("bare_rerun_ms_median")
    return paired if paired is not None else (result.get("bare") or {}).get("rerun_ms_median")


def bare_first_base(result: dict, slug: str) -> float | None:
    """The bare first render a page's first render is compared with: the one timed right
    after the page's (paired) when the result has it, else the bare page's at the start."""
    figs = (result.get("pages") or {}).get(slug) or {}
    paired = figs.get("bare_first_render_s")
    return paired if paired is not None else (result.get("bare") or {}).get("first_render_s")


def budget(result: dict) -> dict[str, dict]:
    """The first budget (limits and ratios), each line ``{"value", "limit", "ok"}``; ratios
    use baselines measured in the same run, a page's reruns against the bare reruns paired
    with them (``ok`` is ``None`` when a figure is missing)."""
    out: dict[str, dict] = {}
    cold = result.get("cold_start_s") or {}
    out["cold_start.home_over_hello"] = _check(ratio(cold.get("app_home"), cold.get("hello")), 1.5)
    for slug, figs in (result.get("pages") or {}).items():
        base = bare_base(result, slug)
        out[f"pages.{slug}.rerun_median_over_bare"] = _check(
            ratio(figs.get("rerun_ms_median"), base), 1.5
        )
        out[f"pages.{slug}.rerun_p95_over_bare_median"] = _check(
            ratio(figs.get("rerun_ms_p95"), base), 2.0
        )
        out[f"pages.{slug}.first_render_s"] = _check(figs.get("first_render_s"), 3.0)
    rss = result.get("rss_mb") or {}
    out["rss.after_all_pages_mb"] = _check(rss.get("after_all_pages"), 600.0)
    added = None
    if rss.get("sessions_20") is not None and rss.get("after_all_pages") is not None:
        added = round(rss["sessions_20"] - rss["after_all_pages"], 1)
    out["rss.sessions_20_added_mb"] = _check(added, 150.0)
    for name, by_len in (result.get("model_ms") or {}).items():
        out[f"model_ms.{name}.30"] = _check(by_len.get("30"), 30.0)
    return out


# The ratio budget: every line a ratio to a baseline measured in the same run (so it holds on any
# machine), plus the models' one absolute line on the bench machine.
RATIO_LIMITS = {
    "cold_start": 1.0,  # home's cold start / `streamlit hello`'s
    "rerun_median": 1.0,  # a page's rerun median / the bare reruns paired with it
    "rerun_p95": 1.5,  # a page's rerun p95 / the same bare median
    "first_render": 1.0,  # a page's first render (warm server, new session) / the bare page's
    "model_over_gru": 2.0,  # a model at 30 words / gru_plain_256 at 30 words
    "model_ms": 30.0,  # a model at 30 words, ms (on the bench machine)
}
MODEL_BASE = "gru_plain_256"


def ratio_budget(result: dict) -> dict:
    """The ratio budget: ``{"lines": {name: {"value", "limit", "ok"}}, "met": bool,
    "failed": [names]}``. A page measured without reruns (no control of its own, e.g. the
    poll room) has its first-render line only; a line whose figure is missing is not met."""
    lim = RATIO_LIMITS
    lines: dict[str, dict] = {}
    cold = result.get("cold_start_s") or {}
    lines["cold_start.home_over_hello"] = _check(
        ratio(cold.get("app_home"), cold.get("hello")), lim["cold_start"]
    )
    for slug, figs in (result.get("pages") or {}).items():
        base = bare_base(result, slug)
        if figs.get("reruns") != 0:
            lines[f"pages.{slug}.rerun_median_over_bare"] = _check(
                ratio(figs.get("rerun_ms_median"), base), lim["rerun_median"]
            )
            lines[f"pages.{slug}.rerun_p95_over_bare_median"] = _check(
                ratio(figs.get("rerun_ms_p95"), base), lim["rerun_p95"]
            )
        lines[f"pages.{slug}.first_render_over_bare"] = _check(
            ratio(figs.get("first_render_s"), bare_first_base(result, slug)), lim["first_render"]
        )
    models = result.get("model_ms") or {}
    gru = (models.get(MODEL_BASE) or {}).get("30")
    for name, by_len in models.items():
        lines[f"model_ms.{name}.30_over_{MODEL_BASE}"] = _check(
            ratio(by_len.get("30"), gru), lim["model_over_gru"]
        )
        lines[f"model_ms.{name}.30"] = _check(by_len.get("30"), lim["model_ms"])
    failed = [k for k, v in lines.items() if v["ok"] is not True]
    return {"lines": lines, "met": not failed, "failed": failed}


def _fmt(x, unit: str = "") -> str:
    return "—" if x is None else f"{x:g}{unit}"


def scaleout_table(result: dict) -> str:
    """Tables of a class through nginx: per replica count, or without / with the abuser."""
    lines = [
        "| class | students | replicas | arrive p50 (s) | arrive p95 (s) | click p50 (s) "
        "| click p95 (s) | errors | replicas' CPU (s) | sessions per replica |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]

    def row(label: str, n: str, figs: dict | None) -> None:
        figs = figs or {}
        a, c = figs.get("arrive_s") or {}, figs.get("click_s") or {}
        reps = figs.get("replicas") or {}
        per = ", ".join(f"{u}: {(v or {}).get('sessions')}" for u, v in reps.items())
        lines.append(
            f"| {label} | {n} | {len(reps) or '—'} | {_fmt(a.get('p50'))} | {_fmt(a.get('p95'))}"
            f" | {_fmt(c.get('p50'))} | {_fmt(c.get('p95'))} | {_fmt(figs.get('errors'))} | "
            f"{_fmt(figs.get('cpu_s'))} | {per or '—'} |"
        )

    for r, part in (result.get("replicas") or {}).items():
        for n, figs in (part.get("class") or {}).items():
            row(f"{r} replica(s)", n, figs)
    for n, entry in (result.get("abuse") or {}).items():
        row("without the abuser", n, entry.get("without"))
        row("with the abuser", n, entry.get("with"))
        ab = entry.get("abuser") or {}
        lines.append(
            f"\nAbuser ({ab.get('source', '?')}): {ab.get('attempts')} attempts, "
            f"{ab.get('opened')} sessions opened, refused {ab.get('refused')}, "
            f"{ab.get('closed')} closed; reruns {ab.get('reruns_ok')} finished, "
            f"{ab.get('reruns_failed')} lost. Students with / without the abuser: "
            + ", ".join(f"{k} {_fmt(v)}" for k, v in (entry.get("with_over_without") or {}).items())
        )
    for n, ratios in (result.get("replica_ratio") or {}).items():
        lines.append(
            f"\nClass of {n}, {result.get('replica_ratio_of')} replicas: "
            + ", ".join(f"{k} {_fmt(v)}" for k, v in ratios.items())
        )
    return "\n".join(lines)


def markdown_table(result: dict) -> str:
    """The README's table of figures, generated from one result (with a class run's table
    after it, or alone when the result holds only a class run)."""
    if "replicas" in result or "abuse" in result:
        return scaleout_table(result)
    if "class" in result and "pages" not in result:
        return class_table(result)
    if "class" in result:
        return _bench_table(result) + "\n\n" + class_table(result)
    return _bench_table(result)


def _bench_table(result: dict) -> str:
    meta = result.get("meta", {})
    bare = result.get("bare", {})
    base = bare.get("rerun_ms_median")
    lines = [
        "| what | first render (s) | bare first alongside (s) | first / bare "
        "| later visits (s) | rerun median (ms) | rerun p95 (ms) "
        "| bare alongside (ms) | median / bare | p95 / bare |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| bare page (baseline) | {_fmt(bare.get('first_render_s'))} | — | 1 | "
        f"{_fmt(bare.get('first_render_again_s'))} | "
        f"{_fmt(base)} | {_fmt(bare.get('rerun_ms_p95'))} | — | 1 | "
        f"{_fmt(ratio(bare.get('rerun_ms_p95'), base))} |",
    ]
    for slug, figs in result.get("pages", {}).items():
        own = bare_base(result, slug)
        lines.append(
            f"| {slug} | {_fmt(figs.get('first_render_s'))} | "
            f"{_fmt(figs.get('bare_first_render_s'))} | "
            f"{_fmt(ratio(figs.get('first_render_s'), bare_first_base(result, slug)))} | "
            f"{_fmt(figs.get('first_render_again_s'))} | {_fmt(figs.get('rerun_ms_median'))}"
            f" | {_fmt(figs.get('rerun_ms_p95'))} | {_fmt(figs.get('bare_rerun_ms_median'))} | "
            f"{_fmt(ratio(figs.get('rerun_ms_median'), own))} | "
            f"{_fmt(ratio(figs.get('rerun_ms_p95'), own))} |"
        )
    cold = result.get("cold_start_s", {})
    rss = result.get("rss_mb", {})
    lines += [
        "",
        "| cold start: app home (s) | cold start: `streamlit hello` (s) | ratio |",
        "|---:|---:|---:|",
        f"| {_fmt(cold.get('app_home'))} | {_fmt(cold.get('hello'))} | "
        f"{_fmt(ratio(cold.get('app_home'), cold.get('hello')))} |",
        "",
        "| RSS after all pages (MB) | with 20 sessions (MB) | after they close (MB) |",
        "|---:|---:|---:|",
        f"| {_fmt(rss.get('after_all_pages'))} | {_fmt(rss.get('sessions_20'))} | "
        f"{_fmt(rss.get('after_close'))} |",
        "",
        "| model | 10 words (ms) | 30 words (ms) | 50 words (ms) |",
        "|---|---:|---:|---:|",
    ]
    for name, by_len in result.get("model_ms", {}).items():
        lines.append(f"| {name} | " + " | ".join(_fmt(by_len.get(n)) for n in MODEL_LENGTHS) + " |")
    lines += ["", f"Loading the whole zoo: {_fmt(result.get('zoo_load_s'), ' s')}."]
    if meta:
        m = meta.get("machine", {})
        lines.append(
            f"Measured {meta.get('date', '?')} on {m.get('cores', '?')} cores "
            f"({m.get('cpu', '?')}), load average {meta.get('load_start', '?')} at the start and "
            f"{meta.get('load_end', '?')} at the end."
        )
    if result.get("pages") and result.get("bare"):
        rb = ratio_budget(result)
        n = len(rb["lines"])
        lines.append(
            f"Ratio budget: {n - len(rb['failed'])} of {n} lines met"
            + (
                "."
                if rb["met"]
                else "; not met: " + ", ".join(_budget_line(rb, k) for k in rb["failed"]) + "."
            )
        )
    return "\n".join(lines)


def _budget_line(rb: dict, name: str) -> str:
    line = rb["lines"][name]
    return f"{name} {_fmt(line['value'])} (limit {_fmt(line['limit'])})"


# ---- the class through nginx: replicas and the abusive client ----------------------------

RATIO_NAMES = tuple(f"{k}_{q}" for k in ("arrive", "click") for q in CLASS_QUANTILES)


def _replica_problems(where: str, figs: dict, explained: bool) -> list[str]:
    """Per-replica figures of a class through nginx: CPU, RSS, sessions from the log."""
    problems = []
    reps = figs.get("replicas")
    if not isinstance(reps, dict) or not reps:
        return [f"{where}.replicas should be a non-empty object"]
    for up, r in reps.items():
        s = (r or {}).get("sessions")
        if not (isinstance(s, int) and not isinstance(s, bool) and s >= 0):
            problems.append(f"{where}.replicas.{up}.sessions should be a whole number >= 0")
        for k in ("cpu_s", "rss_peak_mb"):
            v = (r or {}).get(k)
            if (v is None and not explained) or (v is not None and not _num(v)):
                problems.append(f"{where}.replicas.{up}.{k} should be a number >= 0, got {v!r}")
    return problems


def validate_scaleout(result: dict, sizes: Iterable[int], replicas: Iterable[int]) -> list[str]:
    """Problems with ``python -m bench class N --replicas 1,2``: per replica count a
    ``class`` part of the class bench's shape (plus per-replica figures), and ``replica_ratio``
    per class size when two replica counts were compared."""
    problems: list[str] = []
    if not isinstance(result, dict) or not isinstance(result.get("replicas"), dict):
        return ["replicas should be an object"]
    sizes, replicas = list(sizes), list(replicas)
    for r in replicas:
        part = result["replicas"].get(str(r))
        if not isinstance(part, dict):
            problems.append(f"replicas.{r} is missing")
            continue
        sub = {"class": part.get("class"), "errors": result.get("errors")}
        problems += [f"replicas.{r}.{p}" for p in validate_class(sub, sizes)]
        for n, figs in (part.get("class") or {}).items():
            if isinstance(figs, dict):
                explained = bool(figs.get("errors")) or bool(result.get("errors"))
                problems += _replica_problems(f"replicas.{r}.class.{n}", figs, explained)
                if len(figs.get("replicas") or {}) != r:
                    problems.append(f"replicas.{r}.class.{n}.replicas should have {r} entries")
    if len(replicas) >= 2:
        for n in sizes:
            ratios = (result.get("replica_ratio") or {}).get(str(n))
            if not isinstance(ratios, dict) or not set(RATIO_NAMES) <= set(ratios):
                problems.append(f"replica_ratio.{n} should have {', '.join(RATIO_NAMES)}")
                continue
            for k in RATIO_NAMES:
                v = ratios[k]
                if v is None and not result.get("errors"):
                    problems.append(f"replica_ratio.{n}.{k} is missing and no error says why")
                elif v is not None and not _num(v):
                    problems.append(f"replica_ratio.{n}.{k} should be a number >= 0")
    return problems


ABUSER_COUNTS = ("attempts", "opened", "closed", "timed_out", "reruns_ok", "reruns_failed")


def validate_abuse(result: dict, sizes: Iterable[int]) -> list[str]:
    """Problems with ``python -m bench class N --abuser``: per class size the class
    ``without`` and ``with`` the abuser (the class bench's shape each), what the ``abuser`` got
    (whole counts, ``refused`` by status) and ``with_over_without`` ratios."""
    problems: list[str] = []
    part = result.get("abuse") if isinstance(result, dict) else None
    if not isinstance(part, dict):
        return ["abuse should be an object"]
    for n in sizes:
        entry = part.get(str(n))
        if not isinstance(entry, dict):
            problems.append(f"abuse.{n} is missing")
            continue
        for label in ("without", "with"):
            sub = {"class": {str(n): entry.get(label)}, "errors": result.get("errors")}
            problems += [f"abuse.{n}.{label}: {p}" for p in validate_class(sub, [n])]
        abuser = entry.get("abuser")
        if not isinstance(abuser, dict):
            if not result.get("errors"):
                problems.append(f"abuse.{n}.abuser should be an object")
            continue
        if "error" in abuser and not result.get("errors"):
            problems.append(f"abuse.{n}.abuser failed and no error says so")
        if "error" not in abuser:
            for k in ABUSER_COUNTS:
                v = abuser.get(k)
                if not (isinstance(v, int) and not isinstance(v, bool) and v >= 0):
                    problems.append(f"abuse.{n}.abuser.{k} should be a whole number >= 0")
            refused = abuser.get("refused")
            if not isinstance(refused, dict) or not all(
                isinstance(v, int) and v >= 0 for v in refused.values()
            ):
                problems.append(f"abuse.{n}.abuser.refused should map statuses to counts")
        ratios = entry.get("with_over_without")
        if not isinstance(ratios, dict) or not set(RATIO_NAMES) <= set(ratios):
            problems.append(f"abuse.{n}.with_over_without should have {', '.join(RATIO_NAMES)}")
    return problems
