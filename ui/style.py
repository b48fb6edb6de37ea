"""Static CSS (no user input ever reaches it): keyboard focus, reduced motion, contrast, the
clicker's hidden links and what a loading page keeps unseen in every mode; the projector's
sizes in presenter mode."""

from __future__ import annotations

import streamlit as st

from charts.html_look import CSS as ROAD_HTML_CSS
from ui.slide import CHART_KEY as CHART
from ui.slide import SLIDE_KEY as SLIDE
from ui.slide import UNDER_KEY as UNDER

FOCUS = "#0b57d0"  # the focus ring, >= 3:1 on the page and the sidebar (tests/ui/test_clicker.py)

# Keys of the two containers that ui.shell draws the page's main column and its sidebar in.
# They come one pixel tall and scrolling (st.container's fixed height), so that nothing in
# them shows, and BASE_CSS gives them their content's height: until this stylesheet is in,
# Streamlit draws a page's pieces as they come (a 40 px placeholder for each control whose
# code is still loading, a control before the chart above it), the whole load's layout shift
# on a phone (attention 0.27) and most of it on a laptop past the sidebar's arrival.
MAIN_KEY = "road_frame_main"
SIDE_KEY = "road_frame_side"
UNSTYLED_HEIGHT = 1  # px: st.container's least fixed height

# A block of the main column that can have blocks after it: only these are asked what they hold
# (asking every element made the page's style work on a chart's redraw grow)
WRAPPER = ':is([data-testid="stMain"] [data-testid="stLayoutWrapper"], [data-testid="stColumn"])'

# What waits, invisible (BASE_CSS). Everything after a slide whose chart has not come yet
# (ui.slide: a part reads its controls before it draws, so they come first): while the run is
# on and the chart's place is left out of the page (nothing sent to it yet), and while it is
# in the page but empty (its chart's element not drawn yet, which can outlast the run); and
# everything after a control still drawn as Streamlit's placeholder (a control's code loads
# on its first use in the page: a 40 px bar, then the control at its own height).
HOLD = ", ".join(
    (
        f'[data-test-script-state="running"] [class*="st-key-{SLIDE}"] > :first-child'
        f' > [class*="st-key-{UNDER}"]',
        f'[data-test-script-state="running"] {WRAPPER}:has([class*="st-key-{SLIDE}"]'
        f' > :first-child > [class*="st-key-{UNDER}"]) ~ *',
        f'{WRAPPER}:has([class*="st-key-{CHART}"]:empty) ~ *',
        '[data-testid="stMain"] [data-testid="stElementContainer"]'
        ':has(> [data-testid="stSkeleton"]) ~ *',
        '[data-testid="stMain"] [data-testid="stLayoutWrapper"]'
        ':has([data-testid="stSkeleton"]) ~ *',
        '[data-testid="stSidebarUserContent"] [data-testid="stElementContainer"]'
        ':has(> [data-testid="stSkeleton"]) ~ *',
    )
)

# Every mode. Streamlit's own focus ring is its primary colour at half opacity (about 2.2:1
# on white), page links and plotly's tool bar have a faint one or none (a slider's thumb
# shows the focus of its hidden input: data-focus-visible), and a collapsed
# sidebar's links stay in the Tab order off screen; reduced motion stops every transition
# and animation and swaps what moves for what does not (keys ``*_if_motion`` / ``*_if_still``).
BASE_CSS = f"""
<style>
/* the app's HTML blocks (cards, chips, grids, tables): charts/html_look.py */
{ROAD_HTML_CSS}
/* ... laid out and painted only near the screen (the arena's cards, confidence grid and numbers
   table: ~1,600 elements under its chart, rerun by its slider off screen; their size is kept
   once drawn). Paint containment clips at the box: a focus ring inside it is drawn inset */
.road-html {{ content-visibility: auto; contain-intrinsic-size: auto 400px; }}
.road-html :focus-visible {{ outline-offset: -3px !important; }}
:focus-visible, [data-focus-visible="true"] {{
  outline: 3px solid {FOCUS} !important; outline-offset: 2px !important;
}}
/* a text box clips its field's ring: the ring goes round the box */
[data-testid="stTextInputRootElement"]:focus-within,
[data-testid="stTextAreaRootElement"]:focus-within,
[data-testid="stNumberInputContainer"]:focus-within,
[data-baseweb="select"] > div:focus-within {{ outline: 3px solid {FOCUS}; outline-offset: 2px; }}
[data-testid="stMain"]:focus-visible {{ outline-offset: -3px !important; }}
/* KaTeX's last glyph overhangs its box by ~2 px (the score part's formulas): room for it,
   so a formula that fits is no scroll box (one a keyboard could not reach) */
.katex-display {{ padding-right: 4px; }}
/* ... and a formula wider than its column (a phone) wraps after an = or a + at its top level,
   as KaTeX's inline math does, instead of scrolling sideways in a box */
.katex-display > .katex, .katex-display > .katex > .katex-html {{ white-space: normal; }}
.katex-display .base {{ margin: 0.1em 0; }}
/* A page holds still while it loads (tests/browser/test_layout_shift.py): what a thing still
   to come above it would push down waits, unseen, in its place (transparent too: Streamlit
   makes a control's label and a text's container visible of their own; a rule on all their
   insides instead made every chart's redraw 2-3x slower) */
:is({HOLD}) {{ visibility: hidden; opacity: 0; }}
/* The page and its sidebar, drawn one pixel tall until this stylesheet is in (MAIN_KEY), take
   their content's height: each box appears where it would have been, nothing above it moved */
:is(.st-key-{MAIN_KEY}, .st-key-{SIDE_KEY}) {{
  height: auto !important; overflow: visible !important;
}}
[data-testid="stLayoutWrapper"]:has(> :is(.st-key-{MAIN_KEY}, .st-key-{SIDE_KEY})) {{
  height: auto !important; flex: 0 1 auto !important; overflow: visible !important;
}}
[data-testid="stSidebar"][data-collapsed="true"],
[data-testid="stSidebar"][data-collapsed="true"] * {{ visibility: hidden !important; }}
.st-key-deck_jump, .st-key-road_clicker {{ display: none !important; }}
/* (in a row, the box that lays the hidden one out goes too: it would keep its room) */
@media (prefers-reduced-motion: no-preference) {{
  [class*="_if_still"],
  [data-testid="stLayoutWrapper"]:has(> [class*="_if_still"]) {{ display: none !important; }}
}}
@media (prefers-reduced-motion: reduce) {{
  [class*="_if_motion"],
  [data-testid="stLayoutWrapper"]:has(> [class*="_if_motion"]) {{ display: none !important; }}
  *, *::before, *::after {{
    animation-duration: 0.01ms !important; animation-iteration-count: 1 !important;
    transition-duration: 0.01ms !important; transition-delay: 0s !important;
    scroll-behavior: auto !important;
  }}
}}
</style>
"""

# On every screen: no label ends in "…" or runs out of its box. A deck link's label wraps
# (Streamlit cuts it to one line: "next ▸ Autoregressive generation · 2 · T…"), and the
# options of a segmented control go on a second row instead of scrolling out of a narrow
# column ("Cost per layer" hidden beside a slider); a metric's label wraps too.
LABEL_CSS = """
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
/* a button's label wraps on a narrow screen rather than ending in "…" */
[data-testid="stMain"] button [data-testid="stMarkdownContainer"],
[data-testid="stMain"] button [data-testid="stMarkdownContainer"] p {
  white-space: normal; overflow: visible; text-overflow: clip;
}
</style>
"""

# Readable from the back of a classroom at 1280x720: bigger text, bolder headings,
# high-contrast ink, roomier widgets. Charts scale themselves through charts.base.
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
/* a button keeps its own ink (white on the primary red), not the slide text's black */
[data-testid="stMain"] button [data-testid="stMarkdownContainer"] p { color: inherit; }
[data-testid="stMain"] [data-testid="stWidgetLabel"] p { font-size: 1.3rem; font-weight: 600; }
[data-testid="stMain"] [data-testid="stDataFrame"] { font-size: 1.2rem; }
/* a metric's value is a markdown paragraph too: keep it a big number, above the text size */
[data-testid="stMain"] [data-testid="stMetricValue"] p { font-size: 2.4rem; line-height: 1.2; }
[data-testid="stMain"] [data-testid="stHtml"],
[data-testid="stMain"] .road-html { font-size: 1.45rem; line-height: 1.5; }
/* the header above a part's chart (title, claim, part selector, lead) kept tight: on a
   1280x800 screen a two-line claim over a two-line lead left the chart's axis title and
   legend 10-20 px under the first screen; 2rem of top and 0.6rem between the slide's
   blocks give them back ~45 px (tests/browser/first_screen.py measures every part) */
[data-testid="stMain"] .block-container { padding-top: 2rem; max-width: 100%; }
[data-testid="stMain"] [data-testid="stVerticalBlock"] { gap: 0.6rem; }
/* the top bar holds only the sidebar and menu buttons: let the slide's title show through */
[data-testid="stHeader"] { background: transparent; }
/* a chart's data table is for a reader at a desk, not for the wall: its toggle would push
   the part's controls off the first screen (the chart's description stays, for a screen
   reader; ui/plot.py, static/chart/road-chart.js) */
[data-testid="stMain"] .road-chart-alt details.chart-data { display: none; }
</style>
"""


# WCAG AA contrast (4.5:1) where Streamlit's light theme falls short: a caption is the text
# colour faded to 60 % (#828180 on white, 3.9:1), and inside columns also at opacity 0.6
# (#a1a09f, 2.6:1); this ink, opaque, gives 6.2:1 on white and 5.4:1 on #f1f0ee.
# (Measured with axe-core, tests/browser/test_a11y.py.)
CONTRAST_CSS = """
<style>
[data-testid="stCaptionContainer"] { color: #62615F; opacity: 1; }
</style>
"""


def apply(presenter: bool) -> None:
    """Inject the stylesheet of every mode (focus, motion, contrast, labels that wrap), and
    the presenter's when presenter mode is on."""
    st.html(BASE_CSS + CONTRAST_CSS + LABEL_CSS)
    if presenter:
        st.html(PRESENTER_CSS)
