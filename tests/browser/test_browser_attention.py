"""The attention page in a real Chromium: every part draws its charts without console errors,
the controls write the URL, and a copied link reopens the same view in the other language."""

from __future__ import annotations

import pytest

from core import zoo
from tests.browser.conftest import DESKTOP, open_tab, reopened, screenshot, wait_idle

pytestmark = pytest.mark.browser


def _need_models() -> None:
    try:
        for name in ("gru_attention", "transformer"):
            zoo.load_model(name)
    except zoo.ZooError as err:
        pytest.skip(f"attention models not trained yet: {err}")


def _charts(page) -> int:
    return page.locator('[data-testid="stMain"] .js-plotly-plot').count()


# Every part's charts (at least 2/2/2/3 for align/pairs/self/score), in both languages, on
# a projector and on a phone: tests/browser/test_slides.py (MIN_CHARTS and the deck walk).


def test_controls_write_the_url_and_the_link_reopens_the_view(server, browser):
    _need_models()
    url = "/attention?lang=en&present=0&part=align&model=transformer&head=1&step=3"
    tab = open_tab(browser, server.url(url), DESKTOP)
    page = tab.page
    try:
        main = page.locator('[data-testid="stMain"]')
        assert "Transformer" in main.inner_text()
        page.locator("[data-testid=stButtonGroup] button", has_text="3 · Self-attention").click()
        page.wait_for_url("**part=self**", timeout=15_000)
        wait_idle(page)
        assert _charts(page) >= 2
        with reopened(browser, page.url.replace("lang=en", "lang=zh"), DESKTOP) as again:
            text = again.page.locator('[data-testid="stMain"]').inner_text()
            assert "编码器自注意力" in text or _charts(again.page) >= 2
            screenshot(again.page, "attention_self_zh_from_link_desktop")
        assert tab.real_errors() == []
    finally:
        page.context.close()


def test_presenter_mode_pairs(server, browser):
    _need_models()
    url = "/attention?lang=zh&present=1&part=pairs&pair=transformer_clause"
    tab = open_tab(browser, server.url(url), DESKTOP)
    try:
        wait_idle(tab.page)
        assert _charts(tab.page) >= 2
        screenshot(tab.page, "attention_pairs_zh_presenter_desktop")
        assert tab.real_errors() == []
    finally:
        tab.page.context.close()


def test_worked_example_link_reopens_the_edited_vectors(server, browser):
    _need_models()
    url = "/attention?lang=en&present=0&part=score&score=dot&tq=2,0&tk=1,0;0,1;-1,0&tv=1;2;3"
    tab = open_tab(browser, server.url(url), DESKTOP)
    try:
        main = tab.page.locator('[data-testid="stMain"]')
        # the worked example lives in "For the curious": the slide keeps the picture
        folds = main.locator("summary", has_text="For the curious")
        for i in range(folds.count()):
            folds.nth(i).click()
        main.get_by_text("Work it out by hand").wait_for(timeout=30_000)
        assert main.locator('[data-testid="stDataFrame"]').count() >= 2  # the two editors
        text = main.inner_text()
        assert "Work it out by hand" in text and "0.867" in text  # e^2 / (e^2 + 1 + e^-2)
        assert "tk=1%2C0%3B0%2C1%3B-1%2C0" in tab.page.url or "tk=1,0;0,1;-1,0" in tab.page.url
        screenshot(tab.page, "attention_score_worked_example_en_desktop")
        assert tab.real_errors() == []
    finally:
        tab.page.context.close()


def test_the_decoding_step_moves_the_frame_and_the_bars_of_one_chart(server, browser):
    """Part 1 draws the heatmap and the step's row as one figure: the bars stand under
    their columns, and the step slider redraws that one chart (frame and bars together)."""
    _need_models()
    tab = open_tab(browser, server.url("/attention?lang=en&present=0&part=align&step=3"), DESKTOP)
    page = tab.page
    try:
        assert _charts(page) == 2  # the alignment figure and every step's entropy
        fig = page.locator('[data-testid="stMain"] .js-plotly-plot').first
        assert fig.locator(".heatmaplayer image, .hm image").count() >= 1
        n_words = page.evaluate(
            "() => document.querySelector('[data-testid=stMain] .js-plotly-plot').data[0].x.length"
        )
        assert fig.locator(".barlayer .point").count() == n_words  # a bar per column
        # the bars' x axis is the heatmap's: each bar's centre under its column's centre
        offsets = page.evaluate(
            """() => {
                const gd = document.querySelector('[data-testid=stMain] .js-plotly-plot');
                const x = gd._fullLayout.xaxis, x2 = gd._fullLayout.xaxis2;
                return gd.data[0].x.map((_, i) => Math.abs(
                    (x._offset + x.l2p(i)) - (x2._offset + x2.l2p(i))));
            }"""
        )
        assert max(offsets) < 1.0
        assert "Step 3:" in fig.inner_text()
        page.locator('[data-testid="stMain"] [data-testid="stSlider"] input').first.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_url("**step=4**", timeout=30_000)
        wait_idle(page)
        assert (
            "Step 4:" in page.locator('[data-testid="stMain"] .js-plotly-plot').first.inner_text()
        )
        screenshot(page, "attention_align_step4_en_desktop")
        assert tab.real_errors() == []
    finally:
        page.context.close()
