"""The concept check on the room's screens: the questions on a phone, the projector's
progress while the class answers (no answer shown), and the class's gain once the check ran
before and after the lesson. :mod:`poll.views` hands in the check's store, the browser and
its own guards, so this module sits below it."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import streamlit as st

from charts import poll as poll_charts
from core.i18n import translate
from poll import concept as pc
from poll import export
from poll import store as ps
from poll.checks import CheckStore
from ui import chart
from ui.gate import fragment
from ui.i18n import current_lang, presenter, t

REFRESH_S = 2.0
GAIN_H = 380  # px: the gain chart leaves its headline and the teacher's button on 1280x800


@st.cache_resource(show_spinner=False)
def right_answers() -> tuple[int, ...]:
    """Each question's right answer, computed once per server (models and formulas)."""
    return tuple(item.solve() for item in pc.ITEMS)


def title(phase: str) -> str:
    if phase == "pre":
        return t("poll.concept.title.pre")
    if phase == "post":
        return t("poll.concept.title.post")
    return t("poll.concept.title.gain")


def class_gain(s: CheckStore, code: str) -> pc.Gain:
    return pc.gain(s.check_answers(code), list(right_answers()))


# --- a phone ---------------------------------------------------------------------------------


def _answer(s, code, browser, item, key, allowed, remember) -> None:
    if not allowed("vote"):
        return
    try:
        s.answer_check(code, browser, item, st.session_state[key])
    except ps.PollError as err:
        remember(err)


def phone(
    s: CheckStore,
    code: str,
    browser: str,
    phase: str,
    allowed: Callable[[str], bool],
    remember: Callable[[ps.PollError], None],
) -> None:
    """The check's questions, one radio group each, saved as they are picked."""
    if phase not in ps.CHECK_PHASES:
        st.info(t("poll.concept.wait"), icon=":material/co_present:")
        gain_panel(s, code)
        return
    mine = s.my_check(code, browser, phase)
    n = len(pc.ITEMS)
    st.caption(t("poll.concept.lead", n=n))
    for i, item in enumerate(pc.ITEMS):
        names = item.answer_labels(t)
        key = f"poll_check_{code}_{phase}_{i}"
        st.radio(
            f"{i + 1}. {item.text(t)}",
            range(len(names)),
            index=mine.get(i),
            format_func=names.__getitem__,
            key=key,
            on_change=_answer,
            args=(s, code, browser, i, key, allowed, remember),
        )
    done = sum(
        1 for i in range(n) if st.session_state.get(f"poll_check_{code}_{phase}_{i}") is not None
    )
    st.caption(t("poll.concept.progress", done=done, n=n))


# --- the projector -----------------------------------------------------------------------------


@fragment(run_every=REFRESH_S)
def progress(s: CheckStore, code: str, phase: str) -> None:
    """How many have started and finished, every 2 s (never what they answered)."""
    if s.polls.get(code).check != phase:
        st.rerun(scope="app")
    mine = s.check_answers(code).get(phase, {})
    n = len(pc.ITEMS)
    done = sum(1 for answers in mine.values() if len(answers) == n)
    st.markdown("### " + t("poll.concept.room", started=len(mine), done=done, n=n))
    st.caption(t("poll.concept.room_hint"))


def _pct(x: float) -> str:
    return f"{x:.0%}"


def gain_panel(s: CheckStore, code: str, height: int | None = None) -> None:
    """The class's ⟨g⟩ with its spread and each question's gain (or why not yet)."""
    with st.spinner(t("poll.computing")):
        g = class_gain(s, code)
    if not g.matched:
        st.info(
            t("poll.gain.none", pre=g.answered["pre"], post=g.answered["post"]),
            icon=":material/hourglass_top:",
        )
        return
    if g.g is None:
        st.info(t("poll.gain.full"), icon=":material/check_circle:")
    else:
        st.markdown(
            t("poll.gain.headline", g=f"{g.g:.2f}", pre=_pct(g.pre), post=_pct(g.post), n=g.matched)
        )
    labels = [t("poll.gain.label", i=i + 1) for i in range(len(pc.ITEMS))]
    fig = poll_charts.gain(
        labels,
        list(g.item_pre),
        list(g.item_post),
        title=t("poll.gain.chart"),
        series=(t("poll.gain.before"), t("poll.gain.after")),
        y_title=t("poll.gain.y"),
        presenter=presenter(),
        hover=[item.text(t) for item in pc.ITEMS],
        height=height,
    )
    chart(fig, key="poll_gain")
    items = [
        t("poll.gain.item_g", i=i + 1, g=f"{x:.2f}")
        if x is not None
        else t("poll.gain.item_none", i=i + 1)
        for i, x in enumerate(g.item_gain)
    ]
    said = t("poll.gain.items", items=t("poll.gain.sep").join(items))
    if g.spread is not None:
        low, high = g.spread
        said = t("poll.gain.spread", low=f"{low:.2f}", high=f"{high:.2f}") + " " + said
    st.markdown(said)
    st.caption(
        t("poll.gain.compare", interactive=pc.HAKE_INTERACTIVE, lecture=pc.HAKE_LECTURE)
        + " "
        + t("poll.gain.formula")
    )


def teacher(
    s: CheckStore,
    code: str,
    phase: str,
    back: Callable[[], None],
    join: Callable[[], None],
) -> None:
    """The projector while the check is on: its progress beside the room's code and QR
    (``join``: latecomers still get in), or the class's gain; and the button back."""
    st.button(t("poll.concept.back"), type="primary", on_click=back, key="poll_check_back")
    if phase in ps.CHECK_PHASES:
        left, right = st.columns([3, 2], gap="medium")
        with left:
            progress(s, code, phase)
        with right:
            join()
    else:
        gain_panel(s, code, GAIN_H)


# --- the teacher's sidebar ------------------------------------------------------------------


def gain_csv(s: CheckStore, code: str, lang: str) -> str:
    """The concept check's CSV in ``lang`` (no session needed: a download's data)."""

    def tr(key: str, **fmt) -> str:
        return translate(key, lang, **fmt)

    right = right_answers()
    return export.gain_csv(
        class_gain(s, code),
        [item.text(tr) for item in pc.ITEMS],
        [item.answer_labels(tr)[r] for item, r in zip(pc.ITEMS, right, strict=True)],
    )


def sidebar(s: CheckStore, code: str, phase: str | None, start: Callable[[str], None]) -> None:
    """The check's buttons (before, after, the gain) and its CSV, in the teacher's sidebar."""
    st.markdown(f"**{t('poll.concept.sidebar')}**")
    st.caption(t("poll.concept.sidebar_hint", n=len(pc.ITEMS)))
    for which, key in (
        ("pre", "poll.concept.start_pre"),
        ("post", "poll.concept.start_post"),
        ("gain", "poll.concept.show_gain"),
    ):
        st.button(
            t(key),
            key=f"poll_check_{which}",
            on_click=start,
            args=(which,),
            disabled=phase == which,
            width="stretch",
        )
    st.download_button(
        t("poll.concept.download"),
        data=partial(gain_csv, s, code, current_lang()),
        file_name=f"concept-check-{code}.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/download:",
        width="stretch",
    )
