"""The bottleneck (lesson 1.4–1.5, 2.3): a latent state carried from word to word, and a
plain encoder-decoder that passes the whole sentence through one fixed-length vector C, so
long sentences no longer fit.

One part of the lesson at a time (a segmented control whose value is in the URL); only the
chosen part computes. Each part is one slide (``ui.slide``): its chart first, its one main
control under it, secondary controls folded on the projector. The parts that read a
sentence (read, side, grad) draw the sentence box themselves, inside their own fragment: a
click in a part reruns that part only.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

import ui
from core import corpus, lexicon
from core.analysis import bottleneck as bn
from core.analysis import latent
from core.analysis.influence import verdict
from core.evaluate import score
from core.figures import bottleneck as figs
from ui import models
from ui.bottleneck_data import (
    ATTN,
    LATENT_WORDS,
    LM,
    OTHERS,
    PLAIN,
    PROBE_ARGS,
    PROBE_LEN,
    encoder_view,
    influence,
    latent_view,
    probe_curves,
    probe_job,
    reference_for,
    stretch_batch,
    translate_ids,
)
from ui.bottleneck_parts import (
    close_part,
    intro_more,
    kept_text,
    marked,
    new_batch,
    part_header,
    plain_picker,
    sentence_part,
)

PARTS = ("latent", "read", "side", "length", "stretch", "probe", "grad")
LEN_MIN, LEN_MAX, LEN_DEFAULT = 3, 60, bn.STRETCH_LEN
P = "bottleneck."

t = ui.t
ui.begin_page("bottleneck")
presenter = ui.presenter()
if not models.require(*PLAIN, ATTN):
    st.stop()
src_vocab = models.get_vocabs()[0]

# the claim says it; on a laptop or phone the intro is one click away, on the projector it
# comes after the part (the slide opens with the part's chart)
if not presenter:
    intro_more()


# --- 0. a latent state, carried forward (lesson 1.4) -------------------------------------------


def latent_part() -> None:
    part_header("latent")
    s = ui.slide(t(P + "latent.lead"))
    with s.chart:
        if not models.require(LM):
            return
    ids = tuple(src_vocab.encode(LATENT_WORDS))
    steps = latent_view(ids)
    read = lexicon.show_tokens(["<bos>", *LATENT_WORDS])
    guesses = lexicon.show_tokens(
        src_vocab.decode([i], strip_special=False)[0] for i in steps.top_ids
    )
    with s.chart:
        ui.chart(
            figs.latent_figure(
                steps.states,
                read,
                guesses,
                steps.top_probs,
                title=t(P + "latent.title", model=ui.model_name(LM)),
                x_title=t(P + "latent.x"),
                y_title=t(P + "latent.y", size=steps.states.shape[1]),
                bar_title=t(P + "latent.bar"),
                presenter=presenter,
            ),
            key="bn_latent",
        )
    with s.words:
        st.caption(t(P + "latent.caption", size=steps.states.shape[1]))
    close_part("latent")
    with ui.curious():
        hits = latent.hits(steps, ids)
        st.markdown(
            t(
                P + "latent.curious",
                hits=hits,
                n=len(ids) + 1,
                change=", ".join(f"{c:.1f}" for c in steps.change),
            )
        )


# --- 1. watch the encoder read ------------------------------------------------------------------


@ui.fragment  # the model switch and the sentence rerun only this part
def read_part() -> None:
    s, plain, tokens = sentence_part("read", main="plain")
    if tokens is None:
        return
    ids = tuple(src_vocab.encode(tokens, eos=True))
    words = lexicon.show_tokens([*tokens, "<eos>"])
    hidden, context = encoder_view(plain, ids)
    size = context.size  # the model's own C, not its name
    with s.chart:
        ui.chart(
            figs.states_heatmap(
                hidden,
                words,
                title=t(P + "read.title", model=ui.model_name(plain), n=len(tokens)),
                x_title=t(P + "read.x"),
                y_title=t(P + "read.y", size=size),
                context_label="C",
                # on the projector one heatmap, big: C is its framed last column
                context=None if presenter else context,
                strip_title=t(P + "read.strip_title", size=size, n=len(tokens)),
                strip_x_title=t(P + "read.strip_x"),
                presenter=presenter,
            ),
            key="bn_states",
        )
    with s.words:
        m1, m2, m3 = st.columns(3)
        m1.metric(t(P + "read.words"), len(tokens))
        m2.metric(t(P + "read.states"), f"{len(words)} × {hidden.shape[1]}")
        m3.metric(t(P + "read.c_size"), size)
        st.caption(t(P + "read.caption", size=size))
    close_part("read")


# --- 2. side by side ---------------------------------------------------------------------------


@ui.fragment  # the model switch and the sentence rerun only this part
def side_part() -> None:
    s, plain, tokens = sentence_part("side", main="sentence")
    if tokens is None:
        return
    ids = tuple(src_vocab.encode(tokens, eos=True))
    reference = reference_for(tokens)
    outs = {name: translate_ids(name, (ids,))[0] for name in (plain, ATTN)}
    with s.chart:
        left, right = st.columns(2)
        for col, name in zip((left, right), (plain, ATTN)):
            with col.container(border=True):
                role = "attn" if name == ATTN else "plain"
                st.markdown(f"**{t(f'{P}side.{role}')}** {ui.model_name(name)}")
                st.markdown(marked(outs[name], reference))
                note = "attn_note" if name == ATTN else "plain_note"
                size = models.get_model(name).cfg.hidden
                st.caption(t(f"{P}side.{note}", n=len(ids), size=size))
                if reference is not None:
                    wrong = sum(bn.error_marks(outs[name], reference))
                    sc = score([outs[name]], [reference])
                    edit = f"{sc['edit_acc']:.0%}"
                    st.caption(t(P + "side.score", wrong=wrong, n=len(outs[name]), edit=edit))
        if reference is not None:
            st.markdown(f"{t(P + 'side.reference')} {figs.chips(reference)}")
    with s.words:
        st.caption(t(P + ("side.caption" if reference is not None else "side.no_reference")))
    close_part("side")


# --- 3. accuracy against length (Bahdanau et al. 2015, Figure 2) -------------------------------


@ui.fragment  # the metric switch reruns only this part
def length_part() -> None:
    part_header("length")
    s = ui.slide(t(P + "length.lead"))
    manifest = models.get_manifest()
    metric = ui.params.get_choice("metric", bn.METRICS, default="exact")
    with s.control:
        metric = st.segmented_control(
            t(P + "length.metric"),
            bn.METRICS,
            format_func=ui.labeler(P + "metric."),
            required=True,
            **ui.params.bound("metric", metric, key="bn_metric"),
        )
    ui.params.set_params(metric=metric)
    names = (*PLAIN, ATTN, *OTHERS)
    curves = bn.length_curves(manifest, names, metric)
    if not curves:
        s.chart.warning(t(P + "length.missing"), icon=":material/hourglass_empty:")
        return
    with s.chart:
        ui.chart(
            figs.length_figure(
                corpus.BUCKETS,
                curves,
                focus=(*PLAIN, ATTN),
                names={n: ui.model_name(n) for n in names},
                title=t(P + "length.title", metric=t(f"{P}metric.{metric}")),
                x_title=t(P + "length.x"),
                y_title=t(f"{P}metric.{metric}"),
                presenter=presenter,
            ),
            key="bn_length",
        )
    counts = bn.bucket_counts(manifest, ATTN)
    with s.words:
        st.caption(t(P + "length.caption", n=sum(counts), per=min(counts) if counts else 0))
    close_part("length")
    with ui.curious():
        st.markdown(t(P + "length.curious"))


# --- 4. stretch it live ------------------------------------------------------------------------


@ui.fragment  # the length slider, the new-batch button and the model switch rerun this part
def stretch_part() -> None:
    part_header("stretch")
    s = ui.slide(t(P + "stretch.lead"))
    length = ui.params.get_int("len", LEN_MIN, LEN_MAX, LEN_DEFAULT)
    seed = ui.params.get_int("seed", 0, 999_999, 0)
    with s.control:
        length = st.slider(
            t(P + "stretch.length"),
            LEN_MIN,
            LEN_MAX,
            help=t(P + "stretch.length_help"),
            **ui.params.bound("len", length, key="bn_len"),
        )
    with s.more:
        plain = plain_picker()
        st.button(t(P + "stretch.new"), on_click=new_batch, icon=":material/casino:", key="bn_new")
    ui.params.set_params(len=length, seed=seed)
    batch = stretch_batch(length, seed)
    rows = tuple(tuple(src_vocab.encode(src, eos=True)) for src, _ in batch)
    refs = [tgt for _, tgt in batch]
    batch_out = {name: translate_ids(name, rows) for name in (plain, ATTN)}
    max_pos = max(len(r) for r in refs)
    curves = {n: bn.on_track(batch_out[n], refs, max_pos, bn.STRETCH_MIN_N) for n in (plain, ATTN)}
    with s.chart:
        ui.chart(
            figs.lines_by_position(
                np.arange(1, max_pos + 1),
                curves,
                names={n: ui.model_name(n) for n in curves},
                title=t(P + "stretch.title", n=len(refs), length=length),
                x_title=t(P + "stretch.x"),
                y_title=t(P + "stretch.y"),
                presenter=presenter,
            ),
            key="bn_stretch",
        )
    with s.words:
        cols = st.columns(2)
        for col, name in zip(cols, (plain, ATTN)):
            sc = score(batch_out[name], refs)
            col.metric(
                t(P + "stretch.exact", model=ui.model_name(name)),
                f"{round(sc['exact'] * len(refs))} / {len(refs)}",
                help=t(P + "stretch.edit", edit=f"{sc['edit_acc']:.0%}"),
            )
        st.caption(t(P + "stretch.caption", min_n=bn.STRETCH_MIN_N, n=len(refs)))
        if length > corpus.MAX_LEN:
            st.caption(t(P + "stretch.beyond", max=corpus.MAX_LEN))
    close_part("stretch")
    # drawn only while open (a closed expander reruns nothing): the slider stays light
    sentences = st.expander(
        t(P + "stretch.sentences"), icon=":material/list:", key="bn_sents", on_change="rerun"
    )
    with sentences:
        for i, (src, ref) in enumerate(batch if sentences.open else (), 1):  # one element each
            lines = [
                f"**{i}.** {figs.chip(' '.join(src))}",
                f"{t(P + 'side.reference')} {figs.chips(ref)}",
                *(
                    f"{ui.model_name(name)}: {marked(batch_out[name][i - 1], ref)}"
                    for name in (plain, ATTN)
                ),
            ]
            st.markdown("  \n".join(lines))


# --- 5. what C remembers: linear probes -------------------------------------------------------


def probe_part() -> None:
    part_header("probe")
    probe_job(*PROBE_ARGS)  # the probes start now, in their thread, while the lead is drawn
    s = ui.slide(t(P + "probe.lead"))
    with s.chart, st.spinner(t(P + "probe.spinner")):
        probes = probe_curves(*PROBE_ARGS)
    first = probes[PLAIN[0]]
    with s.chart:
        ui.chart(
            figs.lines_by_position(
                first.positions,
                {name: r.accuracy for name, r in probes.items()},
                names={n: ui.model_name(n) for n in probes},
                title=t(P + "probe.title"),
                x_title=t(P + "probe.x"),
                y_title=t(P + "probe.y"),
                presenter=presenter,
                baseline=first.chance,
                baseline_name=t(P + "probe.chance"),
            ),
            key="bn_probe",
        )
    with s.words:
        st.caption(t(P + "probe.caption", kept=kept_text(probes, (*PLAIN, ATTN))))
    close_part("probe")
    with ui.curious():
        st.markdown(t(P + "probe.intro"))
        st.markdown(
            t(P + "probe.curious", n_train=first.n_train, n_test=first.n_test, length=PROBE_LEN)
        )


# --- 6. how much each word still counts ----------------------------------------------------------


@ui.fragment  # the sentence, the model switch and the log toggle rerun only this part
def grad_part() -> None:
    s, plain, tokens = sentence_part("grad", main="sentence")
    with s.more:
        log_y = ui.params.get_bool("log", False)
        log_y = st.toggle(t(P + "grad.log"), **ui.params.bound("log", log_y, key="bn_log"))
    ui.params.set_params(log=log_y)
    if tokens is None:
        return
    ids = tuple(src_vocab.encode(tokens, eos=True))
    with s.chart, st.spinner(t(P + "grad.spinner")):
        norms = influence(plain, ids)
    with s.chart:
        ui.chart(
            figs.influence_bars(
                lexicon.show_tokens([*tokens, "<eos>"]),
                norms,
                title=t(P + "grad.title", model=ui.model_name(plain)),
                x_title=t(P + "grad.x"),
                y_title=t(P + "grad.y"),
                color=lexicon.look(plain).color,
                presenter=presenter,
                log_y=log_y,
            ),
            key="bn_grad",
        )
    ratio = bn.early_late_ratio(norms)
    with s.words:
        st.caption(t(P + "grad.caption_" + verdict(ratio), ratio=f"{ratio:.2g}"))
    close_part("grad")


# --- the chosen part ---------------------------------------------------------------------------

DRAW = {
    "latent": latent_part,
    "read": read_part,
    "side": side_part,
    "length": length_part,
    "stretch": stretch_part,
    "probe": probe_part,
    "grad": grad_part,
}


@ui.fragment
def lesson() -> None:
    """The part selector and the chosen part, rerun together by the part (a click reruns
    this fragment, not the app's frame). The parts' own controls, the sentence included,
    rerun only their part."""
    part = ui.part_selector(P, PARTS, key="bottleneck_part")
    DRAW[part]()


lesson()
if presenter:
    intro_more()
