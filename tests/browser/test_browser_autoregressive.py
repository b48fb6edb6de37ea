"""The autoregressive page in a real Chromium: click through three generation steps, and
reopen the link of a step in a new browser."""

from __future__ import annotations

import pytest

from core import zoo
from tests.browser.conftest import DESKTOP, PHONE, open_tab, reopened, screenshot, wait_idle

pytestmark = pytest.mark.browser


def _need_lm() -> None:
    try:
        zoo.load_model("lm_gru")
    except zoo.ZooError as err:
        pytest.skip(f"lm_gru not trained yet: {err}")


def test_autoregressive_clicks_through_three_steps(server, browser):
    _need_lm()
    tab = open_tab(browser, server.url("/autoregressive?lang=en&present=0"), DESKTOP)
    page = tab.page
    main = page.locator('[data-testid="stMain"]')
    try:
        assert "Step 1 of 3" in main.inner_text()
        assert page.locator(".js-plotly-plot .main-svg").count() >= 1
        for i, word in ((2, "shoes"), (3, "(end)")):
            page.get_by_role("button", name="Next").click()
            page.wait_for_url(f"**step={i}**", timeout=15_000)
            wait_idle(page)
            text = main.inner_text()
            assert f"Step {i} of 3" in text and word in text
        assert page.get_by_role("button", name="Next").is_disabled()
        screenshot(page, "autoregressive_en_step3_desktop")
        page.get_by_role("button", name="Back").click()
        page.wait_for_url("**step=2**", timeout=15_000)
        wait_idle(page)
        assert "Step 2 of 3" in main.inner_text()
        url = page.url
        with reopened(browser, url.replace("lang=en", "lang=zh"), PHONE) as again:
            assert "第 2 步，共 3 步" in again.page.locator('[data-testid="stMain"]').inner_text()
            screenshot(again.page, "autoregressive_zh_step2_phone")
        assert tab.real_errors() == []
    finally:
        page.context.close()
