"""A student's phone on a school network: bytes on the wire and the first chart.

The app and the bare page, directly and through nginx from ``deploy/nginx/``. Per run
(target x emulation) and page: a fresh 390x844 profile's first visit, then a second in a new
tab; bytes from CDP (and nginx's count of the websocket), the first chart's time. The budget
pairs each lesson page's first visit with the bare page's (:func:`paired_visits`).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from bench import browser as B
from bench import procs
from bench.procs import ROOT
from bench.stats import med

PRECOMPRESS = ROOT / "deploy" / "precompress.py"
PHONE_VIEWPORT = {"width": 390, "height": 844}
EMULATIONS = {"none": None, "phone": {"cpu_slowdown": 4, "mbps": 20, "latency_ms": 40}}
BARE = "bare"
PAIRED_RUN = "proxy/phone"  # the emulation the budget is written for
FIRST_CHART_LIMIT = 0.8  # lesson page / bare page, median of the paired visits
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


def image_streamlit_env() -> dict[str, str]:
    """The ``STREAMLIT_*`` settings of the image (its Dockerfile's ENV)."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    words = [w for line in text.splitlines() if line.startswith("ENV ") for w in line[4:].split()]
    pairs = [w.partition("=") for w in words]
    return {key: value for key, sep, value in pairs if sep and key.startswith("STREAMLIT_")}


def static_mirror() -> tuple[Path, dict]:
    """deploy/precompress.py's copy of Streamlit's /static/: (folder, its STAMP)."""
    import streamlit

    # not under the checkout: nginx's workers (`nobody`) must traverse every folder above it
    out = Path(tempfile.gettempdir()) / f"road-static-{streamlit.__version__}"
    first_visit = PRECOMPRESS.parent / "first-visit-assets.txt"  # what a first visit loads
    icons = PRECOMPRESS.parent / "material-icons.txt"  # the image's icon font subset
    cmd = [sys.executable, str(PRECOMPRESS), str(out), "--only-these", str(first_visit)]
    run = subprocess.run(cmd + ["--icons", str(icons)], capture_output=True, text=True, timeout=900)
    if run.returncode != 0:
        raise RuntimeError(f"deploy/precompress.py failed:\n{run.stderr[-3000:]}")
    return out, json.loads(run.stderr.strip().splitlines()[-1])


PROBE = re.compile(r"^/[\w-]+/_stcore/(health|host-config)$")


class Wire:
    """Bytes one tab receives, from its CDP Network events (under ``emulation``)."""

    def __init__(self, cdp, emulation: dict | None) -> None:
        self.n: Counter = Counter()  # http, js, ws (bytes), ws_frames, requests, from_cache, failed
        self.by_url: Counter = Counter()  # bytes received per URL path (not from the cache)
        self._type: dict[str, str] = {}
        self._url: dict[str, str] = {}
        self._cached: set[str] = set()
        cdp.on("Network.requestServedFromCache", lambda e: self._cached.add(e["requestId"]))
        cdp.on("Network.responseReceived", self._response)
        cdp.on("Network.loadingFinished", self._finished)
        cdp.on("Network.loadingFailed", lambda e: self.n.update(failed=int(not e.get("canceled"))))
        cdp.on("Network.webSocketFrameReceived", self._frame)
        # what a slow visit met: a websocket opened again (the frontend reconnecting) or an
        # HTTP error (nginx's 429 for a client over its limits, a 5xx)
        cdp.on("Network.webSocketCreated", lambda e: self.n.update(websockets=1))
        self.http_errors: Counter = Counter()
        cdp.on("Network.responseReceived", self._status)
        cdp.send("Network.enable")
        if emulation is not None:
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": emulation["cpu_slowdown"]})
            rate = emulation["mbps"] * 1_000_000 / 8  # bytes a second
            net = {"offline": False, "latency": emulation["latency_ms"], "uploadThroughput": rate}
            cdp.send("Network.emulateNetworkConditions", net | {"downloadThroughput": rate})

    def _response(self, e: dict) -> None:
        self._type[e["requestId"]] = e.get("type", "")
        r = e.get("response", {})
        self._url[e["requestId"]] = r.get("url", "").split("?", 1)[0].split("/", 3)[-1]
        if r.get("fromDiskCache") or r.get("fromPrefetchCache") or r.get("fromServiceWorker"):
            self._cached.add(e["requestId"])

    def _status(self, e: dict) -> None:
        status = int(e.get("response", {}).get("status", 0))
        path = "/" + self._url.get(e["requestId"], "?")
        # not Streamlit's two probes of a page's path as a base path (tests/browser/conftest.py)
        if status >= 400 and not (status == 404 and PROBE.match(path)):
            self.http_errors[f"{status} {path}"] += 1

    def _finished(self, e: dict) -> None:
        rid = e["requestId"]
        self.n["requests"] += 1
        if rid in self._cached:
            self.n["from_cache"] += 1
            return
        size = int(e.get("encodedDataLength", 0))
        self.n.update(http=size, js=size if self._type.get(rid) == "Script" else 0)
        self.by_url["/" + self._url.get(rid, "?")] += size

    def _frame(self, e: dict) -> None:
        """Its payload (text as UTF-8, binary base64 from CDP) and the header a server sends."""
        data, text = e["response"].get("payloadData", ""), e["response"].get("opcode") == 1
        n = len(data.encode()) if text else len(base64.b64decode(data)) if data else 0
        self.n.update(ws=n + (2 if n < 126 else 4 if n < 65536 else 10), ws_frames=1)

    def summary(self) -> dict:
        n = self.n
        out = {
            "total_bytes": n["http"] + n["ws"],
            **{f"{k}_bytes": n[k] for k in ("http", "js", "ws")},
        }
        out |= {k: n[k] for k in ("ws_frames", "requests", "from_cache", "failed", "websockets")}
        return out | {"http_errors": dict(self.http_errors)}


def visit(
    context, url: str, emulation: dict | None, timeout_s: float, proxy: procs.Proxy | None = None
) -> dict:
    """Open ``url`` in a new tab of ``context``; measure it until it has settled."""
    since = proxy.log_mark() if proxy else 0
    out: dict = {}
    page = context.new_page()
    csp: list[str] = []  # Content-Security-Policy violations the console reports
    page.on("console", lambda m: csp.append(m.text) if "Content Security Policy" in m.text else 0)
    try:
        cdp = context.new_cdp_session(page)
        wire = Wire(cdp, emulation)
        started = time.monotonic()
        page.goto(url, wait_until="commit", timeout=timeout_s * 1000)
        error = None
        try:
            state = B.wait_settled(page, timeout_s)
            # slowed down, the page can look settled for seconds before its chart exists
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
        out["biggest"] = dict(wire.by_url.most_common(12))
    finally:
        page.close()  # its websocket closes: nginx logs it
    if proxy is not None:
        out["ws_wire_bytes"] = ws_wire_bytes(proxy, since)
    # HTTP + the websocket as nginx counted it, else Chromium's frames (decompressed: at most)
    ws = out.get("ws_wire_bytes")
    out["wire_bytes"] = out["http_bytes"] + (out["ws_bytes"] if ws is None else ws)
    return out


def first_and_second(browser, url: str, emulation, timeout_s: float, proxy=None, second=True):
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
    """nginx's bytes sent on the websockets closed since log byte ``since`` (None: none in 5 s)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        entries = [e for e in proxy.access_log(since) if "/_stcore/stream" in e.get("request", "")]
        if entries:
            return sum(int(e["bytes"]) for e in entries)
        time.sleep(0.1)
    return None


COUNTED = (
    "HTTP: CDP encodedDataLength (headers + encoded body), cache hits 0; websocket: "
    "frames received, payload (after permessage-deflate) + frame header; "
    "ws_wire_bytes: nginx's $bytes_sent on the websocket (proxy only)"
)


def run(args) -> dict:
    """Every page under every run of ``args.runs``, then the paired visits."""
    pages = args.pages or lesson_slugs()
    result = {"date": time.strftime("%Y-%m-%d %H:%M"), "machine": procs.machine()}
    result |= {"viewport": PHONE_VIEWPORT, "emulations": EMULATIONS}
    result |= {"image_env": image_streamlit_env(), "counted": COUNTED, "pages": {}}
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
        proxies = {}
        for name, srv in servers.items():
            nginx = procs.start_nginx(
                folder / f"nginx-{name}", procs.free_port(), [srv.upstream], static_dir
            )
            proxies[name] = nginx
            stack.callback(nginx.stop)
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
        proxy = proxies[name] if target == "proxy" else None
        url = (proxy or servers[name]).base + page_path(slug)
        rows[run_name] = one = first_and_second(browser, url, EMULATIONS[emu], args.timeout, proxy)
        f, w = one["first"], "wire_bytes"
        msg = (
            f"{slug:20s} {run_name:12s} first {f[w] / 1e6:5.2f} MB (js {f['js_bytes'] / 1e6:4.2f})"
        )
        msg += f" chart {f['first_chart_s']} s; second {one['second'][w] / 1e6:5.3f} MB"
        print(msg, file=sys.stderr, flush=True)


def paired_summary(page_s: list, bare_s: list, limit: float = FIRST_CHART_LIMIT) -> dict:
    """One page's budget figure: per pair ``page / bare`` (a pair without a chart is left out and
    counted), the median, and whether it is within ``limit``."""
    ratios = [round(p / b, 3) for p, b in zip(page_s, bare_s, strict=True) if p is not None and b]
    out: dict = {"page_s": page_s, "bare_s": bare_s, "ratios": ratios}
    out["missing"] = len(page_s) - len(ratios)
    out["ratio_median"] = med(ratios)
    out["within"] = bool(ratios) and out["ratio_median"] <= limit and not out["missing"]
    return out


def paired_visits(browser, servers, proxies, pages, args, result) -> None:
    """``args.reps`` rounds of each lesson page's first visit, then the bare page's."""
    emu = PAIRED_RUN.split("/")[1]
    base = {n: proxies[n].base for n in servers}  # PAIRED_RUN is through the proxy
    lessons = [s for s in pages if s not in ("home", BARE)]
    got: dict[str, tuple[list, list]] = {s: ([], []) for s in lessons}

    def first_chart(url: str) -> tuple[float | None, str]:  # a first visit, no byte counts
        first = first_and_second(browser, url, EMULATIONS[emu], args.timeout, second=False)
        first = first["first"]
        # what it met, said when it was not one websocket and no HTTP error
        met = f"websockets {first.get('websockets')}, HTTP errors {first.get('http_errors')}"
        plain = first.get("websockets") == 1 and not first.get("http_errors")
        return first["first_chart_s"], "" if plain else f" ({met})"

    for rep in range(args.reps):
        for slug in lessons:
            p, p_met = first_chart(base["app"] + page_path(slug))
            b, b_met = first_chart(base[BARE] + page_path(BARE))
            got[slug][0].append(p)
            got[slug][1].append(b)
            line = f"paired {rep + 1}/{args.reps} {slug:20s} {p} s{p_met} / bare {b} s{b_met}"
            print(line, file=sys.stderr)
    for slug, (p, b) in got.items():
        result["pages"][slug]["paired"] = paired_summary(p, b)
    result["budget"] = {
        "line": f"{PAIRED_RUN}: first chart of every lesson page <= {FIRST_CHART_LIMIT}x the "
        f"bare page's (median of {args.reps} paired visits)",
        "pages": {s: result["pages"][s]["paired"]["ratio_median"] for s in lessons},
        "met": all(result["pages"][s]["paired"]["within"] for s in lessons),
    }


def table(result: dict) -> str:
    """The README's table: MB on the wire (10^6 bytes), first chart s, second visit, per page."""

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
        p, ratio, paired = pn or pp, "-", rows.get("paired") or {}
        if paired.get("ratio_median") is not None:
            lo, hi = min(paired["ratios"]), max(paired["ratios"])
            ratio = f"{paired['ratio_median']:.2f} ({lo:.2f}-{hi:.2f})"
        lines.append(
            f"| {slug} | {cell(d, 'wire_bytes')} | {cell(p, 'wire_bytes')} "
            f"| {cell(p, 'js_bytes')} "
            f"| {cell(pn, 'first_chart_s', scale=1)} / {cell(pp, 'first_chart_s', scale=1)} "
            f"| {cell(pn, 'wire_bytes', 'second')} / {cell(pp, 'wire_bytes', 'second')} "
            f"| {ratio} |"
        )
    return "\n".join(lines)
