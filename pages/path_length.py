"""Path length (lesson 2.1, 2.4): how many steps the signal takes between two words.

One part at a time (``?part=``), chosen with the selector at the top:

1. ``table``: Table 1 of Vaswani et al. 2017, interactive: cost per layer, sequential steps
   and maximum path length of self-attention, recurrent and convolutional layers against n.
2. ``pair``: two words of a sentence: the path between them in each architecture, counted.
3. ``probes``: every distance probe on one chart (measured).
4. ``problems``: the three problems of the lesson side by side.

The kernel ``k`` is read by parts 1 and 2: each shows its own slider, bound to the same URL
parameter, so a value set in one part holds in the other.
"""

import numpy as np
import streamlit as st

import ui
from core import mdtable as md
from core import zoo
from core.analysis import path_length as pl
from core.analysis import receptive_field as rf
from core.figures import path_length as figs
from ui import word_pair

SLUG = "path_length"
ui.begin_page(SLUG)
t = ui.t
P = f"{SLUG}."
present = ui.presenter()

PARTS = ("table", "pair", "probes", "problems")
N_MAX, D_CHOICES, K_MAX = 2048, (16, 32, 64, 128, 256, 512, 1024), 9
PROBES = zoo.PROBE_MODELS  # every distance probe, in the lesson's order


@st.cache_data(show_spinner=False)
def table_curves(n_max: int, d: int, k: int) -> tuple[list[int], dict]:
    ns = sorted({int(x) for x in np.unique(np.geomspace(2, n_max, 160).round())})
    return ns, pl.curves(ns, d, k)


def arch_names() -> dict[str, str]:
    return {a: t(P + f"arch.{a}") for a in pl.ARCHITECTURES}


def kernel_slider(k: int) -> int:
    """The convolution kernel k (URL ``k``), shown by the table and by the pair part."""
    return st.slider(t(P + "k"), 2, K_MAX, **ui.params.bound("k", k, key="path_k"))


part = ui.part_selector(P, PARTS, key="path_part")


# --- 1. Table 1 ----------------------------------------------------------------------------
@st.fragment  # n, the metric, d and k rerun only this section
def table_section() -> None:
    """Table 1 for the n, d, k in the link, and its chart."""
    n = ui.params.get_int("n", 2, N_MAX, default=50)
    d = ui.params.get_choice("d", D_CHOICES, default=512)
    k = ui.params.get_int("k", 2, K_MAX, default=3)
    metric = ui.params.get_choice("metric", pl.METRICS, default="path")

    c1, c2 = st.columns(2)
    with c1:
        n = st.slider(t(P + "n"), 2, N_MAX, **ui.params.bound("n", n, key="path_n"))
    with c2:
        metric = st.segmented_control(
            t(P + "metric"),
            pl.METRICS,
            format_func=ui.labeler(P + "metric."),
            required=True,
            **ui.params.bound("metric", metric, key="path_metric"),
        )
    with ui.secondary():
        c1, c2 = st.columns(2)
        with c1:
            d = st.select_slider(t(P + "d"), D_CHOICES, **ui.params.bound("d", d, key="path_d"))
        with c2:
            k = kernel_slider(k)
    ui.params.set_params(n=n, d=d, k=k, metric=metric)

    names = arch_names()
    table = pl.costs(n, d, k)
    cols = ("complexity", "sequential", "path")
    rows = [
        [md.escape(names[arch])]
        + [md.escape(f"{pl.BIG_O[arch][m]} = {table[arch][m]:,}") for m in cols]
        for arch in pl.ARCHITECTURES
    ]
    # a Markdown table: no pandas on the server, no table bundle in the browser
    st.markdown(md.table([t(P + "col.layer"), *(t(P + f"col.{m}") for m in cols)], rows))
    st.caption(t(P + "table.caption", n=n, d=d, k=k))

    ns, curves = table_curves(max(64, min(N_MAX, 4 * n)), d, k)
    ui.chart(
        figs.table_chart(
            ns,
            {names[a]: curves[metric][a] for a in pl.ARCHITECTURES},
            current_n=n,
            current_label=t(P + "chart.current", n=n),
            title=t(P + f"chart.title.{metric}", d=d, k=k),
            x_title=t(P + "chart.x"),
            y_title=t(P + f"chart.y.{metric}"),
            log_y=metric == "complexity",
            presenter=present,
        ),
        key="path_table_chart",
    )
    if metric == "complexity":
        cheaper = t(P + "cheaper.yes") if n < d else t(P + "cheaper.no")
        st.caption(t(P + "chart.caption.complexity", d=d, n=n, cheaper=cheaper))
    else:
        st.caption(t(P + f"chart.caption.{metric}", k=k))


def table_part() -> None:
    st.header(t(P + "table.header"))  # headers outside the fragments: sent once per page run
    st.markdown(t(P + "table.intro"))
    table_section()


# --- 2. Two words, four paths --------------------------------------------------------------
@st.fragment  # the sentence, the two words and k rerun only this section
def pair_section() -> None:
    """The paths between two words of a sentence in each architecture."""
    lang = ui.current_lang()
    kind = ui.params.get_choice("sent", rf.SENTENCE_KINDS, default="zh" if lang == "zh" else "en")
    text = ui.params.get_text("text", "", max_len=word_pair.MAX_CHARS)
    k = ui.params.get_int("k", 2, K_MAX, default=3)
    with ui.secondary():
        kind, text = word_pair.sentence_controls(P, kind, text, key="path", clear=("a", "b"))
        k = kernel_slider(k)
    tokens, pair, problem = word_pair.sentence_tokens(P, kind, text)
    count = len(tokens)
    if count < 2:
        st.warning(t(P + "own_short"), icon=":material/edit_off:")
        tokens, pair, _ = word_pair.sentence("zh", "")
        count = len(tokens)
    a = ui.params.get_int("a", 0, count - 1, default=pair[0])
    b = ui.params.get_int("b", 0, count - 1, default=pair[1])
    a, b = word_pair.pair_selects(P, tokens, a, b, key="path")
    ui.params.set_params(sent=kind, a=a, b=b, k=k)
    if kind == "own":
        ui.params.set_params(text=text)

    if a == b:
        st.info(t(P + "same_word"), icon=":material/info:")
        return
    names = arch_names()
    steps = pl.pair_steps(a, b, k)
    paths = pl.pair_paths(a, b, k)
    cols = st.columns(len(pl.ARCHITECTURES))
    for col, arch in zip(cols, pl.ARCHITECTURES, strict=True):
        col.metric(t(P + "steps_label", arch=names[arch]), steps[arch])
    titles = {arch: t(P + f"panel.{arch}", steps=steps[arch], k=k) for arch in pl.ARCHITECTURES}
    ui.chart(
        figs.paths_figure(
            tokens,
            paths,
            titles,
            (a, b),
            title=t(P + "pair.title", first=tokens[min(a, b)], second=tokens[max(a, b)]),
            layer_title=t(P + "pair.y"),
            presenter=present,
        ),
        key="path_pair_chart",
    )
    st.caption(t(P + "pair.caption", gap=abs(a - b), k=k))


def pair_part() -> None:
    st.header(t(P + "pair.header"))
    pair_section()


# --- 3. The probes ---------------------------------------------------------------------------
def probe_label(name: str, cfg) -> str:
    kind_ = cfg.get("kind", name.removeprefix("probe_").rstrip("0123456789"))
    return t(P + f"probe.{kind_}", layers=cfg.get("layers", ""))


def probes_part() -> None:
    # Imported here: both import torch (~1.5 s on a cold server), which the other parts of
    # this page never need.
    from core.probes_data import N_KEYS
    from ui.probes import probe_section

    st.header(t(P + "probes.header"))
    probes = probe_section(P, PROBES, probe_label, key="path_probes_chart")
    if probes is not None:
        distances, series = probes.distances, probes.series
        far = distances[-1]
        ranked = sorted(series, key=lambda s: -series[s][-1])
        summary = " · ".join(
            t(P + "probes.item", name=s, acc=f"{series[s][-1]:.0%}") for s in ranked
        )
        st.caption(t(P + "probes.caption", far=far, summary=summary, chance=f"{1 / N_KEYS:.0%}"))


# --- 4. The three problems -------------------------------------------------------------------
def problems_part() -> None:
    st.header(t(P + "problems.header"))
    for key in ("alignment", "state", "distance"):
        st.markdown(f"- {t(P + f'problems.{key}')}")


{
    "table": table_part,
    "pair": pair_part,
    "probes": probes_part,
    "problems": problems_part,
}[part]()

# --- the takeaway, under every part ----------------------------------------------------------
st.success(t(P + "takeaway"), icon=":material/lightbulb:")
st.markdown(t(P + "try"))
