"""CNN receptive field (lesson 2.2): a convolution sees its neighbours; depth widens the view.

One part at a time (``?part=``), chosen with the selector at the top:

1. ``theory``: the formula: the window of one position at every layer over a real sentence,
   and the layer at which two distant words first share a window.
2. ``measured``: gradients of the trained ``cnn_s2s`` encoder, next to the formula.
3. ``probes``: the distance probes ``probe_cnnL``: accuracy collapses where the field ends.

The sentence (``sent``, ``text``) and the followed position (``pos``) are read by parts 1
and 2: each shows its own controls, bound to the same URL parameters, so a choice made in one
part holds in the other (the third part reads no sentence, so it shows none).
"""

import streamlit as st

import ui
from core import lexicon, zoo
from core.analysis import receptive_field as rf
from core.figures import base
from core.figures import cnn_receptive_field as figs
from core.figures.path_length import probe_chart
from ui import word_pair
from ui.models import get_model, get_vocabs, show_zoo_error
from ui.params import safe_value

SLUG = "cnn_receptive_field"
ui.begin_page(SLUG)
t = ui.t
P = f"{SLUG}."
present = ui.presenter()

PARTS = ("theory", "measured", "probes")
MAX_DEPTH = 16
KERNELS = (2, 3, 4, 5, 7)
CNN_PROBES = ("probe_cnn2", "probe_cnn4", "probe_cnn8")
SOLVED = 0.5  # a distance counts as solved at this accuracy (chance is 1 / N_KEYS)
EFFECTIVE_SHARE = 0.9  # the effective field: the fewest words that hold 90% of the gradient
STALE = ("a", "b", "pos", "mpos")  # word positions a new sentence makes meaningless


@st.cache_data(show_spinner=False, max_entries=128)  # keyed on the visitor's sentence
def measured_field(src_ids: tuple[int, ...], position: int):
    """(L, S) gradient norms of the shipped cnn_s2s encoder (cached by plain values)."""
    return rf.gradient_field(get_model("cnn_s2s"), src_ids, position)


def sentence_controls() -> tuple[str, str]:
    """The sentence in the link and its widgets (``sent``, ``text``): (kind, own text)."""
    lang = ui.current_lang()
    kind = ui.params.get_choice("sent", rf.SENTENCE_KINDS, default="zh" if lang == "zh" else "en")
    text = ui.params.get_text("text", "", max_len=word_pair.MAX_CHARS)
    kind, text = word_pair.sentence_controls(P, kind, text, key="cnn_rf", clear=STALE)
    ui.params.set_params(sent=kind)
    if kind == "own":
        ui.params.set_params(text=text)
    return kind, text


def kernel_in_link() -> tuple[int, bool]:
    """The kernel size and the dilation switch in the link: (k, dilated)."""
    return ui.params.get_choice("k", KERNELS, default=rf.DEFAULT_KERNEL), ui.params.get_bool(
        "dil", default=False
    )


def pair_and_position(
    tokens: tuple[str, ...], pair: tuple[int, int], kernel: int, dilated: bool
) -> tuple[int, int, int]:
    """The pair of words and the followed position in the link: (a, b, pos). By default the
    position is the node where the pair's two paths meet (the lesson's top window, C1)."""
    n = len(tokens)
    a = ui.params.get_int("a", 0, n - 1, default=pair[0])
    b = ui.params.get_int("b", 0, n - 1, default=pair[1])
    meet = rf.meeting_path(a, b, kernel, base=2 if dilated else 1)
    pos = ui.params.get_int("pos", 0, n - 1, default=meet[0][-1] if meet else (a + b) // 2)
    return a, b, pos


def position_select(tokens: tuple[str, ...], pos: int) -> int:
    """The followed position (URL ``pos``), shown by parts 1 and 2."""
    return st.selectbox(
        t(P + "position"),
        range(len(tokens)),
        format_func=word_pair.word_labeler(tokens),
        **ui.params.bound("pos", pos, key="cnn_rf_pos"),
    )


part = ui.part_selector(P, PARTS, key="cnn_rf_part")


# --- 1. the formula ------------------------------------------------------------------------
# Two fragments, nested: kernel and depth rerun only ``formula_section`` (the chart, its two
# knobs and the words under it); the sentence, the pair, the position and dilation (the
# folded controls) rerun ``window_section``, which draws the formula again.
@ui.fragment  # the folded controls rerun this part (and the formula)
def window_section() -> None:
    """The slide of part 1: the lead, the formula (inner fragment), the folded controls."""
    s = ui.slide(t(P + "theory.lead"))
    with s.more:
        kind, text = sentence_controls()
        tokens, pair, _problem = word_pair.sentence_tokens(P, kind, text)
    kernel, dilated = kernel_in_link()
    a, b, pos = pair_and_position(tokens, pair, kernel, dilated)
    with s.more:
        a, b = word_pair.pair_selects(P, tokens, a, b, key="cnn_rf")
        pos = position_select(tokens, pos)
        dilated = st.toggle(
            t(P + "dilation"),
            help=t(P + "dilation_help"),
            **ui.params.bound("dil", dilated, key="cnn_rf_dil"),
        )
    ui.params.set_params(a=a, b=b, pos=pos, dil=dilated)
    with s.chart:
        formula_section(tokens, a, b, pos, dilated)


@ui.fragment  # kernel and depth rerun only the chart, their controls and the words under it
def formula_section(tokens: tuple[str, ...], a: int, b: int, pos: int, dilated: bool) -> None:
    """The windows of ``tokens[pos]`` layer by layer, the pair ``(a, b)`` marked, with the
    formula's two knobs (kernel, depth) under the chart. The arguments come from
    ``window_section``; the knobs are read from the link on every run."""
    kernel = kernel_in_link()[0]
    depth = ui.params.get_int("depth", 1, MAX_DEPTH, default=rf.DEFAULT_DEPTH)
    v = ui.slide()
    with v.control:  # the formula's two knobs side by side, right under the chart
        c1, c2 = st.columns(2)
        with c1:
            depth = st.slider(
                t(P + "depth"), 1, MAX_DEPTH, **ui.params.bound("depth", depth, key="cnn_rf_depth")
            )
        with c2:
            kernel = st.select_slider(
                t(P + "kernel"), KERNELS, **ui.params.bound("k", kernel, key="cnn_rf_k")
            )
    ui.params.set_params(k=kernel, depth=depth)

    dilation = 2 if dilated else 1
    wins = rf.windows(pos, depth, kernel, len(tokens), base=dilation)
    shared = rf.first_shared_layer(a, b, kernel, base=dilation, max_layers=MAX_DEPTH)
    gap = abs(a - b)
    with v.chart:
        fig = figs.window_figure(
            tokens,
            wins,
            (a, b),
            title=t(P + "theory.title", word=tokens[pos], k=kernel, depth=depth),
            x_title=t(P + "theory.x"),
            y_title=t(P + "theory.y"),
            hover=t(P + "theory.hover"),
            pair_label=t(P + "theory.pair"),
            presenter=present,
            phone=ui.on_a_phone() and not present,  # presenter mode: ui.chart fits the projector
        )
        ui.chart(fig, key="cnn_rf_windows")
    with v.words:
        if shared is None:
            st.markdown(t(P + "theory.never", gap=gap, max=MAX_DEPTH))
        elif shared <= depth:
            st.markdown(t(P + "theory.shared_yes", layer=shared, gap=gap))
        else:
            st.markdown(t(P + "theory.shared_later", layer=shared, depth=depth, gap=gap))
        m1, m2, m3 = st.columns(3)
        m1.metric(
            t(P + "metric.field", depth=depth),
            t(P + "metric.words", n=rf.theoretical_field(depth, kernel, dilation)),
        )
        m2.metric(
            t(P + "metric.shared"),
            t(P + "metric.layer", layer=shared)
            if shared is not None
            else t(P + "metric.never", max=MAX_DEPTH),
        )
        m3.metric(t(P + "metric.gap"), t(P + "metric.words", n=gap))
        st.caption(t(P + "theory.caption"))


def theory_part() -> None:
    st.header(t(P + "theory.header"))  # headers outside the fragments: sent once per page run
    window_section()
    ui.takeaway(t(P + "theory.takeaway"))
    ui.try_this(t(P + "theory.try"))
    with ui.curious():
        st.markdown(t(P + "theory.curious", contiguous=rf.FORMULAS[1], dilated=rf.FORMULAS[2]))


# --- 2. the measurement --------------------------------------------------------------------
@ui.fragment  # the sentence reruns this part; the position only ``measured_view``
def measured_section() -> None:
    """The slide of part 2: the sentence measured by the shipped CNN encoder (folded), then
    its gradients (inner fragment)."""
    from core.translate import InputError, prepare  # imports torch: part 1 never needs it

    s = ui.slide(t(P + "measured.lead"))
    try:
        sv, _ = get_vocabs()
        model = get_model("cnn_s2s")
    except zoo.ZooError as err:
        show_zoo_error(err)
        return
    with s.more:
        kind, text = sentence_controls()
        tokens, pair, problem = word_pair.sentence_tokens(P, kind, text)

    en_tokens: tuple[str, ...] | None = None
    if kind == "en":
        en_tokens = tokens
    elif kind == "own" and problem != "empty":
        try:
            en_tokens = tuple(prepare(" ".join(tokens), sv))
        except InputError as err:
            with s.more:
                own_problem(err, " ".join(tokens))
    same = en_tokens is not None  # the sentence of part 1 itself
    if not same:
        en_tokens = rf.english_counterpart()
        with s.words:
            st.caption(t(P + "measured.counterpart", words=" ".join(en_tokens)))
    src_ids = tuple(sv.encode(list(en_tokens), eos=True))
    with s.chart:
        measured_view(tokens if same else None, pair, en_tokens, src_ids, model.cfg.kernel)


def own_problem(err, text: str) -> None:
    """Why an own sentence cannot be measured (Chinese, unknown words, too long)."""
    if rf.has_chinese(text):
        st.info(t(P + "measured.own_zh"), icon=":material/translate:")
    elif err.reason == "unknown":
        words = ", ".join(
            t(P + "measured.suggest", word=safe_value(o.word), options=" / ".join(o.suggestions))
            if o.suggestions
            else f"`{safe_value(o.word)}`"
            for o in err.unknown[:8]
        )
        st.info(t(P + "measured.own_unknown", words=words), icon=":material/spellcheck:")
    else:
        st.info(t(P + "measured.own_long"), icon=":material/spellcheck:")


@ui.fragment  # the measured position reruns only its picker, the two charts and the words
def measured_view(
    tokens: tuple[str, ...] | None,
    pair: tuple[int, int],
    en_tokens: tuple[str, ...],
    src_ids: tuple[int, ...],
    kernel: int,
) -> None:
    """The gradients at one position of ``en_tokens`` (ids ``src_ids``, EOS last) and the
    widths they fill. ``tokens``: part 1's sentence when it is the one measured (the position
    is then part 1's, URL ``pos``), else ``None`` (the English counterpart, URL ``mpos``);
    ``kernel``: the trained encoder's."""
    v = ui.slide()
    with v.control:  # the position: the part's one control, under the heatmap
        if tokens is not None:
            mpos = position_select(tokens, pair_and_position(tokens, pair, *kernel_in_link())[-1])
            ui.params.set_params(pos=mpos)
        else:
            mpos = ui.params.get_int(
                "mpos", 0, len(en_tokens) - 1, default=en_tokens.index(rf.ENGLISH_PAIR[1])
            )
            mpos = st.selectbox(
                t(P + "measured.position"),
                range(len(en_tokens)),
                format_func=word_pair.word_labeler(en_tokens),
                **ui.params.bound("mpos", mpos, key="cnn_rf_mpos"),
            )
            ui.params.set_params(mpos=mpos)
    labels = [*en_tokens, lexicon.EOS]
    raw = measured_field(src_ids, mpos)
    L = raw.shape[0]
    mwins = rf.windows(mpos, L, kernel, len(labels))[1:]
    theo, eff, inside = rf.field_widths(raw, mwins, EFFECTIVE_SHARE)
    encoder = ui.model_name("cnn_s2s")
    with v.chart:
        ui.chart(
            figs.gradient_heatmap(
                rf.normalise_rows(raw),
                labels,
                mwins,
                title=t(P + "measured.title", model=encoder, word=labels[mpos]),
                x_title=t(P + "measured.x"),
                y_title=t(P + "measured.y"),
                colorbar=t(P + "measured.colorbar"),
                window_label=t(P + "measured.window", k=kernel),
                presenter=present,
            ),
            key="cnn_rf_measured",
        )
    with v.words:
        verdict = "narrower" if eff[-1] < theo[-1] else "full"
        share = f"{EFFECTIVE_SHARE:.0%}"
        st.markdown(t(P + f"measured.{verdict}", eff=eff[-1], theo=theo[-1], layers=L, share=share))
        ui.chart(
            base.line_chart(
                list(range(1, L + 1)),
                {t(P + "widths.theory"): theo, t(P + "widths.effective"): eff},
                title=t(P + "widths.title", model=encoder),
                x_title=t(P + "measured.y"),
                y_title=t(P + "widths.y"),
                presenter=present,
            ),
            key="cnn_rf_widths",
        )
        st.caption(
            t(P + "measured.caption", model=encoder, layers=L, k=kernel, inside=f"{inside:.0%}")
        )


def measured_part() -> None:
    st.header(t(P + "measured.header"))
    measured_section()
    ui.takeaway(t(P + "measured.takeaway"))
    ui.try_this(t(P + "measured.try"))
    with ui.curious():
        st.markdown(t(P + "measured.curious", share=f"{EFFECTIVE_SHARE:.0%}"))


# --- 3. the probes -------------------------------------------------------------------------
def probes_part() -> None:
    # Imported here: both import torch, which part 1 (the formula) never needs.
    from core.analysis.distance_probes import probe_curves
    from core.probes_data import N_KEYS
    from ui.models import get_manifest

    st.header(t(P + "probes.header"))
    s = ui.slide(t(P + "probes.lead"))
    try:
        manifest = get_manifest()
    except zoo.ZooError as err:
        show_zoo_error(err)
        manifest = {"models": {}}
    curves = probe_curves(manifest, CNN_PROBES, lambda name, _cfg: ui.model_name(name))
    if curves.missing:
        with s.words:
            names = ", ".join(ui.model_name(m) for m in curves.missing)
            st.info(t(P + "probes.missing", models=names), icon=":material/hourglass:")
    if not (curves.series and curves.distances):
        return
    chance = 1 / N_KEYS
    shown = {ui.model_name(m): m for m in CNN_PROBES if ui.model_name(m) in curves.series}
    with s.chart:
        ui.chart(
            probe_chart(  # the one probe chart, shared with path length
                curves.distances,
                curves.series,
                fields=curves.fields,
                models=shown,
                chance=chance,
                title=t(P + "probes.title"),
                x_title=t(P + "probes.x"),
                y_title=t(P + "probes.y"),
                field_label=t(P + "probes.field"),
                chance_label=t(P + "probes.chance"),
                presenter=present,
            ),
            key="cnn_rf_probes",
        )
    items, early = [], []
    for label, accs in curves.series.items():
        if label not in curves.fields:
            continue
        reach = rf.probe_reach(curves.distances, accs, curves.fields[label], SOLVED)
        solved = reach.solved if reach.solved is not None else t(P + "probes.none")
        items.append(t(P + "probes.item", name=label, solved=solved, seen=reach.sees))
        if reach.fails_inside(curves.distances):
            early.append(label)
    with s.words:
        st.markdown(t(P + "probes.caption", chance=f"{chance:.0%}"))
        if early:
            st.markdown(t(P + "probes.early", names=", ".join(early)))
        st.caption(t(P + "probes.summary", summary=" · ".join(items)))
    ui.takeaway(t(P + "probes.takeaway"))
    ui.try_this(t(P + "probes.try"))
    with ui.curious():
        st.markdown(t(P + "probes.curious", chance=f"{chance:.0%}", solved=f"{SOLVED:.0%}"))


{
    "theory": theory_part,
    "measured": measured_part,
    "probes": probes_part,
}[part]()
