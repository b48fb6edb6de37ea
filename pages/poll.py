"""The class poll (a room, not a lesson page): the room predicts, then the model answers.

``?ask=<question>`` opens a poll with this browser as its teacher and turns into
``?room=<code>``; ``?room=<code>`` is the room (``ui.poll.show_room``: the teacher's view
for a teacher browser, the student's for everyone else); no parameter: a join form.
"""

import streamlit as st

import ui
from core.poll import questions as pq
from core.poll import store as ps
from ui import poll
from ui.params import notice, safe_value

ui.begin_page("poll")
t = ui.t
poll.keep_browser_id()

ask = st.query_params.get("ask")
if ask is not None:
    del st.query_params["ask"]
    if ask in pq.BY_ID:
        code = poll.open_poll(ask)
        if code:
            st.query_params["room"] = code
    else:
        notice("ask", ask, "—")

raw = st.query_params.get("room")
code = ps.normalise_code(raw) if raw else ""


def _join() -> None:
    """The join button: a well-formed code opens its room; anything else is refused here,
    with the reason, before any query."""
    if not poll.allowed("join"):
        return
    typed = ps.normalise_code(st.session_state.get("poll_typed", ""))
    if ps.valid_code(typed):
        st.query_params["room"] = typed
    else:
        poll.remember(ps.PollError("bad_code"))


poll.show_message()
room = poll.room_of(code) if code else None
if room is None:
    if raw and not ps.valid_code(code):
        st.caption(t("poll.join.was", code=safe_value(raw)))
    st.markdown(t("poll.join.lead"))
    with st.form("poll_join", border=False):
        st.text_input(t("poll.join.code"), max_chars=2 * ps.CODE_LEN, key="poll_typed")
        st.form_submit_button(t("poll.join.go"), type="primary", on_click=_join)
    st.stop()
st.subheader(t(f"poll.q.{room.q.id}.text"))
poll.show_room(room)
