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


# A Streamlit-like page whose option click runs the "script" (the app's state attribute goes
# running, then notRunning), draws its answer 80 ms after the click, and 300 ms after it a
# run from elsewhere starts (as the live page's watch, a fragment on a 5-s timer): its own
# change to the page, 50 ms later.
TIMED = """<div data-testid="stApp" data-test-script-state="notRunning">
  <div data-testid="stMain"><h1>Page</h1><div id="answer">0</div>
  <div data-testid="stButtonGroup"><label>Knob</label>
  <button aria-checked="true">20</button><button aria-checked="false">30</button></div>
  <div id="watch">0</div></div></div>
  <script>
    const app = document.querySelector('[data-testid="stApp"]');
    const at = (ms, f) => setTimeout(f, ms);
    for (const b of document.querySelectorAll('button')) b.onclick = () => {
      for (const o of document.querySelectorAll('button'))
        o.setAttribute('aria-checked', String(o === b));
      at(10, () => app.setAttribute('data-test-script-state', 'running'));
      at(40, () => app.setAttribute('data-test-script-state', 'notRunning'));
      at(80, () => { document.getElementById('answer').textContent = b.textContent; });
      at(300, () => app.setAttribute('data-test-script-state', 'running'));
      at(320, () => { document.getElementById('watch').textContent = 'looked'; });
      at(350, () => app.setAttribute('data-test-script-state', 'notRunning'));
    };
  </script>"""


def test_a_run_from_elsewhere_after_the_click_is_not_counted_as_its_rerun(browser):
    """The live page's watch (a fragment every 5 s) ran within a click's settle window about
    one click in seven: the bench counted its run as the click's (live's p95 537 ms against
    77 with the watch off, 40 clicks each; the first change after the click 24-70 ms)."""
    context = browser.new_context()
    context.add_init_script(B.INIT_JS)
    try:
        page = context.new_page()
        # a real navigation (set_content would replace the document the timing script watches)
        url = "http://bench.invalid/"
        page.route(url, lambda route: route.fulfill(body=TIMED, content_type="text/html"))
        page.goto(url)
        control = B.list_controls(page)[0]
        before = page.evaluate(B.STATE_JS)["runs"]
        took = B.rerun(page, control)
        state = page.evaluate(B.STATE_JS)
        assert state["runs"] == before + 2  # the click's run and the other one
        assert page.inner_text("#watch") == "looked"
        # the click's own answer, drawn 80 ms after it, not the other run's change at 320 ms
        assert 0.07 <= took < 0.25, took
        assert B.click_end({"runs": before}, state) == state["ends"][str(before + 1)]
        # a click whose run is the last one: its last change, as before
        alone = {"runs": before + 1, "ends": {str(before + 1): 5.0}, "last": 9.0}
        assert B.click_end({"runs": before}, alone) == 9.0
    finally:
        context.close()
