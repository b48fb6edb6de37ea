"""What the class poll adds under a lesson part (handed to the app's frame by ``app.py``):
on the projector, "Ask the class" for each of the part's questions; for a visitor alone,
"Predict, then check" (:mod:`poll.predict`).
"""

from __future__ import annotations

import streamlit as st

from poll.questions import Question, for_part  # no model code: answers are computed later
from ui.i18n import current_lang, presenter, t
from ui.nav import ROOT, page_parts


def part_questions(slug: str, part: str | None) -> list[Question]:
    """The class poll's questions of this part (none for a part the page does not have)."""
    return for_part(slug, part if part in page_parts(slug) else None)


def ask_links(questions: list[Question]) -> None:
    """On the projector, "Ask the class" for each question: opens the poll room for this
    browser (the teacher), with the question's room code and QR."""
    if not presenter():
        return
    for q in questions:
        st.page_link(
            str(ROOT / "pages/poll.py"),
            label=t("poll.ask_button"),
            help=q.text(t),
            icon=":material/how_to_vote:",
            query_params={"ask": q.id, "lang": current_lang(), "present": 1},
        )


def after_part(slug: str, part: str | None) -> None:
    """The part's poll offers, drawn after the whole part (never above a chart)."""
    questions = part_questions(slug, part)
    ask_links(questions)
    # a run-bound question (the live race's) has its own box on its page, by the run
    alone = [q for q in questions if not q.run_bound]
    if alone:
        # here, not at the top: the check's answers draw charts (plotly, numpy), which a cold
        # server's first page (home, no question) must not load (bench: cold start)
        from poll import predict

        predict.offer(alone)
