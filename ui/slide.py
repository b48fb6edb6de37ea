"""The one layout of a lesson part: a slide on the projector, a page on a laptop or phone.

The places are made in screen order when :func:`slide` is called (chart, control, more,
words), so a part fills them in the order its code needs and the screen still shows the
picture first. On the projector the page header is compact, the chart is capped to the
first 1280x800 screen (:data:`charts.sizes.SLIDE_HEIGHT`) and the secondary controls
fold into "More controls"; a phone gets the same order: the chart right after one sentence.

A part reads its controls before it draws its chart, so the browser gets them first: shown
at once, they would jump down by the chart's height when it comes. A slide and the places
under its chart (one container) carry keys that ``ui.style`` reads: while a run is on and the
chart's place is still empty, everything after it waits, invisible, in its place.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from streamlit.errors import StreamlitDuplicateElementKey

from core import glossary
from ui.i18n import current_lang, presenter, t


@dataclass
class Slide:
    """The places of one part, in screen order (see the module docstring)."""

    chart: DeltaGenerator
    control: DeltaGenerator
    _more_slot: DeltaGenerator
    words: DeltaGenerator
    _more: DeltaGenerator | None = field(default=None, repr=False)

    @property
    def more(self) -> DeltaGenerator:
        """Secondary controls: inline on a laptop, folded on the projector. Made on first
        use, so a part without secondary controls shows no empty fold."""
        if self._more is None:
            if presenter():
                self._more = self._more_slot.expander(
                    t("shell.more_controls"), icon=":material/tune:"
                )
            else:
                self._more = self._more_slot.container()
        return self._more


def slide(lead: str | None = None) -> Slide:
    """Start a part: its one plain sentence (``lead``, markdown), then empty places for
    the main chart, the main control, secondary controls and words, in that order::

        s = ui.slide(t(P + "lead"))           # one plain sentence, then the places below
        with s.control:                        # the part's one main control (under the chart)
            n = st.slider(...)
        with s.chart:                          # the part's main chart: first, big, in view
            ui.chart(fig, key="...")
        with s.more:                           # secondary controls: folded on the projector
            d = st.select_slider(...)
        with s.words:                          # explanation, caption, numbers
            st.caption(...)
        ui.takeaway(t(P + "takeaway"))         # the part's conclusion, one style everywhere
        ui.try_this(t(P + "try"))
        with ui.curious():                     # formulas, verification, how it was measured
            st.markdown(...)

    Everything a part draws inside a fragment must be made inside that fragment: call
    :func:`slide` there."""
    if lead:
        st.markdown(lead)
    # one name per line of code that makes a slide: the same on every run, a fragment's too
    caller = sys._getframe(1)  # the caller's code and line, nothing else
    where = f"{caller.f_code.co_filename}:{caller.f_lineno}"
    name = hashlib.sha1(where.encode()).hexdigest()[:10]
    frame = _keyed(f"{SLIDE_KEY}{name}", st)
    chart = _keyed(f"{CHART_KEY}{name}", frame)
    under = _keyed(f"{UNDER_KEY}{name}", frame)
    s = Slide(
        chart=chart,
        control=under.container(),
        _more_slot=under.container(),
        words=under.container(),
    )
    if _first_slide_of_the_part():
        with s.words:
            new_words()
    return s


# The part on screen, set by ui.parts.show_part on every full run (a fragment's rerun, which
# does not pass there, still knows it), and the gated fragment whose slide shows the part's
# new words: the first slide drawn in the full run, and then only that fragment's first
# slide in each of its runs (a nested fragment's rerun leaves the words where they are).
PART_KEY = "road_part_on_screen"
OWNER_KEY = "road_new_words_owner"
_fragments: ContextVar[tuple[str, ...]] = ContextVar("road_fragments", default=())
_glossed: ContextVar[bool] = ContextVar("road_new_words_shown", default=False)


def start_part(slug: str, part: str) -> None:
    """The part ``(slug, part)`` is drawn now, in a full run (:func:`ui.parts.show_part`)."""
    st.session_state[PART_KEY] = (slug, part)
    st.session_state.pop(OWNER_KEY, None)
    _glossed.set(False)


@contextmanager
def fragment_run(name: str) -> Iterator[None]:
    """Around one run of the gated fragment ``name`` (:func:`ui.gate.fragment`)."""
    inside, shown = _fragments.set((*_fragments.get(), name)), _glossed.set(False)
    try:
        yield
    finally:
        _glossed.reset(shown)
        _fragments.reset(inside)


def fragment_depth() -> int:
    """How many gated fragments this run is inside (0: the app's own code)."""
    return len(_fragments.get())


def _first_slide_of_the_part() -> bool:
    here = (_fragments.get() or ("",))[-1]
    if _glossed.get() or st.session_state.get(OWNER_KEY, here) != here:
        return False
    st.session_state[OWNER_KEY] = here
    _glossed.set(True)
    return True


def new_words() -> None:
    """The one-line gloss of each concept the part on screen introduces
    (``core.glossary``), under its chart and main control, before its words: a newcomer
    meets every term of the class path with its meaning, and the first screen of the
    projector still holds the picture."""
    where = st.session_state.get(PART_KEY)
    new = glossary.introduced_at(*where) if where else ()
    if not new:
        return
    lang = current_lang()
    glosses = " · ".join(t("shell.new_word", term=c.term[lang], gloss=c.gloss[lang]) for c in new)
    st.caption(f":material/menu_book: {t('shell.new_words')} {glosses}")


# Key prefixes of a slide's container, of its chart's place and of the one container of the
# places under the chart. ui.style.BASE_CSS reads them: until the chart's place holds
# something, Streamlit leaves it out of the page (the container under it then comes first in
# the slide) or shows it empty.
SLIDE_KEY = "road_slide_"
CHART_KEY = "road_chart_"
UNDER_KEY = "road_under_"


def _keyed(key: str, parent) -> DeltaGenerator:
    """A container in ``parent`` with ``key``; without one if the key is taken in this run (a
    line of code that makes two slides in one run): those slides then show as they come."""
    try:
        return parent.container(key=key)
    except StreamlitDuplicateElementKey:
        return parent.container()


def hold(*places: DeltaGenerator) -> None:
    """An empty element in each of ``places``, for a fragment nested in a part's that writes
    into the part's places. In the nested fragment: a place it leaves empty on this run (e.g.
    no chart for a sentence the models cannot read); Streamlit 1.67 keeps a fragment's spot in
    an outside place only if the fragment wrote there in the run that made the place, and its
    own next rerun would fail (StreamlitInvalidLayoutContextError) writing there again. In
    the part's fragment, before calling the nested one: ``s.more``, made on first use, when
    only the nested fragment writes there (a projector's fold made by the nested fragment
    would be gone at its own rerun: the page went blank at a second click)."""
    for place in places:
        place.empty()


def takeaway(text: str) -> None:
    """The part's conclusion: the one takeaway style of the app."""
    st.success(text, icon=":material/lightbulb:")


def try_this(text: str) -> None:
    """What to try next with the controls: the one "try this" style of the app. Name a
    control by its own label in quotes (“Input strength”), never by the projector's fold
    ("More controls" exists only there); ``tests/ui/test_try_this.py`` finds each one."""
    st.info(f"**{t('shell.try')}** {text}", icon=":material/touch_app:")


def curious() -> AbstractContextManager:
    """A fold for formulas, verification figures and how a number was measured: closed by
    default, so a part opens with its sentence and its picture."""
    return st.expander(t("shell.curious"), icon=":material/science:")


def mixed(text: str) -> None:
    """Where the evidence is mixed: said on screen, next to the chart (one style)."""
    st.warning(text, icon=":material/balance:")
