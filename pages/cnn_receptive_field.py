"""CNN receptive field (lesson 2.2): a convolution sees its neighbours; depth widens the view.

1. The formula: the window of one position at every layer over a real sentence, and the
   layer at which two distant words first share a window.
2. The measurement: gradients of the trained ``cnn_s2s`` encoder, next to the formula.
3. The distance probes ``probe_cnnL``: accuracy collapses where the receptive field ends.
"""

import streamlit as st

import ui
from core import charts, zoo
from core.analysis import receptive_field as rf
from core.figures import cnn_receptive_field as figs
from core.probes_data import N_KEYS
from core.translate import InputError, prepare
from ui import word_pair
from ui.models import get_model, get_vocabs, show_zoo_error
from ui.params import safe_value
from ui.probes import probe_section

SLUG = "cnn_receptive_field"
ui.begin_page(SLUG)
t = ui.t
P = f"{SLUG}."
present = ui.presenter()

MAX_DEPTH = 16
KERNELS = (2, 3, 4, 5, 7)
CNN_PROBES = ("probe_cnn2", "probe_cnn4", "probe_cnn8")
SOLVED = 0.5  # a distance counts as solved at this accuracy (chance is 1 / N_KEYS)
EFFECTIVE_SHARE = 0.9  # the effective field: the fewest words that hold 90% of the gradient


@st.cache_data(show_spinner=False)
def measured_field(src_ids: tuple[int, ...], position: int):
    """(L, S) gradient norms of the shipped cnn_s2s encoder (cached by plain values)."""
    return rf.gradient_field(get_model("cnn_s2s"), src_ids, position)


FULL = "cnn_rf_full"  # set by a control whose value the measured section reads too


def _full_rerun_on_change(name: str, key: str) -> None:
    """Write a widget to the URL and ask the fragment below for a full rerun."""
    st.query_params[name] = str(st.session_state[key])
    st.session_state[FULL] = True


# --- controls and 1. the formula -----------------------------------------------------------
@st.fragment  # kernel, dilation, depth and the pair rerun only this part
def window_section() -> tuple[str, tuple[str, ...], str, int]:
    """The controls and the formula's windows. The sentence and the position are read by
    the measured section too: changing them reruns the page. Returns (sentence kind,
    tokens, problem code, position) on a full run."""
    if st.session_state.pop(FULL, False):
        st.rerun()
    lang = ui.current_lang()
    kind = ui.params.get_choice("sent", rf.SENTENCE_KINDS, default="zh" if lang == "zh" else "en")
    text = ui.params.get_text("text", "", max_len=word_pair.MAX_CHARS)
    depth = ui.params.get_int("depth", 1, MAX_DEPTH, default=8)
    kernel = ui.params.get_choice("k", KERNELS, default=3)
    dilated = ui.params.get_bool("dil", default=False)

    with ui.secondary():
        kind, text = word_pair.sentence_controls(
            P, kind, text, key="cnn_rf", clear=("a", "b", "pos", "mpos"), flag=FULL
        )
        c1, c2 = st.columns(2)
        with c1:
            kernel = st.select_slider(
                t(P + "kernel"), KERNELS, **ui.params.bound("k", kernel, key="cnn_rf_k")
            )
        with c2:
            dilated = st.toggle(
                t(P + "dilation"),
                help=t(P + "dilation_help"),
                **ui.params.bound("dil", dilated, key="cnn_rf_dil"),
            )

    tokens, pair, problem = word_pair.sentence_tokens(P, kind, text)
    n = len(tokens)
    word_label = word_pair.word_labeler(tokens)
    a = ui.params.get_int("a", 0, n - 1, default=pair[0])
    b = ui.params.get_int("b", 0, n - 1, default=pair[1])
    # By default follow the node where the pair's two paths meet (the lesson's top window, C1).
    meet = rf.meeting_path(a, b, kernel, base=2 if dilated else 1)
    pos = ui.params.get_int("pos", 0, n - 1, default=meet[0][-1] if meet else (a + b) // 2)

    col_depth, col_pos = st.columns(2)
    with col_depth:
        depth = st.slider(
            t(P + "depth"), 1, MAX_DEPTH, **ui.params.bound("depth", depth, key="cnn_rf_depth")
        )
    with col_pos:
        kw = ui.params.bound("pos", pos, key="cnn_rf_pos")
        kw.update(on_change=_full_rerun_on_change, args=("pos", "cnn_rf_pos"))
        pos = st.selectbox(t(P + "position"), range(n), format_func=word_label, **kw)
    with ui.secondary():
        a, b = word_pair.pair_selects(P, tokens, a, b, key="cnn_rf")
    ui.params.set_params(sent=kind, depth=depth, k=kernel, dil=dilated, a=a, b=b, pos=pos)
    if kind == "own":
        ui.params.set_params(text=text)

    st.header(t(P + "theory.header"))
    base = 2 if dilated else 1
    wins = rf.windows(pos, depth, kernel, n, base=base)
    shared = rf.first_shared_layer(a, b, kernel, base=base, max_layers=MAX_DEPTH)
    formula = rf.FORMULAS[base]
    field_now = rf.theoretical_field(depth, kernel, base)

    m1, m2, m3 = st.columns(3)
    m1.metric(t(P + "metric.field", depth=depth), t(P + "metric.words", n=field_now))
    m2.metric(
        t(P + "metric.shared"),
        t(P + "metric.layer", layer=shared) if shared is not None else t(P + "metric.never"),
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
    return kind, tokens, problem, pos


# --- 2. the measurement --------------------------------------------------------------------
@st.fragment  # the measured position of a translated sentence reruns only this part
def measured_section(kind: str, tokens: tuple[str, ...], problem: str, pos: int) -> None:
    """Gradients of the shipped ``cnn_s2s`` encoder at one position, next to the formula."""
    st.header(t(P + "measured.header"))
    try:
        sv, _ = get_vocabs()
        model = get_model("cnn_s2s")
    except zoo.ZooError as err:
        show_zoo_error(err)
        return

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
    same = en_tokens is not None
    if not same:
        en_tokens = rf.english_counterpart()
        st.caption(t(P + "measured.counterpart", words=" ".join(en_tokens)))
    labels = [*en_tokens, "EOS"]
    if same:
        mpos = pos
    else:
        mpos = ui.params.get_int("mpos", 0, len(en_tokens) - 1, default=en_tokens.index("their"))
        mpos = st.selectbox(
            t(P + "measured.position"),
            range(len(en_tokens)),
            format_func=lambda i: f"{i + 1} · {en_tokens[i]}",
            **ui.params.bound("mpos", mpos, key="cnn_rf_mpos"),
        )
        ui.params.set_params(mpos=mpos)
    src_ids = tuple(sv.encode(list(en_tokens), eos=True))
    raw = measured_field(src_ids, mpos)
    field = rf.normalise_rows(raw)
    cfg = model.cfg
    L = raw.shape[0]
    mwins = rf.windows(mpos, L, cfg.kernel, len(labels))[1:]
    ui.chart(
        figs.gradient_heatmap(
            field,
            labels,
            mwins,
            title=t(P + "measured.title", word=labels[mpos]),
            x_title=t(P + "measured.x"),
            y_title=t(P + "measured.y"),
            colorbar=t(P + "measured.colorbar"),
            window_label=t(P + "measured.window", k=cfg.kernel),
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
            k=cfg.kernel,
            field=rf.theoretical_field(L, cfg.kernel),
            inside=f"{inside:.0%}",
            eff=eff[-1],
            theo=theo[-1],
        )
    )


measured_section(*window_section())

# --- 3. the probes -------------------------------------------------------------------------
st.header(t(P + "probes.header"))


def probe_label(_name: str, cfg) -> str | None:
    return t(P + "probes.series", layers=cfg["layers"]) if "layers" in cfg else None


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

# --- takeaway ------------------------------------------------------------------------------
st.header(t(P + "takeaway.header"))
st.success(t(P + "takeaway"), icon=":material/lightbulb:")
st.markdown(t(P + "try"))
