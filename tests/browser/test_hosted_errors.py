"""No visitor sees the app's internals.

A page that raises an unexpected exception, on a server started with the hosted settings
of the image (the ``STREAMLIT_*`` variables of the Dockerfile, which deploy/compose.yaml
and deploy/k8s run) and on the repo's own defaults (``.streamlit/config.toml`` alone, as a
host that sets no environment runs it): the browser shows no traceback, no file path and
no exception text; the server log keeps the traceback. The same page with a developer's
``STREAMLIT_CLIENT_SHOW_ERROR_DETAILS=full`` does show them: the check can fail.
"""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import DESKTOP, copy_app, start_server, stop_server
from tests.conftest import ROOT

pytestmark = pytest.mark.browser

SECRET = "road-secret-7f3a"  # the exception's text: it must never reach a visitor
RAISE = f'\nraise RuntimeError("{SECRET} in /srv/road/internal_path.py")\n'
_ENV = re.compile(r"\b(STREAMLIT_[A-Z_]+)=(\S+)")


def hosted_env() -> dict[str, str]:
    """The Streamlit settings the image sets for visitors (Dockerfile ENV lines)."""
    text = (ROOT / "Dockerfile").read_text()
    env = dict(_ENV.findall(text))
    assert env.get("STREAMLIT_CLIENT_SHOW_ERROR_DETAILS") in {"none", "type"}, env
    return env


def _shown_by_a_server(browser, app, log) -> str:
    """What a browser shows of the raising home page on a server of its own (then stopped)."""
    srv = start_server(app, log)
    try:
        return _visible_after_error(browser, srv.url("/?lang=en"))
    finally:
        stop_server(srv)


def _visible_after_error(browser, url: str) -> str:
    context = browser.new_context(viewport=DESKTOP, locale="en-US")
    page = context.new_page()
    try:
        page.goto(url)
        page.locator('[data-testid="stException"], [data-testid="stAlert"]').first.wait_for(
            timeout=120_000
        )
        page.wait_for_timeout(500)
        return page.locator('[data-testid="stApp"]').inner_text()
    finally:
        context.close()


@pytest.mark.timeout(600)
def test_hosted_settings_hide_the_traceback_the_log_keeps_it(browser, tmp_path, monkeypatch):
    (tmp_path / "app").mkdir()
    app = copy_app(tmp_path / "app")
    home = app / "pages" / "home.py"
    home.write_text(home.read_text() + RAISE)

    hosted_log = tmp_path / "hosted.log"
    with monkeypatch.context() as m:
        for key, value in hosted_env().items():
            m.setenv(key, value)
        srv = start_server(app, hosted_log)
    try:
        shown = _visible_after_error(browser, srv.url("/?lang=en"))
    finally:
        stop_server(srv)
    for leak in (SECRET, "Traceback", "RuntimeError", "internal_path", "home.py", str(app)):
        assert leak not in shown, f"the hosted page shows {leak!r}:\n{shown}"
    log = hosted_log.read_text()
    assert SECRET in log and "Traceback" in log and "home.py" in log, log[-2000:]

    # the repo's defaults, no environment: hidden too
    monkeypatch.delenv("STREAMLIT_CLIENT_SHOW_ERROR_DETAILS", raising=False)
    shown = _shown_by_a_server(browser, app, tmp_path / "default.log")
    for leak in (SECRET, "Traceback", "RuntimeError", "internal_path", "home.py"):
        assert leak not in shown, f"the default settings show {leak!r}:\n{shown}"

    # the control: a developer's setting shows the exception (so the checks above can fail)
    monkeypatch.setenv("STREAMLIT_CLIENT_SHOW_ERROR_DETAILS", "full")
    shown = _shown_by_a_server(browser, app, tmp_path / "local.log")
    assert SECRET in shown, shown


def test_no_deploy_recipe_turns_the_error_details_back_on():
    """Compose and Kubernetes run the image (its ENV applies); where they set the error
    details themselves, it is to a hosted value."""
    recipes = [ROOT / "deploy" / "compose.yaml", *sorted((ROOT / "deploy" / "k8s").glob("*.yaml"))]
    assert recipes[0].exists() and len(recipes) > 1
    for path in recipes:
        text = path.read_text()
        for value in re.findall(r"SHOW_ERROR_DETAILS\W+(\w+)", text):
            assert value in {"none", "type"}, (path.name, value)
        assert "showErrorDetails" not in text, path.name
