"""Part "sentence" of the model arena: one sentence (a lesson sentence, a grammar sentence by
length and seed, or typed text) through every model. The bar chart of who got it right is the
slide; a card per model, the confidence grid and every number under it. In predict mode the
outputs stay hidden until revealed one model at a time (the URL's ``mode`` and ``reveal``).

Drawn here: the part's fragments (:func:`section`, and :func:`sentence` nested in it) and what
they write into the slide's places; the controls are in ``sentence_controls``, the scoring of
every model in ``sentence_board``, the links to the pages that explain them in
``sentence_why``."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

import ui
from charts import arena as figures
from core import corpus
from core.analysis import arena as analysis
from core.vocab import Vocab
from lessons.arena import common, data
from lessons.arena.sentence_board import Board, board
from lessons.arena.sentence_controls import pick_sentence, remeasure, reveal_row, seed_row
from lessons.arena.sentence_why import WHY, WHY_PART, why_links
from ui.markup import escaped_html
from ui.slide import Slide

INPUTS = ("lesson", "grammar", "typed")
VIEWS = ("edit", "position")
# The numbers table (its column header keys are "arena.col.<name>"); outputs are on the cards.
TABLE_COLUMNS = ("model", "exact", "edit_acc", "token_acc", "conf", "min_conf", "params", "latency")
TABLE_ALIGN = ("left", "center") + ("right",) * 6
# Non-colour marks (projector, print-outs, colour-blind viewers).
SYMBOLS = {analysis.OK: " ✓", analysis.WRONG: " ✗", analysis.EXTRA: " +"}


def show() -> None:
    available, manifest, src_vocab = common.open_zoo()
    common.header("arena.sentence.header", n=len(available))  # the models whose weights loaded
    with st.container():  # one block (see common.header)
        section(available, manifest, src_vocab)
    common.closing("arena.sentence.takeaway", "arena.sentence.try", manifest)


@ui.fragment  # the input choice, predict mode and view rerun this part
def section(available: list[str], manifest: dict[str, Any], src_vocab: Vocab) -> None:
    """The part's secondary controls (input choice, the grammar sentence's seed, predict
    mode, view); :func:`sentence` draws the rest into the same slide."""
    t = ui.t
    s = ui.slide(t("arena.sentence.lead", n=len(available)))
    with s.more:
        source = common.choice("input", INPUTS, "grammar", "arena_input", "arena.input.source")
        seed = seed_row() if source == "grammar" else None
        c1, c2 = st.columns(2, vertical_alignment="bottom")
        with c1:
            mode = common.choice(
                "mode", common.MODES, "show", "arena_mode", "arena.mode", help=t("arena.mode_help")
            )
        with c2:
            view = common.choice(
                "view",
                VIEWS,
                data.DEFAULT_VIEW,
                "arena_view",
                "arena.view",
                help=t("arena.view_help"),
            )
    with s.words:  # the cards, the links to the pages that explain the models, the rest
        cards, links, rest = st.container(), st.container(), st.container()
    with links:  # the same for every sentence: drawn here, not at each click
        why_links(available, WHY, WHY_PART)
    sentence(s, Words(cards, rest), available, manifest, src_vocab, source, seed, mode, view)


@dataclass
class Words:
    """The places of the sentence's words in the slide: its cards, then (under the links)
    the confidence grid, the numbers table and the fold for the curious."""

    cards: DeltaGenerator
    rest: DeltaGenerator


# The sentence's main control reruns only what it changes (the bars, cards, grid and table),
# drawn into the places ``section`` made: a length click does not send the secondary
# controls again (measured: ~3 ms a re-sent widget on one core).
@ui.fragment
def sentence(
    s: Slide,
    at: Words,
    available: list[str],
    manifest: dict[str, Any],
    src_vocab: Vocab,
    source: str,
    seed: int | None,
    mode: str,
    view: str,
) -> None:
    """The sentence's control, the reveal buttons in predict mode, then every model's result
    (:func:`results`). In predict mode the outputs stay hidden until revealed one model at a
    time (the URL's ``mode`` and ``reveal``)."""
    with s.control:
        tokens, reference = pick_sentence(source, seed, src_vocab)
    n_models = len(available)
    revealed = ui.params.get_int("reveal", 0, len(common.MODELS), 0)
    signature = (source, tuple(tokens or ()))  # a new sentence in predict mode hides all again
    if st.session_state.get("arena_signature") not in (None, signature) and mode == "predict":
        revealed = 0
    st.session_state["arena_signature"] = signature
    revealed = n_models if mode == "show" else min(revealed, n_models)
    st.session_state["arena_reveal"] = revealed
    if mode == "predict":
        with s.control:
            reveal_row(revealed, n_models)
    ui.params.set_params(reveal=revealed if mode == "predict" else 0)
    if tokens is None:  # a sentence the models cannot read: the message under the box only
        ui.hold(s.chart, s.more, at.cards, at.rest)
        return
    results(s, at, available, manifest, tuple(tokens), reference, view, revealed)


def results(
    s: Slide,
    at: Words,
    available: list[str],
    manifest: dict[str, Any],
    key: tuple[str, ...],
    reference: corpus.Pair | None,
    view: str,
    shown: int,
) -> None:
    """Every model on the sentence: the bars (chart), then a card each, the confidence grid
    and the table (``at``)."""
    t, names = ui.t, common.names()
    nonce = int(st.session_state.get("arena_measure", 0))
    ref = tuple(reference.tgt) if reference is not None else None
    # "Measure again" times five decodes a model, long enough to say so; otherwise a
    # translation each (cached after the first visit): no spinner to send and clear
    with st.spinner(t("arena.latency.measuring")) if nonce else contextlib.nullcontext():
        runs = data.sentence(tuple(available), key, ref, view, nonce)
    b = board(
        available,
        runs,
        reference,
        view=view,
        shown=shown,
        names=names,
        why=WHY,
        manifest=manifest,
        symbols=SYMBOLS,
    )
    with s.chart:
        what = "arena.bars.title" if reference is not None else "arena.bars.title_conf"
        x_what = "arena.bars.x" if reference is not None else "arena.bars.x_conf"
        ui.chart(
            lambda: figures.sentence_bars(
                available,
                b.values,
                b.labels,
                names=names,
                title=t(what),
                x_title=t(x_what, n=len(key)),
                presenter=ui.presenter(),
            ),
            key="arena_bars",
            # what the bars are built from (the names and titles: the language's)
            memo=(tuple(available), tuple(b.values), tuple(b.labels), what, x_what, len(key)),
        )
    header = words(at, b, reference is not None, view)
    with s.more, st.container(horizontal=True):
        st.download_button(
            t("arena.table.csv"),
            data=lambda: analysis.table_csv(header, b.rows),
            file_name="arena.csv",
            mime="text/csv",
            on_click="ignore",
            icon=":material/download:",
            key="arena_csv",
        )
        st.button(
            t("arena.latency.again"),
            on_click=remeasure,
            icon=":material/timer:",
            key="arena_remeasure",
        )
    with at.rest, ui.curious():
        stamp = max(str(r.latency["at"]) for r in runs.values())
        which = "arena.latency.note" if nonce else "arena.latency.note_once"
        st.markdown(t("arena.sentence.how"))
        st.caption(t(which, runs=data.REMEASURE_RUNS, at=stamp))


def words(at: Words, b: Board, has_reference: bool, view: str) -> list[str]:
    """Under the bars: a card each (above the links to the pages that explain them), the
    confidence grid and the numbers table. Returns the table's header (the CSV uses it)."""
    t = ui.t
    with at.cards:
        if has_reference:
            st.caption(t(f"arena.legend.{view}"))
        # a card a model, one element (ui.markup: the html is escaped here, not in the page)
        escaped_html("".join(b.cards), key="arena_cards")
    with at.rest:
        if b.grid[0] and any(b.grid[1]):
            st.markdown(f"**{t('arena.conf.title')}**")
            marks = b.grid[3] if has_reference else None
            grid = figures.confidence_html(
                *b.grid[:3], marks, mark_symbols=SYMBOLS, label=t("arena.conf.title")
            )
            escaped_html(grid, key="arena_grid")
            st.caption(t("arena.conf.caption"))
        st.markdown(f"**{t('arena.table.header')}**")
        header = [t(f"arena.col.{c}") for c in TABLE_COLUMNS]
        table = figures.table_html(header, b.rows, TABLE_ALIGN, label=t("arena.table.header"))
        escaped_html(table, key="arena_table")
    return header
