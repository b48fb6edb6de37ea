"""Static CSS (no user input ever reaches it): keyboard focus, reduced motion and the
clicker's hidden links in every mode; the projector's sizes in presenter mode."""

from __future__ import annotations

import streamlit as st

FOCUS = "#0b57d0"  # the focus ring, >= 3:1 on the page and the sidebar (tests/ui/test_clicker.py)

# Every mode. Streamlit's own focus ring is its primary colour at half opacity (about 2.2:1
# on white), page links and plotly's tool bar have a faint one or none (a slider's thumb
# shows the focus of its hidden input: data-focus-visible), and a collapsed
# sidebar's links stay in the Tab order off screen; reduced motion stops every transition
# and animation and swaps what moves for what does not (keys ``*_if_motion`` / ``*_if_still``).
BASE_CSS = f"""
<style>
:focus-visible, [data-focus-visible="true"] {{
  outline: 3px solid {FOCUS} !important; outline-offset: 2px !important;
}}
/* a text box clips its field's ring: the ring goes round the box */
[data-testid="stTextInputRootElement"]:focus-within,
[data-testid="stTextAreaRootElement"]:focus-within,
[data-testid="stNumberInputContainer"]:focus-within,
[data-baseweb="select"] > div:focus-within {{ outline: 3px solid {FOCUS}; outline-offset: 2px; }}
[data-testid="stMain"]:focus-visible {{ outline-offset: -3px !important; }}
[data-testid="stSidebar"][data-collapsed="true"],
[data-testid="stSidebar"][data-collapsed="true"] * {{ visibility: hidden !important; }}
.st-key-deck_jump, .st-key-road_clicker {{ display: none !important; }}
@media (prefers-reduced-motion: no-preference) {{
  [class*="_if_still"] {{ display: none !important; }}
}}
@media (prefers-reduced-motion: reduce) {{
  [class*="_if_motion"] {{ display: none !important; }}
  *, *::before, *::after {{
    animation-duration: 0.01ms !important; animation-iteration-count: 1 !important;
    transition-duration: 0.01ms !important; transition-delay: 0s !important;
    scroll-behavior: auto !important;
  }}
}}
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
    """Inject the stylesheet of every mode, and the presenter's when presenter mode is on."""
    st.html(BASE_CSS)
    if presenter:
        st.html(PRESENTER_CSS)
