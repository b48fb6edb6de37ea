"""A part reached through the page's part selector (a rerun of the page's fragment, not of the
app) answers its own controls: Streamlit 1.67 refused the writes of a fragment nested two deep
(the bottleneck's model switch inside its part inside the page) during the page fragment's
rerun, and the part lost its controls until the next full run."""

from __future__ import annotations

import pytest

from bench import browser as B
from core.i18n import translate
from tests.browser.conftest import DESKTOP, failed_runs, log_offset, wait_idle
from ui.nav import PAGES

pytestmark = pytest.mark.browser

PARTED = [p for p in PAGES if len(p.parts) > 1]


def _switch(page, slug: str, part: str) -> None:
    selector = page.locator(B.SEGMENTED).first
    selector.locator(B.OPTION, has_text=translate(f"{slug}.part.{part}", "en")).first.click()
    page.wait_for_url(f"**part={part}**", timeout=30_000)
    wait_idle(page)


@pytest.mark.parametrize("spec", PARTED, ids=[p.slug for p in PARTED])
def test_a_part_reached_by_the_part_selector_answers_its_controls(server, browser, spec):
    """Every part of the page through its selector, and in each part its first control (a
    segmented control or slider after the selector) changed once: no run fails."""
    start = log_offset(server)
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(120_000)
    page = context.new_page()
    try:
        page.goto(server.url(f"/{spec.slug}?lang=en&present=0&part={spec.parts[0]}"))
        wait_idle(page)
        changed = []
        for part in (*spec.parts[1:], spec.parts[0]):
            _switch(page, spec.slug, part)
            assert page.locator('[data-testid="stException"]').count() == 0, part
            controls = [
                c
                for c in B.list_controls(page)
                if not c.disabled and not (c.kind == "segmented" and c.index == 0)
            ]
            if controls:
                B.change(page, controls[0])
                wait_idle(page)
                changed.append((part, controls[0].label))
            assert page.locator('[data-testid="stException"]').count() == 0, part
            assert not failed_runs(server, start), (part, failed_runs(server, start)[:4000])
        assert changed, "no part of the page has a control to change"
    finally:
        context.close()
