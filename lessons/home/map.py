"""The lesson as a map: every stop of the lesson, its claim and a link to its page."""

import streamlit as st

import ui
from ui.nav import LESSON_MAP, is_built, page_spec

t = ui.t  # reads the visitor's language on every call


def show() -> None:
    st.header(t("home.map.header"))
    st.caption(t("home.map.caption"))
    for stop in LESSON_MAP:
        title = t(f"page.{stop.slug}.title")
        with st.container(border=True):
            head, action = st.columns([4, 1], vertical_alignment="center")
            with head:
                sections = t("home.map.sections", sections=stop.sections)
                st.markdown(f"**{title}** · {sections}  \n{t(f'page.{stop.slug}.claim')}")
            with action:
                spec = page_spec(stop.slug)
                if spec is not None and is_built(stop.slug):
                    ui.page_link(
                        spec.path,
                        label=t("home.map.open"),
                        icon=":material/arrow_forward:",
                        query_params={"lang": ui.current_lang(), "present": int(ui.presenter())},
                    )
                else:
                    st.badge(t("home.map.coming"), icon=":material/schedule:", color="gray")
