"""Static CSS: for every screen, and for presenter mode (no user input ever reaches it)."""

from __future__ import annotations

import streamlit as st

# On every screen: no label ends in "…" or runs out of its box. A deck link's label wraps
# (Streamlit cuts it to one line: "next ▸ Autoregressive generation · 2 · T…"), and the
# options of a segmented control go on a second row instead of scrolling out of a narrow
# column ("Cost per layer" hidden beside a slider); a metric's label wraps too.
BASE_CSS = """
<style>
[data-testid="stPageLink-NavLink"] span,
[data-testid="stPageLink-NavLink"] [data-testid="stMarkdownContainer"],
[data-testid="stPageLink-NavLink"] p {
  white-space: normal; overflow: visible; text-overflow: clip;
}
[data-testid="stMetricLabel"], [data-testid="stMetricLabel"] * {
  white-space: normal; overflow: visible; text-overflow: clip;
}
[data-testid="stButtonGroup"] > div { flex-wrap: wrap; row-gap: 0.25rem; overflow: visible; }
</style>
"""

# Readable from the back of a classroom at 1280x720: bigger text, bolder headings,
# high-contrast ink, roomier widgets. Charts scale themselves through core.figures.base.
PRESENTER_CSS = """
<style>
[data-testid="stMain"] [data-testid="stMarkdownContainer"] p,
[data-testid="stMain"] [data-testid="stMarkdownContainer"] li,
[data-testid="stMain"] [data-testid="stMarkdownContainer"] td,
[data-testid="stMain"] [data-testid="stMarkdownContainer"] th {
  font-size: 1.45rem; line-height: 1.5; color: #000;
}
/* a compact slide header: title and one-line claim, so the part's chart starts high */
[data-testid="stMain"] h1 { font-size: 2.1rem; font-weight: 800; color: #000;
  padding: 0 0 0.15rem 0; }
[data-testid="stMain"] h2 { font-size: 1.75rem; font-weight: 750; color: #000;
  padding: 0.2rem 0 0.1rem 0; }
[data-testid="stMain"] h3 { font-size: 1.5rem; font-weight: 700; color: #000; }
[data-testid="stMain"] [data-testid="stCaptionContainer"] { font-size: 1.2rem; color: #222; }
[data-testid="stMain"] [data-testid="stWidgetLabel"] p { font-size: 1.3rem; font-weight: 600; }
[data-testid="stMain"] [data-testid="stDataFrame"] { font-size: 1.2rem; }
/* a metric's value is a markdown paragraph too: keep it a big number, above the text size */
[data-testid="stMain"] [data-testid="stMetricValue"] p { font-size: 2.4rem; line-height: 1.2; }
[data-testid="stMain"] [data-testid="stHtml"] { font-size: 1.45rem; line-height: 1.5; }
[data-testid="stMain"] .block-container { padding-top: 3rem; max-width: 100%; }
/* the top bar holds only the sidebar and menu buttons: let the slide's title show through */
[data-testid="stHeader"] { background: transparent; }
</style>
"""


def apply(presenter: bool) -> None:
    """Inject the stylesheet of every screen, and the presenter one when presenter mode is on."""
    st.html(BASE_CSS + PRESENTER_CSS if presenter else BASE_CSS)
