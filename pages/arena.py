"""Model arena: the same sentence through every pretrained translation model, side by side.

Two parts, one on screen at a time (``?part=``): "sentence" — who gets it right (token by
token, against the reference), how sure each model is, how big it is and how fast it
decodes on this server now, and a link to the page that explains each model's behaviour;
"evidence" — the held-out evidence behind the verdict (accuracy against length, memory
against distance).
"""

from __future__ import annotations

import csv
import datetime as dt
import html
import io
import random
import re

import streamlit as st

import core.zoo as zoo
import ui
import ui.inputs
import ui.models
from core import corpus, mdtable, probes_data
from core.analysis import arena as A
from core.figures import arena as F
from core.translate import translate_tokens
from core.vocab import detokenize_zh
from ui.nav import PAGES, is_built, page_spec

ui.begin_page("arena")
t = ui.t
lang = ui.current_lang()
present = ui.presenter()

PARTS = ("sentence", "evidence")
MODELS = zoo.TRANSLATION_MODELS
INPUTS = ("lesson", "grammar", "typed")
MODES = ("show", "predict")
VIEWS = ("edit", "position")
METRICS = ("exact", "edit_acc", "token_acc")
# The results table (its column header keys are "arena.col.<name>").
TABLE_COLUMNS = (
    "model",
    "output",
    "exact",
    "token_acc",
    "edit_acc",
    "conf",
    "min_conf",
    "params",
    "latency",
)
TABLE_ALIGN = ("left", "left", "center") + ("right",) * 6
LESSON_LABELS = [" ".join(p.src) for p in corpus.LESSON_PAIRS]
DEFAULT_LESSON = 5  # "the cat drank the milk because it was hungry": the lesson's "it"
DEFAULT_TEXT = "the cat drank the milk because it was sweet"
MAX_SEED = 999_999
# Latency: one timed decode right after the translation run (cheap on every new sentence);
# "Measure again" takes the median of more runs.
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
# One result card (a bordered box; translucent grey reads on light and dark themes).
CARD = (
    "border:1px solid rgba(128,128,128,0.3);border-radius:0.5rem;"
    "padding:0.6rem 0.9rem;margin-bottom:0.6rem;line-height:1.9"
)


# --- cached computation --------------------------------------------------------------------


@st.cache_data(show_spinner=False, max_entries=2048)
def _translate(name: str, tokens: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """Greedy output tokens and their probabilities (deterministic: cached for everyone)."""
    sv, tv = ui.models.get_vocabs()
    result = translate_tokens(ui.models.get_model(name), tokens, sv, tv)
    return result.output, result.probs


@st.cache_data(show_spinner=False, max_entries=512)
def _latency(name: str, tokens: tuple[str, ...], nonce: int) -> dict[str, object]:
    """Live timing of the greedy decode; ``nonce`` changes when the user asks to re-measure
    (then over ``REMEASURE_RUNS`` runs, else ``LATENCY_RUNS``)."""
    sv, _ = ui.models.get_vocabs()
    # no extra warm-up: _translate has just run this very decode
    timing = A.greedy_latency(
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


# --- one part at a time --------------------------------------------------------------------

part = ui.part_selector("arena.", PARTS, key="arena_part")

# --- which models are here -----------------------------------------------------------------

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
        t("arena.missing", models=", ".join(missing), command=zoo.REBUILD_COMMAND),
        icon=":material/inventory_2:",
    )
try:
    manifest = ui.models.get_manifest()
except zoo.ZooError:
    manifest = {"models": {}}

# --- part "sentence": 1 · one sentence, 2 · every model on it ------------------------------


def _draw() -> None:
    # a new sentence of the same length; the URL keeps the seed, so the link reproduces it
    st.query_params["seed"] = str(random.randint(0, MAX_SEED))


def pick_sentence(source: str) -> tuple[list[str] | None, corpus.Pair | None]:
    """The sentence's controls for ``source``: its tokens (``None`` with a message when it
    cannot be translated) and its reference pair when there is one."""
    reference: corpus.Pair | None = None
    tokens: list[str] | None = None
    raw_text = ""
    if source == "lesson":
        idx = ui.params.get_int("lesson", 0, len(LESSON_LABELS) - 1, DEFAULT_LESSON)
        idx = st.selectbox(
            t("arena.input.lesson"),
            range(len(LESSON_LABELS)),
            format_func=LESSON_LABELS.__getitem__,
            **ui.params.bound("lesson", idx, key="arena_lesson"),
        )
        ui.params.set_params(lesson=idx)
        reference = corpus.LESSON_PAIRS[idx]
        raw_text = LESSON_LABELS[idx]
        st.caption(t("arena.input.lesson_note"))
    elif source == "grammar":
        length = ui.params.get_int("len", 1, corpus.MAX_LEN, 30)
        seed = ui.params.get_int("seed", 0, MAX_SEED, 1)
        c1, c2, c3 = st.columns([3, 2, 2], vertical_alignment="bottom")
        with c1:
            length = st.slider(
                t("arena.input.length"),
                1,
                corpus.MAX_LEN,
                **ui.params.bound("len", length, key="arena_len"),
            )
        with c2:
            seed = st.number_input(
                t("arena.input.seed"),
                0,
                MAX_SEED,
                step=1,
                help=t("arena.input.seed_help"),
                **ui.params.bound("seed", seed, key="arena_seed"),
            )
        with c3:
            st.button(t("arena.input.draw"), on_click=_draw, icon=":material/casino:")
        ui.params.set_params(len=length, seed=seed)
        reference = _grammar(int(seed), int(length))
        raw_text = " ".join(reference.src)
        st.caption(t("arena.input.grammar_note"))
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
        # training vocabulary would be named, not silently turned into <unk>)
        tokens = ui.inputs.check(raw_text, src_vocab)
    if tokens is not None and source == "typed":
        reference = A.find_reference(tokens)
    if tokens is not None:
        st.markdown(t("arena.input.source_line", text=" ".join(tokens), n=len(tokens)))
        if reference is not None:
            st.markdown(t("arena.input.reference", text=detokenize_zh(reference.tgt)))
            st.caption(t("arena.input.reference_note"))
        else:
            st.info(t("arena.input.no_reference"), icon=":material/help:")
    return tokens, reference


def _csv(header: list[str], rows: list[list[str]]) -> bytes:
    """The results table as CSV (the table's text without Markdown escapes)."""
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(header)
    for row in rows:
        writer.writerow([mdtable.unescape(cell) for cell in row])
    return buf.getvalue().encode("utf-8-sig")  # BOM: Excel opens Chinese right


def _open_part(name: str) -> None:
    """Switch to part ``name``; the rest of the URL (the sentence, the mode) stays."""
    st.query_params["part"] = name


def _set_reveal(k: int) -> None:
    st.session_state["arena_reveal"] = k
    st.query_params["reveal"] = str(k)


def _remeasure() -> None:
    st.session_state["arena_measure"] = int(st.session_state.get("arena_measure", 0)) + 1


def _entry(name: str) -> dict:
    return (manifest.get("models") or {}).get(name) or {}


def _why_text(name: str) -> str:
    cfg = _entry(name).get("config") or {}
    if name.startswith("gru_plain"):
        return t("arena.why.gru_plain", hidden=cfg.get("hidden", "?"))
    if name == "cnn_s2s":
        layers, kernel = cfg.get("enc_layers"), cfg.get("kernel")
        if isinstance(layers, int) and isinstance(kernel, int):
            return t("arena.why.cnn_s2s", layers=layers, rf=1 + layers * (kernel - 1))
        return t("arena.why.cnn_s2s_plain")
    return t(f"arena.why.{name}")


def _small(text: str) -> str:
    """``text`` (escaped) as a caption-like line of a card."""
    return f'<span style="font-size:0.875em;opacity:0.7">{html.escape(text)}</span>'


def _bold(text: str) -> str:
    """``text`` escaped, with its ``**bold**`` spans (from the translations) kept bold."""
    return re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", html.escape(text))


def _why_pages(names: list[str]) -> list[str]:
    """The pages that explain ``names``' behaviour, each once, in lesson order."""
    order = [spec.slug for spec in PAGES]
    slugs = {slug for name in names for slug in WHY[name]}
    return sorted(slugs, key=lambda s: order.index(s) if s in order else len(order))


def _why_links(names: list[str]) -> None:
    """One row of links to the pages that explain the models (each card names its pages)."""
    with st.container(horizontal=True, gap="medium", vertical_alignment="center"):
        st.caption(t("arena.why.links"))
        for slug in _why_pages(names):
            spec = page_spec(slug)
            if spec is not None and is_built(slug):
                ui.page_link(
                    spec.path,
                    label=t(f"page.{slug}.title"),
                    icon=":material/arrow_forward:",
                    query_params={
                        "lang": lang,
                        "present": int(present),
                        **({"part": WHY_PART[slug]} if slug in WHY_PART else {}),
                    },
                )
            else:
                st.caption(t("arena.why.soon", page=t(f"page.{slug}.title")))


@st.fragment  # the sentence and its controls rerun this section only
def sentence_section(source: str) -> None:
    """The sentence, the mode, every model's output on it, the confidence grid and the table.

    In predict mode the held-out evidence (part "evidence") stays hidden until every model
    is revealed: the URL's ``mode`` and ``reveal`` say so."""
    tokens, reference = pick_sentence(source)

    # --- mode: everything at once, or predict then reveal ---------------------------------
    mode = ui.params.get_choice("mode", MODES, default="show")
    n_models = len(available)
    revealed_url = ui.params.get_int("reveal", 0, len(MODELS), 0)
    c1, c2 = st.columns(2, vertical_alignment="bottom")
    with c1:
        mode = st.segmented_control(
            t("arena.mode"),
            MODES,
            format_func=ui.labeler("arena.mode."),
            required=True,
            help=t("arena.mode_help"),
            **ui.params.bound("mode", mode, key="arena_mode"),
        )
    with c2 if not present else ui.secondary():
        view = ui.params.get_choice("view", VIEWS, default="edit")
        view = st.segmented_control(
            t("arena.view"),
            VIEWS,
            format_func=ui.labeler("arena.view."),
            required=True,
            help=t("arena.view_help"),
            **ui.params.bound("view", view, key="arena_view"),
        )

    # A new sentence in predict mode hides every output again.
    signature = (source, tuple(tokens or ()))
    if st.session_state.get("arena_signature") not in (None, signature) and mode == "predict":
        revealed_url = 0
    st.session_state["arena_signature"] = signature
    revealed = n_models if mode == "show" else min(revealed_url, n_models)
    st.session_state["arena_reveal"] = revealed

    if mode == "predict":
        with st.container(horizontal=True, vertical_alignment="center"):
            st.button(
                t("arena.reveal_next"),
                on_click=_set_reveal,
                args=(min(revealed + 1, n_models),),
                disabled=revealed >= n_models,
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
            st.caption(t("arena.predict_note", shown=revealed, total=n_models))
    ui.params.set_params(mode=mode, view=view, reveal=revealed if mode == "predict" else 0)

    if tokens is not None:
        results(tuple(tokens), reference, view, revealed)


def results(key: tuple[str, ...], reference: corpus.Pair | None, view: str, revealed: int) -> None:
    """Every model on the sentence: a card each, the confidence grid and the table."""
    outputs = {name: _translate(name, key) for name in available}
    nonce = int(st.session_state.get("arena_measure", 0))
    with st.spinner(t("arena.latency.measuring")):
        latency = {name: _latency(name, key, nonce) for name in available}

    st.header(t("arena.results.header"))
    if reference is not None:
        st.caption(t(f"arena.legend.{view}"))
    rows, cards = [], []
    grid_models, grid_tokens, grid_probs, grid_marks = [], [], [], []
    for i, name in enumerate(available):
        out, probs = outputs[name]
        verdict = None
        scores = None
        if reference is not None:
            verdict = (A.edit_alignment if view == "edit" else A.positionwise)(out, reference.tgt)
            scores = A.sentence_scores(out, reference.tgt)
        shown = i < revealed
        lat = latency[name]
        params = _params(name)
        conf = f"{sum(probs) / max(1, len(probs)):.0%}"
        # the card: name and size; the output; its score; why (and which page explains it)
        meta = t("arena.card.meta", params=f"{params:,}", ms=f"{lat['median_ms']:.0f}")
        lines = [f"<b>{html.escape(name)}</b> · {_small(meta)}"]
        if shown:
            if out:
                lines.append(
                    F.strip_html(out, verdict.marks if verdict else None, mark_symbols=SYMBOLS)
                )
            else:
                lines.append(html.escape(t("arena.empty_output")))
            if verdict is not None and scores is not None:
                key_ = "arena.card.exact" if scores["exact"] == 1 else "arena.card.score"
                score_line = t(
                    key_,
                    correct=verdict.correct,
                    n=len(reference.tgt),
                    missing=verdict.missing,
                    conf=conf,
                )
            else:
                score_line = t("arena.card.conf", conf=conf)
            lines.append(_small(score_line))
        else:
            lines.append(_bold(t("arena.card.hidden")))
        pages = " · ".join(t(f"page.{slug}.title") for slug in WHY[name])
        lines.append(_small(f"{_why_text(name)} → {pages}"))
        cards.append(f'<div style="{CARD}">' + "<br>".join(lines) + "</div>")
        row = [
            mdtable.escape(name),
            mdtable.code(detokenize_zh(out)) if shown else mdtable.escape("?"),
            (
                ("✓" if scores["exact"] == 1 else "✗")
                if shown and scores
                else ("?" if not shown else "—")
            ),
            f"{scores['token_acc']:.0%}" if shown and scores else "—",
            f"{scores['edit_acc']:.0%}" if shown and scores else "—",
            conf if shown and probs else "—",
            f"{min(probs):.0%}" if shown and probs else "—",
            f"{params:,}",
            f"{float(lat['median_ms']):.1f}",
        ]
        rows.append(row)
        if shown:
            grid_models.append(name)
            grid_tokens.append(list(out))
            grid_probs.append(list(probs))
            grid_marks.append(list(verdict.marks) if verdict else ["none"] * len(out))

    # all six cards as one HTML element, then one row of links: a handful of elements for
    # the browser to redraw on every new sentence, and no Markdown to parse
    st.html("".join(cards))
    _why_links(available)

    stamp = max(str(v["at"]) for v in latency.values())
    if nonce:
        st.caption(t("arena.latency.note", runs=REMEASURE_RUNS, at=stamp))
    else:
        st.caption(t("arena.latency.note_once", runs=REMEASURE_RUNS, at=stamp))

    # --- confidence ------------------------------------------------------------------------
    if grid_models and any(grid_tokens):
        grid_marks_ = grid_marks if reference is not None else None
        st.markdown(f"**{t('arena.conf.title')}**")
        # a coloured HTML table, not a plotly chart or a dataframe: far cheaper to build
        # and to redraw on every new sentence
        st.html(
            F.confidence_html(
                grid_models, grid_tokens, grid_probs, grid_marks_, mark_symbols=SYMBOLS
            )
        )
        st.caption(t("arena.conf.caption"))
        with ui.secondary():
            st.download_button(
                t("arena.conf.html"),
                data=lambda: F.standalone_html(
                    F.confidence_grid(
                        grid_models,
                        grid_tokens,
                        grid_probs,
                        grid_marks_,
                        title=t("arena.conf.title"),
                        x_title=t("arena.conf.x"),
                        presenter=present,
                        mark_symbols=SYMBOLS,
                    )
                ),
                file_name="arena_confidence.html",
                mime="text/html",
                on_click="ignore",
                icon=":material/download:",
                key="arena_conf_html",
            )

    # --- the table, for slides -------------------------------------------------------------
    st.subheader(t("arena.table.header"))
    header = [t(f"arena.col.{c}") for c in TABLE_COLUMNS]
    st.markdown(mdtable.table(header, rows, align=TABLE_ALIGN))
    with ui.secondary():
        d1, d2 = st.columns(2)
        d1.download_button(
            t("arena.table.csv"),
            data=lambda: _csv(header, rows),
            file_name="arena.csv",
            mime="text/csv",
            on_click="ignore",
            icon=":material/download:",
            key="arena_csv",
        )
        d2.button(
            t("arena.latency.again"),
            on_click=_remeasure,
            icon=":material/timer:",
            key="arena_remeasure",
        )


def sentence_part() -> None:
    """1 · One sentence and 2 · every model on it; ends with a pointer to the evidence."""
    st.header(t("arena.input.header"))
    source = ui.params.get_choice("input", INPUTS, default="grammar")
    source = st.segmented_control(
        t("arena.input.source"),
        INPUTS,
        format_func=ui.labeler("arena.input.source."),
        required=True,
        **ui.params.bound("input", source, key="arena_input"),
    )
    ui.params.set_params(input=source)
    sentence_section(source)
    # outside the fragment: the click reruns the whole page, which then shows the evidence
    st.divider()
    with st.container(horizontal=True, vertical_alignment="center"):
        st.button(
            t("arena.to_evidence"),
            on_click=_open_part,
            args=("evidence",),
            type="primary",
            icon=":material/arrow_forward:",
            key="arena_to_evidence",
        )
        st.caption(t("arena.to_evidence_note"))


# --- part "evidence": 3 · not just this sentence -------------------------------------------


def evidence_part() -> None:
    """3 · Not just this sentence: what the charts are about, then the charts (hidden in
    predict mode until every model of the sentence part is revealed)."""
    st.header(t("arena.evidence.header"))
    # which models and which sentences the charts are about (not part 1–2's sentence)
    st.markdown(t("arena.evidence.lead", n=len(MODELS), n_probes=len(zoo.PROBE_MODELS)))
    # the sentence part's predict mode, as the URL keeps it (a new sentence resets reveal)
    mode = ui.params.get_choice("mode", MODES, default="show")
    revealed = ui.params.get_int("reveal", 0, len(MODELS), 0)
    if mode == "predict" and revealed < len(available):
        st.info(t("arena.evidence.after_reveal"), icon=":material/visibility_off:")
        st.button(
            t("arena.to_sentence"),
            on_click=_open_part,
            args=("sentence",),
            icon=":material/arrow_back:",
            key="arena_to_sentence",
        )
        return
    evidence_section()


@st.fragment  # the metric reruns only the evidence
def evidence_section() -> None:
    """The held-out evidence: accuracy against length and memory against distance."""
    with ui.secondary():
        metric = ui.params.get_choice("metric", METRICS, default="exact")
        metric = st.segmented_control(
            t("arena.metric"),
            METRICS,
            format_func=ui.labeler("arena.metric."),
            required=True,
            **ui.params.bound("metric", metric, key="arena_metric"),
        )
    ui.params.set_params(metric=metric)
    by_length = A.exact_by_length(manifest, MODELS, metric=metric)
    if by_length:
        fig_len = F.accuracy_by_length(
            corpus.BUCKETS,
            by_length,
            title=t("arena.len.title", metric=t(f"arena.metric.{metric}")),
            x_title=t("arena.len.x"),
            y_title=t(f"arena.metric.{metric}"),
            presenter=present,
        )
        ui.chart(fig_len, key="arena_len_chart")
        sizes = [
            (((_entry(n).get("metrics") or {}).get("by_length") or {}).get(b) or {}).get("n")
            for n in by_length
            for b in corpus.BUCKETS
        ]
        sizes = [s for s in sizes if isinstance(s, int)]
        st.caption(t("arena.len.caption", n=min(sizes) if sizes else "?"))
        st.download_button(
            t("arena.html"),
            data=lambda: F.standalone_html(fig_len),
            file_name=f"arena_accuracy_by_length_{metric}.html",
            mime="text/html",
            on_click="ignore",
            icon=":material/download:",
            key="arena_len_html",
        )
    else:
        st.info(t("arena.len.none"), icon=":material/hourglass_empty:")

    distances, by_distance = A.distance_accuracy(manifest, zoo.PROBE_MODELS)
    if by_distance:
        fig_dist = F.accuracy_by_distance(
            distances,
            by_distance,
            title=t("arena.dist.title"),
            x_title=t("arena.dist.x"),
            y_title=t("arena.dist.y"),
            chance=1 / probes_data.N_KEYS,
            chance_label=t("arena.dist.chance"),
            presenter=present,
        )
        ui.chart(fig_dist, key="arena_dist_chart")
        st.caption(t("arena.dist.caption"))
        st.download_button(
            t("arena.html"),
            data=lambda: F.standalone_html(fig_dist),
            file_name="arena_memory_by_distance.html",
            mime="text/html",
            on_click="ignore",
            icon=":material/download:",
            key="arena_dist_html",
        )
    else:
        st.info(t("arena.dist.none"), icon=":material/hourglass_empty:")


# The sentence part is one block and the evidence part starts with an element at the same
# place: switching parts replaces the long sentence part at once, so the browser, whose
# scroll position would otherwise stay near the bottom, lands at the evidence's header.
if part == "sentence":
    with st.container():
        sentence_part()
else:
    evidence_part()

# --- takeaway ------------------------------------------------------------------------------

st.header(t("arena.takeaway.header"))
st.markdown(t("arena.takeaway"))
if part == "sentence":  # every suggestion uses the sentence part's controls
    st.subheader(t("arena.try.header"))
    for k in ("long", "it", "predict", "typo"):
        st.markdown(f"- {t(f'arena.try.{k}')}")
