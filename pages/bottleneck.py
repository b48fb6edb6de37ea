"""The bottleneck (lesson 1.4–1.5, 2.3): a plain encoder-decoder passes the whole sentence
through one fixed-length vector C, and long sentences no longer fit.

One part of the lesson at a time (a segmented control whose value is in the URL), below the
sentence that several parts share; only the chosen part computes. The parts that use a plain
model (1, 2, 4, 6) draw its switch at their own top, inside their own fragment: a click on it
reruns that part, not the sentence box and the part selector above it.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future

import numpy as np
import streamlit as st

import ui
from core import corpus
from core.analysis import bottleneck as bn
from core.analysis.influence import context_influence
from core.evaluate import decode_ids, score
from core.figures import bottleneck as figs
from core.i18n import translate
from core.translate import InputError, prepare
from ui import jobs, models

PARTS = ("read", "side", "length", "stretch", "probe", "grad")
PLAIN = ("gru_plain_32", "gru_plain_128", "gru_plain_256")
ATTN = "gru_attention"
OTHERS = ("cnn_s2s", "transformer")  # on the length chart, greyed
EXAMPLE_LENGTHS = (8, 16, 24, 32, 44)
EXAMPLE_SEED = 2015  # Bahdanau et al.'s year: any fixed seed gives fixed examples
DEFAULT_EXAMPLE = 32
STRETCH_BATCH = 8  # sentences per "stretch it" batch: answers in well under a second
LEN_MIN, LEN_MAX, LEN_DEFAULT = 3, 60, 40
PROBE_LEN = 25  # probe every word of 25-word sentences: the start, the middle, the end
# 600 training sentences: the curves differ from 1000 by less than between two samples
# of 1000 (mean 0.01-0.02 against 0.02-0.03 per position); about 0.2 s per model
PROBE_TRAIN, PROBE_TEST = 600, 300
PROBE_SEEDS = (101, 202)  # train / held-out sentence samples
PROBE_ARGS = ((*PLAIN, ATTN), PROBE_TRAIN, PROBE_TEST, PROBE_LEN)

t = ui.t
ui.begin_page("bottleneck")
presenter = ui.presenter()
if not models.require(*PLAIN, ATTN):
    st.stop()
src_vocab, tgt_vocab = models.get_vocabs()


# --- cached computations (keys are plain values) ---------------------------------------------


@st.cache_data(show_spinner=False)
def examples() -> dict[int, tuple[tuple[str, ...], tuple[str, ...]]]:
    """A fixed grammar sentence of each example length: {length: (English, Chinese)}."""
    out = {}
    for n in EXAMPLE_LENGTHS:
        pair = bn.sample_sentences(EXAMPLE_SEED + n, 1, n, n)[0]
        out[n] = (pair.src, pair.tgt)
    return out


def reference_for(tokens: tuple[str, ...]) -> tuple[str, ...] | None:
    """The grammar's translation when the sentence is one of the page's or lesson's pairs."""
    for src, tgt in examples().values():
        if src == tokens:
            return tgt
    for pair in corpus.LESSON_PAIRS:
        if pair.src == tokens:
            return pair.tgt
    return None


@st.cache_data(show_spinner=False, max_entries=64)
def encoder_view(name: str, ids: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    return bn.encoder_states(models.get_model(name), ids)


@st.cache_data(show_spinner=False, max_entries=64)
def translate_ids(name: str, rows: tuple[tuple[int, ...], ...]) -> list[list[str]]:
    outputs = decode_ids(models.get_model(name), [list(r) for r in rows])
    return [tgt_vocab.decode(o) for o in outputs]


@st.cache_data(show_spinner=False, max_entries=64)
def influence(name: str, ids: tuple[int, ...]) -> np.ndarray:
    return context_influence(models.get_model(name), ids)


@st.cache_data(show_spinner=False, max_entries=64)
def stretch_batch(length: int, seed: int) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    pairs = bn.sample_sentences(seed * 1000 + length, STRETCH_BATCH, length, length)
    return [(p.src, p.tgt) for p in pairs]


def _probe_curves(loaded: dict, vocab, n_train: int, n_test: int, length: int) -> dict:
    """Linear probes on C for each model: {name: ProbeResult}, same sentences for all.
    No Streamlit call here: it runs in a thread of its own."""
    train = bn.sample_sentences(PROBE_SEEDS[0], n_train, length, length)
    seen = {p.src for p in train}
    test = [
        p
        for p in bn.sample_sentences(PROBE_SEEDS[1], n_test + 50, length, length)
        if p.src not in seen
    ][:n_test]
    train_rows = [vocab.encode(p.src, eos=True) for p in train]
    test_rows = [vocab.encode(p.src, eos=True) for p in test]
    return bn.probe_models(loaded, train_rows, test_rows, length)


@st.cache_resource(show_spinner=False)
def probe_job(names: tuple[str, ...], n_train: int, n_test: int, length: int) -> Future:
    """The probes, computed once per server in a thread of their own: started when part 5
    opens, they run on the second core while its header and intro are drawn (and finish for
    the next visit if the reader switches away meanwhile)."""
    loaded = {n: models.get_model(n) for n in names}  # here, in the script thread
    vocab = models.get_vocabs()[0]
    return jobs.in_thread(
        "bottleneck-probes", _probe_curves, loaded, vocab, n_train, n_test, length
    )


def probe_curves(names: tuple[str, ...], n_train: int, n_test: int, length: int) -> dict:
    """The probes' results, waiting for :func:`probe_job` if they are not ready yet (a
    failed run is not kept: the next visit tries again)."""
    return jobs.result_of(probe_job, names, n_train, n_test, length)


# --- helpers for display ---------------------------------------------------------------------


def _chip(token: str) -> str:
    """One token as a markdown code span: shown literally, whatever it contains."""
    return "`" + token.replace("`", "'") + "`"


def chips(tokens: Sequence[str]) -> str:
    return " ".join(_chip(tok) for tok in tokens)


def marked(output: Sequence[str], reference: Sequence[str] | None) -> str:
    """The output's tokens as chips; with a reference, each run of wrong tokens on a red
    background (one marker per run keeps the markdown short)."""
    if not output:
        return t("bottleneck.empty_output")
    if reference is None:
        return chips(output)
    parts: list[str] = []
    run: list[str] = []
    for tok, wrong in zip(output, bn.error_marks(output, reference)):
        if wrong:
            run.append(tok)
            continue
        if run:
            parts.append(f":red-background[{chips(run)}]")
            run = []
        parts.append(_chip(tok))
    if run:
        parts.append(f":red-background[{chips(run)}]")
    return " ".join(parts)


def input_message(err: InputError) -> str:
    if err.reason == "empty":
        return t("bottleneck.input.empty")
    if err.reason == "too_long":
        return t("bottleneck.input.too_long", limit=err.limit)
    words = ", ".join(
        t(
            "bottleneck.input.word_suggest",
            word=ui.params.safe_value(o.word),
            suggestions=" / ".join(o.suggestions),
        )
        if o.suggestions
        else f"`{ui.params.safe_value(o.word)}`"
        for o in err.unknown
    )
    return t("bottleneck.input.unknown", words=words)


# --- controls ----------------------------------------------------------------------------------

if presenter:  # on a projector the claim says it; the part selector and the part fit one screen
    with st.expander(t("bottleneck.intro_more"), icon=":material/info:"):
        st.markdown(t("bottleneck.intro"))
else:
    st.markdown(t("bottleneck.intro"))


def _use_example(n: int) -> None:
    st.query_params["text"] = " ".join(examples()[n][0])


_lang = ui.current_lang()


def plain_label(name: str) -> str:  # fixed language: Streamlit may call it outside the run
    return translate("bottleneck.plain.option", _lang, size=name.rsplit("_", 1)[1])


def sentence_box() -> tuple[str, ...] | None:
    """The sentence (typed or an example) and its message if the models cannot read it:
    drawn inside :func:`lesson`. Returns the sentence's tokens, or None."""
    # read from the URL on every run of the fragment: an example button writes it
    default_text = " ".join(examples()[DEFAULT_EXAMPLE][0])
    # A blank sentence in the URL is the user's empty input (answered below), not a bad link.
    raw_text = st.query_params.get("text")
    blank = raw_text is not None and not raw_text.strip()
    text = "" if blank else ui.params.get_text("text", default_text, max_len=400)
    with st.container(border=True):
        text = st.text_input(
            t("bottleneck.text.label"),
            max_chars=400,
            help=t("bottleneck.text.help"),
            **ui.params.bound("text", text, key="bn_text"),
        )
        # the examples stay visible in presenter mode: they are the teacher's quickest control
        # (a short label: label and buttons fit one row on a laptop and on a projector)
        with st.container(horizontal=True, wrap=True, vertical_alignment="center"):
            st.caption(t("bottleneck.examples"))
            for n in EXAMPLE_LENGTHS:
                st.button(
                    t("bottleneck.example", n=n),
                    key=f"bn_ex_{n}",
                    on_click=_use_example,
                    args=(n,),
                    width="content",
                )
    ui.params.set_params(text=text)
    try:
        return tuple(prepare(text, src_vocab))
    except InputError as err:
        st.error(input_message(err), icon=":material/translate:")
        return None


def plain_picker() -> str:
    """The plain model of parts 1, 2, 4 and 6: the same control (one widget key, one URL
    parameter) at the top of each, inside the part's fragment; one part shows at a time."""
    plain = ui.params.get_choice("plain", PLAIN, default="gru_plain_256")
    plain = st.segmented_control(
        t("bottleneck.plain.label"),
        PLAIN,
        format_func=plain_label,
        required=True,
        help=t("bottleneck.plain.help"),
        **ui.params.bound("plain", plain, key="bn_plain"),
    )
    ui.params.set_params(plain=plain)
    return plain


# --- 1. watch the encoder read ------------------------------------------------------------------


@st.fragment  # the model switch reruns only this part
def read_part(tokens: tuple[str, ...] | None) -> None:
    st.header(t("bottleneck.read.header"))
    plain = plain_picker()
    if tokens is None:
        st.info(t("bottleneck.need_sentence"), icon=":material/edit:")
        return
    ids = tuple(src_vocab.encode(tokens, eos=True))
    words = [*tokens, "<eos>"]
    hidden, context = encoder_view(plain, ids)
    size = context.size  # the model's own C, not its name
    m1, m2, m3 = st.columns(3)
    m1.metric(t("bottleneck.read.words"), len(tokens))
    m2.metric(t("bottleneck.read.states"), f"{len(words)} × {hidden.shape[1]}")
    m3.metric(t("bottleneck.read.c_size"), size)
    ui.chart(
        figs.states_heatmap(
            hidden,
            words,
            title=t("bottleneck.read.title", model=plain, n=len(tokens)),
            x_title=t("bottleneck.read.x"),
            y_title=t("bottleneck.read.y", size=size),
            context_label="C",
            context=context,
            strip_title=t("bottleneck.read.strip_title", size=size, n=len(tokens)),
            strip_x_title=t("bottleneck.read.strip_x"),
            presenter=presenter,
        ),
        key="bn_states",
    )
    st.caption(t("bottleneck.read.caption", size=size))


# --- 2. side by side ---------------------------------------------------------------------------


@st.fragment  # the model switch reruns only this part
def side_part(tokens: tuple[str, ...] | None) -> None:
    st.header(t("bottleneck.side.header"))
    plain = plain_picker()
    if tokens is None:
        st.info(t("bottleneck.need_sentence"), icon=":material/edit:")
        return
    ids = tuple(src_vocab.encode(tokens, eos=True))
    reference = reference_for(tokens)
    outs = {name: translate_ids(name, (ids,))[0] for name in (plain, ATTN)}
    left, right = st.columns(2)
    for col, name in zip((left, right), (plain, ATTN)):
        with col.container(border=True):
            role = "attn" if name == ATTN else "plain"
            st.markdown(f"**{t(f'bottleneck.side.{role}')}** `{name}`")
            st.markdown(marked(outs[name], reference))
            note = "attn_note" if name == ATTN else "plain_note"
            st.caption(
                t(f"bottleneck.side.{note}", n=len(ids), size=models.get_model(name).cfg.hidden)
            )
            if reference is not None:
                wrong = sum(bn.error_marks(outs[name], reference))
                s = score([outs[name]], [reference])
                st.caption(
                    t(
                        "bottleneck.side.score",
                        wrong=wrong,
                        n=len(outs[name]),
                        edit=f"{s['edit_acc']:.0%}",
                    )
                )
    if reference is not None:
        st.markdown(f"{t('bottleneck.side.reference')} {chips(reference)}")
        st.caption(t("bottleneck.side.caption"))
    else:
        st.caption(t("bottleneck.side.no_reference"))


# --- 3. accuracy against length (Bahdanau et al. 2015, Figure 2) -------------------------------


@st.fragment  # the metric switch reruns only this section
def length_section() -> None:
    manifest = models.get_manifest()
    metric = ui.params.get_choice("metric", bn.METRICS, default="exact")
    with ui.secondary():
        metric = st.segmented_control(
            t("bottleneck.length.metric"),
            bn.METRICS,
            format_func=ui.labeler("bottleneck.metric."),
            required=True,
            **ui.params.bound("metric", metric, key="bn_metric"),
        )
    ui.params.set_params(metric=metric)
    curves = bn.length_curves(manifest, (*PLAIN, ATTN, *OTHERS), metric)
    if curves:
        ui.chart(
            figs.length_figure(
                corpus.BUCKETS,
                curves,
                focus=(*PLAIN, ATTN),
                title=t("bottleneck.length.title", metric=t(f"bottleneck.metric.{metric}")),
                x_title=t("bottleneck.length.x"),
                y_title=t(f"bottleneck.metric.{metric}"),
                presenter=presenter,
            ),
            key="bn_length",
        )
        counts = bn.bucket_counts(manifest, ATTN)
        st.caption(t("bottleneck.length.caption", n=sum(counts), per=min(counts) if counts else 0))
    else:
        st.warning(t("bottleneck.length.missing"), icon=":material/hourglass_empty:")


def length_part() -> None:
    st.header(t("bottleneck.length.header"))
    length_section()


# --- 4. stretch it live ------------------------------------------------------------------------


def _new_batch() -> None:
    st.query_params["seed"] = str((int(st.query_params.get("seed", "0") or 0) + 1) % 1_000_000)


@st.fragment  # the length slider and the new-batch button rerun only this section
def stretch_section(plain: str) -> None:
    length = ui.params.get_int("len", LEN_MIN, LEN_MAX, LEN_DEFAULT)
    seed = ui.params.get_int("seed", 0, 999_999, 0)
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    with c1:
        length = st.slider(
            t("bottleneck.stretch.length"),
            LEN_MIN,
            LEN_MAX,
            help=t("bottleneck.stretch.length_help"),
            **ui.params.bound("len", length, key="bn_len"),
        )
    with c2:
        st.button(
            t("bottleneck.stretch.new"),
            on_click=_new_batch,
            icon=":material/casino:",
            key="bn_new",
            width="stretch",
        )
    ui.params.set_params(len=length, seed=seed)
    batch = stretch_batch(length, seed)
    rows = tuple(tuple(src_vocab.encode(src, eos=True)) for src, _ in batch)
    refs = [tgt for _, tgt in batch]
    batch_out = {name: translate_ids(name, rows) for name in (plain, ATTN)}
    cols = st.columns(2)
    for col, name in zip(cols, (plain, ATTN)):
        s = score(batch_out[name], refs)
        col.metric(
            t("bottleneck.stretch.exact", model=name),
            f"{round(s['exact'] * len(refs))} / {len(refs)}",
            help=t("bottleneck.stretch.edit", edit=f"{s['edit_acc']:.0%}"),
        )
    max_pos = max(len(r) for r in refs)
    ui.chart(
        figs.lines_by_position(
            np.arange(1, max_pos + 1),
            {name: bn.on_track(batch_out[name], refs, max_pos) for name in (plain, ATTN)},
            title=t("bottleneck.stretch.title", n=len(refs), length=length),
            x_title=t("bottleneck.stretch.x"),
            y_title=t("bottleneck.stretch.y"),
            presenter=presenter,
        ),
        key="bn_stretch",
    )
    st.caption(t("bottleneck.stretch.caption", seed=seed))
    if length > corpus.MAX_LEN:
        st.caption(t("bottleneck.stretch.beyond", max=corpus.MAX_LEN))
    # drawn only while open (a closed expander reruns nothing): the slider stays light
    sentences = st.expander(
        t("bottleneck.stretch.sentences"), icon=":material/list:", key="bn_sents", on_change="rerun"
    )
    with sentences:
        for i, (src, ref) in enumerate(batch if sentences.open else (), 1):  # one element each
            lines = [
                f"**{i}.** {_chip(' '.join(src))}",
                f"{t('bottleneck.side.reference')} {chips(ref)}",
                *(f"`{name}` {marked(batch_out[name][i - 1], ref)}" for name in (plain, ATTN)),
            ]
            st.markdown("  \n".join(lines))


@st.fragment  # the model switch reruns only this part (the slider only stretch_section)
def stretch_part() -> None:
    st.header(t("bottleneck.stretch.header"))
    stretch_section(plain_picker())


# --- 5. what C remembers: linear probes -------------------------------------------------------


def probe_part() -> None:
    st.header(t("bottleneck.probe.header"))
    probe_job(*PROBE_ARGS)  # the probes start now, in their thread, while the intro is drawn
    st.markdown(t("bottleneck.probe.intro"))
    with st.spinner(t("bottleneck.probe.spinner")):
        probes = probe_curves(*PROBE_ARGS)
    first = probes[PLAIN[0]]
    ui.chart(
        figs.lines_by_position(
            first.positions,
            {name: r.accuracy for name, r in probes.items()},
            title=t("bottleneck.probe.title"),
            x_title=t("bottleneck.probe.x"),
            y_title=t("bottleneck.probe.y"),
            presenter=presenter,
            baseline=first.chance,
            baseline_name=t("bottleneck.probe.chance"),
        ),
        key="bn_probe",
    )
    kept = "; ".join(
        t(
            "bottleneck.probe.kept",
            model=name,
            where=bn.ranges_text(bn.kept_positions(probes[name])) or t("bottleneck.probe.none"),
        )
        for name in (*PLAIN, ATTN)
    )
    st.caption(
        t(
            "bottleneck.probe.caption",
            n_train=first.n_train,
            n_test=first.n_test,
            length=PROBE_LEN,
            kept=kept,
        )
    )


# --- 6. how much each word still counts ----------------------------------------------------------


@st.fragment  # the log-scale toggle reruns only this section
def influence_section(plain: str, tokens: tuple[str, ...]) -> None:
    ids = tuple(src_vocab.encode(tokens, eos=True))
    log_y = ui.params.get_bool("log", False)
    with ui.secondary():
        log_y = st.toggle(t("bottleneck.grad.log"), **ui.params.bound("log", log_y, key="bn_log"))
    ui.params.set_params(log=log_y)
    with st.spinner(t("bottleneck.grad.spinner")):
        norms = influence(plain, ids)
    ui.chart(
        figs.influence_bars(
            [*tokens, "<eos>"],
            norms,
            title=t("bottleneck.grad.title", model=plain),
            x_title=t("bottleneck.grad.x"),
            y_title=t("bottleneck.grad.y"),
            color=figs.model_color(plain, presenter),
            presenter=presenter,
            log_y=log_y,
        ),
        key="bn_grad",
    )
    ratio = bn.early_late_ratio(norms)
    if not np.isfinite(ratio):
        key = "bottleneck.grad.caption_short"
    elif ratio < 0.67:
        key = "bottleneck.grad.caption_fade"
    elif ratio <= 1.5:
        key = "bottleneck.grad.caption_even"
    else:
        key = "bottleneck.grad.caption_early"
    st.caption(t(key, ratio=f"{ratio:.2g}"))


@st.fragment  # the model switch reruns only this part (the log toggle only influence_section)
def grad_part(tokens: tuple[str, ...] | None) -> None:
    st.header(t("bottleneck.grad.header"))
    plain = plain_picker()
    if tokens is not None:
        influence_section(plain, tokens)
    else:
        st.info(t("bottleneck.need_sentence"), icon=":material/edit:")


# --- the chosen part, then the takeaway (short: under every part) -----------------------------


@st.fragment
def lesson() -> None:
    """The sentence, the part selector and the chosen part, rerun together by the sentence,
    an example or the part (a click reruns this fragment, not the app's frame: ~30 ms less
    per click, measured). The parts' own controls, the plain model's included, rerun only
    their part."""
    tokens = sentence_box()
    part = ui.part_selector("bottleneck.", PARTS, key="bottleneck_part")
    if part == "read":
        read_part(tokens)
    elif part == "side":
        side_part(tokens)
    elif part == "length":
        length_part()
    elif part == "stretch":
        stretch_part()
    elif part == "probe":
        probe_part()
    else:
        grad_part(tokens)


lesson()

st.header(t("bottleneck.takeaway.header"))
st.success(t("bottleneck.takeaway"), icon=":material/lightbulb:")
st.markdown(t("bottleneck.try"))
