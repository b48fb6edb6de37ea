"""Model arena: the whole argument — the same sentence through every translation model.

Two parts, one on screen at a time (``?part=``): "sentence" — one long sentence, every
model's output scored against the reference (the bar chart is the slide; cards, the
confidence grid and all numbers below it); "evidence" — the held-out evidence behind the
verdict (accuracy against length, memory against distance).
"""

from __future__ import annotations

import csv
import datetime as dt
import html
import io
import random

import streamlit as st

import core.zoo as zoo
import ui
import ui.inputs
import ui.models
from core import corpus, lexicon, probes_data
from core.analysis import arena as A
from core.figures import arena as F
from core.translate import translate_tokens
from core.vocab import detokenize_zh
from ui.nav import PAGES, is_built, page_spec

ui.begin_page("arena")
t = ui.t
lang = ui.current_lang()
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
LESSON_LABELS = [" ".join(p.src) for p in corpus.LESSON_PAIRS]
DEFAULT_LESSON = 5  # "the cat drank the milk because it was hungry": the lesson's "it"
DEFAULT_TEXT = "the cat drank the milk because it was sweet"
MAX_SEED = 999_999
# Latency: one timed decode right after the translation run; "Measure again" takes the
# median of more runs.
LATENCY_RUNS = 1
REMEASURE_RUNS = 5
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


# --- cached computation --------------------------------------------------------------------


@st.cache_data(show_spinner=False, max_entries=2048)
def _translate(name: str, tokens: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """Greedy output tokens (special tokens as shown) and their probabilities."""
    sv, tv = ui.models.get_vocabs()
    result = translate_tokens(ui.models.get_model(name), tokens, sv, tv)
    return tuple(lexicon.show_tokens(result.output)), result.probs


@st.cache_data(show_spinner=False, max_entries=512)
def _latency(name: str, tokens: tuple[str, ...], nonce: int) -> dict[str, object]:
    """Live timing of the greedy decode; ``nonce`` changes when the user asks to re-measure
    (then over ``REMEASURE_RUNS`` runs, else ``LATENCY_RUNS``)."""
    sv, _ = ui.models.get_vocabs()
    timing = A.greedy_latency(  # no warm-up: _translate has just run this very decode
        ui.models.get_model(name),
        sv.encode(tokens, eos=True),
        runs=REMEASURE_RUNS if nonce else LATENCY_RUNS,
        warmup=0,
    )
    return {**timing, "at": dt.datetime.now(dt.UTC).strftime("%H:%M:%S")}


@st.cache_data(show_spinner=False)
def _params(name: str) -> int:
    return A.count_params(ui.models.get_model(name))


@st.cache_data(show_spinner=False, max_entries=64)
def _grammar(seed: int, length: int) -> corpus.Pair:
    return A.grammar_pair(seed, length)


# --- one part at a time; which models are here ---------------------------------------------

part = ui.part_selector(P, PARTS, key="arena_part")
try:
    src_vocab, tgt_vocab = ui.models.get_vocabs()
except zoo.ZooError as err:
    ui.models.show_zoo_error(err)
    st.stop()
available, missing = [], []
for name in MODELS:
    try:
        ui.models.get_model(name)
        available.append(name)
    except zoo.ZooError:
        missing.append(name)
if not available:
    ui.models.require(*MODELS)  # names the first missing file and the rebuild command
    st.stop()
if missing:
    st.warning(
        t(
            P + "missing",
            models=", ".join(map(ui.model_name, missing)),
            command=zoo.REBUILD_COMMAND,
        ),
        icon=":material/inventory_2:",
    )
try:
    manifest = ui.models.get_manifest()
except zoo.ZooError:
    manifest = {"models": {}}
NAMES = {m: ui.model_name(m) for m in MODELS + zoo.PROBE_MODELS}


def _entry(name: str) -> dict:
    return (manifest.get("models") or {}).get(name) or {}


def _open_part(name: str) -> None:
    st.query_params["part"] = name


# --- part "sentence": one sentence, every model ----------------------------------------------


def _draw() -> None:
    # a new sentence of the same length; the URL keeps the seed, so the link reproduces it
    st.query_params["seed"] = str(random.randint(0, MAX_SEED))


def _set_reveal(k: int) -> None:
    st.session_state["arena_reveal"] = k
    st.query_params["reveal"] = str(k)


def _remeasure() -> None:
    st.session_state["arena_measure"] = int(st.session_state.get("arena_measure", 0)) + 1


def _choice(
    param: str, options: tuple[str, ...], default: str, key: str, label: str = "", **kw
) -> str:
    """A segmented control over ``options`` in the URL as ``param``; its label is
    ``arena.<label>`` and its options ``arena.<label>.<option>`` (``label``: ``param``)."""
    label = P + (label or param)
    value = ui.params.get_choice(param, options, default=default)
    value = st.segmented_control(
        t(label),
        options,
        format_func=ui.labeler(label + "."),
        required=True,
        **kw,
        **ui.params.bound(param, value, key=key),
    )
    ui.params.set_params(**{param: value})
    return value


def pick_sentence(source: str, more) -> tuple[list[str] | None, corpus.Pair | None]:
    """The sentence's main control for ``source`` (its seed in ``more``): the tokens
    (``None`` with a message when it cannot be translated) and the reference, if any."""
    reference: corpus.Pair | None = None
    tokens: list[str] | None = None
    if source == "lesson":
        idx = ui.params.get_int("lesson", 0, len(LESSON_LABELS) - 1, DEFAULT_LESSON)
        idx = st.selectbox(
            t(P + "input.lesson"),
            range(len(LESSON_LABELS)),
            format_func=LESSON_LABELS.__getitem__,
            **ui.params.bound("lesson", idx, key="arena_lesson"),
        )
        ui.params.set_params(lesson=idx)
        reference = corpus.LESSON_PAIRS[idx]
        raw_text = LESSON_LABELS[idx]
    elif source == "grammar":
        length = ui.params.get_int("len", 1, corpus.MAX_LEN, A.DEFAULT_LENGTH)
        seed = ui.params.get_int("seed", 0, MAX_SEED, A.DEFAULT_SEED)
        length = st.slider(
            t(P + "input.length"),
            1,
            corpus.MAX_LEN,
            **ui.params.bound("len", length, key="arena_len"),
        )
        with more, st.container(horizontal=True, vertical_alignment="bottom"):
            seed = st.number_input(
                t(P + "input.seed"),
                0,
                MAX_SEED,
                step=1,
                help=t(P + "input.seed_help"),
                width=180,
                **ui.params.bound("seed", seed, key="arena_seed"),
            )
            st.button(t(P + "input.draw"), on_click=_draw, icon=":material/casino:")
        ui.params.set_params(len=length, seed=seed)
        reference = _grammar(int(seed), int(length))
        raw_text = " ".join(reference.src)
    else:
        raw_text, tokens = ui.inputs.sentence_input(
            t(P + "input.text"),
            param="text",
            default=DEFAULT_TEXT,
            key="arena_text",
            src_vocab=src_vocab,
            help=t(P + "input.text_help"),
        )
    if source != "typed":
        # lesson and grammar sentences go through the same check (a word missing from the
        # training vocabulary is named, not silently turned into <unk>)
        tokens = ui.inputs.check(raw_text, src_vocab)
    if tokens is not None and source == "typed":
        reference = A.find_reference(tokens)
    if tokens is not None:
        st.markdown(t(P + "input.source_line", text=" ".join(tokens), n=len(tokens)))
        if reference is not None:
            st.markdown(t(P + "input.reference", text=detokenize_zh(reference.tgt)))
        else:
            st.info(t(P + "input.no_reference"), icon=":material/help:")
    return tokens, reference


def _csv(header: list[str], rows: list[list[str]]) -> bytes:
    """The numbers table as CSV."""
    buf = io.StringIO()
    csv.writer(buf).writerows([header, *rows])
    return buf.getvalue().encode("utf-8-sig")  # BOM: Excel opens Chinese right


def _why_text(name: str) -> str:
    cfg = _entry(name).get("config") or {}
    if name.startswith("gru_plain"):
        return t(P + "why.gru_plain", hidden=cfg.get("hidden", "?"))
    if name == "cnn_s2s":
        layers, kernel = cfg.get("enc_layers"), cfg.get("kernel")
        if isinstance(layers, int) and isinstance(kernel, int):
            return t(P + "why.cnn_s2s", layers=layers, rf=1 + layers * (kernel - 1))
        return t(P + "why.cnn_s2s_plain")
    return t(f"{P}why.{name}")


def _why_links(names: list[str]) -> None:
    """One row of links to the pages that explain the models, in lesson order."""
    order = [spec.slug for spec in PAGES]
    slugs = sorted({s for n in names for s in WHY[n]}, key=lambda s: order.index(s))
    with st.container(horizontal=True, gap="medium", vertical_alignment="center"):
        st.caption(t(P + "why.links"))
        for slug in slugs:
            spec = page_spec(slug)
            if spec is not None and is_built(slug):
                extra = {"part": WHY_PART[slug]} if slug in WHY_PART else {}
                ui.page_link(
                    spec.path,
                    label=t(f"page.{slug}.title"),
                    icon=":material/arrow_forward:",
                    query_params={"lang": lang, "present": int(present), **extra},
                )
            else:
                st.caption(t(P + "why.soon", page=t(f"page.{slug}.title")))


@st.fragment  # the sentence and its controls rerun this part only
def sentence_section() -> None:
    """The bar chart (who got it right), its control (the sentence), then cards, the
    confidence grid and every number. In predict mode the outputs stay hidden until
    revealed one model at a time (the URL's ``mode`` and ``reveal``)."""
    s = ui.slide(t(P + "sentence.lead"))
    with s.more:
        source = _choice("input", INPUTS, "grammar", "arena_input", "input.source")
    with s.control:
        tokens, reference = pick_sentence(source, s.more)
    with s.more:
        c1, c2 = st.columns(2, vertical_alignment="bottom")
        with c1:
            mode = _choice("mode", MODES, "show", "arena_mode", help=t(P + "mode_help"))
        with c2:
            view = _choice("view", VIEWS, "edit", "arena_view", help=t(P + "view_help"))
    n_models = len(available)
    revealed = ui.params.get_int("reveal", 0, len(MODELS), 0)
    signature = (source, tuple(tokens or ()))  # a new sentence in predict mode hides all again
    if st.session_state.get("arena_signature") not in (None, signature) and mode == "predict":
        revealed = 0
    st.session_state["arena_signature"] = signature
    revealed = n_models if mode == "show" else min(revealed, n_models)
    st.session_state["arena_reveal"] = revealed
    if mode == "predict":
        with s.control, st.container(horizontal=True, vertical_alignment="center"):
            st.button(
                t(P + "reveal_next"),
                on_click=_set_reveal,
                args=(min(revealed + 1, n_models),),
                disabled=revealed >= n_models,
                type="primary",
                icon=":material/visibility:",
            )
            st.button(
                t(P + "hide_all"),
                on_click=_set_reveal,
                args=(0,),
                disabled=revealed == 0,
                icon=":material/visibility_off:",
            )
            st.caption(t(P + "predict_note", shown=revealed, total=n_models))
    ui.params.set_params(reveal=revealed if mode == "predict" else 0)
    if tokens is not None:
        results(s, tuple(tokens), reference, view, revealed)


def results(s, key: tuple[str, ...], reference: corpus.Pair | None, view: str, shown: int) -> None:
    """Every model on the sentence: the bars (chart), then a card each, the confidence grid
    and the table (words)."""
    outputs = {name: _translate(name, key) for name in available}
    nonce = int(st.session_state.get("arena_measure", 0))
    with st.spinner(t(P + "latency.measuring")):
        latency = {name: _latency(name, key, nonce) for name in available}
    values, labels, rows, cards, grid = [], [], [], [], ([], [], [], [])
    for i, name in enumerate(available):
        out, probs = outputs[name]
        visible = i < shown
        ref = reference.tgt if reference is not None else None
        verdict = (
            (A.edit_alignment if view == "edit" else A.positionwise)(out, ref) if ref else None
        )
        scores = A.sentence_scores(out, ref) if ref else None
        conf = sum(probs) / max(1, len(probs))
        # the bar: edit-distance accuracy against the reference (mean confidence without one)
        value = (scores["edit_acc"] if scores else conf) if visible else None
        values.append(value)
        if not visible:
            labels.append("?")
        elif scores and scores["exact"] == 1:
            labels.append(t(P + "bars.exact", v=f"{value:.0%}"))
        else:
            labels.append(f"{value:.0%}" + (" ✗" if scores else ""))
        meta = t(
            P + "card.meta", params=f"{_params(name):,}", ms=f"{latency[name]['median_ms']:.0f}"
        )
        if not visible:
            body, small = f"<b>{html.escape(t(P + 'card.hidden'))}</b>", []
        else:
            marks = verdict.marks if verdict else None
            body = F.strip_html(out, marks, mark_symbols=SYMBOLS) or t(P + "empty_output")
            card = "card.exact" if scores and scores["exact"] == 1 else "card.score"
            small = [
                t(
                    P + card,
                    correct=verdict.correct,
                    n=len(ref),
                    missing=verdict.missing,
                    conf=f"{conf:.0%}",
                )
                if verdict
                else t(P + "card.conf", conf=f"{conf:.0%}")
            ]
        pages = " · ".join(t(f"page.{slug}.title") for slug in WHY[name])
        small.append(f"{_why_text(name)} → {pages}")
        cards.append(F.card_html(NAMES[name], lexicon.look(name).color, meta, body, small))
        cell = (lambda v: f"{v:.0%}") if visible and scores else (lambda v: "—")
        rows.append(
            [
                NAMES[name],
                ("✓" if scores["exact"] == 1 else "✗")
                if visible and scores
                else "?"
                if not visible
                else "—",
                cell(scores["edit_acc"] if scores else 0),
                cell(scores["token_acc"] if scores else 0),
                f"{conf:.0%}" if visible and probs else "—",
                f"{min(probs):.0%}" if visible and probs else "—",
                f"{_params(name):,}",
                f"{float(latency[name]['median_ms']):.1f}",
            ]
        )
        if visible:
            grid[0].append(NAMES[name])
            grid[1].append(list(out))
            grid[2].append(list(probs))
            grid[3].append(list(verdict.marks) if verdict else ["none"] * len(out))
    with s.chart:
        what = "bars.title" if reference is not None else "bars.title_conf"
        fig = F.sentence_bars(
            available,
            values,
            labels,
            names=NAMES,
            title=t(P + what),
            x_title=t(P + ("bars.x" if reference is not None else "bars.x_conf"), n=len(key)),
            presenter=present,
        )
        ui.chart(fig, key="arena_bars")
    with s.words:
        if reference is not None:
            st.caption(t(f"{P}legend.{view}"))
        st.html("".join(cards))  # six cards, one element: cheap to redraw
        _why_links(available)
        if grid[0] and any(grid[1]):
            st.markdown(f"**{t(P + 'conf.title')}**")
            marks_ = grid[3] if reference is not None else None
            st.html(F.confidence_html(*grid[:3], marks_, mark_symbols=SYMBOLS))
            st.caption(t(P + "conf.caption"))
        st.markdown(f"**{t(P + 'table.header')}**")
        header = [t(f"{P}col.{c}") for c in TABLE_COLUMNS]
        st.html(F.table_html(header, rows, TABLE_ALIGN))
    with s.more, st.container(horizontal=True):
        st.download_button(
            t(P + "table.csv"),
            data=lambda: _csv(header, rows),
            file_name="arena.csv",
            mime="text/csv",
            on_click="ignore",
            icon=":material/download:",
            key="arena_csv",
        )
        st.button(
            t(P + "latency.again"),
            on_click=_remeasure,
            icon=":material/timer:",
            key="arena_remeasure",
        )
    with s.words, ui.curious():
        stamp = max(str(v["at"]) for v in latency.values())
        which = "latency.note" if nonce else "latency.note_once"
        st.markdown(t(P + "sentence.how"))
        st.caption(t(P + which, runs=REMEASURE_RUNS, at=stamp))


# --- part "evidence": not just this sentence -------------------------------------------------


def evidence_part() -> None:
    """The held-out charts (kept back in predict mode until every model is revealed)."""
    mode = ui.params.get_choice("mode", MODES, default="show")
    revealed = ui.params.get_int("reveal", 0, len(MODELS), 0)
    if mode == "predict" and revealed < len(available):
        st.info(t(P + "evidence.after_reveal"), icon=":material/visibility_off:")
        st.button(
            t(P + "to_sentence"),
            on_click=_open_part,
            args=("sentence",),
            icon=":material/arrow_back:",
            key="arena_to_sentence",
        )
        return
    evidence_section()


@st.fragment  # the score choice reruns only the evidence
def evidence_section() -> None:
    """Accuracy against length (the slide), then memory against distance."""
    by_exact = A.exact_by_length(manifest, MODELS)
    claim = A.length_claim(by_exact)
    lead = t(P + "evidence.lead", **claim) if claim else t(P + "evidence.lead_plain")
    s = ui.slide(lead)
    with s.control:
        metric = _choice("metric", METRICS, "exact", "arena_metric")
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
        sizes = [
            (((_entry(n).get("metrics") or {}).get("by_length") or {}).get(b) or {}).get("n")
            for n in by_length
            for b in corpus.BUCKETS
        ]
        sizes = [x for x in sizes if isinstance(x, int)]
        st.caption(t(P + "len.caption", n=min(sizes) if sizes else "?"))
        if by_distance:
            # lines with the same values lie on top of each other: their names say so
            names = dict(NAMES)
            for group in A.identical_series(by_distance):
                for m in group:
                    others = ", ".join(NAMES[o] for o in group if o != m)
                    names[m] = t(P + "dist.same", name=NAMES[m], others=others)
            fig_dist = F.accuracy_by_distance(
                distances,
                by_distance,
                title=t(P + "dist.title"),
                x_title=t(P + "dist.x"),
                y_title=t(P + "dist.y"),
                chance=1 / probes_data.N_KEYS,
                chance_label=t(P + "dist.chance"),
                names=names,
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
