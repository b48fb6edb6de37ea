"""Peer instruction on the class poll (Mazur's ConcepTests; Crouch & Mazur 2001): the room
votes alone (round 1), talks with a neighbour, votes again (round 2), and sees its change of
mind before the models answer. What two rounds say (shares, who moved, which round was
closer) is computed here from the store's counts; :mod:`poll.views` draws it.

The teacher's guide follows Crouch & Mazur's rule of thumb on round 1's share of right
answers: under 30 % explain first, 30-70 % discuss and vote again, over 70 % reveal and move
on. It sits where the class cannot see it (the sidebar, which the projector keeps closed, or
the teacher's phone).
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from charts import poll as poll_charts
from poll import store as ps
from ui.i18n import presenter, t

GUIDE_LOW, GUIDE_HIGH = 0.30, 0.70  # round 1's share right: explain / discuss / move on


def share(counts: Sequence[int], correct: int) -> float | None:
    """The share of ``counts`` on answer ``correct`` (``None`` without votes)."""
    n = sum(counts)
    return counts[correct] / n if n else None


def advice(right: float) -> str:
    """What to do after round 1, by its share right: ``explain``, ``discuss`` or ``move_on``."""
    if right < GUIDE_LOW:
        return "explain"
    return "discuss" if right <= GUIDE_HIGH else "move_on"


def closer(both: ps.Rounds, correct: int) -> str | None:
    """Which round came closer to the models' answer (its share of votes on it):
    ``first``, ``second``, ``same``, or ``None`` while a round has no votes."""
    a, b = share(both.first.counts, correct), share(both.second.counts, correct)
    if a is None or b is None:
        return None
    return "same" if a == b else "second" if b > a else "first"


def moves(both: ps.Rounds, names: Sequence[str]) -> list[tuple[int, str, str]]:
    """The changes of mind, most frequent first: (browsers, from answer, to answer)."""
    changed = [(n, a, b) for (a, b), n in both.moves.items() if a != b]
    return [(n, names[a], names[b]) for n, a, b in sorted(changed, key=lambda m: (-m[0], m[1:]))]


def changes_text(both: ps.Rounds, names: Sequence[str]) -> str:
    """How many changed their answer between the rounds, and from what to what."""
    if not both.both:
        return t("poll.rounds.none_both")
    said = t("poll.rounds.changed", changed=both.changed, both=both.both)
    shown = [t("poll.rounds.move", n=n, a=a, b=b) for n, a, b in moves(both, names)[:3]]
    return said + (" " + t("poll.rounds.moves", moves="; ".join(shown)) if shown else "")


def closer_text(both: ps.Rounds, correct: int) -> str | None:
    """After the reveal: which round was closer, with both shares (``None`` without votes)."""
    which = closer(both, correct)
    if which is None:
        return None
    first = f"{share(both.first.counts, correct):.0%}"
    second = f"{share(both.second.counts, correct):.0%}"
    if which == "second":
        return t("poll.rounds.closer_second", first=first, second=second)
    if which == "first":
        return t("poll.rounds.closer_first", first=first, second=second)
    return t("poll.rounds.closer_same", first=first)


def chart(names: Sequence[str], both: ps.Rounds, reveal: int | None, height: int | None = None):
    """Both rounds side by side, one vote axis (the right answer marked once revealed)."""
    return poll_charts.rounds(
        names,
        list(both.first.counts),
        list(both.second.counts),
        reveal,
        title=t("poll.rounds.title", first=both.first.voters, second=both.second.voters),
        round_titles=(t("poll.rounds.first"), t("poll.rounds.second")),
        y_title=t("poll.histogram.y"),
        presenter=presenter(),
        height=height,
    )


def guide(first: ps.Tally, correct: int | None, answer: str | None) -> None:
    """The teacher's guide on round 1 (drawn in the sidebar or on the teacher's phone)."""
    st.markdown(f"**{t('poll.guide.title')}**")
    right = share(first.counts, correct) if correct is not None else None
    if correct is None:
        st.caption(t("poll.guide.race"))
    elif right is None:
        st.caption(t("poll.guide.waiting"))
    else:
        st.markdown(t("poll.guide.share", share=f"{right:.0%}", n=first.voters, answer=answer))
        what = advice(right)
        text = {
            "explain": "poll.guide.explain",
            "discuss": "poll.guide.discuss",
            "move_on": "poll.guide.move_on",
        }[what]
        st.markdown(
            f":material/school: {t(text)}"
        )  # no alert box: the room's alerts are its answers
    st.caption(t("poll.guide.source"))
