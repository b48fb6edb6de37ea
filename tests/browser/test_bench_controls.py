"""The benchmark's way of changing a control, on a page that mimics Streamlit's markup.

(Here, not in tests/bench/: it needs the session's Chromium, and Playwright's sync
API cannot start a second instance inside the one the browser fixture keeps running.)
"""

from __future__ import annotations

from bench import browser as B

HTML = """<div data-testid="stMain"><div data-testid="stButtonGroup">
  <label>Plain model <button id="help">?</button></label>
  <button aria-checked="false">C = 32</button><button aria-checked="false">C = 128</button>
  <button aria-checked="true">C = 256</button></div></div>
  <script>
    window.clicks = [];
    for (const b of document.querySelectorAll('button')) b.onclick = () => {
      window.clicks.push(b.textContent);
      if (!b.hasAttribute('aria-checked')) return;
      for (const o of document.querySelectorAll('button[aria-checked]'))
        o.setAttribute('aria-checked', String(o === b));
    };
  </script>"""


def test_segmented_change_clicks_an_option_not_the_help_icon(browser):
    """A segmented control's label can carry a help icon, which is a button too: the bench
    must flip between the options (the bottleneck page's model switch has one)."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_content(HTML)
        control = B.list_controls(page)[0]
        assert (control.kind, control.label, control.disabled) == (
            "segmented",
            "Plain model ?",
            False,
        )
        for _ in range(3):
            B.change(page, control)
        assert page.evaluate("window.clicks") == ["C = 32", "C = 128", "C = 32"]
    finally:
        context.close()
