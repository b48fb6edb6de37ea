"""Browser fixtures: a live ``streamlit run`` server and Debian's Chromium via Playwright.

Without /usr/bin/chromium the browser tests skip with a message, except when the ``CI``
environment variable is set: there a missing browser is a failure, never a skip.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bench import procs
from bench.browser import CHROMIUM, CHROMIUM_ARGS, PHONE_UA
from bench.procs import Server, free_port, stop_server
from tests.conftest import APP_PACKAGES, ROOT, need

__all__ = ["PHONE_UA", "Server", "free_port", "start_server", "stop_server"]

ARTIFACTS = ROOT / "tests" / "artifacts"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}  # with PHONE_UA: a phone says "Mobile" (bench.browser)

# Streamlit's own frontend, opened on a page path such as /bottleneck, first probes
# /bottleneck/_stcore/health and /bottleneck/_stcore/host-config (in case the app is
# served under that base path), gets 404 and then connects at /. Those two probes are
# the only console errors tolerated, and only in exactly that shape.
_BASE_PATH_PROBE = re.compile(r"^http://127\.0\.0\.1:\d+/[\w-]+/_stcore/(health|host-config)$")


def _require_chromium() -> None:
    need(str(CHROMIUM), CHROMIUM.exists(), "apt-get install chromium (browser tests need it)")


def start_server(app_dir: Path, log: Path) -> Server:
    """``streamlit run app.py`` in ``app_dir`` on a free loopback port; waits for health
    (the bench's server, with the same flags)."""
    return procs.start_server("app.py", app_dir, log, timeout=60)


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    _require_chromium()
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")  # one server per xdist worker
    srv = start_server(ROOT, ARTIFACTS / f"server{'-' + worker if worker else ''}.log")
    yield srv
    stop_server(srv)


# What Streamlit logs when a run raises (the visitor sees an error box, or a part loses its
# controls): no browser test may leave one in its server's log.
FAILED_RUN = "Uncaught app execution"


def log_offset(server: Server) -> int:
    return server.log.stat().st_size if server.log.exists() else 0


def failed_runs(server: Server, start: int) -> str:
    """The server's log from byte ``start`` when it holds a failed run, else ''."""
    with server.log.open("rb") as f:
        f.seek(start)
        text = f.read().decode(errors="replace")
    return text if FAILED_RUN in text else ""


@pytest.fixture(autouse=True)
def _no_failed_run(request):
    """Every test on the shared server: no run of the app failed while it ran."""
    if "server" not in request.fixturenames:
        yield
        return
    srv = request.getfixturevalue("server")
    start = log_offset(srv)
    yield
    failed = failed_runs(srv, start)
    if failed:
        at = failed.index(FAILED_RUN)
        pytest.fail(f"a run of the app failed during this test:\n{failed[at : at + 4000]}")


@pytest.fixture(scope="session")
def browser():
    _require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@dataclass
class Tab:
    page: object
    errors: list[str] = field(default_factory=list)

    def real_errors(self) -> list[str]:
        return [e for e in self.errors if not _BASE_PATH_PROBE.match(e.split(" ", 1)[0])]


def open_tab(browser, url: str, viewport: dict, locale: str = "en-US") -> Tab:
    """Open ``url`` in a fresh context and wait until the app has finished running."""
    # a phone-sized tab is a phone: it says so in its User-Agent, as real phones do
    phone = {"user_agent": PHONE_UA, "is_mobile": True} if viewport == PHONE else {}
    context = browser.new_context(viewport=viewport, locale=locale, **phone)
    # generous limits: the first visit to a page loads its models and caches its analyses,
    # which takes a while on a busy 2-core machine (nothing here is a timing assertion)
    context.set_default_timeout(180_000)
    page = context.new_page()
    tab = Tab(page)

    def on_console(msg) -> None:
        if msg.type == "error":
            tab.errors.append(f"{msg.location.get('url', '')} {msg.text}")

    page.on("console", on_console)
    page.on("pageerror", lambda exc: tab.errors.append(f"pageerror {exc}"))
    page.goto(url)
    wait_idle(page)
    return tab


@contextmanager
def reopened(browser, url: str, viewport: dict) -> Iterator[Tab]:
    """``url`` opened in a new browser (a deep link shared with someone): the tab, then,
    once the caller's checks are done, no console error, and the tab closed."""
    tab = open_tab(browser, url, viewport)
    try:
        yield tab
        assert tab.real_errors() == []
    finally:
        tab.page.context.close()


_IDLE_JS = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
    if (document.querySelector('[data-testid="stStatusWidget"]')) return false;
    if (!document.querySelector('[data-testid="stMain"] h1')) return false;
    // lazily loaded elements (charts among them) show a skeleton until their code arrives
    if (document.querySelector('[data-testid="stSkeleton"], [data-testid="stSkeletonElement"]'))
        return false;
    // every chart container holds a drawn plotly figure (an SVG root with its layers)
    const boxes = document.querySelectorAll('[data-testid="stPlotlyChart"]');
    const plots = document.querySelectorAll('.js-plotly-plot');
    if (plots.length < boxes.length) return false;
    return [...plots].every(p => p.querySelector('.main-svg'));
}"""


def wait_idle(page, timeout: float = 180_000, settled: str = "") -> None:
    """Wait until the app has stopped running (twice in a row, 0.7 s apart: a run can be
    followed by a rerun) and every plotly chart has drawn its SVG (or until the page's
    own ``settled`` test, a JS function, holds twice in a row)."""
    test = settled or _IDLE_JS
    for _ in range(20):
        page.wait_for_function(test, timeout=timeout, polling=250)
        page.wait_for_timeout(700)
        if page.evaluate(test):
            return
    raise AssertionError("the app never settled")


def screenshot(page, name: str) -> Path:
    """Save the whole app (Streamlit scrolls inside its own container) under tests/artifacts."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    height = page.evaluate(
        """() => {
            const m = document.querySelector('[data-testid="stMain"]');
            return Math.max(m ? m.scrollHeight : 0, window.innerHeight);
        }"""
    )
    vp = page.viewport_size
    page.set_viewport_size({"width": vp["width"], "height": min(int(height), 6000)})
    page.wait_for_timeout(300)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    page.set_viewport_size(vp)
    return path


def copy_app(dest: Path) -> Path:
    """A copy of the app's files (for tests that need a server of their own)."""
    for name in ("app.py",):
        shutil.copy2(ROOT / name, dest / name)
    for d in (*APP_PACKAGES, "static", ".streamlit"):
        if (ROOT / d).exists():
            shutil.copytree(ROOT / d, dest / d, ignore=shutil.ignore_patterns("__pycache__"))
    (dest / "assets").mkdir()
    shutil.copytree(ROOT / "assets" / "i18n", dest / "assets" / "i18n")
    for name in ("icon.png", "glossary.json"):  # the glossary: the parts' new words
        shutil.copy2(ROOT / "assets" / name, dest / "assets" / name)
    if (ROOT / "assets" / "models").exists():
        (dest / "assets" / "models").symlink_to(ROOT / "assets" / "models")
    return dest


# Per drawn chart: the margins the app set (charts.screen.margins.preset) and the ones plotly
# ended with. Plotly only ever grows a margin, and when it does it draws the chart again.
_MARGINS_JS = """() => [...document.querySelectorAll('.js-plotly-plot')].map((g, i) => {
    const m = (g.layout && g.layout.margin) || {}, s = (g._fullLayout || {})._size || {};
    const title = (g.layout && g.layout.title) || {};
    return {i, set: {l: m.l, r: m.r, t: m.t, b: m.b}, got: {l: s.l, r: s.r, t: s.t, b: s.b},
            titleTop: !!(title.text && title.automargin)};
})"""


def grown_margins(page, where: str) -> list[str]:
    """Charts whose margins plotly had to grow beyond what the app set, so that it drew them
    twice (the estimate of ``charts.screen.margins`` fell short), one line each. The top
    margin of a title that pushes it itself (presenter mode) is plotly's, on purpose
    (``charts.screen.margins.title_pushes``)."""
    out = []
    for c in page.evaluate(_MARGINS_JS):
        if c["set"]["l"] is None:
            out.append(f"{where}: chart #{c['i']} has no preset margins")
            continue
        sides = "lrb" if c["titleTop"] else "lrtb"
        grown = {k: (c["set"][k], c["got"][k]) for k in sides if c["got"][k] > c["set"][k]}
        if grown:
            out.append(f"{where}: chart #{c['i']} margins grew (set, drawn) {grown}")
    return out


# The class poll's histogram as drawn: its answers and counts (decoded: data may be binary).
COUNTS_JS = """() => {
  const plot = document.querySelector('[data-testid="stMain"] .js-plotly-plot');
  const tr = plot && plot._fullData && plot._fullData[0];
  if (!tr) return null;
  return {x: Array.from(tr.x, String), y: Array.from(tr.y, Number)};
}"""


def wait_counts(page, want: dict[str, int], limit_s: float) -> dict[str, int]:
    """The teacher's live histogram (refreshed every 2 s), polled until it shows ``want``
    (bounded by ``limit_s``); what it showed last."""
    deadline = time.monotonic() + limit_s
    seen: dict[str, int] = {}
    while time.monotonic() < deadline:
        data = page.evaluate(COUNTS_JS)
        if data:
            seen = {x: int(y) for x, y in zip(data["x"], data["y"], strict=True)}
            if all(seen.get(k, 0) == v for k, v in want.items()):
                return seen
        page.wait_for_timeout(200)
    return seen
