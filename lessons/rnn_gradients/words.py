"""Part 5, the visitor's sentence: ‖∂C/∂e_j‖ of an encoder without attention (the plain tanh
RNN or a GRU) for every word of a sentence (by default the lesson's, or the visitor's own),
and what the first third against the last third says."""

from __future__ import annotations

import streamlit as st

import ui
from charts import rnn_gradients as figures
from core import lexicon, zoo
from core.analysis import influence
from core.analysis.bottleneck import early_late_ratio
from core.translate import InputError, prepare
from core.vocab import tokenize_en
from lessons.rnn_gradients import data
from lessons.rnn_gradients.common import choice
from ui.models import get_vocabs, require, show_zoo_error
from ui.params import safe_value

t = ui.t
ENCODERS = ("rnn_plain_256", "gru_plain_32", "gru_plain_128", "gru_plain_256")
MAX_CHARS = 300  # of a typed sentence (box and URL)


@ui.fragment  # the encoder choice and the sentence rerun only this part
def show() -> None:
    st.header(t("rnn_gradients.words.header"))
    s = ui.slide(t("rnn_gradients.words.lead"))
    if not require(data.FADING, vocabs=True):
        return
    with st.spinner(t("rnn_gradients.computing")):
        example = data.words_default()
    encoder, text = words_controls(s, example.text)
    if not require(encoder, vocabs=False):
        return
    with s.words:
        tokens = words_tokens(text)
    if tokens is None:
        return
    ids = tuple(get_vocabs()[0].encode(tokens, eos=True))
    with st.spinner(t("rnn_gradients.computing")):
        values = data.context_influence(encoder, ids)
    ratio = early_late_ratio(values)
    v = influence.verdict(ratio)
    with s.chart:
        ui.chart(
            figures.influence_strip(
                lexicon.show_tokens([*tokens, "<eos>"]),
                values,
                title=t("rnn_gradients.words.chart", model=ui.model_name(encoder), n=len(tokens)),
                colorbar_title=t("rnn_gradients.words.colorbar"),
                presenter=ui.presenter(),
            ),
            key="rnng_words",
        )
    with s.words:
        st.caption(
            t(
                f"rnn_gradients.words.caption_{v}",
                model=ui.model_name(encoder),
                ratio=f"{ratio:.2f}",
            )
        )
    ui.takeaway(t(f"rnn_gradients.words.takeaway_{v}"))
    ui.try_this(t("rnn_gradients.try.words"))
    with ui.curious():
        st.markdown(
            t(
                "rnn_gradients.words.curious",
                n=len(example.ratios),
                k=example.n_majority,
                verdict=t(f"rnn_gradients.words.verdict.{example.majority}"),
                lo=f"{min(example.ratios):.2f}",
                hi=f"{max(example.ratios):.2f}",
            )
        )


def words_controls(s, example: str) -> tuple[str, str]:
    """The sentence box (the slide's control, the example by default) and the encoder
    (folded): (encoder, text)."""
    if (st.query_params.get("text") or "x").strip():
        text = ui.params.get_text("text", example, max_len=MAX_CHARS)
    else:
        text = ""  # the user cleared the box: say so below, do not bring the example back
    with s.control:
        text = st.text_area(
            t("rnn_gradients.words.text"),
            max_chars=MAX_CHARS,
            height=90,
            **ui.params.bound("text", text, key="rnng_text"),
        )
    with s.more:
        # the sentence joins the URL once it is edited; the model at once
        encoder = choice(
            t("rnn_gradients.words.model"),
            ENCODERS,
            param="model",
            default=data.FADING,
            key="rnng_model",
            format_func=ui.model_name,
        )
    return encoder, text


def words_tokens(text: str) -> list[str] | None:
    """The sentence's tokens, or None after saying what is wrong with it."""
    try:
        return prepare(text, get_vocabs()[0])
    except zoo.ZooError as err:
        show_zoo_error(err)
    except InputError as err:
        if err.reason == "unknown":
            words = "; ".join(
                t(
                    "rnn_gradients.words.unknown_one",
                    word=safe_value(o.word),
                    options=", ".join(f"`{safe_value(s)}`" for s in o.suggestions) or "—",
                )
                for o in err.unknown
            )
            st.warning(t("rnn_gradients.words.unknown", words=words), icon=":material/spellcheck:")
        elif err.reason == "too_long":
            n = len(tokenize_en(text))
            st.warning(
                t("rnn_gradients.words.too_long", n=n, limit=err.limit),
                icon=":material/short_text:",
            )
        else:
            st.warning(t("rnn_gradients.words.empty"), icon=":material/short_text:")
    return None
