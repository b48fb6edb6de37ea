"""HTML the server built and escaped, drawn in the page as it is: the arena's result cards,
confidence grid and numbers table.

``st.html`` runs every body through DOMPurify in the browser on each rerun that changes it,
then React replaces it whole: ~65 ms of the arena's rerun for its three blocks (~1,000
elements), against ~15 ms this way (a components-v2 element, like the charts of
``ui.plot``: the body set as the box's ``innerHTML`` when it differs from the one drawn).
That skips a second sanitising pass, so only text that was escaped piece by piece may come
here: the builders of ``charts.arena`` escape every word (tests/core/analysis/
test_arena.py), and ``tests/ui/test_text_inputs.py`` lists the files allowed to call
:func:`escaped_html`, as it does for ``st.html``.
"""

from __future__ import annotations

from functools import cache

import streamlit as st

NAME = "road_html"  # the component's name (tests/conftest.py reads it as st.html)
_BOX = '<div class="road-html"></div>'
_JS = """export default function ({ data, parentElement }) {
  const box = parentElement.querySelector(".road-html");
  const body = typeof data === "string" ? data : new TextDecoder().decode(data);
  if (box.roadHtml !== body) {
    box.roadHtml = body;
    box.innerHTML = body;
  }
}
"""


@cache
def _component():
    return st.components.v2.component(NAME, html=_BOX, js=_JS, isolate_styles=False)


def escaped_html(body: str, *, key: str) -> None:
    """Show ``body`` (html whose every text was escaped by the caller) full width."""
    _component()(data=body.encode(), key=key, width="stretch")
