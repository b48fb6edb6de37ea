"""The class poll's two sides: the teacher's room (projector) and a student's phone.

The teacher opens a poll from a part of the lesson ("Ask the class", drawn by the shell in
presenter mode): :func:`open_poll` creates it and keeps the teacher key in this browser
session only (never in a link). The room is ``/poll?room=CODE``: the browser that holds
the key sees the teacher's view (code, QR, live histogram, reveal / close / next), every
other browser the student's view (the question, one big button per answer, then the
reveal). Both refresh themselves every 2 s (``st.fragment(run_every=...)``).
"""

from __future__ import annotations

import secrets
import time
from urllib.parse import urlencode, urlsplit

import streamlit as st

from core import lexicon
from core.figures import base
from core.poll import questions as pq
from core.poll import store as ps
from ui.i18n import current_lang, presenter, t

KEYS = "poll_teacher_keys"  # {room code: teacher key}, this browser session only
VOTER = "poll_voter"  # a random id of this browser session: one vote per session
EVENTS = "poll_events"  # {action: [unix times]} for the per-session limits
# Per-session limits: (how many, within seconds). A classroom never comes near them.
LIMITS = {"open": (5, 600), "vote": (30, 60), "join": (10, 60)}
REFRESH_S = 2.0


@st.cache_resource(show_spinner=False)
def store() -> ps.PollStore:
    """The one store of this server (SQLite file, or PostgreSQL when configured)."""
    return ps.PollStore()


@st.cache_resource(show_spinner=False)
def solution(qid: str) -> pq.Solution:
    """The model's answer, computed from the models the first time a poll reveals it."""
    return pq.BY_ID[qid].solve()


MESSAGE = "poll_message"  # a refusal from a button callback, shown by the next run


def allowed(action: str) -> bool:
    """Count one ``action`` of this session; ``False`` over its limit (the message waits
    in the session for :func:`show_message`: this also runs inside button callbacks)."""
    n, window = LIMITS[action]
    now = time.time()
    events = st.session_state.setdefault(EVENTS, {})
    recent = [x for x in events.get(action, []) if now - x < window]
    if len(recent) >= n:
        st.session_state[MESSAGE] = t("poll.limit", seconds=window)
        return False
    events[action] = [*recent, now]
    return True


def refused(err: ps.PollError) -> None:
    st.warning(t(f"poll.error.{err.reason}"), icon=":material/block:")


def remember(err: ps.PollError) -> None:
    """A refusal inside a callback: said by the next run (:func:`show_message`)."""
    st.session_state[MESSAGE] = t(f"poll.error.{err.reason}")


def show_message() -> None:
    text = st.session_state.pop(MESSAGE, None)
    if text:
        st.warning(text, icon=":material/block:")


def voter_id() -> str:
    if VOTER not in st.session_state:
        st.session_state[VOTER] = secrets.token_urlsafe(16)
    return st.session_state[VOTER]


def join_url(code: str) -> str:
    """The link students open (no teacher key in it): this app's /poll page."""
    parts = urlsplit(st.context.url or "http://localhost:8501/")
    prefix = parts.path.rsplit("/", 1)[0] if parts.path.count("/") > 1 else ""
    query = urlencode({"room": code, "lang": current_lang()})
    return f"{parts.scheme}://{parts.netloc}{prefix}/poll?{query}"


def open_poll(qid: str) -> str | None:
    """Open a poll on ``qid`` for this browser (the teacher); returns the room code."""
    q = pq.BY_ID[qid]
    if not allowed("open"):
        return None
    try:
        code, key = store().open(q.id, len(q.answers))
    except ps.PollError as err:
        refused(err)
        return None
    st.session_state.setdefault(KEYS, {})[code] = key
    return code


def teacher_key(code: str) -> str | None:
    return st.session_state.get(KEYS, {}).get(code)


def labels(q: pq.Question) -> list[str]:
    return q.answer_labels(t)


def histogram(q: pq.Question, counts, reveal: int | None):
    """The class's answers as bars (the right one highlighted once revealed)."""
    names = labels(q)
    fig = base.bar_chart(
        names,
        list(counts),
        title=t("poll.histogram.title", n=sum(counts)),
        y_title=t("poll.histogram.y"),
        presenter=presenter(),
        highlight=[names[reveal]] if reveal is not None else (),
    )
    # answers are categories even when they read as numbers; whole votes from zero up
    fig.update_xaxes(type="category")
    fig.update_yaxes(
        range=[0, max(3, max(counts, default=0)) * 1.1], dtick=None, rangemode="tozero"
    )
    return fig


def _evidence_label(q: pq.Question, name: str) -> str:
    """An evidence bar's label: a keyed answer's text, a model's display name, or as is."""
    if q.keyed and name in q.answers:
        return t(f"poll.q.{q.id}.a{q.answers.index(name)}")
    if lexicon.known(name):
        return lexicon.name(name, current_lang())
    return name


def evidence_chart(q: pq.Question, sol: pq.Solution):
    shown = [_evidence_label(q, n) for n in sol.evidence]
    fig = base.bar_chart(
        shown,
        list(sol.evidence.values()),
        title=t(sol.evidence_key),
        presenter=presenter(),
        log_y=sol.log_y,
    )
    fig.update_xaxes(type="category")
    return fig


def show_answer(q: pq.Question, counts) -> None:
    """The reveal: the class's histogram beside the model's answer and its evidence."""
    from ui import chart

    with st.spinner(t("poll.computing")):
        sol = solution(q.id)
    names = labels(q)
    st.success(t("poll.answer", answer=names[sol.correct]), icon=":material/check_circle:")
    left, right = st.columns(2)
    with left:
        chart(histogram(q, counts, sol.correct), key="poll_hist_revealed", width=0.5)
    with right:
        chart(evidence_chart(q, sol), key="poll_evidence", width=0.5)
    st.markdown(t(f"poll.q.{q.id}.why", **sol.values))
