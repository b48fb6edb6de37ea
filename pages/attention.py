"""Attention (lesson 3.1–3.2): alignment, context decides meaning, self-attention, and how a
score becomes a weight. Every heatmap shows the weights the decoder used for the output
shown: the models run teacher-forced on their own greedy output, and a replay from the
plotted weights alone reproduces the model's logits (the check is printed under the chart).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

import ui
from core import zoo
from core.analysis import attention as A
from core.corpus import BUCKETS
from core.figures import attention as F
from core.translate import InputError, prepare, translate_tokens
from core.vocab import detokenize_zh
from ui import models as M
from ui.params import safe_value

ui.begin_page("attention")
t = ui.t
P = ui.presenter()
lang = ui.current_lang()

PARTS = ("align", "pairs", "self", "score", "buys")
ATTN_MODELS = ("gru_attention", "transformer")
EXAMPLES = tuple(en for en, _ in A.EXAMPLES)
REFERENCE = dict(A.EXAMPLES)
PAIR_KEYS = tuple(p.key for p in A.MINIMAL_PAIRS)
DIMS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
OWN = "__own__"
HOVER = {
    "row": t("attention.hover.row"),
    "col": t("attention.hover.col"),
    "weight": t("attention.hover.weight"),
    "sum": t("attention.hover.sum"),
}

part = ui.part_selector("attention.", PARTS, key="attention_part")
st.caption(t(f"attention.part.{part}.lead"))

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


def show_input_error(err: InputError) -> None:
    """The reason a sentence cannot be translated, naming unknown words and suggestions."""
    if err.reason == "unknown":
        words = []
        for o in err.unknown:
            word = f"`{safe_value(o.word)}`"
            if o.suggestions:
                word += " " + t("attention.input.suggest", words=" / ".join(o.suggestions))
            words.append(word)
        st.error(t("attention.input.unknown", words="; ".join(words)), icon=":material/spellcheck:")
    elif err.reason == "too_long":
        st.error(t("attention.input.too_long", limit=err.limit), icon=":material/straighten:")
    else:
        st.error(t("attention.input.empty"), icon=":material/edit_note:")


def _on_example(param: str) -> None:
    choice = st.session_state["attention_example"]
    if choice != OWN:
        st.query_params[param] = choice


def sentence_picker(default: str, param: str = "s") -> tuple[str, ...] | None:
    """Example selector + free text, both tied to the URL parameter ``param`` (alignment
    and the model comparison share ``s``; self-attention and scores share ``q``)."""
    text = ui.params.get_text(param, default)
    st.session_state["attention_example"] = text if text in EXAMPLES else OWN
    left, right = st.columns([1, 1])
    with left:
        st.selectbox(
            t("attention.sentence.example"),
            (*EXAMPLES, OWN),
            format_func=lambda s: t("attention.sentence.own") if s == OWN else s,
            key="attention_example",
            on_change=_on_example,
            args=(param,),
        )
    with right:
        text = st.text_input(
            t("attention.sentence.type"),
            max_chars=300,
            help=t("attention.sentence.help"),
            **ui.params.bound(param, text, key="attention_s"),
        )
    try:
        return tuple(prepare(text, src_vocab))
    except InputError as err:
        show_input_error(err)
        return None


def model_picker() -> str:
    name = ui.params.get_choice("model", ATTN_MODELS, default="gru_attention")
    name = st.segmented_control(
        t("attention.model"),
        ATTN_MODELS,
        format_func=ui.labeler("attention.model."),
        required=True,
        **ui.params.bound("model", name, key="attention_model"),
    )
    ui.params.set_params(model=name)
    return name


def layer_head_picker(run: A.AttentionRun, *, allow_avg: bool = True) -> tuple[int, int | None]:
    """Layer and head selectors for the transformer (``None`` head = mean over heads)."""
    n_layers, n_heads = run.cross.shape[:2]
    if not allow_avg and st.query_params.get("head") == "avg":
        st.query_params["head"] = "0"  # coming from a view that averages: not a bad link
    heads = (("avg",) if allow_avg else ()) + tuple(str(h) for h in range(n_heads))
    layer = ui.params.get_int("layer", 1, n_layers, default=n_layers)
    head = ui.params.get_choice("head", heads, default=heads[0])
    c1, c2 = st.columns(2)
    with c1:
        layer = st.select_slider(
            t("attention.layer"),
            options=list(range(1, n_layers + 1)),
            **ui.params.bound("layer", layer, key="attention_layer"),
        )
    with c2:
        head = st.segmented_control(
            t("attention.head"),
            heads,
            format_func=lambda h: t("attention.head.avg") if h == "avg" else str(int(h) + 1),
            required=True,
            **ui.params.bound("head", head, key="attention_head"),
        )
    ui.params.set_params(layer=layer, head=head)
    return layer - 1, None if head == "avg" else int(head)


def _position(raw: str | None, name: str, n: int, default: int) -> int:
    """A 1-based position in the link (``step``, ``w``; ``raw`` is its text there) for a
    sequence of ``n`` items.

    A number this session wrote itself (a choice made for a longer sentence) is quietly
    moved to the last item; any other value outside 1..n came from a link and falls back
    to ``default`` with the usual notice."""
    if raw is not None and raw == st.session_state.get(f"attention_{name}_seen"):
        return min(int(raw), n)
    return ui.params.get_int(name, 1, n, default=default)


def _remember(name: str, value: int) -> None:
    ui.params.set_params(**{name: value})
    st.session_state[f"attention_{name}_seen"] = str(value)


def step_picker(run: A.AttentionRun, label: str) -> int:
    n = len(run.output)
    step = _position(st.query_params.get("step"), "step", n, default=1)
    step = st.select_slider(
        label,
        options=list(range(1, n + 1)),
        format_func=lambda i: f"{i} · {run.output[i - 1]}",
        **ui.params.bound("step", step, key="attention_step"),
    )
    _remember("step", step)
    return step - 1


def word_picker(run: A.AttentionRun, tokens: tuple[str, ...], label: str) -> int:
    """The source word whose row is shown (0-based; in the link as ``w``, 1-based);
    "it" when the sentence has one."""
    n = len(run.source)
    default_word = tokens.index("it") if "it" in tokens else 0
    word = _position(st.query_params.get("w"), "w", n, default=default_word + 1)
    word = st.selectbox(
        label,
        options=list(range(1, n + 1)),
        format_func=lambda i: f"{i} · {run.source[i - 1]}",
        **ui.params.bound("w", word, key="attention_word"),
    )
    _remember("w", word)
    return word - 1


def model_note(name: str, run: A.AttentionRun, gap: float) -> None:
    """Translation, and the check that the plotted weights are the ones used."""
    st.markdown(
        t("attention.output", model=t(f"attention.model.{name}"), text=detokenize_zh(run.words))
    )
    ok = run.consistent and gap < 1e-3
    st.caption(
        t("attention.check.ok" if ok else "attention.check.bad", gap=f"{gap:.1e}"),
    )


def where(name: str, layer: int, head: int | None, side: str = "dec") -> str:
    """Which attention a chart shows, in words (``side``: decoder cross or encoder self)."""
    if name == "gru_attention":
        return t("attention.where.gru")
    if head is None:
        return t(f"attention.where.{side}_avg", layer=layer + 1)
    return t(f"attention.where.{side}_head", layer=layer + 1, head=head + 1)


# The worked example of part 4: a query, keys and values a student edits. They live in the
# URL (tq, tk, tv); the editors show what the URL says and write every edit back to it.
TOY_PARAMS = ("tq", "tk", "tv")
TOY_SEEN = "attention_toy_seen"  # the (tq, tk, tv) this session last wrote to the URL
TOY_VER = "attention_toy_ver"  # a new number = fresh editors (their edits are relative)


def _toy_raw() -> tuple[str | None, ...]:
    return (st.query_params.get("tq"), st.query_params.get("tk"), st.query_params.get("tv"))


def read_toy(notify: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Query (d,), keys (S, d) and values (S, d_v) from the URL. A value that cannot be
    read falls back to the lesson's example with the usual notice; numbers beyond the
    limit are clipped to it, and the page says so."""
    defaults = (A.TOY_QUERY[None], A.TOY_KEYS, A.TOY_VALUES)
    rows = ((1, 1), (A.TOY_MIN_KEYS, A.TOY_MAX_KEYS), (A.TOY_MIN_KEYS, A.TOY_MAX_KEYS))
    out = []
    for name, raw, default, (lo, hi) in zip(TOY_PARAMS, _toy_raw(), defaults, rows):
        if raw is None:
            out.append(default)
            continue
        try:
            m, clipped = A.parse_vectors(raw, min_rows=lo, max_rows=hi)
        except ValueError:
            if notify:
                ui.params.notice(name, raw, A.format_vectors(default))
            out.append(default)
            continue
        if clipped and notify:
            st.warning(
                t("attention.toy.clipped", name=name, limit=f"{A.TOY_LIMIT:g}"),
                icon=":material/link_off:",
            )
        out.append(m)
    q, k, v = out
    if q.shape[1] != k.shape[1] or k.shape[0] != v.shape[0]:
        if notify:
            st.warning(t("attention.toy.mismatch"), icon=":material/link_off:")
        q, k, v = defaults
    return q[0], k, v


def _write_toy(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> None:
    text = tuple(A.format_vectors(m) for m in (q, k, v))
    ui.params.set_params(**dict(zip(TOY_PARAMS, text)))
    st.session_state[TOY_SEEN] = text


def _new_editors() -> None:
    st.session_state[TOY_VER] = st.session_state.get(TOY_VER, 0) + 1


def _on_toy_size() -> None:
    q, k, v = read_toy(notify=False)
    n, d = st.session_state["attention_toy_n"], st.session_state["attention_toy_d"]
    _write_toy(*A.resize_example(q, k, v, n_keys=n, dim=d))
    _new_editors()


def _on_toy_reset() -> None:
    _write_toy(A.TOY_QUERY, A.TOY_KEYS, A.TOY_VALUES)
    _new_editors()


def toy_editors(
    q: np.ndarray, k: np.ndarray, v: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Two small tables to edit (query and keys; values). Returns the edited vectors, or
    ``None`` (with a message) while a cell is empty."""
    ver = st.session_state.get(TOY_VER, 0)
    words = A.TOY_WORDS[: k.shape[0]]
    qk = pd.DataFrame(
        np.vstack([q, k]),
        index=[f"q · {A.TOY_QUERY_WORD}", *(f"k · {w}" for w in words)],
        columns=[str(i + 1) for i in range(q.size)],
    )
    vv = pd.DataFrame(
        v, index=[f"v · {w}" for w in words], columns=[str(i + 1) for i in range(v.shape[1])]
    )

    def config(df: pd.DataFrame, index_label: str) -> dict[str, object]:
        number = {
            c: st.column_config.NumberColumn(c, min_value=-A.TOY_LIMIT, max_value=A.TOY_LIMIT)
            for c in df.columns
        }
        return {"_index": st.column_config.TextColumn(index_label), **number}

    left, right = st.columns([max(3, q.size + 1), max(2, v.shape[1] + 1)])
    with left:
        st.markdown(t("attention.toy.qk_label", d=q.size))
        e_qk = st.data_editor(
            qk,
            key=f"attention_toy_qk_{ver}",
            num_rows="fixed",
            column_config=config(qk, t("attention.toy.vector")),
            width="stretch",
        )
    with right:
        st.markdown(t("attention.toy.v_label"))
        e_v = st.data_editor(
            vv,
            key=f"attention_toy_v_{ver}",
            num_rows="fixed",
            column_config=config(vv, t("attention.toy.vector")),
            width="stretch",
        )
    empty = []
    tables = []
    for df in (e_qk, e_v):
        m = df.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)  # (rows, cols)
        for i, j in zip(*np.nonzero(~np.isfinite(m))):
            empty.append(f"`{df.index[i]}` [{df.columns[j]}]")
        tables.append(np.clip(m, -A.TOY_LIMIT, A.TOY_LIMIT))
    if empty:
        st.error(t("attention.toy.empty", cells=", ".join(empty)), icon=":material/edit_note:")
        return None
    return tables[0][0], tables[0][1:], tables[1]


# =========================================================================================
# 1. Alignment
# =========================================================================================
@st.fragment  # its controls rerun only this part of the page
def align_part() -> None:
    tokens = sentence_picker(EXAMPLES[0])
    name = model_picker()
    if tokens is None:
        return
    run, gap = run_model(name, _sha(name), tokens)
    layer, head = 0, None
    if name == "transformer":
        with ui.secondary():
            layer, head = layer_head_picker(run)
    model_note(name, run, gap)
    ref = REFERENCE.get(" ".join(tokens))
    if ref:
        st.caption(t("attention.reference", text=detokenize_zh(ref.split())))
    weights = A.select_heads(run.cross, layer, head)
    entropy = A.entropy_bits(weights)
    align_step(name, run, weights, entropy, where(name, layer, head))
    # every step at once, outside the step fragment: not redrawn when the step moves (the
    # row caption gives the current step's entropy)
    fig = F.weight_bars(
        [f"{i + 1} {tok}" for i, tok in enumerate(run.output)],
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
    st.info(t("attention.align.takeaway"), icon=":material/lightbulb:")
    st.markdown(t("attention.align.try"))
    ui.params.set_params(s=" ".join(tokens))


@st.fragment  # the decoding step reruns only what it moves: one figure (heatmap + row)
def align_step(
    name: str, run: A.AttentionRun, weights: np.ndarray, entropy: np.ndarray, shown: str
) -> None:
    """The step slider, and one figure: the heatmap with the step's row framed, that row
    as bars under it (``shown``: which attention the weights are, in words)."""
    step = step_picker(run, t("attention.step"))
    with ui.secondary():
        values = st.toggle(
            t("attention.values"),
            **ui.params.bound("values", ui.params.get_bool("values", False), key="attention_v"),
        )
    fig = F.alignment_figure(
        weights,
        run.source,
        [f"{i + 1} {tok}" for i, tok in enumerate(run.output)],
        step=step,
        title=t("attention.align.title", model=t(f"attention.model.{name}")),
        x_title=t("attention.align.x"),
        y_title=t("attention.align.y"),
        row_title=t("attention.row.title", step=step + 1, token=run.output[step]),
        row_y_title=t("attention.hover.weight"),
        hover=HOVER,
        presenter=P,
        show_values=values,
    )
    ui.chart(fig, key="attention_align")
    row = weights[step]
    top = int(np.argmax(row))
    st.caption(t("attention.align.caption", where=shown))
    st.caption(
        t(
            "attention.row.caption",
            token=run.output[step],
            top=run.source[top],
            w=f"{row[top]:.2f}",
            total=f"{row.sum():.3f}",
            h=f"{entropy[step]:.2f}",
        )
    )


# =========================================================================================
# 2. Minimal pairs: context decides
# =========================================================================================
@st.fragment  # the pair reruns the part: the decoder's rows and the encoder's
def pairs_part() -> None:
    key = ui.params.get_choice("pair", PAIR_KEYS, default=PAIR_KEYS[0])
    key = st.segmented_control(
        t("attention.pair"),
        PAIR_KEYS,
        format_func=ui.labeler("attention.pair."),
        required=True,
        **ui.params.bound("pair", key, key="attention_pair"),
    )
    ui.params.set_params(pair=key)
    pair = next(p for p in A.MINIMAL_PAIRS if p.key == key)
    pairs_decoder(pair)
    # Inside the encoder: what the ambiguous word itself reads (Transformer self-attention).
    st.subheader(t("attention.pairs.enc.header"))
    pairs_encoder(
        tuple((e, dict(A.corpus_pair(e).info).get("word", "it")) for e in (pair.a, pair.b))
    )
    st.info(t("attention.pairs.takeaway"), icon=":material/lightbulb:")
    st.markdown(t("attention.pairs.try"))


@st.fragment  # the model, layer and head rerun only the decoder's rows: one figure
def pairs_decoder(pair: A.MinimalPair) -> None:
    """The step that writes the deciding word in A and in B: the two rows of weights and
    A minus B, as three panels of one figure (position under position)."""
    name = model_picker()
    layer, head = 0, None
    runs = []
    for english in (pair.a, pair.b):
        run, gap = run_model(name, _sha(name), tuple(english.split()))
        runs.append((english, A.corpus_pair(english), run, gap))
    if name == "transformer":
        with ui.secondary():
            layer, head = layer_head_picker(runs[0][2])
    st.caption(t(f"attention.pairs.source.{pair.source}"))
    panels, rows = [], []
    for col, (english, cp, run, gap), tag in zip(st.columns(2), runs, "AB"):
        with col:
            idx, word = cp.check[0]
            st.markdown(f"**{tag}** · `{english}`")
            model_note(name, run, gap)
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
                    x_title=t("attention.align.x"),
                )
            )
            top = int(np.argmax(row))
            st.caption(
                t("attention.pairs.peak", token=word, top=run.source[top], w=f"{row[top]:.2f}")
            )
    a_run, b_run = runs[0][2], runs[1][2]
    same_length = len(a_run.source) == len(b_run.source)
    diff = same_length and all(r is not None for r in rows)
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
        ui.chart(F.bar_panels(panels, presenter=P), key="attention_pair_rows")
    if diff:
        st.caption(t("attention.pairs.diff.caption", where=where(name, layer, head)))
    elif not same_length:  # (a row missing: its warning above says why)
        st.caption(t("attention.pairs.nodiff"))


@st.fragment  # the encoder layer reruns only its figure
def pairs_encoder(sentences: tuple[tuple[str, str], ...]) -> None:
    """What the ambiguous word reads in each sentence of the pair, (english, word) each:
    its self-attention row in A and in B, two panels of one figure."""
    enc_runs = [
        run_model("transformer", _sha("transformer"), tuple(e.split()))[0] for e, _ in sentences
    ]
    n_enc = enc_runs[0].enc_self.shape[0]
    elayer = ui.params.get_int("elayer", 1, n_enc, default=1)
    elayer = st.select_slider(
        t("attention.pairs.enc.layer"),
        options=list(range(1, n_enc + 1)),
        **ui.params.bound("elayer", elayer, key="attention_elayer"),
    )
    ui.params.set_params(elayer=elayer)
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
    st.caption(t("attention.pairs.enc.caption", layer=elayer))


# =========================================================================================
# 3. Self-attention
# =========================================================================================
@st.fragment
def self_part() -> None:
    tokens = sentence_picker(EXAMPLES[2], "q")
    if tokens is None:
        return
    run, gap = run_model("transformer", _sha("transformer"), tokens)
    layer, head = layer_head_picker(run)
    word = word_picker(run, tokens, t("attention.self.word"))
    weights = A.select_heads(run.enc_self, layer, head)
    title_where = where("transformer", layer, head, side="enc")
    left, right = st.columns([3, 2]) if not P else (st.container(), st.container())
    with left:
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
    with right:
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
    row = weights[word]
    order = np.argsort(-row)[:3]
    st.caption(
        t(
            "attention.self.caption",
            word=run.source[word],
            top=", ".join(f"`{run.source[j]}` {row[j]:.2f}" for j in order),
        )
    )
    st.info(t("attention.self.takeaway"), icon=":material/lightbulb:")
    st.markdown(t("attention.self.try"))
    ui.params.set_params(q=" ".join(tokens))


# =========================================================================================
# 4. How a score becomes a weight
# =========================================================================================
@st.fragment
def score_part() -> None:
    kinds = A.SCORE_KINDS
    kind = ui.params.get_choice("score", kinds, default="scaled")
    kind = st.segmented_control(
        t("attention.score.kind"),
        kinds,
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
    score_toy(kind, temp)
    score_model(kind, temp)
    st.info(t("attention.score.takeaway"), icon=":material/lightbulb:")
    st.markdown(t("attention.score.try"))


def _kind_names() -> dict[str, str]:
    return {k: t(f"attention.score.kind.{k}") for k in A.SCORE_KINDS}


@st.fragment  # the vectors, their size and the reset rerun only the worked example
def score_toy(kind: str, temp: float) -> None:
    """4a. Work it out by hand: small vectors a student edits, every number shown."""
    kinds = A.SCORE_KINDS
    kind_names = _kind_names()
    st.subheader(t("attention.toy.header"))
    st.markdown(t("attention.toy.intro", word=A.TOY_QUERY_WORD))
    if st.session_state.get(TOY_SEEN) not in (None, _toy_raw()):
        _new_editors()  # the link changed under the editors: show what it says now
    q, k, v = read_toy()
    with ui.secondary():
        c1, c2, c3 = st.columns([2, 2, 1], vertical_alignment="bottom")
        st.session_state["attention_toy_n"] = k.shape[0]
        st.session_state["attention_toy_d"] = q.size
        c1.select_slider(
            t("attention.toy.n"),
            options=list(range(A.TOY_MIN_KEYS, A.TOY_MAX_KEYS + 1)),
            key="attention_toy_n",
            on_change=_on_toy_size,
        )
        c2.select_slider(
            t("attention.toy.d"),
            options=list(range(1, A.TOY_MAX_DIM + 1)),
            key="attention_toy_d",
            on_change=_on_toy_size,
        )
        c3.button(t("attention.toy.reset"), key="attention_toy_reset", on_click=_on_toy_reset)
    edited = toy_editors(q, k, v)
    if edited is not None:
        q, k, v = edited
    _write_toy(q, k, v)  # the last complete numbers, so a copied link reopens them
    ex = A.worked_example(q, k, v, temp)
    words = list(A.TOY_WORDS[: k.shape[0]])
    d = q.size

    st.markdown(t("attention.toy.step1", kind=kind_names[kind]))
    st.latex(F.score_latex(kind, q, k, ex.scores[kind], words))
    st.table(
        pd.DataFrame(
            {kind_names[c]: [f"{x:.3f}" for x in ex.scores[c]] for c in kinds},
            index=pd.Index(words, name=t("attention.toy.key")),
        )
    )
    st.caption(t("attention.toy.scores_caption", d=d, sqrt=f"{math.sqrt(d):.3g}"))

    st.markdown(t("attention.toy.step2", temp=f"{temp:g}"))
    top = int(np.argmax(ex.weights[kind]))
    st.latex(F.softmax_latex(ex.scores[kind], ex.weights[kind], words, temp, top))
    fig = F.score_kinds_bars(
        words,
        {
            t("attention.toy.trace", kind=kind_names[c], h=f"{ex.entropy[c]:.2f}"): ex.weights[c]
            for c in kinds
        },
        {
            t("attention.toy.trace", kind=kind_names[c], h=f"{ex.entropy[c]:.2f}"): ex.scores[c]
            for c in kinds
        },
        title=t("attention.toy.chart_title", word=A.TOY_QUERY_WORD, temp=f"{temp:g}"),
        x_title=t("attention.toy.key"),
        y_title=t("attention.toy.weight"),
        hover={
            "key": t("attention.toy.key"),
            "score": t("attention.toy.score"),
            "weight": t("attention.toy.weight"),
        },
        presenter=P,
        selected=t("attention.toy.trace", kind=kind_names[kind], h=f"{ex.entropy[kind]:.2f}"),
        even_label=t("attention.toy.even", n=len(words)),
    )
    ui.chart(fig, key="attention_toy_weights")
    weights_table = pd.DataFrame(
        {kind_names[c]: [f"{x:.3f}" for x in ex.weights[c]] for c in kinds},
        index=pd.Index(words, name=t("attention.toy.key")),
    )
    weights_table.loc[t("attention.toy.sum")] = [f"{ex.weights[c].sum():.3f}" for c in kinds]
    weights_table.loc[t("attention.toy.entropy")] = [f"{ex.entropy[c]:.2f}" for c in kinds]
    st.table(weights_table)
    st.caption(
        t(
            "attention.toy.entropy_caption",
            kind=kind_names[kind],
            h=f"{ex.entropy[kind]:.2f}",
            max=f"{ex.max_entropy:.2f}",
            n=len(words),
        )
    )

    st.markdown(t("attention.toy.step3"))
    st.latex(F.context_latex(ex.weights[kind], v, words))
    st.table(
        pd.DataFrame(
            [[f"{x:.3f}" for x in ex.context[c]] for c in kinds],
            index=pd.Index([kind_names[c] for c in kinds], name=t("attention.score.kind")),
            columns=[f"o[{i + 1}]" for i in range(v.shape[1])],
        )
    )
    st.caption(
        t(
            "attention.toy.output_caption",
            word=A.TOY_QUERY_WORD,
            top=words[top],
            w=f"{ex.weights[kind][top]:.2f}",
            kind=kind_names[kind],
        )
    )
    st.markdown(t("attention.toy.try"))


@st.fragment  # the sentence and the query's controls rerun this section and 4c, not 4a
def score_model(kind: str, temp: float) -> None:
    """4b. The same steps inside a trained model: the scores of one query and their
    softmax, one figure; then 4c (why divide by sqrt(d)) for that many keys."""
    st.subheader(t("attention.score.model.header"))
    tokens = sentence_picker(EXAMPLES[2], "q")
    n_keys = read_toy(notify=False)[1].shape[0]  # no sentence: as many keys as the example
    if tokens is not None:
        if kind == "additive":
            run, gap = run_model("gru_attention", _sha("gru_attention"), tokens)
            step = step_picker(run, t("attention.score.step"))
            sc = energies(_sha("gru_attention"), tokens, run.out_ids, step)
            used = run.cross[0, 0, step]
            labels = run.source
            query_name = t("attention.score.query_gru", step=step + 1, token=run.output[step])
            st.latex(
                r"e_{ij} = v^\top \tanh(W s_{i-1} + U h_j),\quad "
                r"\alpha_{ij} = \frac{\exp(e_{ij}/\tau)}{\sum_k \exp(e_{ik}/\tau)}"
            )
        else:
            run, gap = run_model("transformer", _sha("transformer"), tokens)
            layer, head = layer_head_picker(run, allow_avg=False)
            word = word_picker(run, tokens, t("attention.score.query"))
            qs, ks = query_keys(_sha("transformer"), tokens, layer)
            head = 0 if head is None else head
            sc = A.scores(qs[head, word], ks[head], kind)
            used = run.enc_self[layer, head, word]
            labels = run.source
            query_name = t(
                "attention.score.query_tr", word=run.source[word], layer=layer + 1, head=head + 1
            )
            if kind == "dot":
                st.latex(
                    r"e_j = q \cdot k_j,\quad "
                    r"\alpha_j = \frac{\exp(e_j/\tau)}{\sum_k \exp(e_k/\tau)}"
                )
            else:
                st.latex(
                    r"e_j = \frac{q \cdot k_j}{\sqrt{d}},\quad d = "
                    + str(qs.shape[-1])
                    + r",\quad \alpha_j = \frac{\exp(e_j/\tau)}{\sum_k \exp(e_k/\tau)}"
                )
        weights = A.softmax(sc, temp)
        c1, c2, c3 = st.columns(3)
        c1.metric(t("attention.score.entropy"), f"{A.entropy_bits(weights):.2f}")
        c2.metric(t("attention.score.max"), f"{weights.max():.2f}")
        c3.metric(t("attention.score.sum"), f"{weights.sum():.3f}")
        st.caption(t("attention.score.entropy_help", max=f"{math.log2(len(labels)):.2f}"))
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
        ui.chart(fig, key="attention_score_model")
        match = float(np.abs(A.softmax(sc) - used).max())
        if kind == "dot":
            st.caption(t("attention.score.caption_dot", gap=f"{match:.2f}"))
        else:
            st.caption(t("attention.score.caption_same", gap=f"{match:.1e}"))
        n_keys = len(labels)
        ui.params.set_params(q=" ".join(tokens))

    # --- 4c. Why divide by sqrt(d)? -------------------------------------------------------
    st.subheader(t("attention.score.sqrt.header"))
    score_sqrt(n_keys)


@st.fragment  # d reruns only its chart
def score_sqrt(n_keys: int) -> None:
    """Entropy against d for ``n_keys`` random keys, with and without the 1/sqrt(d)."""
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
def buys_part() -> None:
    """Every model on one sentence (a fragment: the sentence reruns only the table), then
    the shipped models' accuracy by length, which no control of the part changes."""
    buys_table()
    buys_lengths()
    st.info(t("attention.buys.takeaway"), icon=":material/lightbulb:")


@st.fragment  # the sentence reruns only the table: the curves below do not depend on it
def buys_table() -> None:
    tokens = sentence_picker(EXAMPLES[6])
    if tokens is not None:
        rows = []
        ref = REFERENCE.get(" ".join(tokens))
        for name in zoo.TRANSLATION_MODELS:
            try:
                text = translate_with(name, _sha(name), tokens)
            except zoo.ZooError:
                text = None
            uses = name in ("gru_attention", "cnn_s2s", "transformer")
            row = {
                t("attention.buys.col.model"): name,
                t("attention.buys.col.attention"): t(f"attention.buys.{'yes' if uses else 'no'}"),
                t("attention.buys.col.output"): t("attention.buys.missing")
                if text is None
                else text,
            }
            if ref:
                same = text == detokenize_zh(ref.split())
                row[t("attention.buys.col.exact")] = t(f"attention.buys.{'yes' if same else 'no'}")
            rows.append(row)
        st.table(rows)
        if ref:
            st.caption(t("attention.reference", text=detokenize_zh(ref.split())))
        ui.params.set_params(s=" ".join(tokens))


def buys_lengths() -> None:
    """Exact match by source length of the plain GRU, GRU + attention and Transformer (from
    the manifest written by the training runs)."""
    series = {}
    for name in ("gru_plain_256", "gru_attention", "transformer"):
        by_len = manifest.get("models", {}).get(name, {}).get("metrics", {}).get("by_length", {})
        if all(b in by_len for b in BUCKETS):
            series[name] = [float(by_len[b]["exact"]) for b in BUCKETS]
    if series:
        fig = F.bucket_lines(
            BUCKETS,
            series,
            title=t("attention.buys.title"),
            x_title=t("attention.buys.x"),
            y_title=t("attention.buys.y"),
            presenter=P,
        )
        ui.chart(fig, key="attention_buys_lengths")
        st.caption(t("attention.buys.caption"))
    else:
        st.caption(t("attention.buys.no_metrics"))


{
    "align": align_part,
    "pairs": pairs_part,
    "self": self_part,
    "score": score_part,
    "buys": buys_part,
}[part]()
