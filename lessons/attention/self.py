"""Part "self" (lesson 3.1, self-attention): the lesson's pair "the cat drank the milk
because it was hungry / sweet" in a small encoder trained to say which noun "it" names
(its named head, chosen by the tested claim, shown first), then what each word reads in
the translation Transformer's encoder, for any sentence."""

from __future__ import annotations

import numpy as np
import streamlit as st

import ui
from charts import attention as figures
from charts.common import Titles
from core import corpus
from core.analysis import attention as analysis
from core.analysis import coref
from core.corpus import coref_frames
from lessons import controls
from lessons.attention import common, data
from ui import models
from ui.inputs import plain

t = ui.t  # reads the visitor's language on every call

MODEL = "transformer"  # the translation model whose encoder the explorer shows


@ui.fragment
def show() -> None:
    s = ui.slide(t("attention.part.self.lead"))
    if not models.require(data.COREF):
        return
    with s.more:
        layer, head = coref_head_picker()
    rows = data.coref_rows(layer, head)
    cases = corpus.lesson_coref_cases()
    with s.chart:
        ui.chart(pair_figure(cases, rows, layer, head), key="attention_self_coref")
    numbers = coref_numbers()
    with s.words:
        st.markdown(view_caption(cases, rows, layer, head))
        st.markdown(t("attention.self.qkv"))
        st.caption(t("attention.self.held_out", **numbers))
        translators = translator_numbers(numbers["n"])
        if translators:
            st.caption(t("attention.self.translators", **translators))
    ui.takeaway(t("attention.self.takeaway", **numbers))
    with ui.curious():
        st.caption(t("attention.self.how", **numbers))
    explorer()


def head_options() -> tuple[str, ...]:
    """Every (layer, head) of the coreference encoder as "layer.head", 1-based."""
    return tuple(f"{i + 1}.{h + 1}" for i, n in enumerate(data.coref_heads()) for h in range(n))


def coref_head_picker() -> tuple[int, int]:
    """Layer and head of the coreference encoder (URL ``ch``); the default is the named
    view the tests assert (:data:`coref.LAYER`, :data:`coref.HEAD`). Returns 0-based."""
    options = head_options()
    default = f"{coref.LAYER + 1}.{coref.HEAD + 1}"
    labels = {o: t("attention.self.coref.option", layer=o[0], head=o[2:]) for o in options}
    value = ui.params.get_choice("ch", options, default=default)
    value = controls.segmented(
        t("attention.self.coref.head"),
        options,
        value,
        param="ch",
        key="attention_ch",
        format_func=labels.get,
    )
    layer, head = value.split(".")
    return int(layer) - 1, int(head) - 1


def where(layer: int, head: int) -> str:
    return t("attention.self.coref.where", layer=layer + 1, head=head + 1)


def pair_figure(cases, rows: dict[str, np.ndarray], layer: int, head: int):
    """What "it" reads in each sentence of the pair: two rows of bars, the noun with the
    most weight coloured."""
    panels = [
        figures.BarPanel(
            c.tokens,
            rows[c.predicate],
            title=t(
                "attention.self.coref.row",
                predicate=c.predicate,
                top=c.tokens[int(np.argmax(rows[c.predicate]))],
                w=f"{rows[c.predicate].max():.2f}",
            ),
            y_title=t("attention.hover.weight"),
            x_title=t("attention.self.x") if i == len(cases) - 1 else "",
            highlight=int(np.argmax(rows[c.predicate])),
        )
        for i, c in enumerate(cases)
    ]
    title = t("attention.self.coref.title", where=where(layer, head))
    return figures.bar_panels(panels, title=title, presenter=ui.presenter())


def view_caption(cases, rows: dict[str, np.ndarray], layer: int, head: int) -> str:
    """The weights of "it" on the two nouns in each sentence, in the view shown."""
    hungry, sweet = cases
    row_h, row_s = rows[hungry.predicate], rows[sweet.predicate]
    return t(
        "attention.self.coref.caption",
        where=where(layer, head),
        h_cat=f"{row_h[hungry.antecedent]:.2f}",
        h_milk=f"{row_h[hungry.other]:.2f}",
        s_milk=f"{row_s[sweet.antecedent]:.2f}",
        s_cat=f"{row_s[sweet.other]:.2f}",
    )


def coref_numbers() -> dict[str, str]:
    """The named view's weights on the lesson's pair and its held-out figures."""
    pair, held = data.coref_pair(), data.coref_held_out()
    hungry, sweet = corpus.lesson_coref_cases()
    return dict(
        where=where(coref.LAYER, coref.HEAD),
        cat=f"{pair['hungry'].weights[hungry.antecedent]:.2f}",
        milk=f"{pair['sweet'].weights[sweet.antecedent]:.2f}",
        named_h=pair["hungry"].named,
        named_s=pair["sweet"].named,
        n=str(held["held_out_n"]),
        share=f"{held['resolved']:.0%}",
        named=f"{held['named_acc']:.0%}",
        margin=f"{coref.MARGIN:.1f}",
        need=f"{coref.RESOLVED_MIN:.0%}",
        min=f"{held['min_margin']:.2f}",
        mean=f"{held['mean_margin']:.2f}",
        nouns=", ".join(coref_frames.HELD_OUT_NOUNS),
    )


TRANSLATORS = ("transformer", "gru_attention")  # the attention models trained on the frames


def translator_numbers(n: str) -> dict[str, str] | None:
    """How often each attention translation model writes the right noun after 因为 on the
    same held-out sentences (their manifest metrics); None when a shipped model was not
    measured on them."""
    entries = models.get_manifest().get("models", {})
    shares = {}
    for name in TRANSLATORS:
        got = (entries.get(name, {}).get("metrics") or {}).get("coref_frames") or {}
        if got.get("n") != int(n):
            return None
        shares[name] = f"{got['right_noun']:.1%}"  # 99.75 % is not 100 %
    return dict(
        n=n,
        tr=shares["transformer"],
        gru=shares["gru_attention"],
        tr_name=ui.model_name("transformer"),
        gru_name=ui.model_name("gru_attention"),
    )


@ui.fragment  # the sentence, layer and word rerun only the explorer
def explorer() -> None:
    """The translation Transformer's encoder on any sentence: every word's row as a
    heatmap, the chosen word's row as lines."""
    st.subheader(t("attention.self.tr.header"))
    tokens = common.sentence_picker(common.EXAMPLES[2], "q")
    if tokens is None:
        return
    run, _ = data.run_model(MODEL, tokens)
    found = data.it_view(MODEL)
    layer, head = common.layer_head_picker(run, default=(found.shown.layer, found.shown.head))
    word = common.word_picker(run, tokens, t("attention.self.word"))
    weights = analysis.select_heads(run.enc_self, layer, head)
    ui.chart(
        heatmap(run, weights, word, common.where(MODEL, layer, head, side="enc")),
        key="attention_self_heatmap",
    )
    st.markdown(caption(run, weights, word))
    ui.chart(lines(run, weights, word), key="attention_self_lines")
    numbers = it_numbers(found)
    key = "attention.self.tr_separates" if found.separates else "attention.self.tr_note"
    st.caption(t(key, **numbers))
    with ui.curious():
        st.caption(t("attention.self.search", **numbers))
    ui.params.set_params(q=" ".join(tokens))


def heatmap(run: analysis.AttentionRun, weights: np.ndarray, word: int, where: str):
    """Every word's self-attention row, the row of ``word`` framed (``where``: which layer
    and head, in words)."""
    return figures.attention_heatmap(
        weights,
        run.source,
        run.source,
        titles=Titles(
            t("attention.self.title", where=where), t("attention.self.x"), t("attention.self.y")
        ),
        hover=common.hover(),
        presenter=ui.presenter(),
        highlight_row=word,
    )


def caption(run: analysis.AttentionRun, weights: np.ndarray, word: int) -> str:
    """The three words ``word`` reads most, with their weights."""
    row = weights[word]
    order = np.argsort(-row)[:3]
    top = ", ".join(f"“{plain(run.source[j])}” {row[j]:.2f}" for j in order)
    return t("attention.self.caption", word=plain(run.source[word]), top=top)


def lines(run: analysis.AttentionRun, weights: np.ndarray, word: int):
    """The same weights as lines from each reading word to the words it reads."""
    return figures.attention_lines(
        weights,
        run.source,
        title=t("attention.self.lines", word=run.source[word]),
        presenter=ui.presenter(),
        selected=word,
        left_title=t("attention.self.y"),
        right_title=t("attention.self.x"),
    )


def it_numbers(found: analysis.ItChoice) -> dict[str, str]:
    """What the search for the clearest "it" view found, as the texts' arguments."""
    return dict(
        view=common.where(MODEL, found.shown.layer, found.shown.head, side="enc"),
        cat=f"{found.shown.a_right:.2f}",
        milk=f"{found.shown.b_right:.2f}",
        sep=f"{found.best.separation:+.2f}",
        min=f"{analysis.SEPARATION_MIN:.2f}",
    )
