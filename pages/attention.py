"""Attention (lesson 3.1–3.2): alignment, context decides meaning, self-attention, and how a
score becomes a weight. Every heatmap shows the weights the decoder used for the output
shown: the models run teacher-forced on their own greedy output, and a replay from the
plotted weights alone reproduces the model's logits (the check is in the "curious" fold).
"""

from __future__ import annotations

import math

import numpy as np
import streamlit as st

import ui
from core import zoo
from core.analysis import attention as A
from core.corpus import BUCKETS
from core.figures import attention as F
from core.translate import translate_tokens
from core.vocab import detokenize_zh
from ui import attention_toy as toy
from ui import models as M
from ui.attention_inputs import (
    ATTN_MODELS,
    EXAMPLES,
    layer_head_picker,
    model_picker,
    sentence_picker,
    step_picker,
    word_picker,
)

ui.begin_page("attention")
t = ui.t
P = ui.presenter()

PARTS = ("align", "pairs", "self", "score", "buys")
REFERENCE = dict(A.EXAMPLES)
PAIR_KEYS = tuple(p.key for p in A.MINIMAL_PAIRS)
DIMS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
HOVER = {k: t(f"attention.hover.{k}") for k in ("row", "col", "weight", "sum")}

part = ui.part_selector("attention.", PARTS, key="attention_part")

if not M.require(*ATTN_MODELS):
    st.stop()
src_vocab, tgt_vocab = M.get_vocabs()
manifest = M.get_manifest()


def _sha(name: str) -> str:
    return str(manifest.get("models", {}).get(name, {}).get("sha256", ""))


@st.cache_data(show_spinner=False, max_entries=128)
def run_model(name: str, sha: str, tokens: tuple[str, ...]) -> tuple[A.AttentionRun, float]:
    """Greedy translation + its attention, and the replay check (max |Δ logit|)."""
    model = M.get_model(name)
    ids = src_vocab.encode(tokens, eos=True)
    run = A.run_attention(model, ids, tokens, tgt_vocab.tokens)
    return run, A.logit_gap(model, ids, run)


@st.cache_data(show_spinner=False)
def it_view(sha: str) -> A.ItChoice:
    """The encoder view that shows best what "it" reads (searched once per model)."""
    return A.it_view_search(M.get_model("transformer"), src_vocab, tgt_vocab)


@st.cache_data(show_spinner=False)
def best_pair(sha: str) -> A.PairEvidence:
    """The "transformer" pair whose ambiguous word reads its context most."""
    return A.pairs_search(M.get_model("transformer"), src_vocab, tgt_vocab)


@st.cache_data(show_spinner=False, max_entries=64)
def query_keys(sha: str, tokens: tuple[str, ...], layer: int) -> tuple[np.ndarray, np.ndarray]:
    model = M.get_model("transformer")
    return A.transformer_qk(model, src_vocab.encode(tokens, eos=True), layer)


@st.cache_data(show_spinner=False, max_entries=64)
def energies(sha: str, tokens: tuple[str, ...], out_ids: tuple[int, ...], step: int) -> np.ndarray:
    model = M.get_model("gru_attention")
    return A.additive_energy(model, src_vocab.encode(tokens, eos=True), out_ids, step)


@st.cache_data(show_spinner=False)
def saturation(n_keys: int) -> dict[str, np.ndarray]:
    return A.saturation_curve(DIMS, n_keys)


@st.cache_data(show_spinner=False, max_entries=64)
def translate_with(name: str, sha: str, tokens: tuple[str, ...]) -> str:
    return translate_tokens(M.get_model(name), tokens, src_vocab, tgt_vocab).text


def model_note(name: str, run: A.AttentionRun) -> None:
    """What the model wrote."""
    st.markdown(t("attention.output", model=ui.model_name(name), text=detokenize_zh(run.words)))


def check_note(run: A.AttentionRun, gap: float) -> None:
    """The check that the plotted weights are the ones used (for the curious)."""
    ok = run.consistent and gap < 1e-3
    st.caption(t("attention.check.ok" if ok else "attention.check.bad", gap=f"{gap:.1e}"))


def where(name: str, layer: int, head: int | None, side: str = "dec") -> str:
    """Which attention a chart shows, in words (``side``: decoder cross or encoder self)."""
    if name == "gru_attention":
        return t("attention.where.gru")
    if head is None:
        return t(f"attention.where.{side}_avg", layer=layer + 1)
    return t(f"attention.where.{side}_head", layer=layer + 1, head=head + 1)


def numbered(tokens) -> list[str]:
    return [f"{i + 1} {tok}" for i, tok in enumerate(tokens)]


# =========================================================================================
# 1. Alignment: each output word spreads a budget of 1 over the source words
# =========================================================================================
@st.fragment  # its controls rerun only this part of the page
def align_part() -> None:
    top, choose = st.container(), st.container()
    with choose:  # under the picture: which sentence, which model
        name = model_picker()
        tokens = sentence_picker(src_vocab, EXAMPLES[0])
    if tokens is None:
        return
    run, gap = run_model(name, _sha(name), tokens)
    layer, head = 0, None
    if name == "transformer":
        with choose:
            layer, head = layer_head_picker(run)
    weights = A.select_heads(run.cross, layer, head)
    entropy = A.entropy_bits(weights)
    with top:
        align_step(name, run, weights, entropy)
    with choose:
        model_note(name, run)
        ref = REFERENCE.get(" ".join(tokens))
        if ref:
            st.caption(t("attention.reference", text=detokenize_zh(ref.split())))
    # every step at once, outside the step fragment: not redrawn when the step moves
    fig = F.weight_bars(
        numbered(run.output),
        entropy,
        title=t("attention.focus.title"),
        x_title=t("attention.align.y"),
        y_title=t("attention.focus.y"),
        presenter=P,
        highlight=False,
        ceiling=math.log2(len(run.source)),
    )
    ui.chart(fig, key="attention_align_focus")
    st.caption(t("attention.focus.caption", max=f"{math.log2(len(run.source)):.2f}"))
    ui.takeaway(t("attention.align.takeaway"))
    ui.try_this(t("attention.align.try"))
    with ui.curious():
        st.caption(t("attention.align.caption", where=where(name, layer, head)))
        check_note(run, gap)
    ui.params.set_params(s=" ".join(tokens))


@st.fragment  # the decoding step reruns only what it moves: one figure (heatmap + row)
def align_step(name: str, run: A.AttentionRun, weights: np.ndarray, entropy: np.ndarray) -> None:
    """The alignment heatmap with the step's row framed and drawn as bars under it; the
    step slider under the chart."""
    s = ui.slide(t("attention.part.align.lead"))
    with s.control:
        step = step_picker(run, t("attention.step"))
    with s.more:
        values = st.toggle(
            t("attention.values"),
            **ui.params.bound("values", ui.params.get_bool("values", False), key="attention_v"),
        )
    fig = F.alignment_figure(
        weights,
        run.source,
        numbered(run.output),
        step=step,
        title=t("attention.align.title", model=ui.model_name(name)),
        x_title=t("attention.align.x"),
        y_title=t("attention.align.y"),
        row_title=t("attention.row.title", step=step + 1, token=run.output[step]),
        row_y_title=t("attention.hover.weight"),
        hover=HOVER,
        presenter=P,
        show_values=values,
    )
    with s.chart:
        ui.chart(fig, key="attention_align")
    row = weights[step]
    top = int(np.argmax(row))
    with s.words:
        st.markdown(
            t(
                "attention.row.caption",
                token=run.output[step],
                top=run.source[top],
                w=f"{row[top]:.2f}",
                total=f"{row.sum():.2f}",
                h=f"{entropy[step]:.2f}",
            )
        )


# =========================================================================================
# 2. Minimal pairs: context decides
# =========================================================================================
@st.fragment  # the pair reruns the part: the decoder's rows and the encoder's
def pairs_part() -> None:
    top, below = st.container(), st.container()
    found = best_pair(_sha("transformer"))
    with below:
        key = ui.params.get_choice("pair", PAIR_KEYS, default=found.key)
        key = st.segmented_control(
            t("attention.pair"),
            PAIR_KEYS,
            format_func=ui.labeler("attention.pair."),
            required=True,
            **ui.params.bound("pair", key, key="attention_pair"),
        )
        ui.params.set_params(pair=key)
    pair = next(p for p in A.MINIMAL_PAIRS if p.key == key)
    with top:
        pairs_decoder(pair)
    with below:
        # Inside the encoder: what the ambiguous word itself reads (Transformer self-attention).
        st.subheader(t("attention.pairs.enc.header"))
        pairs_encoder(
            tuple((e, dict(A.corpus_pair(e).info).get("word", "it")) for e in (pair.a, pair.b)),
            found.layer,
        )
        ui.takeaway(t("attention.pairs.takeaway"))
        ui.try_this(t("attention.pairs.try"))
        with ui.curious():
            st.caption(t(f"attention.pairs.source.{pair.source}"))
            st.caption(
                t("attention.pairs.enc.found", layer=found.layer + 1, w=f"{found.reads:.2f}")
            )


@st.fragment  # the model, layer and head rerun only the decoder's rows: one figure
def pairs_decoder(pair: A.MinimalPair) -> None:
    """The step that writes the deciding word in A and in B: the two rows of weights and
    A minus B, as three panels of one figure (position under position)."""
    s = ui.slide(t("attention.part.pairs.lead"))
    with s.control:
        name = model_picker()
    layer, head = 0, None
    runs = [
        (e, A.corpus_pair(e), run_model(name, _sha(name), tuple(e.split()))[0])
        for e in (pair.a, pair.b)
    ]
    if name == "transformer":
        with s.more:
            layer, head = layer_head_picker(runs[0][2])
    panels, rows = [], []
    cols = s.words.columns(2)
    for col, (english, cp, run), tag in zip(cols, runs, "AB"):
        with col:
            idx, word = cp.check[0]
            st.markdown(f"**{tag}** · `{english}`")
            model_note(name, run)
            step = A.token_step(run.output, word, idx)
            if step is None:
                st.warning(t("attention.pairs.missed", word=word), icon=":material/error:")
                rows.append(None)
                continue
            row = A.select_heads(run.cross, layer, head)[step]
            rows.append(row)
            panels.append(
                F.BarPanel(
                    run.source,
                    row,
                    title=t("attention.pairs.row", tag=tag, token=word, step=step + 1),
                    y_title=t("attention.hover.weight"),
                    x_title=t("attention.align.x") if tag == "B" else "",
                )
            )
            top = int(np.argmax(row))
            st.caption(
                t("attention.pairs.peak", token=word, top=run.source[top], w=f"{row[top]:.2f}")
            )
    a_run, b_run = runs[0][2], runs[1][2]
    same_length = len(a_run.source) == len(b_run.source)
    # the difference A - B is a third panel on a laptop; a slide keeps the two rows
    diff = same_length and all(r is not None for r in rows) and not P
    if diff:
        panels.append(
            F.BarPanel(
                [x if x == y else f"{x}/{y}" for x, y in zip(a_run.source, b_run.source)],
                rows[0] - rows[1],
                title=t("attention.pairs.diff.title"),
                y_title=t("attention.pairs.diff.y"),
                x_title=t("attention.pairs.diff.x"),
                signed=True,
            )
        )
    if panels:
        with s.chart:
            ui.chart(F.bar_panels(panels, presenter=P), key="attention_pair_rows")
    with s.words:
        if diff:
            st.caption(t("attention.pairs.diff.caption", where=where(name, layer, head)))
        elif not same_length and not P:  # (a row missing: its warning above says why)
            st.caption(t("attention.pairs.nodiff"))


@st.fragment  # the encoder layer reruns only its figure
def pairs_encoder(sentences: tuple[tuple[str, str], ...], default_layer: int) -> None:
    """What the ambiguous word reads in each sentence of the pair, (english, word) each:
    its self-attention row in A and in B, two panels of one figure."""
    enc_runs = [
        run_model("transformer", _sha("transformer"), tuple(e.split()))[0] for e, _ in sentences
    ]
    n_enc = enc_runs[0].enc_self.shape[0]
    elayer = ui.params.get_int("elayer", 1, n_enc, default=min(default_layer + 1, n_enc))
    panels = []
    for (_, word), erun, tag in zip(sentences, enc_runs, "AB"):
        i = erun.source.index(word)
        row = erun.enc_self[elayer - 1].mean(0)[i]
        panels.append(
            F.BarPanel(
                erun.source,
                row,
                title=t("attention.pairs.enc.title", tag=tag, word=word),
                y_title=t("attention.hover.weight"),
                x_title=t("attention.self.x"),
                highlight=int(np.argmax(np.where(np.arange(row.size) == i, -1, row))),
            )
        )
    ui.chart(F.bar_panels(panels, presenter=P), key="attention_pair_enc")
    elayer = st.select_slider(
        t("attention.pairs.enc.layer"),
        options=list(range(1, n_enc + 1)),
        **ui.params.bound("elayer", elayer, key="attention_elayer"),
    )
    ui.params.set_params(elayer=elayer)
    st.caption(t("attention.pairs.enc.caption", layer=elayer))


# =========================================================================================
# 3. Self-attention
# =========================================================================================
@st.fragment
def self_part() -> None:
    s = ui.slide(t("attention.part.self.lead"))
    with s.more:
        tokens = sentence_picker(src_vocab, EXAMPLES[2], "q")
    if tokens is None:
        return
    run, _ = run_model("transformer", _sha("transformer"), tokens)
    found = it_view(_sha("transformer"))
    with s.more:
        layer, head = layer_head_picker(run, default=(found.shown.layer, found.shown.head))
    with s.control:
        word = word_picker(run, tokens, t("attention.self.word"))
    weights = A.select_heads(run.enc_self, layer, head)
    title_where = where("transformer", layer, head, side="enc")
    with s.chart:
        fig = F.attention_heatmap(
            weights,
            run.source,
            run.source,
            title=t("attention.self.title", where=title_where),
            x_title=t("attention.self.x"),
            y_title=t("attention.self.y"),
            hover=HOVER,
            presenter=P,
            highlight_row=word,
        )
        ui.chart(fig, key="attention_self_heatmap")
    row = weights[word]
    order = np.argsort(-row)[:3]
    with s.words:
        st.markdown(
            t(
                "attention.self.caption",
                word=run.source[word],
                top=", ".join(f"`{run.source[j]}` {row[j]:.2f}" for j in order),
            )
        )
        fig = F.attention_lines(
            weights,
            run.source,
            title=t("attention.self.lines", word=run.source[word]),
            presenter=P,
            selected=word,
            left_title=t("attention.self.y"),
            right_title=t("attention.self.x"),
        )
        ui.chart(fig, key="attention_self_lines")
    b = found.best
    numbers = dict(
        view=where("transformer", found.shown.layer, found.shown.head, side="enc"),
        cat=f"{found.shown.a_right:.2f}",
        milk=f"{found.shown.b_right:.2f}",
        sep=f"{b.separation:+.2f}",
        min=f"{A.SEPARATION_MIN:.2f}",
    )
    if found.separates:
        ui.takeaway(t("attention.self.takeaway_separates", **numbers))
    else:
        ui.mixed(t("attention.self.mixed", **numbers))
        ui.takeaway(t("attention.self.takeaway"))
    ui.try_this(t("attention.self.try"))
    with ui.curious():
        st.caption(t("attention.self.search", **numbers))
    ui.params.set_params(q=" ".join(tokens))


# =========================================================================================
# 4. How a score becomes a weight
# =========================================================================================
@st.fragment
def score_part() -> None:
    """4a. A worked example by hand (the picture), 4b. the same steps inside a trained
    model, 4c. why divide by sqrt(d)."""
    s = ui.slide(t("attention.part.score.lead"))
    with s.control:
        kind = ui.params.get_choice("score", A.SCORE_KINDS, default="scaled")
        kind = st.segmented_control(
            t("attention.score.kind"),
            A.SCORE_KINDS,
            format_func=ui.labeler("attention.score.kind."),
            required=True,
            **ui.params.bound("score", kind, key="attention_score"),
        )
        temp = ui.params.get_float("temp", 0.1, 5.0, default=1.0)
        temp = st.slider(
            t("attention.score.temp"),
            0.1,
            5.0,
            step=0.1,
            help=t("attention.score.temp_help"),
            **ui.params.bound("temp", temp, key="attention_temp"),
        )
    ui.params.set_params(score=kind, temp=temp)
    if st.session_state.get(toy.TOY_SEEN) not in (None, toy.toy_raw()):
        toy.new_editors()  # the link changed under the editors: show what it says now
    q, k, v = toy.read_toy()
    with s.more:
        c1, c2, c3 = st.columns([2, 2, 1], vertical_alignment="bottom")
        st.session_state["attention_toy_n"] = k.shape[0]
        st.session_state["attention_toy_d"] = q.size
        c1.select_slider(
            t("attention.toy.n"),
            options=list(range(A.TOY_MIN_KEYS, A.TOY_MAX_KEYS + 1)),
            key="attention_toy_n",
            on_change=toy.on_toy_size,
        )
        c2.select_slider(
            t("attention.toy.d"),
            options=list(range(1, A.TOY_MAX_DIM + 1)),
            key="attention_toy_d",
            on_change=toy.on_toy_size,
        )
        c3.button(t("attention.toy.reset"), key="attention_toy_reset", on_click=toy.on_toy_reset)
    with s.words:
        st.subheader(t("attention.toy.header"))
        st.markdown(t("attention.toy.intro", word=A.TOY_QUERY_WORD))
        edited = toy.toy_editors(q, k, v)
        if edited is not None:
            q, k, v = edited
        toy.write_toy(q, k, v)  # the last complete numbers, so a copied link reopens them
        ex = A.worked_example(q, k, v, temp)
        words = list(A.TOY_WORDS[: k.shape[0]])
        toy.toy_steps(ex, words, kind)
        ui.try_this(t("attention.toy.try"))
    with s.chart:
        ui.chart(toy.toy_figure(ex, words, kind, P), key="attention_toy_weights")
    score_model(kind, temp)
    ui.takeaway(t("attention.score.takeaway"))
    ui.try_this(t("attention.score.try"))


@st.fragment  # the sentence and the query's controls rerun this section and 4c, not 4a
def score_model(kind: str, temp: float) -> None:
    """4b. The same steps inside a trained model: the scores of one query and their
    softmax, one figure; then 4c (why divide by sqrt(d)) for that many keys."""
    st.subheader(t("attention.score.model.header"))
    chart, controls, words = st.container(), st.container(), st.container()
    with controls:
        tokens = sentence_picker(src_vocab, EXAMPLES[2], "q")
    n_keys = toy.read_toy(notify=False)[1].shape[0]  # no sentence: as many keys as the example
    if tokens is not None:
        name = "gru_attention" if kind == "additive" else "transformer"
        run, _ = run_model(name, _sha(name), tokens)
        with controls:
            if kind == "additive":
                step = step_picker(run, t("attention.score.step"))
            else:
                layer, head = layer_head_picker(run, allow_avg=False)
                word = word_picker(run, tokens, t("attention.score.query"))
        if kind == "additive":
            sc = energies(_sha("gru_attention"), tokens, run.out_ids, step)
            used = run.cross[0, 0, step]
            query_name = t("attention.score.query_gru", step=step + 1, token=run.output[step])
            formula = (
                r"e_{ij} = v^\top \tanh(W s_{i-1} + U h_j),\quad "
                r"\alpha_{ij} = \frac{\exp(e_{ij}/\tau)}{\sum_k \exp(e_{ik}/\tau)}"
            )
        else:
            qs, ks = query_keys(_sha("transformer"), tokens, layer)
            head = 0 if head is None else head
            sc = A.scores(qs[head, word], ks[head], kind)
            used = run.enc_self[layer, head, word]
            query_name = t(
                "attention.score.query_tr", word=run.source[word], layer=layer + 1, head=head + 1
            )
            scale = r"\frac{q \cdot k_j}{\sqrt{d}},\ d = " + str(qs.shape[-1])
            formula = (
                r"e_j = " + (r"q \cdot k_j" if kind == "dot" else scale) + r",\quad "
                r"\alpha_j = \frac{\exp(e_j/\tau)}{\sum_k \exp(e_k/\tau)}"
            )
        labels = run.source
        weights = A.softmax(sc, temp)
        with words:
            c1, c2, c3 = st.columns(3)
            c1.metric(t("attention.score.entropy"), f"{A.entropy_bits(weights):.2f}")
            c2.metric(t("attention.score.max"), f"{weights.max():.2f}")
            c3.metric(t("attention.score.sum"), f"{weights.sum():.3f}")
            st.caption(t("attention.score.entropy_help", max=f"{math.log2(len(labels)):.2f}"))
            match = float(np.abs(A.softmax(sc) - used).max())
            with ui.curious():
                st.latex(formula)
                gap_key = "caption_dot" if kind == "dot" else "caption_same"
                fmt = f"{match:.2f}" if kind == "dot" else f"{match:.1e}"
                st.caption(t(f"attention.score.{gap_key}", gap=fmt))
        # the scores on top, their softmax under them: each key's weight under its score
        fig = F.bar_panels(
            [
                F.BarPanel(labels, sc, title="", y_title=t("attention.score.scores_y")),
                F.BarPanel(
                    labels,
                    weights,
                    title=t("attention.score.weights_title", temp=f"{temp:g}"),
                    y_title=t("attention.hover.weight"),
                    x_title=t("attention.score.keys"),
                    reference=used,
                    reference_name=t("attention.score.used"),
                    bars_name=t("attention.score.softmax"),
                ),
            ],
            title=t("attention.score.scores_title", query=query_name),
            presenter=P,
            share_x=True,
        )
        with chart:
            ui.chart(fig, key="attention_score_model")
        n_keys = len(labels)
        ui.params.set_params(q=" ".join(tokens))
    st.subheader(t("attention.score.sqrt.header"))
    score_sqrt(n_keys)


@st.fragment  # d reruns only its chart
def score_sqrt(n_keys: int) -> None:
    """Entropy against d for ``n_keys`` random keys, with and without the 1/sqrt(d)."""
    chart = st.container()
    d_now = ui.params.get_choice("d", DIMS, default=32)
    d_now = st.select_slider(
        t("attention.score.d"), options=list(DIMS), **ui.params.bound("d", d_now, key="attention_d")
    )
    ui.params.set_params(d=d_now)
    curves = saturation(n_keys)
    fig = F.saturation_figure(
        DIMS,
        {
            t("attention.score.sqrt.dot"): curves["ent_dot"],
            t("attention.score.sqrt.scaled"): curves["ent_scaled"],
        },
        title=t("attention.score.sqrt.title", n=n_keys),
        x_title=t("attention.score.d"),
        y_title=t("attention.focus.y"),
        presenter=P,
        marker_d=d_now,
        ceiling=math.log2(n_keys),
        ceiling_label=t("attention.score.sqrt.even"),
    )
    with chart:
        ui.chart(fig, key="attention_score_sqrt")
    i = DIMS.index(d_now)
    st.caption(
        t(
            "attention.score.sqrt.caption",
            d=d_now,
            n=n_keys,
            max_dot=f"{curves['max_dot'][i]:.2f}",
            max_scaled=f"{curves['max_scaled'][i]:.2f}",
            std=f"{math.sqrt(d_now):.1f}",
        )
    )


# =========================================================================================
# 5. What attention buys
# =========================================================================================
BUYS_MODELS = ("gru_plain_256", "gru_attention", "transformer")


def buys_part() -> None:
    """The shipped models' accuracy by length (the picture, which no control changes),
    then every model on one sentence (a fragment: the sentence reruns only the table)."""
    s = ui.slide(t("attention.part.buys.lead"))
    series = {}
    for name in BUYS_MODELS:
        by_len = manifest.get("models", {}).get(name, {}).get("metrics", {}).get("by_length", {})
        if all(b in by_len for b in BUCKETS):
            series[name] = [float(by_len[b]["exact"]) for b in BUCKETS]
    with s.chart:
        if series:
            fig = F.bucket_lines(
                BUCKETS,
                series,
                title=t("attention.buys.title"),
                x_title=t("attention.buys.x"),
                y_title=t("attention.buys.y"),
                presenter=P,
                names={m: ui.model_name(m) for m in series},
            )
            ui.chart(fig, key="attention_buys_lengths")
        else:
            st.caption(t("attention.buys.no_metrics"))
    with s.words:
        if series:
            st.caption(t("attention.buys.caption"))
    buys_table()
    ui.takeaway(t("attention.buys.takeaway"))


@st.fragment  # the sentence reruns only the table: the curves above do not depend on it
def buys_table() -> None:
    tokens = sentence_picker(src_vocab, EXAMPLES[6])
    if tokens is None:
        return
    rows = []
    ref = REFERENCE.get(" ".join(tokens))
    for name in zoo.TRANSLATION_MODELS:
        try:
            text = translate_with(name, _sha(name), tokens)
        except zoo.ZooError:
            text = None
        uses = name in ("gru_attention", "cnn_s2s", "transformer")
        row = {
            t("attention.buys.col.model"): ui.model_name(name),
            t("attention.buys.col.attention"): t(f"attention.buys.{'yes' if uses else 'no'}"),
            t("attention.buys.col.output"): t("attention.buys.missing") if text is None else text,
        }
        if ref:
            same = text == detokenize_zh(ref.split())
            row[t("attention.buys.col.exact")] = t(f"attention.buys.{'yes' if same else 'no'}")
        rows.append(row)
    st.table(rows)
    if ref:
        st.caption(t("attention.reference", text=detokenize_zh(ref.split())))
    ui.params.set_params(s=" ".join(tokens))


{
    "align": align_part,
    "pairs": pairs_part,
    "self": self_part,
    "score": score_part,
    "buys": buys_part,
}[part]()
