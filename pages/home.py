"""Home: the lesson as a map, the model zoo, and how to use the app in class."""

import streamlit as st

import ui
from lessons.home.map import show as show_map
from lessons.home.zoo import show as show_zoo

ui.begin_page("home")
t = ui.t
st.markdown(t("home.intro"))

show_map()
show_zoo()

# --- In class ----------------------------------------------------------------------------
st.header(t("home.class.header"))
for key in ("present", "share", "links", "order", "honest"):
    st.markdown(f"- {t(f'home.class.{key}')}")
