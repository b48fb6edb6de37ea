"""The JSON the benchmark prints, its check, the budget of issue 10, and the README table."""

from __future__ import annotations

from collections.abc import Iterable

from bench.stats import ratio

RERUN_KEYS = ("first_render_s", "rerun_ms_median", "rerun_ms_p95")
# A page's own baseline: the bare page rerun right after each of its reruns (optional: a
# run with --no-paired, or an older result, has only the bare run at the start).
PAIRED_KEYS = ("bare_rerun_ms_median", "bare_rerun_ms_p95")
TOP_KEYS = ("cold_start_s", "bare", "pages", "rss_mb", "model_ms", "zoo_load_s")
RSS_KEYS = ("after_all_pages", "sessions_20", "after_close")
MODEL_LENGTHS = ("10", "30", "50")


def _num(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and x >= 0


def validate(result: dict, pages: Iterable[str] = (), full: bool = True) -> list[str]:
    """Problems with a result (an empty list when it has the shape issue 10 asks for).

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
        for k in RERUN_KEYS:
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


def budget(result: dict) -> dict[str, dict]:
    """Issue 10's budget, each line ``{"value", "limit", "ok"}``; ratios use baselines
    measured in the same run, a page's reruns against the bare reruns paired with them
    (``ok`` is ``None`` when a figure is missing)."""
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


def _fmt(x, unit: str = "") -> str:
    return "—" if x is None else f"{x:g}{unit}"


def markdown_table(result: dict) -> str:
    """The README's table of figures, generated from one result."""
    meta = result.get("meta", {})
    bare = result.get("bare", {})
    base = bare.get("rerun_ms_median")
    lines = [
        "| what | first render (s) | later visits (s) | rerun median (ms) | rerun p95 (ms) "
        "| bare alongside (ms) | median / bare | p95 / bare |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
        f"| bare page (baseline) | {_fmt(bare.get('first_render_s'))} | "
        f"{_fmt(bare.get('first_render_again_s'))} | "
        f"{_fmt(base)} | {_fmt(bare.get('rerun_ms_p95'))} | — | 1 | "
        f"{_fmt(ratio(bare.get('rerun_ms_p95'), base))} |",
    ]
    for slug, figs in result.get("pages", {}).items():
        own = bare_base(result, slug)
        lines.append(
            f"| {slug} | {_fmt(figs.get('first_render_s'))} | "
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
    return "\n".join(lines)
