"""The browser id's cookie script: what the page sends, and the CSP that lets it run."""

from __future__ import annotations

import base64
import hashlib
import re

from poll import store as ps
from poll import views
from tests.conftest import ROOT, make_app


def _csp(path) -> str:
    text = path.read_text()
    found = re.search(r"Content-Security-Policy:? \"([^\"]+)\"", text) or re.search(
        r"contentSecurityPolicy: \"([^\"]+)\"", text
    )
    return found.group(1)


def test_the_shipped_csp_allows_the_cookie_script_by_its_hash():
    digest = base64.b64encode(hashlib.sha256(views.COOKIE_JS.encode()).digest()).decode()
    assert digest == views.COOKIE_JS_HASH
    # one CSP ships: deploy/nginx's, also in each Kubernetes pod (the edge adds no headers)
    for path in (ROOT / "deploy" / "nginx" / "headers.conf",):
        script_src = next(d for d in _csp(path).split(";") if d.strip().startswith("script-src"))
        assert f"'sha256-{digest}'" in script_src.split(), f"{path.name}: update the poll's hash"
        # blob: is there for the chart element (components v2 import its module from a blob:
        # URL, which only a script already running on the page can make); inline scripts
        # are still refused
        assert "'unsafe-inline'" not in script_src and "'unsafe-eval'" not in script_src


def test_the_page_sends_the_hashed_script_with_this_sessions_id():
    at = make_app("pages/poll.py", lang="en")
    at.run(timeout=120)
    browser = at.session_state[views.BROWSER]
    assert ps.valid_browser(browser) and len(browser) >= 32
    bodies = [h.proto.body for h in at.get("html") if "data-road-browser" in h.proto.body]
    assert len(bodies) == 1
    # the script is the hashed text exactly; the id travels in an attribute beside it
    assert f"<script>{views.COOKIE_JS}</script>" in bodies[0]
    assert f'data-road-browser="{browser}"' in bodies[0]
    assert f"max-age={ps.TTL_S}" in views.COOKIE_JS and "SameSite=Lax" in views.COOKIE_JS
    again = make_app("pages/poll.py", lang="en")
    again.run(timeout=120)
    assert again.session_state[views.BROWSER] != browser  # another browser, another id
