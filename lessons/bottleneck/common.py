"""What several parts of the bottleneck lesson share: the sentence box, the plain model's
switch, the opening of a part that reads a sentence, a part's header and close, the intro.

Everything is drawn where it is called (inside the calling part's fragment) and reads the
session's language and presenter flag on each call: no per-session state here. A part that
reads a sentence reruns whole when the sentence changes; the model switch reruns only what
it changes (:func:`model_view`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import streamlit as st

import ui
from charts import bottleneck as figures
from core.analysis import bottleneck as analysis
from core.i18n import translate
from core.translate import InputError, prepare
from lessons import controls
from lessons.bottleneck import data
from ui import models
from ui.slide import Slide

t = ui.t


def marked(output: Sequence[str], reference: Sequence[str] | None) -> str:
    """An output as token chips, the tokens the reference does not have marked."""
    return figures.marked(output, reference, empty=t("bottleneck.empty_output"))


def input_message(err: InputError) -> str:
    if err.reason == "empty":
        return t("bottleneck.input.empty")
    if err.reason == "too_long":
        return t("bottleneck.input.too_long", limit=err.limit)
    words = ", ".join(
        t(
            "bottleneck.input.word_suggest",
            word=ui.params.safe_value(o.word),
            suggestions=" / ".join(o.suggestions),
        )
        if o.suggestions
        else f"`{ui.params.safe_value(o.word)}`"
        for o in err.unknown
    )
    return t("bottleneck.input.unknown", words=words)


def close_part(takeaway: str, try_this: str, **quotes: str) -> None:
    """The part's conclusion and what to try next (the catalogue's keys), in the app's one
    style; ``quotes`` fill the takeaway's placeholders."""
    ui.takeaway(t(takeaway, **quotes))
    ui.try_this(t(try_this))


def part_header(key: str) -> None:
    """The part's short header (the catalogue's ``key``); on the projector the highlighted
    part button says it."""
    if not ui.presenter():
        st.header(t(key))


def intro_more() -> None:
    """The lesson's introduction, folded: before the part on a laptop or a phone, after it
    on the projector (where the slide opens with the part's chart)."""
    with st.expander(t("bottleneck.intro_more"), icon=":material/info:"):
        st.markdown(t("bottleneck.intro"))


# --- the controls --------------------------------------------------------------------------------


def _use_example(n: int) -> None:
    st.query_params["text"] = " ".join(data.examples()[n][0])


def sentence_box() -> tuple[str, ...] | None:
    """The sentence (typed or an example) and its message if the models cannot read it:
    drawn inside the fragment of each part that reads it. Returns its tokens, or None."""
    # read from the URL on every run of the fragment: an example button writes it
    default_text = " ".join(data.examples()[analysis.DEFAULT_EXAMPLE][0])
    # A blank sentence in the URL is the user's empty input (answered below), not a bad link.
    raw_text = st.query_params.get("text")
    blank = raw_text is not None and not raw_text.strip()
    text = "" if blank else ui.params.get_text("text", default_text, max_len=400)
    with st.container(border=True):
        text = st.text_input(
            t("bottleneck.text.label"),
            max_chars=400,
            help=t("bottleneck.text.help"),
            **ui.params.bound("text", text, key="bn_text"),
        )
        # the examples stay visible in presenter mode: they are the teacher's quickest control
        # (a short label: label and buttons fit one row on a laptop and on a projector)
        with st.container(horizontal=True, wrap=True, vertical_alignment="center"):
            st.caption(t("bottleneck.examples"))
            for n in analysis.EXAMPLE_LENGTHS:
                st.button(
                    t("bottleneck.example", n=n),
                    key=f"bn_ex_{n}",
                    on_click=_use_example,
                    args=(n,),
                    width="content",
                )
    ui.params.set_params(text=text)
    try:
        return tuple(prepare(text, models.get_vocabs()[0]))
    except InputError as err:
        st.error(input_message(err), icon=":material/translate:")
        return None


def plain_picker() -> str:
    """The plain model of the parts read, side and stretch: the same control (one
    widget key, one URL parameter) in each, inside the part's fragment."""
    lang = ui.current_lang()

    def plain_label(name: str) -> str:  # fixed language: Streamlit may call it outside the run
        return translate("bottleneck.plain.option", lang, size=data.plain_size(name))

    plain = ui.params.get_choice("plain", data.PLAIN, default="gru_plain_256")
    return controls.segmented(
        t("bottleneck.plain.label"),
        data.PLAIN,
        plain,
        param="plain",
        key="bn_plain",
        format_func=plain_label,
        help=t("bottleneck.plain.help"),
    )


# What a part draws with the plain model it reads through: the slide (the sentence box is in
# it already), the model and the sentence's tokens (None: the note is in the chart's place).
Draw = Callable[[Slide, str, tuple[str, ...] | None], None]


def sentence_part(header: str, lead: str, *, main: str, draw: Draw) -> bool:
    """A part that reads the sentence through one plain model (read, side): its
    header and slide (the catalogue's keys ``header`` and ``lead``), the sentence box and the
    model switch -- the one named by ``main`` ("plain" or "sentence") as the slide's main
    control, the other among the secondary ones --, then ``draw``. When the models cannot
    read the sentence, a note in place of the chart (``draw`` gets None). Returns whether the
    models read it (the part then closes with its takeaway)."""
    part_header(header)
    s = ui.slide(t(lead))
    with s.more if main == "plain" else s.control:
        tokens = sentence_box()
    if tokens is None:
        s.chart.info(t("bottleneck.need_sentence"), icon=":material/edit:")
    # the secondary controls' place made in this run (on the projector, a fold): one that the
    # model switch's fragment made would be gone at its own rerun (measured: the page blank)
    ui.hold(s.more)
    model_view(s, main, tokens, draw)
    return tokens is not None


# The model switch reruns only the switch and what ``draw`` puts in the slide's places (the
# sentence box above it is not sent again: measured, ~3 ms a re-sent widget on one core).
@ui.fragment
def model_view(s: Slide, main: str, tokens: tuple[str, ...] | None, draw: Draw) -> None:
    with s.control if main == "plain" else s.more:
        plain = plain_picker()
    draw(s, plain, tokens)
