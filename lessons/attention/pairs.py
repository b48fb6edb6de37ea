"""Part "pairs" (lesson 3.1, context decides): two sentences that differ in one word, and
what the step that writes the deciding word reads in each (the decoder's rows and their
difference), then what the ambiguous word itself reads inside the encoder."""

from __future__ import annotations

import numpy as np
import streamlit as st

import ui
from charts import attention as figures
from core.analysis import attention as analysis
from lessons.attention import common, data
from ui.inputs import plain

t = ui.t  # reads the visitor's language on every call

PAIR_KEYS = tuple(p.key for p in analysis.MINIMAL_PAIRS)


@ui.fragment  # the pair reruns the part: the decoder's rows and the encoder's
def show() -> None:
    top, below = st.container(), st.container()
    found = data.best_pair()
    with below:
        key = common.choice("pair", PAIR_KEYS, found.key, t("attention.pair"), "attention.pair.")
    pair = next(p for p in analysis.MINIMAL_PAIRS if p.key == key)
    with top:
        decoder(pair)
    with below:
        # Inside the encoder: what the ambiguous word itself reads (Transformer self-attention).
        st.subheader(t("attention.pairs.enc.header"))
        words = (dict(analysis.corpus_pair(e).info).get("word", "it") for e in (pair.a, pair.b))
        encoder(tuple(zip((pair.a, pair.b), words)), found.layer)
        ui.takeaway(t("attention.pairs.takeaway"))
        ui.try_this(t("attention.pairs.try"))
        with ui.curious():
            st.caption(t(f"attention.pairs.source.{pair.source}"))
            st.caption(
                t("attention.pairs.enc.found", layer=found.layer + 1, w=f"{found.reads:.2f}")
            )


@ui.fragment  # the model, layer and head rerun only the decoder's rows: one figure
def decoder(pair: analysis.MinimalPair) -> None:
    """The step that writes the deciding word in A and in B: the two rows of weights and
    A minus B, as three panels of one figure (position under position)."""
    s = ui.slide(t("attention.part.pairs.lead"))
    with s.control:
        name = common.model_picker()
    runs = [
        (e, analysis.corpus_pair(e), data.run_model(name, tuple(e.split()))[0])
        for e in (pair.a, pair.b)
    ]
    layer, head = common.view_picker(name, runs[0][2], s)
    panels, rows = decoder_rows(name, runs, layer, head, s.words.columns(2))
    a_run, b_run = runs[0][2], runs[1][2]
    same_length = len(a_run.source) == len(b_run.source)
    # the difference A - B is a third panel on a laptop; a slide keeps the two rows
    diff = same_length and all(r is not None for r in rows) and not ui.presenter()
    if diff:
        panels.append(difference_panel(a_run, b_run, rows))
    if panels:
        with s.chart:
            fig = figures.bar_panels(panels, presenter=ui.presenter())
            ui.chart(fig, key="attention_pair_rows")
    with s.words:
        if diff:
            where = common.where(name, layer, head)
            st.caption(t("attention.pairs.diff.caption", where=where))
        elif not same_length and not ui.presenter():  # (a row missing: its warning says why)
            st.caption(t("attention.pairs.nodiff"))


def decoder_rows(
    name: str, runs, layer: int, head: int | None, cols
) -> tuple[list[figures.BarPanel], list[np.ndarray | None]]:
    """For A and B (``runs``: (english, corpus pair, run) each, drawn in ``cols``): the
    sentence, the model's output and the row of the step that writes the deciding word.
    Returns the figure's panels and the rows (``None`` where the word was not written)."""
    panels, rows = [], []
    for col, (english, cp, run), tag in zip(cols, runs, "AB"):
        with col:
            idx, word = cp.check[0]
            st.markdown(f"**{tag}** · “{plain(english)}”")
            common.model_note(name, run)
            step = analysis.token_step(run.output, word, idx)
            if step is None:
                st.warning(t("attention.pairs.missed", word=plain(word)), icon=":material/error:")
                rows.append(None)
                continue
            row = analysis.select_heads(run.cross, layer, head)[step]
            rows.append(row)
            panels.append(
                figures.BarPanel(
                    run.source,
                    row,
                    title=t("attention.pairs.row", tag=tag, token=word, step=step + 1),
                    y_title=t("attention.hover.weight"),
                    x_title=t("attention.align.x") if tag == "B" else "",
                )
            )
            top = int(np.argmax(row))
            st.caption(
                t(
                    "attention.pairs.peak",
                    token=plain(word),
                    top=plain(run.source[top]),
                    w=f"{row[top]:.2f}",
                )
            )
    return panels, rows


def difference_panel(a: analysis.AttentionRun, b: analysis.AttentionRun, rows) -> figures.BarPanel:
    """A's row minus B's, position under position (the words that differ as "x/y")."""
    return figures.BarPanel(
        [x if x == y else f"{x}/{y}" for x, y in zip(a.source, b.source)],
        rows[0] - rows[1],
        title=t("attention.pairs.diff.title"),
        y_title=t("attention.pairs.diff.y"),
        x_title=t("attention.pairs.diff.x"),
        signed=True,
    )


@ui.fragment  # the encoder layer reruns only its figure
def encoder(sentences: tuple[tuple[str, str], ...], default_layer: int) -> None:
    """What the ambiguous word reads in each sentence of the pair, (english, word) each:
    its self-attention row in A and in B, two panels of one figure."""
    enc_runs = [data.run_model("transformer", tuple(e.split()))[0] for e, _ in sentences]
    n_enc = enc_runs[0].enc_self.shape[0]
    elayer = ui.params.get_int("elayer", 1, n_enc, default=min(default_layer + 1, n_enc))
    panels = encoder_panels(sentences, enc_runs, elayer)
    ui.chart(figures.bar_panels(panels, presenter=ui.presenter()), key="attention_pair_enc")
    elayer = st.select_slider(
        t("attention.pairs.enc.layer"),
        options=list(range(1, n_enc + 1)),
        **ui.params.bound("elayer", elayer, key="attention_elayer"),
    )
    ui.params.set_params(elayer=elayer)
    st.caption(t("attention.pairs.enc.caption", layer=elayer))


def encoder_panels(sentences, runs, layer: int) -> list[figures.BarPanel]:
    """The self-attention row of the ambiguous word (``sentences``: (english, word) each)
    in encoder ``layer`` (1-based, mean of heads), in A and in B."""
    panels = []
    for (_, word), run, tag in zip(sentences, runs, "AB"):
        i = run.source.index(word)
        row = run.enc_self[layer - 1].mean(0)[i]
        panels.append(
            figures.BarPanel(
                run.source,
                row,
                title=t("attention.pairs.enc.title", tag=tag, word=word),
                y_title=t("attention.hover.weight"),
                x_title=t("attention.self.x"),
                highlight=int(np.argmax(np.where(np.arange(row.size) == i, -1, row))),
            )
        )
    return panels
