"""The chart element's plotly.js bundle in a real Chromium: one page of charts, a rerun and a
move to another page of charts in the same tab fetch it exactly once, from the app's own
origin, and draw every chart with no console error. ~1 min on an idle machine."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests.browser.conftest import DESKTOP, wait_idle
from ui import plot

pytestmark = pytest.mark.browser


def _charts(page) -> int:
    return page.locator('[data-testid="stMain"] [data-testid="stPlotlyChart"] .main-svg').count()


def test_the_bundle_is_fetched_once_per_visit_from_the_app(server, browser):
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(180_000)
    page = context.new_page()
    requests, errors = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(server.url("/attention?lang=en"))
        wait_idle(page)
        first = _charts(page)
        # another page of charts in the same tab (the app's own navigation: no reload)
        page.locator('[data-testid="stSidebar"] a[href*="bottleneck"]').first.click()
        page.wait_for_url("**/bottleneck**")
        wait_idle(page)
        assert first >= 1 and _charts(page) >= 1, "no chart drawn"
        bundle = [u for u in requests if "plotly" in u.lower()]
        assert len(bundle) == 1 and f"/app/static/{plot.BUNDLE}?v=" in bundle[0], bundle
        origin = urlsplit(server.url("/")).netloc
        foreign = [u for u in requests if urlsplit(u).scheme in ("http", "https")]
        foreign = [u for u in foreign if urlsplit(u).netloc != origin]
        assert not foreign, f"requests to another origin: {foreign}"
        # only Streamlit's probes of the page's path answer 404 (see tests/browser/conftest.py)
        assert not [e for e in errors if "404" not in e], errors
    finally:
        context.close()
