"""Hostile input in a real Chromium: markup typed into every text box and put into every
URL parameter of every page runs nothing and shows as literal text (every part with a
text box, and the first part of every page; see :func:`contexts`).

For each page and part: open it with every URL parameter it reads set to one of the two
payloads, then type both payloads, as one entry, into every text box (Enter commits).
Nothing may open a dialog (``alert``), no ``<img src=x>`` or ``<script>`` may reach the
DOM, the text must be shown literally or rejected with a message, and the console stays clean.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from tests.browser.conftest import DESKTOP, Tab, screenshot, wait_idle
from tests.ui.test_url_params import PART_CONTEXTS, TYPED_CONTEXTS, page_params
from ui.nav import PAGES

pytestmark = pytest.mark.browser

PAYLOADS = ("<img src=x onerror=alert(1)>", "<script>alert(1)</script>")
# Typed into a box: both markups in one entry (each commit reruns the page: one per box)
TYPED = PAYLOADS[0] + " " + PAYLOADS[1]
BOXES = (
    '[data-testid="stMain"] [data-testid="stTextInput"] input, '
    '[data-testid="stMain"] [data-testid="stTextArea"] textarea'
)
# Injected nodes would look like these (Streamlit's own scripts have a src and no alert).
INJECTED_JS = """() => {
    const main = document.querySelector('[data-testid="stApp"]');
    const imgs = [...main.querySelectorAll('img')].filter(i => i.getAttribute('src') === 'x');
    const scripts = [...document.querySelectorAll('script')].filter(
        s => (s.textContent || '').includes('alert(1)'));
    const handlers = [...main.querySelectorAll('[onerror]')];
    return imgs.length + scripts.length + handlers.length;
}"""


# Settled: the script has stopped (twice in a row, a run can trigger a rerun). Unlike the
# shared ``wait_idle`` this does not wait for every chart: with a stack of notices on top,
# charts below the fold may not draw until they are scrolled into view.
_SETTLED_JS = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    return !!app && app.getAttribute('data-test-script-state') === 'notRunning'
        && !document.querySelector('[data-testid="stStatusWidget"]')
        && !!document.querySelector('[data-testid="stMain"] h1');
}"""


def settle(page, timeout: float = 300_000) -> None:
    wait_idle(page, timeout, settled=_SETTLED_JS)


def open_hostile(browser, url: str) -> tuple[Tab, list[str]]:
    """A fresh tab that records console errors and dialogs from the very first load."""
    context = browser.new_context(viewport=DESKTOP, locale="en-US")
    page = context.new_page()
    tab = Tab(page)
    dialogs: list[str] = []

    def on_dialog(d) -> None:
        dialogs.append(d.message)
        d.dismiss()

    page.on("dialog", on_dialog)
    page.on(
        "console",
        lambda m: (
            tab.errors.append(f"{m.location.get('url', '')} {m.text}")
            if m.type == "error"
            else None
        ),
    )
    page.on("pageerror", lambda exc: tab.errors.append(f"pageerror {exc}"))
    page.goto(url)
    settle(page)
    return tab, dialogs


def contexts() -> list[tuple[str, dict[str, str]]]:
    """Every part with a text box (``TYPED_CONTEXTS``, kept true by the AppTest of every
    part: tests/ui/test_url_params.py), and the first part of every page: markup in every
    URL parameter it reads. The other parts' URL parameters are checked without a browser
    (test_page_survives_garbage_params: no markup reaches an element rendered as HTML)."""
    out = []
    for spec in PAGES:
        for i, ctx in enumerate(PART_CONTEXTS.get(spec.slug, [{}])):
            if i == 0 or (spec.slug, ctx) in TYPED_CONTEXTS:
                out.append((spec.slug, ctx))
    return out


CONTEXTS = contexts()


def hostile_url(slug: str, ctx: dict[str, str]) -> str:
    names = [n for n in page_params(slug) if n not in ctx]
    params = {n: PAYLOADS[i % 2] for i, n in enumerate(names)}
    params.update(ctx, lang="en", present="0")
    path = "/" if slug == PAGES[0].slug else f"/{slug}"
    return f"{path}?{urlencode(params)}"


def plain_url(slug: str, ctx: dict[str, str]) -> str:
    """The part as a student opens it: a markup value in the parameter that picks "your
    own sentence" falls back to a preset, and the box is gone (AppTest checks every
    part's parameters with markup; the browser types into the box)."""
    path = "/" if slug == PAGES[0].slug else f"/{slug}"
    return f"{path}?{urlencode(dict(ctx, lang='en', present='0'))}"


def box_drawn(page, timeout_ms: float) -> bool:
    """Whether a text box is in the main area (waiting up to ``timeout_ms`` for one)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.locator(BOXES).first.wait_for(state="attached", timeout=timeout_ms)
    except PlaywrightTimeout:
        return False
    return True


def first_part(slug: str, ctx: dict[str, str]) -> bool:
    return ctx == PART_CONTEXTS.get(slug, [{}])[0]


def literal_or_rejected(page, payload: str) -> bool:
    """The payload's text is on screen literally (or as its words, which is what the
    tokenizer keeps), or an alert explains why it was not used."""
    text = page.locator('[data-testid="stMain"]').inner_text()
    alerts = page.locator('[data-testid="stMain"] [data-testid="stAlert"]')
    return payload in text or "alert" in text or alerts.count() > 0


@pytest.mark.timeout(1800)
@pytest.mark.parametrize(
    ("slug", "ctx"),
    CONTEXTS,
    ids=[s + (":" + ",".join(c.values()) if c else "") for s, c in CONTEXTS],
)
def test_hostile_text_and_params(server, browser, slug, ctx):
    """The first part of a page: opened with markup in every parameter it reads; a part
    with a text box: markup typed into each box (opened plainly if it is not the first, or
    if the markup in its parameters hid the box)."""
    typed = (slug, ctx) in TYPED_CONTEXTS
    first = first_part(slug, ctx)
    url = hostile_url(slug, ctx) if first else plain_url(slug, ctx)
    tab, dialogs = open_hostile(browser, server.url(url))
    page = tab.page
    try:
        assert page.locator('[data-testid="stMain"] h1').count() >= 1
        assert page.evaluate(INJECTED_JS) == 0
        assert "Traceback" not in page.locator('[data-testid="stApp"]').inner_text()
        # the script may be done before the browser has drawn every element: wait for a box
        if typed and first and not box_drawn(page, 15_000):
            page.goto(server.url(plain_url(slug, ctx)))
            settle(page)
        if typed:
            box_drawn(page, 120_000)
        n_boxes = page.locator(BOXES).count()
        typed_into = 0
        for i in range(n_boxes):
            for payload in (TYPED,):
                box = page.locator(BOXES).nth(i)
                if not box.is_visible() or not box.is_enabled():
                    continue
                typed_into += 1
                box.fill(payload)
                box.press(
                    "Control+Enter" if box.evaluate("e => e.tagName") == "TEXTAREA" else "Enter"
                )
                page.wait_for_timeout(300)
                settle(page)
                assert page.evaluate(INJECTED_JS) == 0, (slug, ctx, payload)
                assert "Traceback" not in page.locator('[data-testid="stApp"]').inner_text()
                assert literal_or_rejected(page, payload), (slug, ctx, payload)
        if typed:  # the list says this part has a box: the test must have used it
            assert typed_into >= 1, f"{slug} {ctx}: {n_boxes} boxes, none typed into"
        page.wait_for_timeout(500)  # an onerror handler would fire by now
        assert dialogs == [], dialogs
        if n_boxes:
            screenshot(page, f"hostile_{slug}{'_' + '_'.join(ctx.values()) if ctx else ''}")
        assert tab.real_errors() == []
    finally:
        page.context.close()
