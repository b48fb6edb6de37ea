"""Part "buys" (the lesson's argument): the shipped models' held-out accuracy against
sentence length (with and without attention), then every model on one sentence."""

from __future__ import annotations

import streamlit as st

import ui
from charts import attention as figures
from charts.common import Titles
from core import zoo
from core.analysis import attention as analysis
from core.corpus import BUCKETS
from core.vocab import detokenize_zh
from lessons.attention import common, data
from ui import models

t = ui.t  # reads the visitor's language on every call

MODELS = ("gru_plain_256", "gru_attention", "cnn_s2s", "transformer")  # the curves
CNN = "cnn_s2s"  # attends at every decoder layer, and still falls with length
ATTENTION_MODELS = ("gru_attention", "cnn_s2s", "transformer")  # the ones that attend


def show() -> None:
    """The shipped models' accuracy by length (the picture, which no control changes),
    then every model on one sentence (a fragment: the sentence reruns only the table)."""
    s = ui.slide(t("attention.part.buys.lead"))
    series = analysis.length_series(models.get_manifest(), MODELS, BUCKETS)
    with s.chart:
        if series:
            ui.chart(lengths_figure(BUCKETS, series), key="attention_buys_lengths")
        else:
            st.caption(t("attention.buys.no_metrics"))
    with s.words:
        if series:
            st.caption(caption(series))
            cnn = cnn_note(models.get_manifest(), series)
            if cnn:
                st.markdown(cnn)
    table()
    ui.takeaway(t("attention.buys.takeaway"))


def caption(series: dict[str, list[float]]) -> str:
    """What the chart shows: each model's share from the shortest to the longest bucket."""
    drops = "; ".join(
        t("attention.buys.drop", model=ui.model_name(m), a=f"{v[0]:.0%}", b=f"{v[-1]:.0%}")
        for m, v in series.items()
    )
    return t("attention.buys.caption", drops=drops)


def cnn_note(manifest: dict, series: dict[str, list[float]]) -> str | None:
    """Why the convolutional model falls with length although it attends: its budget (steps
    against the other attention models', from the manifest), how much its loss still fell
    over the last fifth of its training, and how far its convolutions see (from its config);
    ``None`` without its curve or figures."""
    entries = manifest.get("models", {})
    cnn = entries.get(CNN, {})
    if CNN not in series or len(cnn.get("curve") or ()) < 6 or "steps" not in cnn:
        return None
    steps = sorted({entries[m]["steps"] for m in ATTENTION_MODELS if m != CNN and m in entries})
    if not steps:
        return None
    cfg = models.get_model(CNN).cfg
    return t(
        "attention.buys.cnn",
        a=f"{series[CNN][0]:.0%}",
        b=f"{series[CNN][-1]:.0%}",
        steps=f"{cnn['steps']:,}",
        others=" / ".join(f"{n:,}" for n in steps),
        fall=f"{analysis.loss_fall(cnn['curve']):.0%}",
        enc=field(cfg.enc_layers, cfg.kernel),
        dec=field(cfg.dec_layers, cfg.kernel),
    )


def field(layers: int, kernel: int) -> int:
    """Words a stack of ``layers`` convolutions of width ``kernel`` sees: 1 + layers(kernel-1)."""
    return 1 + layers * (kernel - 1)


@ui.fragment  # the sentence reruns only the table: the curves above do not depend on it
def table() -> None:
    tokens = common.sentence_picker(common.EXAMPLES[6])
    if tokens is None:
        return
    st.table(models_rows(zoo.TRANSLATION_MODELS, tokens))
    common.reference_note(tokens)
    ui.params.set_params(s=" ".join(tokens))


def lengths_figure(buckets, series: dict[str, list[float]]):
    return figures.bucket_lines(
        buckets,
        series,
        titles=Titles(t("attention.buys.title"), t("attention.buys.x"), t("attention.buys.y")),
        presenter=ui.presenter(),
        names={m: ui.model_name(m) for m in series},
    )


def models_rows(names, tokens: tuple[str, ...]) -> list[dict[str, str]]:
    """One row per model: its name, whether it attends, its output (and whether that is
    exactly the corpus's translation, when the sentence is an example)."""
    yes_no = {True: t("attention.buys.yes"), False: t("attention.buys.no")}
    ref = dict(analysis.EXAMPLES).get(" ".join(tokens))
    rows = []
    for name in names:
        text = data.translate_with(name, tokens)
        row = {
            t("attention.buys.col.model"): ui.model_name(name),
            t("attention.buys.col.attention"): yes_no[name in ATTENTION_MODELS],
            t("attention.buys.col.output"): t("attention.buys.missing") if text is None else text,
        }
        if ref:
            row[t("attention.buys.col.exact")] = yes_no[text == detokenize_zh(ref.split())]
        rows.append(row)
    return rows
