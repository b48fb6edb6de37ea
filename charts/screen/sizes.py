"""The screens a chart is fitted to, in px: the laptop, the classroom projector and a phone.

Builders read these to lay a figure out for its screen (a slide's height, a phone's width);
:mod:`charts.screen` fits every figure to them before it is drawn. Measured at 1280 x 800
(laptop, projector) and on a 390-px phone, in Chromium, with Streamlit 1.67.
"""

from __future__ import annotations

# The text sizes of the app's template (``charts.base.NORMAL`` / ``PRESENTER``): what a chart's
# text and title get on the laptop and on the projector, and what fitting gives text whose
# size a figure leaves unset.
LAPTOP_FONT, LAPTOP_TITLE = 14, 17
PROJECTOR_FONT, PROJECTOR_TITLE = 22, 28

# --- the projector ---------------------------------------------------------------------------
# A part's main chart on the projector must fit, whole, on the first 1280x800 screen under
# the compact presenter header (measured in Chromium: the header, the part selector and
# one sentence take ~260 px), so no figure is drawn taller than this in presenter mode.
SLIDE_HEIGHT = 480
# A part whose step controls (Back / Next / Play, a step slider) sit under its chart: the
# chart leaves them room on the first screen (measured: with the line of words between,
# the buttons end ~115 px under the chart).
STEP_SLIDE_HEIGHT = SLIDE_HEIGHT - 150
MIN_PROJECTOR_FONT = 18  # px: no chart text smaller than this on a projector (tests ask >= 16)
# Width of the main column in presenter mode at 1280 px (sidebar folded), for title wrapping.
PROJECTOR_WIDTH = 1200
# px of a presenter figure's height outside its plot area: a wrapped title above, tick labels
# and an axis title below (measured on the slides: 480 px figures have 300-340 px of plot)
PROJECTOR_FRAME_PX = 160
# Width of a full-width chart (measured at 1280 x 800): on a laptop with the sidebar open,
# and in presenter mode (sidebar folded). The margins are worked out for these
# (charts.screen.margins); another width only costs a redraw where the estimate falls short.
LAPTOP_WIDTH = 820
PRESENTER_WIDTH = 1120

# --- a phone ---------------------------------------------------------------------------------
PHONE_WIDTH = 360  # px: the plot area a phone gives a chart (a 390-px screen, less padding)
MIN_PHONE_FONT = 12  # px: a panel title is made no smaller than this to fit a phone
MIN_PHONE_TICK = 11  # px: tick labels shrink no further to label every category on a phone
PHONE_BAR = 10  # px: a colour bar's thickness on a phone (plotly's default: 30)
PHONE_BAR_PAD = 4  # px: its padding on either side (plotly's default: 10)
PHONE_BAR_TITLE = 12  # px: its title at most (the app's charts: 14, Streamlit's default: 17)
