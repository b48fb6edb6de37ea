"""A student's phone on a school network: bytes on the wire and the first chart.

The app and the bare page, each reached directly and through nginx from ``deploy/nginx/``
(with the pre-compressed assets of ``deploy/precompress.py``), loopback only. Per run
(target ``direct``/``proxy`` x emulation ``none``/``phone``: CPU 4x slower, 20 Mbps, 40 ms)
and page: a fresh 390x844 profile's first visit, then a second visit in a new tab; bytes
from CDP (HTTP ``encodedDataLength``, websocket frames; through the proxy nginx's own count
of the websocket) and the first chart's time. The budget line pairs each lesson page's first
visit with the bare page's (:func:`paired_visits`). The method and figures: bench/README.md.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from bench import browser as B
from bench import procs
from bench.procs import ROOT

PRECOMPRESS = ROOT / "deploy" / "precompress.py"
DOCKERFILE = ROOT / "Dockerfile"
PHONE_VIEWPORT = {"width": 390, "height": 844}
EMULATIONS: dict[str, dict | None] = {
    "none": None,
    "phone": {"cpu_slowdown": 4, "mbps": 20, "latency_ms": 40},
}
BARE = "bare"
PAIRED_RUN = "proxy/phone"  # the emulation the budget is written for
FIRST_CHART_LIMIT = 1.0  # lesson page / bare page, median of the paired visits
CHART = '[data-testid="stPlotlyChart"] svg, .js-plotly-plot .main-svg'
HAS_CHART_BOX_JS = "() => !!document.querySelector('[data-testid=\"stPlotlyChart\"]')"
CHART_DRAWN_JS = "() => window.__phone && window.__phone.chart !== null"
FIRST_CHART_JS = f"""(() => {{
  if (window.__phone) return;
  const p = window.__phone = {{chart: null}};
  const look = () => {{
    if (p.chart === null && document.querySelector({json.dumps(CHART)})) {{
      p.chart = performance.now();
    }}
  }};
  new MutationObserver(look).observe(document, {{subtree: true, childList: true}});
}})();"""


def lesson_slugs() -> list[str]:
    """Home and every listed lesson page (ui/nav.py PAGES), in navigation order."""
    from ui.nav import PAGES

    return [p.slug for p in PAGES if p.listed]


def page_path(slug: str) -> str:
    return ("/" if slug in ("home", BARE) else f"/{slug}") + "?lang=en"


# ---- the deploy proxy on loopback ---------------------------------------------------------


def image_streamlit_env() -> dict[str, str]:
    """The ``STREAMLIT_*`` settings the image sets (its Dockerfile's ENV): the app behind
    the proxy runs with them, as it does in the image, Compose and Kubernetes."""
    env: dict[str, str] = {}
    text = DOCKERFILE.read_text().replace("\\\n", " ")
    for line in text.splitlines():
        if line.startswith("ENV "):
            for word in line[4:].split():
                key, sep, value = word.partition("=")
                if sep and key.startswith("STREAMLIT_"):
                    env[key] = value
    return env


def static_mirror() -> tuple[Path, dict]:
    """The pre-compressed copy of Streamlit's /static/ (deploy/precompress.py), made once
    per Streamlit version in the temporary folder: (folder, its STAMP with the seconds it
    took to make)."""
    import streamlit

    # in the system's temporary folder, not under the checkout: nginx's workers run as
    # `nobody` and must traverse every folder above it (a checkout may be private)
    out = Path(tempfile.gettempdir()) / f"road-static-{streamlit.__version__}"
    first_visit = PRECOMPRESS.parent / "first-visit-assets.txt"  # what a first visit loads
    icons = PRECOMPRESS.parent / "material-icons.txt"  # the image's icon font subset
    run = subprocess.run(
        [sys.executable, str(PRECOMPRESS), str(out), "--only-these", str(first_visit)]
        + ["--icons", str(icons)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if run.returncode != 0:
        raise RuntimeError(f"deploy/precompress.py failed:\n{run.stderr[-3000:]}")
    return out, json.loads(run.stderr.strip().splitlines()[-1])


# ---- one visit ----------------------------------------------------------------------------


def _ws_frame_bytes(response: dict) -> int:
    """A websocket frame's size: its payload (text as UTF-8, binary as sent base64 by CDP)
    plus the frame header a server sends (unmasked)."""
    data = response.get("payloadData", "")
    if response.get("opcode") == 1:
        n = len(data.encode())
    else:
        n = len(base64.b64decode(data)) if data else 0
    return n + (2 if n < 126 else 4 if n < 65536 else 10)


class Wire:
    """Bytes one tab receives, from its CDP Network events."""

    def __init__(self, cdp) -> None:
        self.http = self.js = self.ws = self.ws_frames = 0
        self.requests = self.from_cache = self.failed = 0
        self._type: dict[str, str] = {}
        self._url: dict[str, str] = {}
        self.by_url: dict[str, int] = {}  # bytes received per URL path (not from the cache)
        self._cached: set[str] = set()
        cdp.on("Network.requestServedFromCache", lambda e: self._cached.add(e["requestId"]))
        cdp.on("Network.responseReceived", self._response)
        cdp.on("Network.loadingFinished", self._finished)
        cdp.on("Network.loadingFailed", self._failed)
        cdp.on("Network.webSocketFrameReceived", self._frame)

    def _response(self, e: dict) -> None:
        self._type[e["requestId"]] = e.get("type", "")
        r = e.get("response", {})
        self._url[e["requestId"]] = r.get("url", "").split("?", 1)[0].split("/", 3)[-1]
        if r.get("fromDiskCache") or r.get("fromPrefetchCache") or r.get("fromServiceWorker"):
            self._cached.add(e["requestId"])

    def _finished(self, e: dict) -> None:
        rid = e["requestId"]
        self.requests += 1
        if rid in self._cached:
            self.from_cache += 1
            return
        n = int(e.get("encodedDataLength", 0))
        self.http += n
        url = "/" + self._url.get(rid, "?")
        self.by_url[url] = self.by_url.get(url, 0) + n
        if self._type.get(rid) == "Script":
            self.js += n

    def _failed(self, e: dict) -> None:
        if not e.get("canceled"):
            self.failed += 1

    def _frame(self, e: dict) -> None:
        self.ws += _ws_frame_bytes(e.get("response", {}))
        self.ws_frames += 1

    def biggest(self, n: int = 12) -> dict[str, int]:
        """The ``n`` URL paths that brought the most bytes."""
        return dict(sorted(self.by_url.items(), key=lambda kv: -kv[1])[:n])

    def summary(self) -> dict:
        return {
            "total_bytes": self.http + self.ws,
            "http_bytes": self.http,
            "js_bytes": self.js,
            "ws_bytes": self.ws,
            "ws_frames": self.ws_frames,
            "requests": self.requests,
            "from_cache": self.from_cache,
            "failed": self.failed,
        }


def emulate(cdp, emulation: dict | None) -> None:
    cdp.send("Network.enable")
    if emulation is None:
        return
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": emulation["cpu_slowdown"]})
    rate = emulation["mbps"] * 1_000_000 / 8  # bytes a second
    cdp.send(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": emulation["latency_ms"],
            "downloadThroughput": rate,
            "uploadThroughput": rate,
        },
    )


def visit(
    context, url: str, emulation: dict | None, timeout_s: float, proxy: procs.Proxy | None = None
) -> dict:
    """Open ``url`` in a new tab of ``context`` and measure it until it has settled; with
    ``proxy``, add nginx's count of the bytes it sent on the tab's websocket."""
    since = proxy.log_mark() if proxy else 0
    out: dict = {}
    page = context.new_page()
    csp: list[str] = []  # Content-Security-Policy violations the console reports
    page.on("console", lambda m: csp.append(m.text) if "Content Security Policy" in m.text else 0)
    try:
        cdp = context.new_cdp_session(page)
        wire = Wire(cdp)
        emulate(cdp, emulation)
        started = time.monotonic()
        page.goto(url, wait_until="commit", timeout=timeout_s * 1000)
        error = None
        try:
            state = B.wait_settled(page, timeout_s)
            # Under CPU emulation the plotly chunk can take seconds to parse with no DOM
            # change: the page looks settled before its chart exists. Wait for the chart.
            if page.evaluate(HAS_CHART_BOX_JS):
                page.wait_for_function(CHART_DRAWN_JS, timeout=timeout_s * 1000, polling=100)
                state = B.wait_settled(page, timeout_s)
            settled = round(state["last"] / 1000.0, 2)
        except (B.BenchTimeout, PlaywrightTimeout) as exc:
            error, settled = str(exc), None
        chart = page.evaluate("() => window.__phone && window.__phone.chart")
        page.wait_for_timeout(200)  # the last CDP events of the settled page
        out = wire.summary() | {
            "first_chart_s": None if chart is None else round(chart / 1000.0, 2),
            "settled_s": settled,
            "wall_s": round(time.monotonic() - started, 2),
        }
        if error:
            out["error"] = error
        out["csp_violations"] = csp[:5]
        out["biggest"] = wire.biggest()
    finally:
        page.close()  # its websocket closes: nginx logs it
    if proxy is not None:
        out["ws_wire_bytes"] = ws_wire_bytes(proxy, since)
    # what crossed the wire: HTTP + the websocket as nginx counted it (through the proxy),
    # else its frames as Chromium reports them (payloads after decompression: at most)
    ws = out.get("ws_wire_bytes")
    out["wire_bytes"] = out["http_bytes"] + (out["ws_bytes"] if ws is None else ws)
    return out


def first_and_second(
    browser,
    url: str,
    emulation: dict | None,
    timeout_s: float,
    proxy: procs.Proxy | None = None,
    second: bool = True,
) -> dict:
    """A fresh profile's first visit, then (``second``) a second visit in a new tab of it."""
    context = browser.new_context(
        viewport=PHONE_VIEWPORT, locale="en-US", is_mobile=True, user_agent=B.PHONE_UA
    )
    try:
        context.add_init_script(B.INIT_JS)
        context.add_init_script(FIRST_CHART_JS)
        out = {"first": visit(context, url, emulation, timeout_s, proxy)}
        if second:
            out["second"] = visit(context, url, emulation, timeout_s, proxy)
        return out
    finally:
        context.close()


def ws_wire_bytes(proxy: procs.Proxy, since: int) -> int | None:
    """nginx's bytes sent (101 answer and frames) on the websockets that closed since
    access-log byte ``since``; None if none was logged within 5 s."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        entries = [e for e in proxy.access_log(since) if "/_stcore/stream" in e.get("request", "")]
        if entries:
            return sum(int(e["bytes"]) for e in entries)
        time.sleep(0.1)
    return None


# ---- the run ------------------------------------------------------------------------------


def _result_head() -> dict:
    return {
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "machine": procs.machine(),
        "viewport": PHONE_VIEWPORT,
        "emulations": EMULATIONS,
        "image_env": image_streamlit_env(),
        "counted": (
            "HTTP: CDP encodedDataLength (headers + encoded body), cache hits 0; websocket: "
            "frames received, payload (after permessage-deflate) + frame header; "
            "ws_wire_bytes: nginx's $bytes_sent on the websocket (proxy only)"
        ),
        "pages": {},
    }


def run(args) -> dict:
    """Every page under every run of ``args.runs``, then the paired visits."""
    pages = args.pages or lesson_slugs()
    result = _result_head()
    with (
        tempfile.TemporaryDirectory(prefix="road-phone-", ignore_cleanup_errors=True) as tmp,
        contextlib.ExitStack() as stack,
    ):
        folder = Path(tmp)
        folder.chmod(0o755)  # nginx's workers (nobody, when run as root) traverse it
        static_dir, result["precompress"] = static_mirror()
        env = dict(os.environ, **image_streamlit_env())
        servers = {
            name: stack.enter_context(procs.serving(target, ROOT, folder / f"{name}.log", env=env))
            for name, target in (("app", "app.py"), (BARE, str(procs.BARE_APP)))
        }
        proxies = {
            name: stack.enter_context(
                procs.start_nginx(
                    folder / f"nginx-{name}", procs.free_port(), [srv.upstream], static_dir
                )
            )
            for name, srv in servers.items()
        }
        with B.chromium() as browser:
            B.warm_app(browser, servers["app"], servers["app"].url("/?lang=en"))
            with B.tab(browser) as warm:  # every page's server-side caches, untimed
                for slug in pages:
                    B.render(warm, servers["app"].url(page_path(slug)), timeout_s=300)
            for slug in [*pages, BARE]:
                _visit_runs(browser, slug, servers, proxies, args, result)
            if args.reps and PAIRED_RUN in args.runs:
                paired_visits(browser, servers, proxies, pages, args, result)
    result["machine"]["loadavg_end"] = procs.load_average()
    return result


def _visit_runs(browser, slug: str, servers, proxies, args, result: dict) -> None:
    rows = result["pages"].setdefault(slug, {})
    name = BARE if slug == BARE else "app"
    for run_name in args.runs:
        target, emu = run_name.split("/")
        base = servers[name].base if target == "direct" else proxies[name].base
        one = first_and_second(
            browser,
            base + page_path(slug),
            EMULATIONS[emu],
            args.timeout,
            proxies[name] if target == "proxy" else None,
        )
        rows[f"{target}/{emu}"] = one
        f, w = one["first"], "wire_bytes"
        print(
            f"{slug:20s} {run_name:12s} first {f[w] / 1e6:5.2f} MB"
            f" (js {f['js_bytes'] / 1e6:4.2f}) chart {f['first_chart_s']} s;"
            f" second {one['second'][w] / 1e6:5.3f} MB",
            file=sys.stderr,
            flush=True,
        )


def first_chart(browser, url: str, emulation: dict | None, timeout_s: float) -> float | None:
    """Seconds to the first drawn chart on a first visit in a fresh profile (no second
    visit, no byte counts: the paired measure of the budget)."""
    visits = first_and_second(browser, url, emulation, timeout_s, second=False)
    return visits["first"]["first_chart_s"]


def paired_summary(page_s: list, bare_s: list, limit: float = FIRST_CHART_LIMIT) -> dict:
    """The budget figure of one page from its paired visits: per pair ``page / bare``
    (pairs where either visit drew no chart are left out and counted), the median ratio,
    and whether it is within ``limit``."""
    from bench.stats import median

    ratios = [round(p / b, 3) for p, b in zip(page_s, bare_s, strict=True) if p is not None and b]
    out: dict = {"page_s": page_s, "bare_s": bare_s, "ratios": ratios}
    out["missing"] = len(page_s) - len(ratios)
    out["ratio_median"] = round(median(ratios), 3) if ratios else None
    out["within"] = bool(ratios) and out["ratio_median"] <= limit and not out["missing"]
    return out


def paired_visits(browser, servers, proxies, pages, args, result) -> None:
    """``args.reps`` rounds over the lesson pages, each page's first visit followed at
    once by the bare page's, under :data:`PAIRED_RUN`; writes ``paired`` per page and the
    ``budget``."""
    target, emu = PAIRED_RUN.split("/")
    base = {n: (servers[n].base if target == "direct" else proxies[n].base) for n in servers}
    lessons = [s for s in pages if s not in ("home", BARE)]
    got: dict[str, tuple[list, list]] = {s: ([], []) for s in lessons}
    for rep in range(args.reps):
        for slug in lessons:
            p = first_chart(browser, base["app"] + page_path(slug), EMULATIONS[emu], args.timeout)
            b = first_chart(browser, base[BARE] + page_path(BARE), EMULATIONS[emu], args.timeout)
            got[slug][0].append(p)
            got[slug][1].append(b)
            print(f"paired {rep + 1}/{args.reps} {slug:20s} {p} s / bare {b} s", file=sys.stderr)
    for slug, (p, b) in got.items():
        result["pages"][slug]["paired"] = paired_summary(p, b)
    result["budget"] = {
        "line": f"{PAIRED_RUN}: first chart of every lesson page <= {FIRST_CHART_LIMIT}x the "
        f"bare page's (median of {args.reps} paired visits)",
        "pages": {s: result["pages"][s]["paired"]["ratio_median"] for s in lessons},
        "met": all(result["pages"][s]["paired"]["within"] for s in lessons),
    }


def table(result: dict) -> str:
    """The README's table, one row a page: MB on the wire (10^6 bytes; HTTP + websocket)
    directly and through the proxy, JavaScript MB through the proxy, seconds to the first
    chart through the proxy without / with the phone emulation, and the second visit."""

    def cell(row: dict | None, key: str, visit: str = "first", scale: float = 1e6) -> str:
        v = row[visit].get(key) if row else None
        return "-" if v is None else f"{v / scale:.2f}"

    lines = [
        "| page | MB direct | MB proxy | JS MB proxy | first chart s, proxy (none / phone) "
        "| 2nd visit MB proxy (none / phone) | first chart / bare, phone (median) |",
        "|---|---|---|---|---|---|---|",
    ]
    for slug, rows in result["pages"].items():
        d, pn, pp = rows.get("direct/none"), rows.get("proxy/none"), rows.get("proxy/phone")
        p = pn or pp
        lines.append(
            f"| {slug} | {cell(d, 'wire_bytes')} | {cell(p, 'wire_bytes')} "
            f"| {cell(p, 'js_bytes')} "
            f"| {cell(pn, 'first_chart_s', scale=1)} / {cell(pp, 'first_chart_s', scale=1)} "
            f"| {cell(pn, 'wire_bytes', 'second')} / {cell(pp, 'wire_bytes', 'second')} "
            f"| {_ratio(rows.get('paired'))} |"
        )
    return "\n".join(lines)


def _ratio(paired: dict | None) -> str:
    if not paired or paired.get("ratio_median") is None:
        return "-"
    lo, hi = min(paired["ratios"]), max(paired["ratios"])
    return f"{paired['ratio_median']:.2f} ({lo:.2f}-{hi:.2f})"
