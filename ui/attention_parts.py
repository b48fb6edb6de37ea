"""The attention page's pieces: its repeated controls, its figures with their translated
titles, and the notes under them. The page (pages/attention.py) keeps the lesson's order
and each part's layout; these functions draw only where the page calls them, inside the
part's own fragment and containers."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

import ui
from core.analysis import attention as A
from core.figures import attention as F
from core.vocab import detokenize_zh
from ui import attention_data as D
from ui.attention_inputs import layer_head_picker, step_picker, word_picker
from ui.slide import Slide

t = ui.t  # reads the visitor's language on every call


def hover() -> dict[str, str]:
    """The heatmaps' hover labels, in the visitor's language."""
    return {k: t(f"attention.hover.{k}") for k in ("row", "col", "weight", "sum")}


def numbered(tokens) -> list[str]:
    return [f"{i + 1} {tok}" for i, tok in enumerate(tokens)]


def model_note(name: str, run: A.AttentionRun) -> None:
    """What the model wrote."""
    st.markdown(t("attention.output", model=ui.model_name(name), text=detokenize_zh(run.words)))


def reference_note(tokens: tuple[str, ...]) -> None:
    """The corpus's own translation, when the sentence is one of the examples."""
    ref = dict(A.EXAMPLES).get(" ".join(tokens))
    if ref:
        st.caption(t("attention.reference", text=detokenize_zh(ref.split())))


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


def view_picker(
    name: str, run: A.AttentionRun, place: DeltaGenerator | Slide
) -> tuple[int, int | None]:
    """The decoder attention to show: layer and head of the transformer, picked in
    ``place`` (a slide's secondary controls, made only then); the GRU has one attention,
    (0, None)."""
    if name != "transformer":
        return 0, None
    with place.more if isinstance(place, Slide) else place:
        return layer_head_picker(run)


def choice(param: str, options: tuple[str, ...], default: str, label: str, prefix: str) -> str:
    """A row of buttons tied to the URL parameter ``param`` (session key attention_<param>)."""
    value = ui.params.get_choice(param, options, default=default)
    value = st.segmented_control(
        label,
        options,
        format_func=ui.labeler(prefix),
        required=True,
        **ui.params.bound(param, value, key=f"attention_{param}"),
    )
    ui.params.set_params(**{param: value})
    return value


# --- 1. Alignment ------------------------------------------------------------------------


def values_toggle() -> bool:
    return st.toggle(
        t("attention.values"),
        **ui.params.bound("values", ui.params.get_bool("values", False), key="attention_v"),
    )


def alignment_figure(name: str, run: A.AttentionRun, weights: np.ndarray, step: int, values: bool):
    """The heatmap of every step's weights with ``step``'s row framed and drawn as bars."""
    return F.alignment_figure(
        weights,
        run.source,
        numbered(run.output),
        step=step,
        title=t("attention.align.title", model=ui.model_name(name)),
        x_title=t("attention.align.x"),
        y_title=t("attention.align.y"),
        row_title=t("attention.row.title", step=step + 1, token=run.output[step]),
        row_y_title=t("attention.hover.weight"),
        hover=hover(),
        presenter=ui.presenter(),
        show_values=values,
    )


def row_caption(run: A.AttentionRun, weights: np.ndarray, entropy: np.ndarray, step: int) -> str:
    row = weights[step]
    top = int(np.argmax(row))
    return t(
        "attention.row.caption",
        token=run.output[step],
        top=run.source[top],
        w=f"{row[top]:.2f}",
        total=f"{row.sum():.2f}",
        h=f"{entropy[step]:.2f}",
    )


def focus_figure(run: A.AttentionRun, entropy: np.ndarray):
    """The entropy of every step's weights (bits), under the ceiling log2(S)."""
    return F.weight_bars(
        numbered(run.output),
        entropy,
        title=t("attention.focus.title"),
        x_title=t("attention.align.y"),
        y_title=t("attention.focus.y"),
        presenter=ui.presenter(),
        highlight=False,
        ceiling=math.log2(len(run.source)),
    )


# --- 2. Minimal pairs --------------------------------------------------------------------


def decoder_rows(
    name: str, runs, layer: int, head: int | None, cols
) -> tuple[list[F.BarPanel], list[np.ndarray | None]]:
    """For A and B (``runs``: (english, corpus pair, run) each, drawn in ``cols``): the
    sentence, the model's output and the row of the step that writes the deciding word.
    Returns the figure's panels and the rows (``None`` where the word was not written)."""
    panels, rows = [], []
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
    return panels, rows


def difference_panel(a: A.AttentionRun, b: A.AttentionRun, rows) -> F.BarPanel:
    """A's row minus B's, position under position (the words that differ as "x/y")."""
    return F.BarPanel(
        [x if x == y else f"{x}/{y}" for x, y in zip(a.source, b.source)],
        rows[0] - rows[1],
        title=t("attention.pairs.diff.title"),
        y_title=t("attention.pairs.diff.y"),
        x_title=t("attention.pairs.diff.x"),
        signed=True,
    )


def encoder_panels(sentences, runs, layer: int) -> list[F.BarPanel]:
    """The self-attention row of the ambiguous word (``sentences``: (english, word) each)
    in encoder ``layer`` (1-based, mean of heads), in A and in B."""
    panels = []
    for (_, word), run, tag in zip(sentences, runs, "AB"):
        i = run.source.index(word)
        row = run.enc_self[layer - 1].mean(0)[i]
        panels.append(
            F.BarPanel(
                run.source,
                row,
                title=t("attention.pairs.enc.title", tag=tag, word=word),
                y_title=t("attention.hover.weight"),
                x_title=t("attention.self.x"),
                highlight=int(np.argmax(np.where(np.arange(row.size) == i, -1, row))),
            )
        )
    return panels


# --- 3. Self-attention -------------------------------------------------------------------


def self_heatmap(run: A.AttentionRun, weights: np.ndarray, word: int, title_where: str):
    return F.attention_heatmap(
        weights,
        run.source,
        run.source,
        title=t("attention.self.title", where=title_where),
        x_title=t("attention.self.x"),
        y_title=t("attention.self.y"),
        hover=hover(),
        presenter=ui.presenter(),
        highlight_row=word,
    )


def self_caption(run: A.AttentionRun, weights: np.ndarray, word: int) -> str:
    """The three words ``word`` reads most, with their weights."""
    row = weights[word]
    order = np.argsort(-row)[:3]
    top = ", ".join(f"`{run.source[j]}` {row[j]:.2f}" for j in order)
    return t("attention.self.caption", word=run.source[word], top=top)


def self_lines(run: A.AttentionRun, weights: np.ndarray, word: int):
    return F.attention_lines(
        weights,
        run.source,
        title=t("attention.self.lines", word=run.source[word]),
        presenter=ui.presenter(),
        selected=word,
        left_title=t("attention.self.y"),
        right_title=t("attention.self.x"),
    )


def it_numbers(found: A.ItChoice) -> dict[str, str]:
    """What the search for the clearest "it" view found, as the texts' arguments."""
    return dict(
        view=where("transformer", found.shown.layer, found.shown.head, side="enc"),
        cat=f"{found.shown.a_right:.2f}",
        milk=f"{found.shown.b_right:.2f}",
        sep=f"{found.best.separation:+.2f}",
        min=f"{A.SEPARATION_MIN:.2f}",
    )


# --- 4. How a score becomes a weight -----------------------------------------------------


def temperature() -> float:
    """The softmax temperature τ, tied to the URL parameter ``temp``."""
    temp = ui.params.get_float("temp", 0.1, 5.0, default=1.0)
    temp = st.slider(
        t("attention.score.temp"),
        0.1,
        5.0,
        step=0.1,
        help=t("attention.score.temp_help"),
        **ui.params.bound("temp", temp, key="attention_temp"),
    )
    ui.params.set_params(temp=temp)
    return temp


@dataclass(frozen=True)
class ModelScores:
    """One query's scores inside a trained model, and the weights the model used."""

    scores: np.ndarray  # (S,)
    used: np.ndarray  # (S,) the model's own attention row
    query: str  # the query, in words
    formula: str  # LaTeX


def model_scores(kind: str, run: A.AttentionRun, tokens: tuple[str, ...]) -> ModelScores:
    """Pick the query (a decoding step for additive scores, else a layer, head and word of
    the transformer's encoder) and compute its scores of ``kind`` over the source."""
    if kind == "additive":
        step = step_picker(run, t("attention.score.step"))
        return ModelScores(
            D.energies(tokens, run.out_ids, step),
            run.cross[0, 0, step],
            t("attention.score.query_gru", step=step + 1, token=run.output[step]),
            F.model_score_latex(kind),
        )
    layer, head = layer_head_picker(run, allow_avg=False)
    word = word_picker(run, tokens, t("attention.score.query"))
    qs, ks = D.query_keys(tokens, layer)
    head = 0 if head is None else head
    return ModelScores(
        A.scores(qs[head, word], ks[head], kind),
        run.enc_self[layer, head, word],
        t("attention.score.query_tr", word=run.source[word], layer=layer + 1, head=head + 1),
        F.model_score_latex(kind, qs.shape[-1]),
    )


def score_numbers(kind: str, ms: ModelScores, weights: np.ndarray) -> None:
    """Entropy, largest weight and sum; for the curious the formula and how close the
    softmax of the scores comes to the model's own row."""
    c1, c2, c3 = st.columns(3)
    c1.metric(t("attention.score.entropy"), f"{A.entropy_bits(weights):.2f}")
    c2.metric(t("attention.score.max"), f"{weights.max():.2f}")
    c3.metric(t("attention.score.sum"), f"{weights.sum():.3f}")
    st.caption(t("attention.score.entropy_help", max=f"{math.log2(len(weights)):.2f}"))
    match = float(np.abs(A.softmax(ms.scores) - ms.used).max())
    with ui.curious():
        st.latex(ms.formula)
        gap_key = "caption_dot" if kind == "dot" else "caption_same"
        fmt = f"{match:.2f}" if kind == "dot" else f"{match:.1e}"
        st.caption(t(f"attention.score.{gap_key}", gap=fmt))


def score_figure(labels, ms: ModelScores, weights: np.ndarray, temp: float):
    """The scores on top, their softmax under them: each key's weight under its score."""
    return F.bar_panels(
        [
            F.BarPanel(labels, ms.scores, title="", y_title=t("attention.score.scores_y")),
            F.BarPanel(
                labels,
                weights,
                title=t("attention.score.weights_title", temp=f"{temp:g}"),
                y_title=t("attention.hover.weight"),
                x_title=t("attention.score.keys"),
                reference=ms.used,
                reference_name=t("attention.score.used"),
                bars_name=t("attention.score.softmax"),
            ),
        ],
        title=t("attention.score.scores_title", query=ms.query),
        presenter=ui.presenter(),
        share_x=True,
    )


def saturation_figure(curves: dict[str, np.ndarray], n_keys: int, d_now: int):
    return F.saturation_figure(
        D.DIMS,
        {
            t("attention.score.sqrt.dot"): curves["ent_dot"],
            t("attention.score.sqrt.scaled"): curves["ent_scaled"],
        },
        title=t("attention.score.sqrt.title", n=n_keys),
        x_title=t("attention.score.d"),
        y_title=t("attention.focus.y"),
        presenter=ui.presenter(),
        marker_d=d_now,
        ceiling=math.log2(n_keys),
        ceiling_label=t("attention.score.sqrt.even"),
    )


def saturation_caption(curves: dict[str, np.ndarray], n_keys: int, d_now: int) -> str:
    i = D.DIMS.index(d_now)
    return t(
        "attention.score.sqrt.caption",
        d=d_now,
        n=n_keys,
        max_dot=f"{curves['max_dot'][i]:.2f}",
        max_scaled=f"{curves['max_scaled'][i]:.2f}",
        std=f"{math.sqrt(d_now):.1f}",
    )


# --- 5. What attention buys --------------------------------------------------------------

ATTENTION_MODELS = ("gru_attention", "cnn_s2s", "transformer")  # the ones that attend


def lengths_figure(buckets, series: dict[str, list[float]]):
    return F.bucket_lines(
        buckets,
        series,
        title=t("attention.buys.title"),
        x_title=t("attention.buys.x"),
        y_title=t("attention.buys.y"),
        presenter=ui.presenter(),
        names={m: ui.model_name(m) for m in series},
    )


def models_rows(names, tokens: tuple[str, ...]) -> list[dict[str, str]]:
    """One row per model: its name, whether it attends, its output (and whether that is
    exactly the corpus's translation, when the sentence is an example)."""
    yes_no = {True: t("attention.buys.yes"), False: t("attention.buys.no")}
    ref = dict(A.EXAMPLES).get(" ".join(tokens))
    rows = []
    for name in names:
        text = D.translate_with(name, tokens)
        row = {
            t("attention.buys.col.model"): ui.model_name(name),
            t("attention.buys.col.attention"): yes_no[name in ATTENTION_MODELS],
            t("attention.buys.col.output"): t("attention.buys.missing") if text is None else text,
        }
        if ref:
            row[t("attention.buys.col.exact")] = yes_no[text == detokenize_zh(ref.split())]
        rows.append(row)
    return rows
