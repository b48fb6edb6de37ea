"""Predict, then check: the class poll's questions for a visitor alone.

Under a part with a poll question a visitor picks an answer and presses "Check"; the
models' answer appears with the evidence a poll's reveal shows (the same code:
:func:`poll.views.say_answer`, :func:`poll.views.proof`) and whether the pick was right. The pick
lives in this session only: nothing goes to the poll store, a file or the URL. Placed by
:func:`poll.panel.after_part` after the whole part; on the projector folded and closed ("Ask the
class" is the room's way to predict; an open answer would spoil the vote).
"""

from __future__ import annotations

import streamlit as st

from core import zoo
from poll import questions as pq
from poll import views
from ui.gate import fragment
from ui.i18n import presenter, t


def _key(q: pq.Question, what: str) -> str:
    return f"{q.slug}_predict_{q.id}_{what}"  # per page, per question


def offer(questions: list[pq.Question]) -> None:
    """The "Predict, then check" block for this part's questions."""
    title = t("poll.predict.title")
    if presenter():
        box = st.expander(title, icon=":material/psychology_alt:")
    else:
        box = st.container(border=True, key="predict_block")
        box.markdown(f"**{title}**")
    with box:
        st.caption(t("poll.predict.lead"))
        for q in questions:
            predict(q)


def _forget(q: pq.Question) -> None:
    """A new pick hides the last check: the visitor checks the new pick themselves."""
    st.session_state.pop(_key(q, "checked"), None)


def _check(q: pq.Question) -> None:
    st.session_state[_key(q, "checked")] = st.session_state.get(_key(q, "pick"))


@fragment
def predict(q: pq.Question) -> None:
    """One question: the pick, "Check", then the models' answer and its proof."""
    names = views.labels(q)
    st.markdown(q.text(t))
    pick = st.radio(
        t("poll.predict.pick"),
        range(len(names)),
        format_func=names.__getitem__,
        index=None,
        horizontal=True,
        key=_key(q, "pick"),
        on_change=_forget,
        args=(q,),
    )
    # Both ways, as the poll's buttons (poll.views.acted): the callback runs before a rerun that
    # would lose the return value, the return value reaches a session that has not drawn the
    # button yet; checking twice is checking once.
    if st.button(
        t("poll.predict.check"),
        key=_key(q, "check"),
        disabled=pick is None,
        on_click=_check,
        args=(q,),
    ):
        _check(q)
    if pick is None or st.session_state.get(_key(q, "checked")) != pick:
        return
    try:
        sol = views.computed(q)
    except zoo.ZooError:
        st.warning(t("poll.predict.missing"), icon=":material/inventory_2:")
        return
    except ValueError:  # the models answer none of the options (poll.questions)
        st.warning(t("poll.predict.outside"), icon=":material/help:")
        return
    views.say_answer(q, sol)
    if pick == sol.correct:
        st.success(t("poll.predict.right", pick=names[pick]), icon=":material/thumb_up:")
    else:
        st.warning(t("poll.predict.wrong", pick=names[pick]), icon=":material/close:")
    views.proof(q, sol, key=_key(q, "evidence"))
