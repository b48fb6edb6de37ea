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
from core import charts, zoo
from core.analysis import receptive_field as rf
from core.figures import cnn_receptive_field as figs
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


@st.cache_data(show_spinner=False)
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
    return ui.params.get_choice("k", KERNELS, default=3), ui.params.get_bool("dil", default=False)


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
# Two fragments, nested: the knobs of the formula (kernel, dilation, depth) rerun only
# ``formula_section`` (its three controls, the metrics, the chart and its text); the sentence,
# the pair and the followed position rerun ``window_section``, which draws the formula again.
@st.fragment  # the sentence, the pair and the position rerun this part (and the formula)
def window_section() -> None:
    """The words: the sentence, the pair and the followed position, then the formula."""
    more = ui.secondary()  # one fold for the sentence and the pair (presenter mode)
    with more:
        kind, text = sentence_controls()
    tokens, pair, _problem = word_pair.sentence_tokens(P, kind, text)
    # k and dil are the formula's controls (inner fragment, below): read from the link; they
    # only set the default position, the pair's meeting node, on a link without ``pos``
    a, b, pos = pair_and_position(tokens, pair, *kernel_in_link())
    with more:
        a, b = word_pair.pair_selects(P, tokens, a, b, key="cnn_rf")
    pos = position_select(tokens, pos)
    ui.params.set_params(a=a, b=b, pos=pos)
    formula_section(tokens, a, b, pos)


@st.fragment  # kernel, dilation and depth rerun only their controls, the metrics and the chart
def formula_section(tokens: tuple[str, ...], a: int, b: int, pos: int) -> None:
    """The formula's knobs and the windows of ``tokens[pos]`` layer by layer, the pair
    ``(a, b)`` marked. The arguments come from ``window_section`` (unchanged by a rerun of
    this fragment alone); the knobs are read from the link on every run."""
    kernel, dilated = kernel_in_link()
    depth = ui.params.get_int("depth", 1, MAX_DEPTH, default=8)
    # the two knobs of the formula side by side, visible in presenter mode too; dilation
    # (a variant of the formula) is the secondary control
    c1, c2 = st.columns(2)
    with c1:
        kernel = st.select_slider(
            t(P + "kernel"), KERNELS, **ui.params.bound("k", kernel, key="cnn_rf_k")
        )
    with c2:
        depth = st.slider(
            t(P + "depth"), 1, MAX_DEPTH, **ui.params.bound("depth", depth, key="cnn_rf_depth")
        )
    with ui.secondary():
        dilated = st.toggle(
            t(P + "dilation"),
            help=t(P + "dilation_help"),
            **ui.params.bound("dil", dilated, key="cnn_rf_dil"),
        )
    ui.params.set_params(k=kernel, dil=dilated, depth=depth)

    base = 2 if dilated else 1
    wins = rf.windows(pos, depth, kernel, len(tokens), base=base)
    shared = rf.first_shared_layer(a, b, kernel, base=base, max_layers=MAX_DEPTH)
    formula = rf.FORMULAS[base]
    field_now = rf.theoretical_field(depth, kernel, base)

    m1, m2, m3 = st.columns(3)
    m1.metric(t(P + "metric.field", depth=depth), t(P + "metric.words", n=field_now))
    m2.metric(
        t(P + "metric.shared"),
        t(P + "metric.layer", layer=shared)
        if shared is not None
        else t(P + "metric.never", max=MAX_DEPTH),
    )
    m3.metric(t(P + "metric.gap"), t(P + "metric.words", n=abs(a - b)))

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
    )
    ui.chart(fig, key="cnn_rf_windows")
    st.caption(t(P + "theory.caption", formula=formula, k=kernel, field=field_now, depth=depth))
    if shared is None:
        st.markdown(t(P + "theory.never", gap=abs(a - b), max=MAX_DEPTH))
    elif shared <= depth:
        st.markdown(t(P + "theory.shared_yes", layer=shared, gap=abs(a - b)))
    else:
        st.markdown(t(P + "theory.shared_later", layer=shared, depth=depth, gap=abs(a - b)))
    st.markdown(t(P + "theory.indirect"))


def theory_part() -> None:
    st.header(t(P + "theory.header"))  # headers outside the fragments: sent once per page run
    window_section()


# --- 2. the measurement --------------------------------------------------------------------
@st.fragment  # the sentence reruns this part; the position only ``measured_view``
def measured_section() -> None:
    """The sentence measured by the shipped ``cnn_s2s`` encoder, then its gradients."""
    from core.translate import InputError, prepare  # imports torch: part 1 never needs it

    try:
        sv, _ = get_vocabs()
        model = get_model("cnn_s2s")
    except zoo.ZooError as err:
        show_zoo_error(err)
        return
    with ui.secondary():
        kind, text = sentence_controls()
    tokens, pair, problem = word_pair.sentence_tokens(P, kind, text)

    en_tokens: tuple[str, ...] | None = None
    if kind == "en":
        en_tokens = tokens
    elif kind == "own" and problem != "empty":
        try:
            en_tokens = tuple(prepare(" ".join(tokens), sv))
        except InputError as err:
            if rf.has_chinese(" ".join(tokens)):
                st.info(t(P + "measured.own_zh"), icon=":material/translate:")
            elif err.reason == "unknown":
                words = ", ".join(
                    t(
                        P + "measured.suggest",
                        word=safe_value(o.word),
                        options=" / ".join(o.suggestions),
                    )
                    if o.suggestions
                    else f"`{safe_value(o.word)}`"
                    for o in err.unknown[:8]
                )
                st.info(t(P + "measured.own_unknown", words=words), icon=":material/spellcheck:")
            else:
                st.info(t(P + "measured.own_long"), icon=":material/spellcheck:")
    same = en_tokens is not None  # the sentence of part 1 itself
    if not same:
        en_tokens = rf.english_counterpart()
        st.caption(t(P + "measured.counterpart", words=" ".join(en_tokens)))
    src_ids = tuple(sv.encode(list(en_tokens), eos=True))
    measured_view(tokens if same else None, pair, en_tokens, src_ids, model.cfg.kernel)


@st.fragment  # the measured position reruns only its picker, the two charts and the caption
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
    if tokens is not None:
        # measure at the position part 1 follows
        mpos = position_select(tokens, pair_and_position(tokens, pair, *kernel_in_link())[-1])
        ui.params.set_params(pos=mpos)
    else:
        mpos = ui.params.get_int("mpos", 0, len(en_tokens) - 1, default=en_tokens.index("their"))
        mpos = st.selectbox(
            t(P + "measured.position"),
            range(len(en_tokens)),
            format_func=lambda i: f"{i + 1} · {en_tokens[i]}",
            **ui.params.bound("mpos", mpos, key="cnn_rf_mpos"),
        )
        ui.params.set_params(mpos=mpos)
    labels = [*en_tokens, "EOS"]
    raw = measured_field(src_ids, mpos)
    field = rf.normalise_rows(raw)
    L = raw.shape[0]
    mwins = rf.windows(mpos, L, kernel, len(labels))[1:]
    ui.chart(
        figs.gradient_heatmap(
            field,
            labels,
            mwins,
            title=t(P + "measured.title", word=labels[mpos]),
            x_title=t(P + "measured.x"),
            y_title=t(P + "measured.y"),
            colorbar=t(P + "measured.colorbar"),
            window_label=t(P + "measured.window", k=kernel),
            presenter=present,
        ),
        key="cnn_rf_measured",
    )
    theo = [hi - lo + 1 for lo, hi in mwins]
    eff = [rf.mass_width(row, EFFECTIVE_SHARE) for row in raw]
    inside = min(rf.share_inside(row, lo, hi) for row, (lo, hi) in zip(raw, mwins, strict=True))
    ui.chart(
        charts.line_chart(
            list(range(1, L + 1)),
            {t(P + "widths.theory"): theo, t(P + "widths.effective"): eff},
            title=t(P + "widths.title"),
            x_title=t(P + "measured.y"),
            y_title=t(P + "widths.y"),
            presenter=present,
        ),
        key="cnn_rf_widths",
    )
    st.caption(
        t(
            P + "measured.caption",
            layers=L,
            k=kernel,
            field=rf.theoretical_field(L, kernel),
            inside=f"{inside:.0%}",
            eff=eff[-1],
            theo=theo[-1],
        )
    )


def measured_part() -> None:
    st.header(t(P + "measured.header"))
    measured_section()


# --- 3. the probes -------------------------------------------------------------------------
def probe_label(_name: str, cfg) -> str | None:
    return t(P + "probes.series", layers=cfg["layers"]) if "layers" in cfg else None


def probes_part() -> None:
    # Imported here: both import torch, which part 1 (the formula) never needs.
    from core.probes_data import N_KEYS
    from ui.probes import probe_section

    st.header(t(P + "probes.header"))
    probes = probe_section(P, CNN_PROBES, probe_label, key="cnn_rf_probes")
    if probes is not None:
        distances, series, fields = probes.distances, probes.series, probes.fields
        items = []
        for label, accs in series.items():
            solved = [d for d, acc in zip(distances, accs, strict=True) if acc >= SOLVED]
            seen = fields[label] - 1 if label in fields else "?"
            best = max(solved) if solved else t(P + "probes.none")
            items.append(t(P + "probes.item", name=label, solved=best, seen=seen))
        st.caption(t(P + "probes.caption", chance=f"{1 / N_KEYS:.0%}", summary=" · ".join(items)))


{
    "theory": theory_part,
    "measured": measured_part,
    "probes": probes_part,
}[part]()

# --- takeaway, under every part ------------------------------------------------------------
st.header(t(P + "takeaway.header"))
st.success(t(P + "takeaway"), icon=":material/lightbulb:")
st.markdown(t(P + "try"))
