"""The concept check's answers in the poll's database (:mod:`poll.concept` reads the gain
from them). A room's teacher puts the check on the phones before the lesson (``"pre"``) and
after it (``"post"``), then shows the class's ``"gain"``; each phone's answers are kept per
phase and question under the voter digest of its browser (SHA-256, as its votes), so a
student's "pre" meets its "post" without anything that names them. Deleted with the poll.
"""

from __future__ import annotations

import sqlalchemy as sa

from poll import store as ps


class CheckStore:
    """The concept check of the polls in ``polls``'s database."""

    def __init__(self, polls: ps.PollStore) -> None:
        self.polls = polls

    def set_check(self, code: str, browser: str, phase: str | None) -> ps.Poll:
        """Put the concept check ``"pre"`` or ``"post"`` on the phones, show the class's
        ``"gain"``, or go back to the poll (``None``); a teacher's only. Answers stay, per
        phase, until the poll is deleted."""
        if phase is not None and phase not in ps.CHECK_SHOWN:
            raise ValueError(f"phase must be one of {ps.CHECK_SHOWN} or None")
        with self.polls.engine.begin() as conn:
            self.polls._teacher(conn, code, browser)
            conn.execute(
                ps.polls.update()
                .where(ps.polls.c.code == code)
                .values(check_phase=phase, active=self.polls.clock())
            )
            return self.polls._get(conn, code)

    def answer_check(self, code: str, browser: str, item: int, answer: int) -> None:
        """Cast or change ``browser``'s answer to concept-check ``item`` in the phase the
        phones show (``no_check`` when none is open)."""
        voter = ps._hash("voter", ps._browser(browser))
        if not (isinstance(item, int) and 0 <= item < ps.MAX_ITEMS):
            raise ps.PollError("bad_answer")
        if not (isinstance(answer, int) and 0 <= answer < ps.MAX_ANSWERS):
            raise ps.PollError("bad_answer")
        with self.polls.engine.begin() as conn:
            poll = self.polls._get(conn, code)
            if poll.check not in ps.CHECK_PHASES:
                raise ps.PollError("no_check")
            here = (ps.concept.c.code == code) & (ps.concept.c.phase == poll.check)
            if (
                conn.execute(
                    sa.select(ps.concept.c.item)
                    .where(here & (ps.concept.c.voter == voter))
                    .limit(1)
                ).first()
                is None
            ):
                n = conn.execute(
                    sa.select(sa.func.count(sa.distinct(ps.concept.c.voter))).where(here)
                ).scalar_one()
                if n >= ps.MAX_VOTERS:
                    raise ps.PollError("full")
            if self.polls.clock() - poll.active >= ps.VOTE_TOUCH_S:
                conn.execute(
                    ps.polls.update()
                    .where(ps.polls.c.code == code)
                    .values(active=self.polls.clock())
                )
            row = dict(code=code, phase=poll.check, voter=voter, item=item, answer=answer)
            conn.execute(
                ps._upsert(self.polls.dialect, ps.concept, row, ["code", "phase", "voter", "item"])
            )

    def my_check(self, code: str, browser: str, phase: str) -> dict[int, int]:
        """``browser``'s concept-check answers in ``phase``: {item: answer}."""
        if not ps.valid_browser(browser):
            return {}
        voter = ps._hash("voter", browser)
        with self.polls.engine.connect() as conn:
            self.polls._get(conn, code)
            rows = conn.execute(
                sa.select(ps.concept.c.item, ps.concept.c.answer).where(
                    (ps.concept.c.code == code)
                    & (ps.concept.c.phase == phase)
                    & (ps.concept.c.voter == voter)
                )
            ).all()
        return dict(rows)

    def check_answers(self, code: str) -> dict[str, dict[str, dict[int, int]]]:
        """The concept check's answers: {phase: {voter digest: {item: answer}}}. The digest
        only matches a browser's "pre" to its "post"; it names nobody and is never shown."""
        with self.polls.engine.connect() as conn:
            self.polls._get(conn, code)
            rows = conn.execute(
                sa.select(
                    ps.concept.c.phase, ps.concept.c.voter, ps.concept.c.item, ps.concept.c.answer
                ).where(ps.concept.c.code == code)
            ).all()
        out: dict[str, dict[str, dict[int, int]]] = {phase: {} for phase in ps.CHECK_PHASES}
        for phase, voter, item, answer in rows:
            if phase in out:
                out[phase].setdefault(voter, {})[item] = answer
        return out
