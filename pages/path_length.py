"""Path length (lesson 2.1, 2.4): how many steps the signal takes between two words.

One part at a time (``?part=``), chosen with the selector at the top; each part is a slide
(``ui.slide``): one sentence, the chart, its main control, then the words.

1. ``table``: Table 1 of Vaswani et al. 2017, interactive: cost per layer, sequential steps
   and maximum path length of self-attention, recurrent and convolutional layers against n.
2. ``pair``: two words of a sentence: the path between them in each architecture, counted.
3. ``probes``: every distance probe on one chart (measured), and what it does not show.
4. ``problems``: the lesson's three problems, each with its picture, and the remedies that
   lead to attention.

The kernel ``k`` is read by parts 1 and 2: each shows its own slider, bound to the same URL
parameter, so a value set in one part holds in the other.
"""

import numpy as np
import streamlit as st

import ui
from core import lexicon, zoo
from core import mdtable as md
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


@st.cache_data(show_spinner=False, max_entries=64)  # a closed set: d x k choices
def table_curves(n_max: int, d: int, k: int) -> tuple[list[int], dict]:
    ns = sorted({int(x) for x in np.unique(np.geomspace(2, n_max, 160).round())})
    return ns, pl.curves(ns, d, k)


def arch_names() -> dict[str, str]:
    return {a: t(P + f"arch.{a}") for a in pl.ARCHITECTURES}


def arch_looks() -> dict[str, object]:
    """Series name -> look: each layer type drawn like the probe that embodies it."""
    return {t(P + f"arch.{a}"): figs.arch_look(a) for a in pl.ARCHITECTURES}


def kernel_slider(k: int) -> int:
    """The convolution kernel k (URL ``k``), shown by the table and by the pair part."""
    return st.slider(t(P + "k"), 2, K_MAX, **ui.params.bound("k", k, key="path_k"))


def header(name: str) -> None:
    """The part's short header, on a laptop or phone; on the projector the part selector
    already names the part, and the slide needs the room for its chart."""
    if not present:
        st.header(t(P + f"{name}.header"))


def close_part(name: str) -> None:
    """The part's takeaway and what to try (one style on every page)."""
    ui.takeaway(t(P + f"{name}.takeaway"))
    ui.try_this(t(P + f"{name}.try"))


part = ui.part_selector(P, PARTS, key="path_part")


# --- 1. Table 1 ----------------------------------------------------------------------------
@ui.fragment  # n, the metric, d and k rerun only this section
def table_section() -> None:
    """Table 1 for the n, d, k in the link: the chart first, the table in the words."""
    n = ui.params.get_int("n", 2, N_MAX, default=50)
    d = ui.params.get_choice("d", D_CHOICES, default=512)
    k = ui.params.get_int("k", 2, K_MAX, default=3)
    metric = ui.params.get_choice("metric", pl.METRICS, default="path")

    s = ui.slide(t(P + "table.lead"))
    with s.control:
        c1, c2 = st.columns(2)
        with c1:
            metric = st.segmented_control(
                t(P + "metric"),
                pl.METRICS,
                format_func=ui.labeler(P + "metric."),
                required=True,
                **ui.params.bound("metric", metric, key="path_metric"),
            )
        with c2:
            n = st.slider(t(P + "n"), 2, N_MAX, **ui.params.bound("n", n, key="path_n"))
    with s.more:
        c1, c2 = st.columns(2)
        with c1:
            d = st.select_slider(t(P + "d"), D_CHOICES, **ui.params.bound("d", d, key="path_d"))
        with c2:
            k = kernel_slider(k)
    ui.params.set_params(n=n, d=d, k=k, metric=metric)

    names = arch_names()
    ns, curves = table_curves(max(64, min(N_MAX, 4 * n)), d, k)
    with s.chart:
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
                looks=arch_looks(),
                presenter=present,
            ),
            key="path_table_chart",
        )
    table = pl.costs(n, d, k)
    cols = ("complexity", "sequential", "path")
    rows = [
        [md.escape(names[arch])]
        + [md.escape(f"{pl.BIG_O[arch][m]} = {table[arch][m]:,}") for m in cols]
        for arch in pl.ARCHITECTURES
    ]
    with s.words:
        if metric == "complexity":
            cheaper = t(P + "cheaper.yes") if n < d else t(P + "cheaper.no")
            st.caption(t(P + "chart.caption.complexity", d=d, n=n, cheaper=cheaper))
        else:
            st.caption(t(P + f"chart.caption.{metric}", k=k))
        st.markdown(t(P + "table.intro"))
        # a Markdown table: no pandas on the server, no table bundle in the browser
        st.markdown(md.table([t(P + "col.layer"), *(t(P + f"col.{m}") for m in cols)], rows))
        st.caption(t(P + "table.caption", n=n, d=d, k=k))


def table_part() -> None:
    header("table")  # headers outside the fragments: sent once per page run
    table_section()
    close_part("table")


# --- 2. Two words, four paths --------------------------------------------------------------
@ui.fragment  # the sentence, the two words and k rerun only this section
def pair_section() -> None:
    """The paths between two words of a sentence in each architecture."""
    lang = ui.current_lang()
    kind = ui.params.get_choice("sent", rf.SENTENCE_KINDS, default="zh" if lang == "zh" else "en")
    text = ui.params.get_text("text", "", max_len=word_pair.MAX_CHARS)
    k = ui.params.get_int("k", 2, K_MAX, default=3)
    s = ui.slide(t(P + "pair.lead"))
    with s.more:
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
    with s.control:
        a, b = word_pair.pair_selects(P, tokens, a, b, key="path")
    ui.params.set_params(sent=kind, a=a, b=b, k=k)
    if kind == "own":
        ui.params.set_params(text=text)

    if a == b:
        with s.chart:
            st.info(t(P + "same_word"), icon=":material/info:")
        return
    names = arch_names()
    steps = pl.pair_steps(a, b, k)
    paths = pl.pair_paths(a, b, k)
    titles = {arch: t(P + f"panel.{arch}", steps=steps[arch], k=k) for arch in pl.ARCHITECTURES}
    with s.chart:
        ui.chart(
            figs.paths_figure(
                tokens,
                paths,
                titles,
                (a, b),
                title=t(P + "pair.title", first=tokens[min(a, b)], second=tokens[max(a, b)]),
                layer_title=t(P + "pair.y"),
                colors={arch: figs.arch_look(arch).color for arch in pl.ARCHITECTURES},
                presenter=present,
            ),
            key="path_pair_chart",
        )
    with s.words:
        cols = st.columns(len(pl.ARCHITECTURES))
        for col, arch in zip(cols, pl.ARCHITECTURES, strict=True):
            col.metric(t(P + "steps_label", arch=names[arch]), steps[arch])
        st.caption(t(P + "pair.caption", gap=abs(a - b), k=k))


def pair_part() -> None:
    header("pair")
    pair_section()
    close_part("pair")


# --- 3. The probes ---------------------------------------------------------------------------
def probe_label(name: str, _cfg) -> str:
    return ui.model_name(name)  # one name per probe, the same on every page


def probes_part() -> None:
    # Imported here: both import torch (~1.5 s on a cold server), which the other parts of
    # this page never need.
    from core.analysis import distance_probes as dp
    from core.probes_data import N_KEYS
    from ui.probes import probe_section

    header("probes")
    s = ui.slide(t(P + "probes.lead"))
    with s.chart:
        probes = probe_section(P, PROBES, probe_label, key="path_probes_chart")
    if probes is None:
        return
    distances, series = probes.distances, probes.series
    by_model = {m: dp.reach(distances, series[label]) for label, m in probes.models.items()}
    far = distances[-1]
    with s.words:
        ranked = sorted(series, key=lambda x: -series[x][-1])
        summary = " · ".join(
            t(P + "probes.item", name=x, acc=f"{series[x][-1]:.0%}") for x in ranked
        )
        st.caption(t(P + "probes.caption", far=far, summary=summary, chance=f"{1 / N_KEYS:.0%}"))
    gated = [m for m in ("probe_lstm", "probe_gru") if m in by_model]
    if gated and "probe_rnn" in by_model:
        low = min(by_model[m].lowest for m in gated)
        rnn = by_model["probe_rnn"]
        ui.mixed(
            t(
                P + "probes.mixed",
                gated=("、" if ui.current_lang() == "zh" else " / ").join(
                    ui.model_name(m) for m in gated
                ),
                low=f"{low:.0%}",
                far=far,
                rnn=ui.model_name("probe_rnn"),
                rnn_near=f"{rnn.near:.0%}",
                rnn_far=f"{rnn.far:.0%}",
            )
        )
        ui.page_link(
            "pages/bottleneck.py",
            label=t(P + "probes.link_bottleneck"),
            icon=":material/compress:",
            query_params={"part": "length"},
        )
        ui.page_link(
            "pages/path_length.py",
            label=t(P + "probes.link_serial"),
            icon=":material/timeline:",
            query_params={"part": "table", "metric": "sequential"},
        )
    ui.takeaway(t(P + "probes.takeaway"))
    ui.try_this(t(P + "probes.try"))
    with ui.curious():
        st.markdown(t(P + "probes.curious"))


# --- 4. The three problems -> the remedies ---------------------------------------------------
PROBLEMS = ("alignment", "state", "distance")
# where each problem is shown, and where its remedy is: (page, part) for each link
PROBLEM_LINKS = {
    "alignment": (("attention", "align"),),
    "state": (("bottleneck", "length"), ("attention", "align")),
    "distance": (("path_length", "pair"), ("attention", "self")),
}
DISTANCES = (1, 5, 10, 20, 30, 40, 50, 60)


def problem_panels() -> list[dict]:
    """The three small pictures: equal shares, accuracy by length, hops by distance."""
    from ui.models import get_manifest

    src = list(pl.ALIGN_SOURCE)
    panels = [
        dict(
            title=t(P + "problems.fig.alignment"),
            kind="bar",
            x=src,
            series={t(P + "problems.fig.share"): pl.equal_shares(len(src))},
            x_title=t(P + "problems.fig.alignment.x"),
            y_title=t(P + "problems.fig.alignment.y", target=pl.ALIGN_TARGET),
            y_range=[0, 1],
            y_format=".0%",
        )
    ]
    try:
        buckets, by_length = pl.length_evidence(get_manifest())
    except zoo.ZooError:
        buckets, by_length = [], {}
    if by_length:
        panels.append(
            dict(
                title=t(P + "problems.fig.state"),
                x=buckets,
                series={ui.model_name(m): v for m, v in by_length.items()},
                looks={ui.model_name(m): lexicon.look(m) for m in by_length},
                x_title=t(P + "problems.fig.state.x"),
                y_title=t(P + "problems.fig.state.y"),
                y_range=[0, 1.05],
                y_format=".0%",
            )
        )
    hops = pl.hops_by_distance(DISTANCES)
    names = arch_names()
    panels.append(
        dict(
            title=t(P + "problems.fig.distance"),
            x=list(DISTANCES),
            series={names[a]: v for a, v in hops.items()},
            looks={names[a]: figs.arch_look(a) for a in hops},
            x_title=t(P + "problems.fig.distance.x", k=pl.DISTANCE_K),
            y_title=t(P + "problems.fig.distance.y"),
        )
    )
    return panels


def problems_part() -> None:
    header("problems")
    s = ui.slide(t(P + "problems.lead"))
    with s.chart:
        ui.chart(
            figs.problems_figure(
                problem_panels(),
                title="",
                presenter=present,
                # a phone: one panel under the other (side by side each is too narrow);
                # in presenter mode ui.chart fits the projector, not the phone
                stacked=ui.on_a_phone() and not present,
            ),
            key="path_problems_chart",
        )
    with s.words:
        for col, key in zip(st.columns(len(PROBLEMS)), PROBLEMS, strict=True):
            with col:
                st.markdown(t(P + f"problems.{key}"))
                st.markdown(t(P + f"problems.{key}.remedy"))
                for slug, part_ in PROBLEM_LINKS[key]:
                    ui.page_link(
                        f"pages/{slug}.py",
                        label=t(P + f"problems.link.{slug}.{part_}"),
                        icon=":material/arrow_forward:",
                        query_params={"part": part_},
                    )
        st.markdown(t(P + "problems.remedies"))
    close_part("problems")


{
    "table": table_part,
    "pair": pair_part,
    "probes": probes_part,
    "problems": problems_part,
}[part]()
