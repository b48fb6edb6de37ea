"""Part "sentence" of the model arena: one sentence (a lesson sentence, a grammar sentence by
length and seed, or typed text) through every model. The bar chart of who got it right is the
slide; a card per model, the confidence grid and every number under it. In predict mode the
outputs stay hidden until revealed one model at a time (the URL's ``mode`` and ``reveal``)."""

from __future__ import annotations

import contextlib
import html
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

import ui
import ui.inputs
from charts import arena as figures
from core import corpus, lexicon
from core.analysis import arena as analysis
from core.vocab import Vocab, detokenize_zh
from lessons.arena import common, data
from ui.markup import escaped_html
from ui.nav import PAGES, is_built, page_spec
from ui.params import bound, get_int, set_params
from ui.slide import Slide

INPUTS = ("lesson", "grammar", "typed")
VIEWS = ("edit", "position")
# The numbers table (its column header keys are "arena.col.<name>"); outputs are on the cards.
TABLE_COLUMNS = ("model", "exact", "edit_acc", "token_acc", "conf", "min_conf", "params", "latency")
TABLE_ALIGN = ("left", "center") + ("right",) * 6
# The page that explains each model's behaviour (lesson order).
WHY: dict[str, tuple[str, ...]] = {
    "gru_plain_32": ("bottleneck", "rnn_gradients"),
    "gru_plain_128": ("bottleneck", "rnn_gradients"),
    "gru_plain_256": ("bottleneck", "rnn_gradients"),
    "rnn_plain_256": ("rnn_gradients",),
    "gru_attention": ("attention",),
    "cnn_s2s": ("cnn_receptive_field", "attention"),
    "transformer": ("attention",),
}
# The part of a linked page that shows the evidence for these models (other pages open at
# their first part): the trained encoders' word influence, the trained CNN's gradients.
WHY_PART: dict[str, str] = {"rnn_gradients": "fade", "cnn_receptive_field": "measured"}
# Non-colour marks (projector, print-outs, colour-blind viewers).
SYMBOLS = {analysis.OK: " ✓", analysis.WRONG: " ✗", analysis.EXTRA: " +"}
LESSON_LABELS = tuple(" ".join(p.src) for p in corpus.LESSON_PAIRS)
DEFAULT_LESSON = 5  # "the cat drank the milk because it was hungry": the lesson's "it"
DEFAULT_TEXT = "the cat drank the milk because it was sweet"
MAX_SEED = 999_999


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


# --- controls ------------------------------------------------------------------------------


def _draw() -> None:
    # a new sentence of the same length; the URL keeps the seed, so the link reproduces it
    st.query_params["seed"] = str(random.randint(0, MAX_SEED))


def seed_row() -> int:
    """The grammar sentence's seed (in the URL) and the button that draws a new one."""
    t = ui.t
    seed = get_int("seed", 0, MAX_SEED, analysis.DEFAULT_SEED)
    with st.container(horizontal=True, vertical_alignment="bottom"):
        seed = st.number_input(
            t("arena.input.seed"),
            0,
            MAX_SEED,
            step=1,
            help=t("arena.input.seed_help"),
            width=180,
            **bound("seed", seed, key="arena_seed"),
        )
        st.button(t("arena.input.draw"), on_click=_draw, icon=":material/casino:")
    set_params(seed=seed)
    return int(seed)


def pick_sentence(
    source: str, seed: int | None, src_vocab: Vocab
) -> tuple[list[str] | None, corpus.Pair | None]:
    """The sentence's main control for ``source`` (a grammar sentence: of ``seed``): the
    tokens (``None`` with a message when it cannot be translated) and the reference, if any."""
    t = ui.t
    reference: corpus.Pair | None = None
    tokens: list[str] | None = None
    if source == "lesson":
        idx = get_int("lesson", 0, len(LESSON_LABELS) - 1, DEFAULT_LESSON)
        idx = st.selectbox(
            t("arena.input.lesson"),
            range(len(LESSON_LABELS)),
            format_func=LESSON_LABELS.__getitem__,
            **bound("lesson", idx, key="arena_lesson"),
        )
        set_params(lesson=idx)
        reference = corpus.LESSON_PAIRS[idx]
        raw_text = LESSON_LABELS[idx]
    elif source == "grammar":
        length = get_int("len", 1, corpus.MAX_LEN, analysis.DEFAULT_LENGTH)
        length = st.slider(
            t("arena.input.length"), 1, corpus.MAX_LEN, **bound("len", length, key="arena_len")
        )
        set_params(len=length)
        reference = data.grammar(int(seed or 0), int(length))
        raw_text = " ".join(reference.src)
    else:
        raw_text, tokens = ui.inputs.sentence_input(
            t("arena.input.text"),
            param="text",
            default=DEFAULT_TEXT,
            key="arena_text",
            src_vocab=src_vocab,
            help=t("arena.input.text_help"),
        )
    if source != "typed":
        # lesson and grammar sentences go through the same check (a word missing from the
        # training vocabulary is named, not silently turned into <unk>)
        tokens = ui.inputs.check(raw_text, src_vocab)
    if tokens is not None and source == "typed":
        reference = analysis.find_reference(tokens)
    if tokens is not None:
        st.markdown(
            t("arena.input.source_line", text=ui.inputs.plain(" ".join(tokens)), n=len(tokens))
        )
        if reference is not None:
            st.markdown(
                t("arena.input.reference", text=ui.inputs.plain(detokenize_zh(reference.tgt)))
            )
        else:
            st.info(t("arena.input.no_reference"), icon=":material/help:")
    return tokens, reference


def _set_reveal(k: int) -> None:
    st.session_state["arena_reveal"] = k
    st.query_params["reveal"] = str(k)


def reveal_row(revealed: int, total: int) -> None:
    """Predict mode: "reveal the next model" and "hide all", with how many are shown."""
    t = ui.t
    with st.container(horizontal=True, vertical_alignment="center"):
        st.button(
            t("arena.reveal_next"),
            on_click=_set_reveal,
            args=(min(revealed + 1, total),),
            disabled=revealed >= total,
            type="primary",
            icon=":material/visibility:",
        )
        st.button(
            t("arena.hide_all"),
            on_click=_set_reveal,
            args=(0,),
            disabled=revealed == 0,
            icon=":material/visibility_off:",
        )
        st.caption(t("arena.predict_note", shown=revealed, total=total))


def remeasure() -> None:
    st.session_state["arena_measure"] = int(st.session_state.get("arena_measure", 0)) + 1


# --- why each model does what it does ------------------------------------------------------


def why_text(name: str, manifest: Mapping[str, Any]) -> str:
    """One line on why the model ``name`` behaves as it does (its size from the manifest)."""
    t = ui.t
    cfg = ((manifest.get("models") or {}).get(name) or {}).get("config") or {}
    if name.startswith("gru_plain"):
        return t("arena.why.gru_plain", hidden=cfg.get("hidden", "?"))
    if name == "cnn_s2s":
        layers, kernel = cfg.get("enc_layers"), cfg.get("kernel")
        if isinstance(layers, int) and isinstance(kernel, int):
            return t("arena.why.cnn_s2s", layers=layers, rf=1 + layers * (kernel - 1))
        return t("arena.why.cnn_s2s_plain")
    return t(f"arena.why.{name}")


def why_links(
    names: Sequence[str], why: Mapping[str, tuple[str, ...]], why_part: Mapping[str, str]
) -> None:
    """One row of links to the pages that explain the models ``names`` (``why``: model ->
    pages; ``why_part``: the part a page opens at), in lesson order."""
    t = ui.t
    order = [spec.slug for spec in PAGES]
    slugs = sorted({s for n in names for s in why[n]}, key=lambda s: order.index(s))
    with st.container(horizontal=True, gap="medium", vertical_alignment="center"):
        st.caption(t("arena.why.links"))
        for slug in slugs:
            spec = page_spec(slug)
            if spec is not None and is_built(slug):
                extra = {"part": why_part[slug]} if slug in why_part else {}
                ui.page_link(
                    spec.path,
                    label=t(f"page.{slug}.title"),
                    icon=":material/arrow_forward:",
                    query_params={
                        "lang": ui.current_lang(),
                        "present": int(ui.presenter()),
                        **extra,
                    },
                )
            else:
                st.caption(t("arena.why.soon", page=t(f"page.{slug}.title")))


# --- every model on one sentence -----------------------------------------------------------


@dataclass
class Board:
    """Every model's result on one sentence, ready to draw: the bars (``values``, ``labels``;
    ``None`` / "?" while hidden), one HTML card each, the numbers table's ``rows`` and the
    confidence grid of the models shown (names, output tokens, probabilities, marks)."""

    values: list[float | None] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    cards: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    grid: tuple[list, list, list, list] = field(default_factory=lambda: ([], [], [], []))


def board(
    models: Sequence[str],
    runs: Mapping[str, data.Result],
    reference: corpus.Pair | None,
    *,
    view: str,
    shown: int,
    names: Mapping[str, str],
    why: Mapping[str, tuple[str, ...]],
    manifest: Mapping[str, Any],
    symbols: Mapping[str, str],
) -> Board:
    """Each model's output scored against the reference (``runs``: :func:`data.sentence`,
    aligned with ``view``'s alignment; without a reference, the model's mean confidence),
    the first ``shown`` models visible (predict mode hides the others)."""
    t = ui.t
    b = Board()
    ref = reference.tgt if reference is not None else None
    for i, name in enumerate(models):
        run = runs[name]
        out, probs, verdict, scores = run.out, run.probs, run.verdict, run.scores
        visible = i < shown
        conf = sum(probs) / max(1, len(probs))
        # the bar: edit-distance accuracy against the reference (mean confidence without one)
        value = (scores["edit_acc"] if scores else conf) if visible else None
        b.values.append(value)
        if not visible:
            b.labels.append("?")
        elif scores and scores["exact"] == 1:
            b.labels.append(t("arena.bars.exact", v=f"{value:.0%}"))
        else:
            b.labels.append(f"{value:.0%}" + (" ✗" if scores else ""))
        ms = run.latency["median_ms"]
        meta = t("arena.card.meta", params=f"{run.params:,}", ms=f"{ms:.0f}")
        if not visible:
            body, small = f"<b>{html.escape(t('arena.card.hidden'))}</b>", []
        else:
            marks = verdict.marks if verdict else None
            body = figures.strip_html(out, marks, mark_symbols=symbols) or t("arena.empty_output")
            card = "arena.card.exact" if scores and scores["exact"] == 1 else "arena.card.score"
            small = [
                t(
                    card,
                    correct=verdict.correct,
                    n=len(ref),
                    missing=verdict.missing,
                    conf=f"{conf:.0%}",
                )
                if verdict
                else t("arena.card.conf", conf=f"{conf:.0%}")
            ]
        pages = " · ".join(t(f"page.{slug}.title") for slug in why[name])
        small.append(f"{why_text(name, manifest)} → {pages}")
        b.cards.append(figures.card_html(names[name], lexicon.look(name).color, meta, body, small))
        cell = (lambda v: f"{v:.0%}") if visible and scores else (lambda v: "—")
        exact = "?" if not visible else ("✓" if scores["exact"] == 1 else "✗") if scores else "—"
        b.rows.append(
            [
                names[name],
                exact,
                cell(scores["edit_acc"] if scores else 0),
                cell(scores["token_acc"] if scores else 0),
                f"{conf:.0%}" if visible and probs else "—",
                f"{min(probs):.0%}" if visible and probs else "—",
                f"{run.params:,}",
                f"{float(ms):.1f}",
            ]
        )
        if visible:
            b.grid[0].append(names[name])
            b.grid[1].append(list(out))
            b.grid[2].append(list(probs))
            b.grid[3].append(list(verdict.marks) if verdict else ["none"] * len(out))
    return b
