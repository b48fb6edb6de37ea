"""A student's phone through the deploy proxy: bytes of a first and a second visit.

The app with the image's ``STREAMLIT_*`` settings behind the repo's nginx
(``deploy/nginx/layout.sh``, assets pre-compressed once per Streamlit version), Chromium at
390x844, a fresh profile per page: home and every lesson page's default part, then a second
visit in a new tab. Counted by bench/phone.py: HTTP bytes as sent (CDP ``encodedDataLength``)
plus the websocket as nginx counted it (``$bytes_sent``). Budgets (10^6 bytes a MB): first
visit <= 1.4 MB (bare Streamlit page 2.13 MB), second <= 0.3 MB, no CSP violation. Bytes,
not times: deterministic on a busy machine. ~3.5 min. Missing nginx, its brotli modules or
Chromium skips (fails in CI)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import pytest

from bench import phone, procs
from bench.browser import CHROMIUM
from tests.conftest import ROOT, need
from ui import plot

pytestmark = pytest.mark.browser

NGINX_PORT = 8700  # this module's ports (the helper's range 8700-8729)
APP_PORT = 8701
FIRST_MAX = 1_400_000  # chart bundle, icon font subset, no monospace font (was 2.5 MB before)
SECOND_MAX = 300_000
MODULES = [
    Path("/usr/lib/nginx/modules/ngx_http_brotli_filter_module.so"),
    Path("/usr/lib/nginx/modules/ngx_http_brotli_static_module.so"),
]
ARTIFACTS = ROOT / "tests" / "artifacts"


@pytest.mark.long
@pytest.mark.timeout(900)  # ~2 min on an idle machine, plus the one-off pre-compression
def test_phone_first_and_second_visit_bytes_through_the_deploy_proxy(browser):
    """``browser``: the session's Chromium (tests/browser/conftest.py); every visit opens
    a fresh context, an empty profile. A second Playwright in the same worker would fail
    ("Sync API inside the asyncio loop") once another browser test has started the first."""
    need(str(CHROMIUM), CHROMIUM.exists(), "apt-get install chromium")
    need("nginx", procs.nginx_binary() is not None, "apt-get install nginx")
    for module in MODULES:
        need(
            str(module),
            module.exists(),
            "apt-get install libnginx-mod-http-brotli-filter libnginx-mod-http-brotli-static",
        )
    busy = [p for p in (NGINX_PORT, APP_PORT) if not procs.port_free(p)]
    assert not busy, f"ports {busy} are taken: stop whatever listens there and rerun"
    started = time.monotonic()
    static_dir, made = phone.static_mirror()
    print(f"\npre-compressed assets: {made}", file=sys.stderr)

    folder = Path(tempfile.mkdtemp(prefix="road-phone-test-"))
    folder.chmod(0o755)  # nginx's workers (nobody, when run as root) read its files
    app = proxy = None
    results: dict[str, dict] = {}
    try:
        env = dict(os.environ, ROAD_DATA_DIR=str(folder / "data"), **phone.image_streamlit_env())
        app = procs.start_server("app.py", ROOT, folder / "app.log", 150, port=APP_PORT, env=env)
        proxy = procs.start_nginx(folder / "nginx", NGINX_PORT, [app.upstream], static_dir)
        for slug in phone.lesson_slugs():  # in sequence: one server, one browser
            results[slug] = phone.first_and_second(
                browser, proxy.base + phone.page_path(slug), None, 180.0, proxy
            )
        log = proxy.access_log()
    finally:
        if proxy is not None:
            proxy.stop()
        if app is not None:
            procs.stop_server(app)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        for src in (folder / "app.log", folder / "nginx" / "logs" / "access.log"):
            if src.exists():
                shutil.copy2(src, ARTIFACTS / f"phone_bytes_{src.name}")
        shutil.rmtree(folder, ignore_errors=True)

    lines, problems = [], []
    for slug, r in results.items():
        first, second = r["first"], r["second"]
        lines.append(
            f"{slug:20s} first {first['wire_bytes']:>9,} B (HTTP {first['http_bytes']:,}, JS "
            f"{first['js_bytes']:,}, websocket {first['ws_wire_bytes']}) second "
            f"{second['wire_bytes']:>7,} B ({second['from_cache']} from the cache)"
        )
        for visit in (first, second):
            if "error" in visit:
                problems.append(f"{slug}: {visit['error']}")
            if visit["csp_violations"]:  # the asset headers still let the page work
                problems.append(f"{slug}: CSP violations {visit['csp_violations']}")
        # the counts are real: scripts came over HTTP, the figures over the websocket, and
        # the second visit used the cache
        if first["js_bytes"] <= 0 or not first["ws_wire_bytes"]:
            problems.append(f"{slug}: nothing counted ({first})")
        if slug != "home" and first["first_chart_s"] is None:  # its figure was counted
            problems.append(f"{slug}: no chart drawn on the first visit")
        if second["from_cache"] <= 0:
            problems.append(f"{slug}: the second visit used no cache ({second})")
        if first["wire_bytes"] > FIRST_MAX:
            problems.append(
                f"{slug}: first visit {first['wire_bytes']:,} bytes > {FIRST_MAX:,} "
                f"(HTTP {first['http_bytes']:,}, websocket {first['ws_wire_bytes']:,}; "
                f"biggest {list(first['biggest'].items())[:4]})"
            )
        if second["wire_bytes"] > SECOND_MAX:
            problems.append(
                f"{slug}: second visit {second['wire_bytes']:,} bytes > {SECOND_MAX:,} "
                f"(HTTP {second['http_bytes']:,}, websocket {second['ws_wire_bytes']})"
            )
    print("\n" + "\n".join(lines), file=sys.stderr)
    print(f"phone-bytes test: {time.monotonic() - started:.0f} s", file=sys.stderr)
    # Streamlit's scripts came pre-compressed from disk (no upstream), as brotli
    scripts = [e for e in log if "/static/js/index." in e["request"]]
    assert scripts, "no page loaded Streamlit's main script"
    for e in scripts:
        assert e["upstream"] == "" and e["encoding"] == "br", e
    # the chart element's bundle (ui/plot.py), never Streamlit's 4.7 MB plotly chunk: once
    # per first visit of a page with charts (a fresh profile each), never on a second
    # visit (cached), compressed as brotli
    assert not [e for e in log if "/static/js/PlotlyChart." in e["request"]]
    bundle = [e for e in log if "/app/static/" + plot.BUNDLE in e["request"]]
    charted = [slug for slug, r in results.items() if r["first"]["first_chart_s"] is not None]
    assert len(bundle) == len(charted), (len(bundle), charted)
    assert all(e["status"] == 200 and e["encoding"] == "br" for e in bundle), bundle
    assert not problems, "\n".join(problems)
