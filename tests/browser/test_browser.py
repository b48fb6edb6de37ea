"""Every page in a real Chromium: renders, draws its charts, no console errors, deep links."""

from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from core.i18n import translate
from tests.browser.conftest import (
    DESKTOP,
    PHONE,
    copy_app,
    grown_margins,
    open_tab,
    reopened,
    screenshot,
    start_server,
    stop_server,
    wait_idle,
)
from ui.nav import PAGES

pytestmark = pytest.mark.browser


def page_path(spec) -> str:
    return "/" if spec is PAGES[0] else f"/{spec.slug}"


def h1(tab) -> str:
    return tab.page.locator('[data-testid="stMain"] h1').first.inner_text().strip()


# The reading layout of a laptop (presenter off), every page in both languages, reached as
# a visitor does: the first page by its link, the others through the sidebar's own links (no
# reload; an unlisted page, the poll, by its link). Presenter mode on a projector and the
# phone, every part of every page: tests/browser/test_slides.py.
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_page_renders(server, browser, lang):
    tab = open_tab(browser, server.url(f"{page_path(PAGES[0])}?lang={lang}&present=0"), DESKTOP)
    page, problems = tab.page, []
    try:
        for i, spec in enumerate(PAGES):
            title = translate(f"page.{spec.slug}.title", lang)
            if i > 0 and spec.listed:
                sidebar = page.locator('[data-testid="stSidebar"]')
                sidebar.get_by_role("link", name=title, exact=True).click()
                page.wait_for_url(f"**/{spec.slug}?**", timeout=60_000)
                wait_idle(page)
            elif i > 0:
                page.goto(server.url(f"{page_path(spec)}?lang={lang}&present=0"))
                wait_idle(page)
            if h1(tab) != title:
                problems.append(f"{spec.slug}: title {h1(tab)!r}, not {title!r}")
            if f"lang={lang}" not in page.url:
                problems.append(f"{spec.slug}: the URL lost the language ({page.url})")
            overflow = page.evaluate(
                "() => document.documentElement.scrollWidth - window.innerWidth"
            )
            if overflow > 1:
                problems.append(f"{spec.slug}: page scrolls sideways by {overflow}px")
            problems += grown_margins(page, f"{spec.slug} [{lang}]")  # each chart drawn once
            screenshot(page, f"{spec.slug}_{lang}_desktop")
            problems += [f"{spec.slug}: console {e}" for e in tab.real_errors()]
            tab.errors.clear()
    finally:
        page.context.close()
    assert problems == [], "\n".join(problems)


def test_deep_link_round_trip(server, browser):
    tab = open_tab(browser, server.url("/?lang=zh&present=1&task=probe"), DESKTOP)
    page = tab.page
    try:
        main = page.locator('[data-testid="stMain"]')
        assert "当前显示 7 个" in main.inner_text()
        # change the filter in the UI: the URL follows ...
        page.locator("[data-testid=stButtonGroup] button", has_text="语言模型").click()
        page.wait_for_url("**task=lm**", timeout=15_000)
        wait_idle(page)
        assert "当前显示 1 个" in main.inner_text()
        # ... and reopening that URL in a new browser restores the same view
        url = page.url
        assert "lang=zh" in url and "present=1" in url
        with reopened(browser, url, PHONE) as again:
            assert "当前显示 1 个" in again.page.locator('[data-testid="stMain"]').inner_text()
        assert tab.real_errors() == []
    finally:
        page.context.close()


def test_language_switch_and_share_dialog(server, browser):
    tab = open_tab(browser, server.url("/?lang=en&present=0"), DESKTOP, locale="zh-CN")
    page = tab.page
    try:
        assert h1(tab) == translate("page.home.title", "en")  # the URL beats the locale
        language = page.locator('[data-testid="stSidebar"] [data-testid="stButtonGroup"]').first
        language.locator("button[aria-checked]", has_text="简体中文").click()
        page.wait_for_url("**lang=zh**", timeout=15_000)
        wait_idle(page)
        assert h1(tab) == translate("page.home.title", "zh")
        page.get_by_role("button", name=translate("share.button", "zh")).click()
        dialog = page.get_by_role("dialog")
        dialog.wait_for(timeout=15_000)
        dialog.locator("img").first.wait_for(timeout=15_000)
        # the link is an st.code block, drawn by a bundle the browser may fetch only now
        # (home itself needs none): wait for its text rather than for the image alone
        try:
            page.wait_for_function(
                "() => (document.querySelector('[role=dialog]')?.innerText || '')"
                ".includes('lang=zh')",
                timeout=15_000,
            )
        except PlaywrightTimeout:
            pass  # the assertion below says what the dialog shows instead
        assert "lang=zh" in dialog.inner_text() and "present=0" in dialog.inner_text()
        page.wait_for_timeout(500)
        page.screenshot(path=str(screenshot.__globals__["ARTIFACTS"] / "share_dialog_zh.png"))
        assert tab.real_errors() == []
    finally:
        page.context.close()


PROBE_PAGE = """
import ui
from charts import base

ui.begin_page("home")
ui.chart(base.bar_chart(["a", "b"], [1, 2], title=ui.t("page.home.title"),
                          presenter=ui.presenter()))
"""


def test_first_request_deep_link_on_fresh_server(browser, tmp_path):
    """A page URL as the very first request after start gets the whole app, in its language.

    Uses a copy of the app with one extra page, so the check holds whatever pages exist.
    """
    app = copy_app(tmp_path)
    (app / "pages" / "deeplink_probe.py").write_text(PROBE_PAGE, encoding="utf-8")
    with (app / "ui" / "nav.py").open("a", encoding="utf-8") as f:
        f.write('\nPAGES = PAGES + (PageSpec("deeplink_probe"),)\n')
    srv = start_server(app, tmp_path / "server.log")
    try:
        tab = open_tab(browser, srv.url("/deeplink_probe?lang=zh&present=0"), DESKTOP)
        page = tab.page
        try:
            selector = page.locator('[data-testid="stSidebar"] [data-testid="stButtonGroup"]')
            selector.first.wait_for(timeout=15_000)
            shown = selector.first.locator('button[aria-checked="true"]').inner_text()
            assert "简体中文" in shown, shown  # the shell's language selector, set to zh
            # the app's own page links (Streamlit's file-name navigation is switched off)
            assert page.locator('[data-testid="stSidebarNav"]').count() == 0
            links = [
                x.strip() for x in page.locator('[data-testid="stSidebar"] a').all_inner_texts()
            ]
            assert "通往注意力之路" in links and "app" not in links, links
            assert h1(tab) == translate("page.home.title", "zh")
            assert page.locator(".js-plotly-plot .main-svg").count() >= 1
            assert "/deeplink_probe" in page.url and "lang=zh" in page.url
            screenshot(page, "first_request_deep_link_zh")
            assert tab.real_errors() == []
        finally:
            page.context.close()
    finally:
        stop_server(srv)
