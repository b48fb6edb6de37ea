"""The class poll's page (a room, not a lesson page): the room predicts, then the model answers.

``?ask=<question>`` opens a poll with this browser as its teacher and turns into
``?room=<code>``; ``?room=<code>`` is the room (:func:`poll.views.show_room`: the teacher's
view for a teacher browser, the student's for everyone else); no parameter: a join form.
"""

import streamlit as st

from poll import concept_views, views
from poll import questions as pq
from poll import store as ps
from ui.i18n import t
from ui.params import notice, safe_value


def _join() -> None:
    """The join button: a well-formed code opens its room; anything else is refused here,
    with the reason, before any query."""
    if not views.allowed("join"):
        return
    typed = ps.normalise_code(st.session_state.get("poll_typed", ""))
    if ps.valid_code(typed):
        st.query_params["room"] = typed
    else:
        views.remember(ps.PollError("bad_code"))


def _opened() -> None:
    """``?ask=<question>``: a new poll with this browser as its teacher, then ``?room=``."""
    ask = st.query_params.get("ask")
    if ask is None:
        return
    del st.query_params["ask"]
    if ask in pq.BY_ID:
        code = views.open_poll(ask)
        if code:
            st.query_params["room"] = code
    else:
        notice("ask", ask, "—")


def show() -> None:
    """The page under its title: the poll asked for, the room, or the join form."""
    views.keep_browser_id()
    _opened()
    raw = st.query_params.get("room")
    code = ps.normalise_code(raw) if raw else ""
    views.show_message()
    room = views.room_of(code) if code else None
    if room is None:
        if raw and not ps.valid_code(code):
            st.caption(t("poll.join.was", code=safe_value(raw)))
        st.markdown(t("poll.join.lead"))
        with st.form("poll_join", border=False):
            st.text_input(t("poll.join.code"), max_chars=2 * ps.CODE_LEN, key="poll_typed")
            st.form_submit_button(t("poll.join.go"), type="primary", on_click=_join)
        st.stop()  # the join form alone: the frame's links and warm-up are not for it
    check = room.poll.check
    st.subheader(concept_views.title(check) if check else room.q.text(t))
    views.show_room(room)
