"""The class poll (a room, not a lesson page): the room predicts, then the model answers.

``?ask=<question>`` opens a poll for this browser (the teacher) and turns into
``?room=<code>``; ``?room=<code>`` is the room: the teacher's view for the browser that
holds the poll's key, the student's view for everyone else; no parameter: a join form.
See ``ui.poll`` for the rules and ``core.poll`` for the questions and the store.
"""

import streamlit as st

import ui
from core.poll import questions as pq
from core.poll import store as ps
from ui import poll, share
from ui.params import notice, safe_value

ui.begin_page("poll")
t = ui.t

# --- which room --------------------------------------------------------------------------
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


def join_form() -> None:
    st.markdown(t("poll.join.lead"))
    with st.form("poll_join", border=False):
        st.text_input(t("poll.join.code"), max_chars=2 * ps.CODE_LEN, key="poll_typed")
        st.form_submit_button(t("poll.join.go"), type="primary", on_click=_join)


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
if not code:
    join_form()
    st.stop()
try:
    current = poll.store().get(code)
except ps.PollError as err:
    if raw and not ps.valid_code(code):
        st.caption(t("poll.join.was", code=safe_value(raw)))
    poll.refused(err)
    join_form()
    st.stop()
q = pq.BY_ID.get(current.question)
if q is None:  # a poll of a question this version no longer has
    poll.refused(ps.PollError("bad_question"))
    st.stop()
key = poll.teacher_key(code)
teacher = key is not None and poll.store().is_teacher(code, key)
st.subheader(t(f"poll.q.{q.id}.text"))


# --- the teacher (projector) ---------------------------------------------------------------
@ui.fragment(run_every=poll.REFRESH_S)
def live_room() -> None:
    """The live histogram, refreshed every 2 s; the reveal once the teacher asks for it."""
    now = poll.store().get(code)
    tally = poll.store().tally(code)
    if now.round != current.round or now.question != current.question:
        st.rerun(scope="app")  # another question or a reset: redraw the whole room
    if now.state == "revealed":
        poll.show_answer(q, tally.counts)
        return
    ui.chart(poll.histogram(q, tally.counts, None), key="poll_hist", width=0.62)
    st.caption(t("poll.voters", n=tally.voters))


def teacher_view() -> None:
    left, right = st.columns([5, 3])
    with right:
        url = poll.join_url(code)
        st.markdown(t("poll.room_label"))
        st.markdown(f"## `{code[:4]} {code[4:]}`")  # read aloud in two halves
        st.caption(t("poll.room_hint"))
        st.image(share.qr_png(url, scale=8), width=260 if ui.presenter() else 200)
        st.code(url, language=None, wrap_lines=True)
    with left:
        live_room()
    cols = st.columns(4)
    state = current.state
    cols[0].button(
        t("poll.reveal"),
        type="primary",
        disabled=state == "revealed",
        on_click=_teacher,
        args=("reveal",),
    )
    if state == "open":
        cols[1].button(t("poll.close"), on_click=_teacher, args=("close",))
    else:
        cols[1].button(t("poll.reopen"), on_click=_teacher, args=("again",))
    cols[2].button(t("poll.next"), on_click=_teacher, args=("next",))
    back = {"lang": ui.current_lang(), "present": int(ui.presenter())}
    with cols[3]:
        ui.page_link(f"pages/{q.slug}.py", label=t("poll.back"), query_params=back | _part(q))
    if state == "closed":
        st.info(t("poll.closed_teacher"), icon=":material/lock:")


def _teacher(action: str) -> None:
    """A teacher's button (a callback: it runs before the page, which then shows it)."""
    try:
        if action == "reveal":
            poll.store().set_state(code, key, "revealed")
        elif action == "close":
            poll.store().set_state(code, key, "closed")
        elif action == "again":
            poll.store().restart(code, key)
        else:
            nxt = pq.QUESTIONS[(pq.QUESTIONS.index(q) + 1) % len(pq.QUESTIONS)]
            poll.store().restart(code, key, nxt.id, len(nxt.answers))
    except ps.PollError as err:
        poll.remember(err)


def _part(q: pq.Question) -> dict:
    return {"part": q.part} if q.part else {}


# --- a student (phone) -------------------------------------------------------------------
@ui.fragment(run_every=poll.REFRESH_S)
def student_wait() -> None:
    """Every 2 s: has the teacher revealed, closed or moved on?"""
    now = poll.store().get(code)
    if (now.state, now.round, now.question) != (current.state, current.round, current.question):
        st.rerun(scope="app")
    if now.state == "revealed":
        poll.show_answer(q, poll.store().tally(code).counts)
        back = {"lang": ui.current_lang(), "present": 0} | _part(q)
        ui.page_link(f"pages/{q.slug}.py", label=t("poll.see_part"), query_params=back)
    elif now.state == "closed":
        st.info(t("poll.closed_student"), icon=":material/lock:")


def _vote(voter: str, answer: int) -> None:
    if poll.allowed("vote"):
        try:
            poll.store().vote(code, voter, answer)
        except ps.PollError as err:
            poll.remember(err)


def student_view() -> None:
    names = poll.labels(q)
    voter = poll.voter_id()
    mine = poll.store().my_vote(code, voter)
    can_vote = current.state == "open"
    for i, name in enumerate(names):
        chosen = mine == i
        st.button(
            f"{'✓ ' if chosen else ''}{name}",
            key=f"poll_answer_{i}",
            type="primary" if chosen else "secondary",
            width="stretch",
            disabled=not can_vote,
            on_click=_vote,
            args=(voter, i),
        )
    if mine is not None and can_vote:
        st.caption(t("poll.your_vote", answer=names[mine]))
    student_wait()


if teacher:
    teacher_view()
else:
    student_view()
