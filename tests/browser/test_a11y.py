"""WCAG 2.0/2.1 A and AA in Chromium: axe-core (shipped by ``axe-playwright-python``, pinned)
finds no violation outside :data:`KNOWN` on every part of every page.

The test: every part in both languages at 1280x800, every part on a phone (390x844; each
page in one language, English and Chinese in turn) and every page's first part in presenter
mode (Chinese). ``python -m tests.browser.test_a11y
--all`` sweeps every part in every combination (laptop, phone, presenter; en, zh). One
server; one tab per page and view, a few at once; axe is injected once per tab and the part
is switched by its own button in the loaded page (a click and a rerun, cheaper than a load).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import threading
import time
from dataclasses import dataclass

import pytest

from bench.browser import CHROMIUM, CHROMIUM_ARGS, IDLE_JS, PHONE_UA
from core.i18n import translate
from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.slides import part_url
from ui.nav import PAGES

pytestmark = pytest.mark.browser

TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
OPTIONS = {"runOnly": {"type": "tag", "values": TAGS}, "resultTypes": ["violations"]}
# Violations inside Streamlit itself that the app cannot avoid: rule id -> the upstream reason.
# (None today: every violation measured was the app's theme or markup, and is fixed.)
KNOWN: dict[str, str] = {}
MODES = ("laptop", "phone", "present")
# Without --all: every part on a phone too, each page in one language (English and Chinese
# in turn from page to page: the phone's own CSS and layout on every part, both languages
# across the lesson), and the first part on the projector in Chinese.
LEAN = (("present", "zh"),)
TABS = 3  # pages open at once: the 2-core server, not the browser, is the limit


@dataclass(frozen=True)
class View:
    slug: str
    lang: str
    mode: str  # one of MODES
    parts: tuple[str | None, ...]  # switched in this order within one loaded tab


def views(full: bool) -> list[View]:
    """The test's views (``full``: every part in every mode and language)."""
    out = []
    for i, spec in enumerate(p for p in PAGES if p.listed):
        parts: tuple[str | None, ...] = spec.parts or (None,)
        phone_lang = ("en", "zh")[i % 2]
        for lang in ("en", "zh"):
            for mode in MODES:
                if full or mode == "laptop" or (mode, lang) == ("phone", phone_lang):
                    out.append(View(spec.slug, lang, mode, parts))
                elif (mode, lang) in LEAN:
                    out.append(View(spec.slug, lang, mode, parts[:1]))
    # the longest first, so that the last tab running is a short one
    return sorted(out, key=lambda v: -len(v.parts))


async def _settle(page) -> None:
    """Until the app is idle twice in a row 0.6 s apart, every chart drawn."""
    for _ in range(30):
        await page.wait_for_function(IDLE_JS, arg=True, timeout=180_000, polling=200)
        await page.wait_for_timeout(600)
        if await page.evaluate(IDLE_JS, True):
            return
    raise AssertionError("the app never settled")


async def _axe(page, where: str) -> list[str]:
    """One line per violating node that :data:`KNOWN` does not name."""
    result = await page.evaluate(f"axe.run(document, {json.dumps(OPTIONS)})")
    return [
        f"{where}: {v['id']} ({v['impact']}) {n['target']} {n['failureSummary'][:240]!r}"
        for v in result["violations"]
        if v["id"] not in KNOWN
        for n in v["nodes"]
    ]


async def _view(browser, base: str, view: View, axe_js: str) -> tuple[list[str], int]:
    """Every part of ``view`` in one tab: its violations, and the number of parts checked."""
    phone = {"user_agent": PHONE_UA, "is_mobile": True} if view.mode == "phone" else {}
    viewport = PHONE if view.mode == "phone" else DESKTOP
    context = await browser.new_context(viewport=viewport, locale="en-US", **phone)
    context.set_default_timeout(180_000)
    page = await context.new_page()
    out: list[str] = []
    try:
        first = view.parts[0]
        await page.goto(part_url(base, view.slug, first, view.lang, view.mode == "present"))
        await _settle(page)
        await page.evaluate(axe_js)
        for part in view.parts:
            where = f"{view.slug}/{part or '-'} [{view.lang}, {view.mode}]"
            if part != first:
                label = translate(f"{view.slug}.part.{part}", view.lang)
                main = page.locator('[data-testid="stMain"]')
                # the part selector: a segmented control, each option a radio button
                await main.get_by_role("radio", name=label, exact=True).first.click(timeout=30_000)
                await page.wait_for_function(
                    "p => new URLSearchParams(location.search).get('part') === p", arg=part
                )
                await _settle(page)
            out += await _axe(page, where)
    finally:
        await context.close()
    return out, len(view.parts)


async def _sweep(base: str, chosen: list[View], tabs: int) -> tuple[list[str], int]:
    from axe_playwright_python.base import AXE_SCRIPT
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        gate = asyncio.Semaphore(tabs)

        async def one(view: View) -> tuple[list[str], int]:
            async with gate:
                try:
                    return await _view(browser, base, view, AXE_SCRIPT)
                except Exception as exc:  # noqa: BLE001 - reported with the rest
                    return [f"{view.slug} [{view.lang}, {view.mode}]: {exc!s:.300}"], 0

        done = await asyncio.gather(*(one(v) for v in chosen))
        await browser.close()
    return [line for lines, _ in done for line in lines], sum(n for _, n in done)


def sweep(base: str, chosen: list[View], tabs: int = TABS) -> tuple[list[str], int]:
    """axe over ``chosen`` against the server at ``base``: the violations not in
    :data:`KNOWN` (one line per node) and the number of parts checked. Runs the async
    Playwright API in a thread of its own (a test session may hold the sync API)."""
    box: dict = {}

    def run() -> None:
        try:
            box["out"] = asyncio.run(_sweep(base, chosen, tabs))
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["out"]


@pytest.mark.long
@pytest.mark.timeout(900)
def test_no_axe_violations(server):
    """Every part, en and zh, at 1280x800 and on a phone (390x844, each page in one of the
    two languages, both across the pages); every page's first part in presenter mode (zh):
    no WCAG A/AA violation outside :data:`KNOWN`."""
    start = time.monotonic()
    chosen = views(full=False)
    assert {v.lang for v in chosen if v.mode == "phone"} == {"en", "zh"}
    problems, checked = sweep(server.url(), chosen)
    print(f"axe: {checked} views in {time.monotonic() - start:.0f} s")
    assert checked >= 3 * sum(max(1, len(p.parts)) for p in PAGES if p.listed)
    assert problems == [], "\n".join(problems)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="every part in every mode")
    parser.add_argument("--page", action="append", help="only this page (repeatable)")
    parser.add_argument("--tabs", type=int, default=TABS)
    parser.add_argument("--port", type=int, default=0, help="the server's port (default: free)")
    args = parser.parse_args()
    from bench.procs import start_server, stop_server
    from tests.browser.conftest import ARTIFACTS, ROOT

    chosen = [v for v in views(args.all) if not args.page or v.slug in args.page]
    srv = start_server(
        "app.py", ROOT, ARTIFACTS / "a11y-server.log", timeout=60, port=args.port or None
    )
    try:
        start = time.monotonic()
        problems, checked = sweep(srv.url(), chosen, args.tabs)
    finally:
        stop_server(srv)
    print("\n".join(problems))
    print(f"{len(problems)} violating nodes in {checked} views, {time.monotonic() - start:.0f} s")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
