"""Model arena: the whole argument — the same sentence through every translation model.

Two parts, one on screen at a time (``?part=``): "sentence" — one long sentence, every
model's output scored against the reference (the bar chart is the slide; cards, the
confidence grid and all numbers below it); "evidence" — the held-out evidence behind the
verdict (accuracy against length, memory against distance).

The cached computation and the zoo check live in ``ui/arena_data.py``; the sentence picker,
the reveal buttons and the result cards in ``ui/arena_parts.py``.
"""

from __future__ import annotations

import streamlit as st

import core.zoo as zoo
import ui
from core import corpus, probes_data
from core.analysis import arena as A
from core.figures import arena as F
from ui import arena_data as D
from ui import arena_parts as parts

ui.begin_page("arena")
t = ui.t
present = ui.presenter()
P = "arena."

PARTS = ("sentence", "evidence")
MODELS = zoo.TRANSLATION_MODELS
INPUTS = ("lesson", "grammar", "typed")
MODES = ("show", "predict")
VIEWS = ("edit", "position")
METRICS = ("exact", "edit_acc", "token_acc")
# The numbers table (its column header keys are "arena.col.<name>"); outputs are on the cards.
TABLE_COLUMNS = ("model", "exact", "edit_acc", "token_acc", "conf", "min_conf", "params", "latency")
TABLE_ALIGN = ("left", "center") + ("right",) * 6
# The page that explains each model's behaviour (lesson order).
WHY: dict[str, tuple[str, ...]] = {
    "gru_plain_32": ("bottleneck", "rnn_gradients"),
    "gru_plain_128": ("bottleneck", "rnn_gradients"),
    "gru_plain_256": ("bottleneck", "rnn_gradients"),
    "gru_attention": ("attention",),
    "cnn_s2s": ("cnn_receptive_field", "attention"),
    "transformer": ("attention",),
}
# The part of a linked page that shows the evidence for these models (other pages open at
# their first part): the trained encoders' word influence, the trained CNN's gradients.
WHY_PART: dict[str, str] = {"rnn_gradients": "words", "cnn_receptive_field": "measured"}
# Non-colour marks (projector, print-outs, colour-blind viewers).
SYMBOLS = {A.OK: " ✓", A.WRONG: " ✗", A.EXTRA: " +"}

# --- one part at a time; which models are here ---------------------------------------------

part = ui.part_selector(P, PARTS, key="arena_part")
available, manifest, src_vocab = D.open_zoo(MODELS, P)  # stops with the rebuild command
NAMES = {m: ui.model_name(m) for m in MODELS + zoo.PROBE_MODELS}


# --- part "sentence": one sentence, every model ----------------------------------------------


@ui.fragment  # the sentence and its controls rerun this part only
def sentence_section() -> None:
    """The bar chart (who got it right), its control (the sentence), then cards, the
    confidence grid and every number. In predict mode the outputs stay hidden until
    revealed one model at a time (the URL's ``mode`` and ``reveal``)."""
    s = ui.slide(t(P + "sentence.lead"))
    with s.more:
        source = parts.choice("input", INPUTS, "grammar", "arena_input", "input.source")
    with s.control:
        tokens, reference = parts.pick_sentence(source, s.more, src_vocab)
    with s.more:
        c1, c2 = st.columns(2, vertical_alignment="bottom")
        with c1:
            mode = parts.choice("mode", MODES, "show", "arena_mode", help=t(P + "mode_help"))
        with c2:
            view = parts.choice("view", VIEWS, "edit", "arena_view", help=t(P + "view_help"))
    n_models = len(available)
    revealed = ui.params.get_int("reveal", 0, len(MODELS), 0)
    signature = (source, tuple(tokens or ()))  # a new sentence in predict mode hides all again
    if st.session_state.get("arena_signature") not in (None, signature) and mode == "predict":
        revealed = 0
    st.session_state["arena_signature"] = signature
    revealed = n_models if mode == "show" else min(revealed, n_models)
    st.session_state["arena_reveal"] = revealed
    if mode == "predict":
        with s.control:
            parts.reveal_row(revealed, n_models)
    ui.params.set_params(reveal=revealed if mode == "predict" else 0)
    if tokens is not None:
        results(s, tuple(tokens), reference, view, revealed)


def results(s, key: tuple[str, ...], reference: corpus.Pair | None, view: str, shown: int) -> None:
    """Every model on the sentence: the bars (chart), then a card each, the confidence grid
    and the table (words)."""
    outputs = {name: D.translate(name, key) for name in available}
    nonce = int(st.session_state.get("arena_measure", 0))
    with st.spinner(t(P + "latency.measuring")):
        latency = {name: D.latency(name, key, nonce) for name in available}
    b = parts.board(
        available,
        outputs,
        latency,
        reference,
        view=view,
        shown=shown,
        names=NAMES,
        why=WHY,
        manifest=manifest,
        symbols=SYMBOLS,
    )
    with s.chart:
        what = "bars.title" if reference is not None else "bars.title_conf"
        fig = F.sentence_bars(
            available,
            b.values,
            b.labels,
            names=NAMES,
            title=t(P + what),
            x_title=t(P + ("bars.x" if reference is not None else "bars.x_conf"), n=len(key)),
            presenter=present,
        )
        ui.chart(fig, key="arena_bars")
    with s.words:
        if reference is not None:
            st.caption(t(f"{P}legend.{view}"))
        st.html("".join(b.cards))  # six cards, one element: cheap to redraw
        parts.why_links(available, WHY, WHY_PART)
        if b.grid[0] and any(b.grid[1]):
            st.markdown(f"**{t(P + 'conf.title')}**")
            marks = b.grid[3] if reference is not None else None
            st.html(F.confidence_html(*b.grid[:3], marks, mark_symbols=SYMBOLS))
            st.caption(t(P + "conf.caption"))
        st.markdown(f"**{t(P + 'table.header')}**")
        header = [t(f"{P}col.{c}") for c in TABLE_COLUMNS]
        st.html(F.table_html(header, b.rows, TABLE_ALIGN))
    with s.more, st.container(horizontal=True):
        st.download_button(
            t(P + "table.csv"),
            data=lambda: A.table_csv(header, b.rows),
            file_name="arena.csv",
            mime="text/csv",
            on_click="ignore",
            icon=":material/download:",
            key="arena_csv",
        )
        st.button(
            t(P + "latency.again"),
            on_click=parts.remeasure,
            icon=":material/timer:",
            key="arena_remeasure",
        )
    with s.words, ui.curious():
        stamp = max(str(v["at"]) for v in latency.values())
        which = "latency.note" if nonce else "latency.note_once"
        st.markdown(t(P + "sentence.how"))
        st.caption(t(P + which, runs=D.REMEASURE_RUNS, at=stamp))


# --- part "evidence": not just this sentence -------------------------------------------------


def evidence_part() -> None:
    """The held-out charts (kept back in predict mode until every model is revealed)."""
    mode = ui.params.get_choice("mode", MODES, default="show")
    revealed = ui.params.get_int("reveal", 0, len(MODELS), 0)
    if mode == "predict" and revealed < len(available):
        st.info(t(P + "evidence.after_reveal"), icon=":material/visibility_off:")
        st.button(
            t(P + "to_sentence"),
            on_click=parts.open_part,
            args=("sentence",),
            icon=":material/arrow_back:",
            key="arena_to_sentence",
        )
        return
    evidence_section()


@ui.fragment  # the score choice reruns only the evidence
def evidence_section() -> None:
    """Accuracy against length (the slide), then memory against distance."""
    claim = A.length_claim(A.exact_by_length(manifest, MODELS))
    s = ui.slide(t(P + "evidence.lead", **claim) if claim else t(P + "evidence.lead_plain"))
    with s.control:
        metric = parts.choice("metric", METRICS, "exact", "arena_metric")
    by_length = A.exact_by_length(manifest, MODELS, metric=metric)
    with s.chart:
        if by_length:
            fig_len = F.accuracy_by_length(
                corpus.BUCKETS,
                by_length,
                title=t(P + "len.title", metric=t(f"{P}metric.{metric}")),
                x_title=t(P + "len.x"),
                y_title=t(f"{P}metric.{metric}"),
                names=NAMES,
                presenter=present,
            )
            ui.chart(fig_len, key="arena_len_chart")
        else:
            st.info(t(P + "len.none"), icon=":material/hourglass_empty:")
    distances, by_distance = A.distance_accuracy(manifest, zoo.PROBE_MODELS)
    with s.words:
        n = A.smallest_bucket(manifest, list(by_length))
        st.caption(t(P + "len.caption", n=n if n is not None else "?"))
        if by_distance:
            fig_dist = F.accuracy_by_distance(
                distances,
                by_distance,
                title=t(P + "dist.title"),
                x_title=t(P + "dist.x"),
                y_title=t(P + "dist.y"),
                chance=1 / probes_data.N_KEYS,
                chance_label=t(P + "dist.chance"),
                # lines with the same values lie on top of each other: their names say so
                names=parts.same_names(A.identical_series(by_distance), NAMES),
                presenter=present,
            )
            ui.chart(fig_dist, key="arena_dist_chart")
            st.caption(t(P + "dist.caption"))
            ui.mixed(t(P + "dist.mixed"))
        else:
            st.info(t(P + "dist.none"), icon=":material/hourglass_empty:")
    with s.more, st.container(horizontal=True):
        if by_length:
            st.download_button(
                t(P + "html"),
                data=lambda: F.standalone_html(fig_len),
                file_name=f"arena_accuracy_by_length_{metric}.html",
                mime="text/html",
                on_click="ignore",
                icon=":material/download:",
                key="arena_len_html",
            )
        if by_distance:
            st.download_button(
                t(P + "dist.html"),
                data=lambda: F.standalone_html(fig_dist),
                file_name="arena_memory_by_distance.html",
                mime="text/html",
                on_click="ignore",
                icon=":material/download:",
                key="arena_dist_html",
            )
    with s.words, ui.curious():
        st.markdown(t(P + "evidence.how", n=len(MODELS), n_probes=len(zoo.PROBE_MODELS)))


# The sentence part is one block and the evidence part starts with an element at the same
# place: switching parts replaces the long sentence part at once, so the browser lands at
# the evidence's header instead of keeping a scroll position near the bottom.
st.header(t(f"{P}{part}.header"))
if part == "sentence":
    with st.container():
        sentence_section()
else:
    evidence_part()
claim = A.length_claim(A.exact_by_length(manifest, MODELS)) or {"cnn": "?"}
ui.takeaway(t(f"{P}{part}.takeaway", **claim))
ui.try_this(t(f"{P}{part}.try"))
