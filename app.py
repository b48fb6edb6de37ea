"""Road to Attention: the entry point. It only routes; lessons live in ``pages/``."""

from pathlib import Path

import pandas  # noqa: F401
import streamlit as st

import core  # noqa: F401  (caps BLAS/OpenMP threads; streamlit itself never imports torch)
from ui import shell

# pandas, whole, before any page: plotly's validators use it when it is in sys.modules, and
# two first visits at once met it half-imported by the other ("partially initialized module
# 'pandas' has no attribute 'Series'", seen on bottleneck); an import here waits for it.
ICON = Path(__file__).resolve().parent / "assets" / "icon.png"

st.set_page_config(page_title="Road to Attention", page_icon=str(ICON), layout="wide")
# Before the page: language, presenter mode, navigation, sidebar (all from the URL);
# after it: the share link + QR of the view the page has just written to the URL.
with shell.frame() as page:
    page.run()
