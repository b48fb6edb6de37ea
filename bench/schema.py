"""The JSON the benchmarks print: its checks, the pages bench's ratio budget, the tables."""

from __future__ import annotations

from collections.abc import Iterable

from bench.stats import ratio

RERUN_KEYS = ("first_render_s", "rerun_ms_median", "rerun_ms_p95")
# A page's own baseline, timed alongside it (not with --no-paired: the bare run at the start)
PAIRED_KEYS = ("bare_rerun_ms_median", "bare_rerun_ms_p95", "bare_first_render_s")
TOP_KEYS = ("cold_start_s", "bare", "pages", "rss_mb", "model_ms", "zoo_load_s")
RSS_KEYS = ("after_all_pages", "sessions_20", "after_close")
MODEL_LENGTHS = ("10", "30", "50")
CLASS_QUANTILES = ("p50", "p95", "max")
RATIO_NAMES = tuple(f"{k}_{q}" for k in ("arrive", "click") for q in CLASS_QUANTILES)
ABUSER_COUNTS = ("attempts", "opened", "closed", "timed_out", "reruns_ok", "reruns_failed")


def _num(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and x >= 0


def _whole(x) -> bool:
    return isinstance(x, int) and _num(x)


class Problems(list):
    """What is wrong with a result: a figure is a number >= 0, or ``None`` an error explains."""

    def __init__(self, explained: bool) -> None:
        super().__init__()
        self.explained = explained

    def fig(self, where: str, value, explained: bool | None = None) -> None:
        if value is None:
            if not (self.explained if explained is None else explained):
                self.append(f"{where} is missing and no error says why")
        elif not _num(value):
            self.append(f"{where} should be a non-negative number, got {value!r}")

    def whole(self, where: str, value) -> None:
        if not _whole(value):
            self.append(f"{where} should be a whole number >= 0")

    def section(self, result: dict, name: str, keys: Iterable[str]) -> None:
        """``result[name]`` is an object with a figure at each of ``keys``."""
        part = result.get(name)
        if not isinstance(part, dict):
            self.append(f"{name} should be an object")
            return
        for k in keys:
            self.fig(f"{name}.{k}", part.get(k))


def validate(result: dict, pages: Iterable[str] = (), full: bool = True) -> list[str]:
    """Problems with a pages result; ``full=False``: a dry run (only ``bare``)."""
    p = Problems(bool(result.get("errors")))
    p.section(result, "bare", RERUN_KEYS)
    if not full:
        return list(p)
    p += [f"missing top-level key {k}" for k in TOP_KEYS if k not in result]
    p.section(result, "cold_start_s", ("app_home", "hello"))
    p.section(result, "rss_mb", RSS_KEYS)
    pages_part = result.get("pages") or {}
    p += [f"pages.{slug} is missing" for slug in pages if slug not in pages_part]
    for slug, figs in pages_part.items():
        # a page with no control of its own is measured by its first render only
        for k in RERUN_KEYS if figs.get("reruns") != 0 else RERUN_KEYS[:1]:
            p.fig(f"pages.{slug}.{k}", figs.get(k))
        for k in (k for k in PAIRED_KEYS if k in figs):
            p.fig(f"pages.{slug}.{k}", figs[k])
    for n, figs in enumerate(result.get("aa") or [], 1):  # optional: --aa 0 measures none
        for k in (*RERUN_KEYS, *(k for k in PAIRED_KEYS if k in figs)):
            p.fig(f"aa.{n}.{k}", figs.get(k))
    models = result.get("model_ms") or {}
    if not models and not p.explained:
        p.append("model_ms should be a non-empty object")
    for name, by_len in models.items():
        if set(by_len) != set(MODEL_LENGTHS):
            p.append(f"model_ms.{name} should have the keys 10, 30, 50")
            continue
        for n in MODEL_LENGTHS:
            p.fig(f"model_ms.{name}.{n}", by_len[n])
    p.fig("zoo_load_s", result.get("zoo_load_s"))
    return list(p)


def validate_class(result: dict, sizes: Iterable[int] = ()) -> list[str]:
    """Problems with the ``class`` part: each class size's quantiles and figures."""
    part = result.get("class")
    if not isinstance(part, dict):
        return ["class should be an object"]
    p = Problems(bool(result.get("errors")))
    p += [f"class.{n} is missing" for n in sizes if str(n) not in part]
    for n, figs in part.items():
        where = f"class.{n}"
        if not isinstance(figs, dict):
            if not p.explained:
                p.append(f"{where} should be an object")
            continue
        p.whole(f"{where}.errors", figs.get("errors"))
        p.whole(f"{where}.sessions", figs.get("sessions"))
        explained = p.explained or bool(figs.get("errors"))
        for k in ("arrive_s", "click_s"):
            for name in CLASS_QUANTILES:
                p.fig(f"{where}.{k}.{name}", (figs.get(k) or {}).get(name), explained)
        for k in ("rss_mb", "cpu_s"):
            p.fig(f"{where}.{k}", figs.get(k), explained)
    return list(p)


def validate_scaleout(result: dict, sizes: Iterable[int], replicas: Iterable[int]) -> list[str]:
    """Problems with ``class --replicas``: the class's shape and per-replica figures, the ratios."""
    p = Problems(bool(result.get("errors")))
    sizes, replicas = list(sizes), list(replicas)
    for r in replicas:
        part = result["replicas"][str(r)]
        sub = {"class": part.get("class"), "errors": result.get("errors")}
        p += [f"replicas.{r}.{x}" for x in validate_class(sub, sizes)]
        for n, figs in (part.get("class") or {}).items():
            if not isinstance(figs, dict):
                continue
            where, reps = f"replicas.{r}.class.{n}", figs.get("replicas")
            if not isinstance(reps, dict) or not reps:
                p.append(f"{where}.replicas should be a non-empty object")
                continue
            explained = p.explained or bool(figs.get("errors"))
            for up, one in reps.items():
                p.whole(f"{where}.replicas.{up}.sessions", one.get("sessions"))
                for k in ("cpu_s", "rss_peak_mb"):
                    p.fig(f"{where}.replicas.{up}.{k}", one.get(k), explained)
    for n in sizes if len(replicas) >= 2 else ():
        for k in RATIO_NAMES:
            p.fig(f"replica_ratio.{n}.{k}", result["replica_ratio"][str(n)].get(k))
    return list(p)


def validate_abuse(result: dict, sizes: Iterable[int]) -> list[str]:
    """Problems with ``class --abuser``: the classes without and with it, what it got."""
    p = Problems(bool(result.get("errors")))
    for n in sizes:
        entry = result["abuse"][str(n)]
        for label in ("without", "with"):
            sub = {"class": {str(n): entry.get(label)}, "errors": result.get("errors")}
            p += [f"abuse.{n}.{label}: {x}" for x in validate_class(sub, [n])]
        abuser = entry.get("abuser")
        if not isinstance(abuser, dict) or "error" in abuser:
            if not p.explained:
                p.append(f"abuse.{n}.abuser failed and no error says so")
        else:
            for k in ABUSER_COUNTS:
                p.whole(f"abuse.{n}.abuser.{k}", abuser.get(k))
            refused = abuser.get("refused")
            if not isinstance(refused, dict) or not all(_whole(v) for v in refused.values()):
                p.append(f"abuse.{n}.abuser.refused should map statuses to counts")
    return list(p)


def _check(value: float | None, limit: float) -> dict:
    return {"value": value, "limit": limit, "ok": None if value is None else bool(value <= limit)}


def bare_of(result: dict, slug: str, key: str) -> float | None:
    """The bare page's ``key`` a page's is compared with: paired when it was, else the start's."""
    return _paired(result, (result.get("pages") or {}).get(slug) or {}, key)


def _paired(result: dict, figs: dict, key: str) -> float | None:
    paired = figs.get(f"bare_{key}")
    return paired if paired is not None else (result.get("bare") or {}).get(key)


def aa_ratios(result: dict) -> list[dict]:
    """Each A/A row's ratios (the bare page measured as a page, against the bare runs paired
    with it, exactly as a page's are computed): 1 on a machine without noise, so their spread
    is the run's resolution. Information, never a budget line."""
    out = []
    for figs in result.get("aa") or []:
        base, first = (_paired(result, figs, k) for k in ("rerun_ms_median", "first_render_s"))
        out.append({
            "first_render": ratio(figs.get("first_render_s"), first),
            "rerun_median": ratio(figs.get("rerun_ms_median"), base),
            "rerun_p95": ratio(figs.get("rerun_ms_p95"), base),
        })  # fmt: skip
    return out


def aa_summary(result: dict) -> str:
    """One sentence: the range of each A/A ratio, or '' without A/A rows."""
    rows = aa_ratios(result)
    if not rows:
        return ""

    def span(key: str) -> str:
        vals = sorted(r[key] for r in rows if r[key] is not None)
        if not vals:
            return "not measured"
        return _fmt(vals[0]) if vals[0] == vals[-1] else f"{_fmt(vals[0])}-{_fmt(vals[-1])}"

    return (
        f"A/A ({len(rows)}: the bare page measured as a page, against the bare runs paired "
        f"with it): first render {span('first_render')}, rerun median {span('rerun_median')}, "
        f"p95 {span('rerun_p95')}; the ratios a page would get for being the bare page itself."
    )


# Every line a ratio to a baseline of the same run (it holds on any machine), but model_ms
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
    """``{"lines": {name: {"value", "limit", "ok"}}, "met", "failed"}``: a page without
    reruns has its first-render line only; a line not measured is not met."""
    lim, lines = RATIO_LIMITS, {}
    cold = result.get("cold_start_s") or {}
    lines["cold_start.home_over_hello"] = _check(
        ratio(cold.get("app_home"), cold.get("hello")), lim["cold_start"]
    )
    for slug, figs in (result.get("pages") or {}).items():
        base = bare_of(result, slug, "rerun_ms_median")
        if figs.get("reruns") != 0:
            lines[f"pages.{slug}.rerun_median_over_bare"] = _check(
                ratio(figs.get("rerun_ms_median"), base), lim["rerun_median"]
            )
            lines[f"pages.{slug}.rerun_p95_over_bare_median"] = _check(
                ratio(figs.get("rerun_ms_p95"), base), lim["rerun_p95"]
            )
        lines[f"pages.{slug}.first_render_over_bare"] = _check(
            ratio(figs.get("first_render_s"), bare_of(result, slug, "first_render_s")),
            lim["first_render"],
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


def _row(*cells) -> str:
    """A markdown table row; a number or ``None`` is formatted by :func:`_fmt`."""
    return "| " + " | ".join(c if isinstance(c, str) else _fmt(c) for c in cells) + " |"


# How the bare reruns a page's are divided by were taken (bench.pages.Paired; a result
# without ``pair_tab`` predates the choice: one tab for the run)
PAIRING = {
    "fresh": "Each page's reruns are paired with a new bare tab opened beside the page's new tab "
    "(both tabs the same age).",
    "warm": "Each page's reruns are paired with one bare tab kept for the whole run (older and "
    "warmer than each page's new tab).",
}


def _measured(run: dict) -> str:
    m = run.get("machine", {})
    return (
        f"Measured {run.get('date', '?')} on {m.get('cores', '?')} cores ({m.get('cpu', '?')}),"
        f" load average {run.get('load_start', '?')} at the start and "
        f"{run.get('load_end', '?')} at the end."
    )


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
        quantiles = [q.get(k) for q in (a, c) for k in CLASS_QUANTILES]
        lines.append(_row(n, *quantiles, *(figs.get(k) for k in ("errors", "cpu_s", "rss_mb"))))
    meta = result.get("meta", {})
    run = meta.get("class_run", meta)
    lines.append(
        f"\nScenario `{run.get('scenario', '?')}`, arrivals within "
        f"{_fmt(run.get('arrive_within_s'))} s, clicks every 5–10 s for "
        f"{_fmt(run.get('duration_s'))} s. " + _measured(run)
    )
    check = result.get("browser_check") or {}
    if check:
        ratio_ = check.get("simulated_over_browser") or {}
        lines.append(
            f"Simulated / Chromium on an idle server ({check.get('sessions')} sessions each): "
            f"first render {_fmt(ratio_.get('arrive_s'))}, rerun {_fmt(ratio_.get('rerun_s'))}."
        )
    return "\n".join(lines)


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
        quantiles = (a.get("p50"), a.get("p95"), c.get("p50"), c.get("p95"))
        lines.append(
            _row(label, n, str(len(reps) or "—"), *quantiles, figs.get("errors"))[:-2]
            + f" | {_fmt(figs.get('cpu_s'))} | {per or '—'} |"
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
            + _pairs(entry.get("with_over_without"))
        )
    for n, ratios in (result.get("replica_ratio") or {}).items():
        of = result.get("replica_ratio_of")
        lines.append(f"\nClass of {n}, {of} replicas: " + _pairs(ratios))
    return "\n".join(lines)


def _pairs(ratios: dict | None) -> str:
    return ", ".join(f"{k} {_fmt(v)}" for k, v in (ratios or {}).items())


def markdown_table(result: dict) -> str:
    """The README's tables of one result: pages, class (either or both), or through nginx."""
    if "replicas" in result or "abuse" in result:
        return scaleout_table(result)
    tables = [_bench_table(result)] if "pages" in result or "class" not in result else []
    return "\n\n".join(tables + ([class_table(result)] if "class" in result else []))


def _bench_table(result: dict) -> str:
    meta, bare = result.get("meta", {}), result.get("bare", {})
    base = bare.get("rerun_ms_median")
    lines = [
        "| what | first render (s) | bare first alongside (s) | first / bare "
        "| later visits (s) | rerun median (ms) | rerun p95 (ms) "
        "| bare alongside (ms) | median / bare | p95 / bare |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        _row(
            "bare page (baseline)", bare.get("first_render_s"), "—", "1",
            bare.get("first_render_again_s"), base, bare.get("rerun_ms_p95"), "—", "1",
            ratio(bare.get("rerun_ms_p95"), base),
        ),
    ]  # fmt: skip
    for slug, figs in result.get("pages", {}).items():
        first, med, p95 = (figs.get(k) for k in RERUN_KEYS)
        own = bare_of(result, slug, "rerun_ms_median")
        first_ratio = ratio(first, bare_of(result, slug, "first_render_s"))
        cells = (figs.get("bare_first_render_s"), first_ratio, figs.get("first_render_again_s"))
        paired = figs.get("bare_rerun_ms_median")
        lines.append(_row(slug, first, *cells, med, p95, paired, ratio(med, own), ratio(p95, own)))
    for n, (figs, r) in enumerate(zip(result.get("aa") or [], aa_ratios(result)), 1):
        first, med, p95 = (figs.get(k) for k in RERUN_KEYS)
        again = figs.get("first_render_again_s")
        cells = (figs.get("bare_first_render_s"), r["first_render"], again)
        lines.append(_row(
            f"bare page as a page (A/A {n})", first, *cells, med, p95,
            figs.get("bare_rerun_ms_median"), r["rerun_median"], r["rerun_p95"],
        ))  # fmt: skip
    cold, rss = result.get("cold_start_s", {}), result.get("rss_mb", {})
    app, hello = cold.get("app_home"), cold.get("hello")
    lines += [
        "",
        "| cold start: app home (s) | cold start: `streamlit hello` (s) | ratio |",
        "|---:|---:|---:|",
        _row(app, hello, ratio(app, hello)),
        "",
        "| RSS after all pages (MB) | with 20 sessions (MB) | after they close (MB) |",
        "|---:|---:|---:|",
        _row(*(rss.get(k) for k in RSS_KEYS)),
        "",
        "| model | 10 words (ms) | 30 words (ms) | 50 words (ms) |",
        "|---|---:|---:|---:|",
    ]
    for name, by_len in result.get("model_ms", {}).items():
        lines.append(_row(name, *(by_len.get(n) for n in MODEL_LENGTHS)))
    lines += ["", f"Loading the whole zoo: {_fmt(result.get('zoo_load_s'), ' s')}."]
    if meta:
        lines.append(_measured(meta))
    if meta.get("paired") and result.get("pages"):
        lines.append(PAIRING.get(meta.get("pair_tab") or "warm", ""))
    if result.get("pages") and result.get("bare"):
        rb = ratio_budget(result)
        n, failed = len(rb["lines"]), rb["failed"]
        not_met = ", ".join(
            f"{k} {_fmt(rb['lines'][k]['value'])} (limit {_fmt(rb['lines'][k]['limit'])})"
            for k in failed
        )
        lines.append(
            f"Ratio budget: {n - len(failed)} of {n} lines met"
            + (f"; not met: {not_met}." if failed else ".")
        )
        if aa_summary(result):
            lines.append(aa_summary(result))
    return "\n".join(lines)
