"""Road to Attention: the entry point. It only routes; lessons live in ``pages/``."""

from pathlib import Path

import streamlit as st

# caps BLAS/OpenMP threads (streamlit itself never imports torch), and makes plotly pass over
# a module another thread is still importing (pandas, imported by a page or the warm-up
# beside a figure being built: see core._guard_plotly_peeks)
import core  # noqa: F401
import lessons
from poll import panel
from ui import shell

ICON = Path(__file__).resolve().parent / "assets" / "icon.png"

st.set_page_config(page_title="Road to Attention", layout="wide")
try:
    # Before the page: language, presenter mode, navigation, sidebar (all from the URL);
    # after it: the class poll's offers for the part, the deck's links, the share link + QR
    # of the view the page has just written to the URL, and the lessons' warm-ups.
    with shell.frame(after_part=panel.after_part, warm_ups=lessons.warm_ups) as page:
        page.run()
finally:
    # The tab's icon last: an image icon costs its first run ~50-90 ms (Streamlit imports
    # numpy and PIL for it), which would otherwise delay everything a cold server's first
    # visitor sees (bench: cold start). Set on every run, a stopped one included.
    st.set_page_config(page_icon=str(ICON))
