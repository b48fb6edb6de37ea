"""Part 2, the measurement: the gradients of the trained ``cnn_s2s`` encoder at one position,
next to the formula's windows, and the widths they fill. The sentence reruns the part
(``measured_section``); the position only ``measured_view``.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

import ui
from charts import base
from charts import cnn_receptive_field as figures
from charts.common import Titles
from core import lexicon, zoo
from core.analysis import receptive_field as analysis
from lessons.cnn_receptive_field import data
from lessons.cnn_receptive_field.common import (
    kernel_in_link,
    pair_and_position,
    position_select,
    sentence_controls,
)
from ui import word_pair
from ui.models import get_model, get_vocabs, show_zoo_error
from ui.params import safe_value

t = ui.t
EFFECTIVE_SHARE = 0.9  # the effective field: the fewest words that hold 90% of the gradient


def show() -> None:
    st.header(t("cnn_receptive_field.measured.header"))
    measured_section()
    ui.takeaway(t("cnn_receptive_field.measured.takeaway"))
    ui.try_this(t("cnn_receptive_field.measured.try"))
    with ui.curious():
        st.markdown(t("cnn_receptive_field.measured.curious", share=f"{EFFECTIVE_SHARE:.0%}"))


@ui.fragment  # the sentence reruns this part; the position only ``measured_view``
def measured_section() -> None:
    """The slide of part 2: the sentence measured by the shipped CNN encoder (folded), then
    its gradients (inner fragment)."""
    from core.translate import InputError, prepare  # imports torch: part 1 never needs it

    s = ui.slide(t("cnn_receptive_field.measured.lead"))
    try:
        sv, _ = get_vocabs()
        model = get_model("cnn_s2s")
    except zoo.ZooError as err:
        show_zoo_error(err)
        return
    with s.more:
        kind, text = sentence_controls()
        tokens, pair, problem = word_pair.sentence_tokens("cnn_receptive_field.", kind, text)

    en_tokens: tuple[str, ...] | None = None
    if kind == "en":
        en_tokens = tokens
    elif kind == "own" and problem != "empty":
        try:
            en_tokens = tuple(prepare(" ".join(tokens), sv))
        except InputError as err:
            with s.more:
                own_problem(err, " ".join(tokens))
    same = en_tokens is not None  # the sentence of part 1 itself
    if not same:
        en_tokens = analysis.english_counterpart()
        with s.words:
            st.caption(t("cnn_receptive_field.measured.counterpart", words=" ".join(en_tokens)))
    src_ids = tuple(sv.encode(list(en_tokens), eos=True))
    with s.chart:
        measured_view(tokens if same else None, pair, en_tokens, src_ids, model.cfg.kernel)


def own_problem(err, text: str) -> None:
    """Why an own sentence cannot be measured (Chinese, unknown words, too long)."""
    if analysis.has_chinese(text):
        st.info(t("cnn_receptive_field.measured.own_zh"), icon=":material/translate:")
    elif err.reason == "unknown":
        words = ", ".join(
            t(
                "cnn_receptive_field.measured.suggest",
                word=safe_value(o.word),
                options=" / ".join(o.suggestions),
            )
            if o.suggestions
            else f"`{safe_value(o.word)}`"
            for o in err.unknown[:8]
        )
        st.info(
            t("cnn_receptive_field.measured.own_unknown", words=words), icon=":material/spellcheck:"
        )
    else:
        st.info(t("cnn_receptive_field.measured.own_long"), icon=":material/spellcheck:")


def measured_position(
    tokens: tuple[str, ...] | None, pair: tuple[int, int], en_tokens: tuple[str, ...]
) -> int:
    """The measured position and its picker: part 1's (URL ``pos``) when part 1's sentence
    is the one measured, else a position of the English counterpart (URL ``mpos``)."""
    if tokens is not None:
        mpos = position_select(tokens, pair_and_position(tokens, pair, *kernel_in_link())[-1])
        ui.params.set_params(pos=mpos)
        return mpos
    mpos = ui.params.get_int(
        "mpos", 0, len(en_tokens) - 1, default=en_tokens.index(analysis.ENGLISH_PAIR[1])
    )
    mpos = st.selectbox(
        t("cnn_receptive_field.measured.position"),
        range(len(en_tokens)),
        format_func=word_pair.word_labeler(en_tokens),
        **ui.params.bound("mpos", mpos, key="cnn_rf_mpos"),
    )
    ui.params.set_params(mpos=mpos)
    return mpos


@ui.fragment  # the measured position reruns only its picker, the two charts and the words
def measured_view(
    tokens: tuple[str, ...] | None,
    pair: tuple[int, int],
    en_tokens: tuple[str, ...],
    src_ids: tuple[int, ...],
    kernel: int,
) -> None:
    """The gradients at one position of ``en_tokens`` (ids ``src_ids``, EOS last) and the
    widths they fill. ``tokens``: part 1's sentence when it is the one measured, else
    ``None``; ``kernel``: the trained encoder's."""
    v = ui.slide()
    with v.control:  # the position: the part's one control, under the heatmap
        mpos = measured_position(tokens, pair, en_tokens)
    labels = [*en_tokens, lexicon.EOS]
    raw = data.measured_field(src_ids, mpos)
    L = raw.shape[0]
    mwins = analysis.windows(mpos, L, kernel, len(labels))[1:]
    encoder = ui.model_name("cnn_s2s")
    with v.chart:
        ui.chart(
            figures.gradient_heatmap(
                analysis.normalise_rows(raw),
                labels,
                mwins,
                titles=Titles(
                    t("cnn_receptive_field.measured.title", model=encoder, word=labels[mpos]),
                    t("cnn_receptive_field.measured.x"),
                    t("cnn_receptive_field.measured.y"),
                ),
                colorbar=t("cnn_receptive_field.measured.colorbar"),
                window_label=t("cnn_receptive_field.measured.window", k=kernel),
                presenter=ui.presenter(),
            ),
            key="cnn_rf_measured",
        )
    with v.words:
        measured_widths(raw, mwins, kernel)


def measured_widths(raw: np.ndarray, mwins: list[tuple[int, int]], kernel: int) -> None:
    """The verdict, the chart of the formula's and the effective widths by layer, the caption."""
    L = raw.shape[0]
    theo, eff, inside = analysis.field_widths(raw, mwins, EFFECTIVE_SHARE)
    encoder = ui.model_name("cnn_s2s")
    verdict = "narrower" if eff[-1] < theo[-1] else "full"
    share = f"{EFFECTIVE_SHARE:.0%}"
    st.markdown(
        t(
            f"cnn_receptive_field.measured.{verdict}",
            eff=eff[-1],
            theo=theo[-1],
            layers=L,
            share=share,
        )
    )
    ui.chart(
        base.line_chart(
            list(range(1, L + 1)),
            {
                t("cnn_receptive_field.widths.theory"): theo,
                t("cnn_receptive_field.widths.effective"): eff,
            },
            title=t("cnn_receptive_field.widths.title", model=encoder),
            x_title=t("cnn_receptive_field.measured.y"),
            y_title=t("cnn_receptive_field.widths.y"),
            presenter=ui.presenter(),
        ),
        key="cnn_rf_widths",
    )
    st.caption(
        t(
            "cnn_receptive_field.measured.caption",
            model=encoder,
            layers=L,
            k=kernel,
            inside=f"{inside:.0%}",
        )
    )
