"""Part ``priors``: an MLP reads a fixed window with one weight per (position, unit); CNN, RNN
and attention add assumptions (priors) that share weights. Weights of one layer against the
context length, from the formulas (checked against PyTorch's modules in the fold)."""

from __future__ import annotations

import streamlit as st

import ui
from charts import compression as figures
from charts.common import Titles
from core import mdtable as md
from core.analysis import compression as analysis
from lessons.compression import data

CTX_MAX, DEFAULT_CTX = 512, 64  # context length n
D_CHOICES = (32, 64, 128, 256, 512, 1024)
K_MAX = 9
# where each prior is shown at work: (page, part)
LINKS = {
    "cnn": ("cnn_receptive_field", "theory"),
    "rnn": ("rnn_gradients", "fresh"),
    "attention": ("attention", "self"),
}
t = ui.t


def arch_names() -> dict[str, str]:
    return {a: t(f"compression.arch.{a}") for a in analysis.ARCHITECTURES}


def show() -> None:
    section()  # its takeaway, try-this and fold too: the fold shows this n, d, k


@ui.fragment  # n, d and k rerun only this part
def section() -> None:
    s = ui.slide(t("compression.priors.lead"))
    n = ui.params.get_int("ctx", 1, CTX_MAX, DEFAULT_CTX)
    d = ui.params.get_choice("d", D_CHOICES, 256)
    k = ui.params.get_int("k", 2, K_MAX, 3)
    with s.control:
        n = st.slider(
            t("compression.priors.n"), 1, CTX_MAX, **ui.params.bound("ctx", n, key="cmp_ctx")
        )
    with s.more:
        c1, c2 = st.columns(2)
        d = c1.select_slider(
            t("compression.priors.d"), D_CHOICES, **ui.params.bound("d", d, key="cmp_d")
        )
        k = c2.slider(t("compression.priors.k"), 2, K_MAX, **ui.params.bound("k", k, key="cmp_k"))
    names = arch_names()
    ns = sorted({1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, n})
    with s.chart:
        ui.chart(
            figures.weights_chart(
                ns,
                analysis.curves(ns, d, k=k),
                names,
                current_n=n,
                current_label=t("compression.priors.current", n=n),
                titles=Titles(
                    t("compression.priors.title", d=d, k=k),
                    t("compression.priors.x"),
                    t("compression.priors.y"),
                ),
                presenter=ui.presenter(),
            ),
            key="cmp_weights",
        )
    with s.words:
        layers_table(names, n, d, k)
        for arch, (page, to) in LINKS.items():  # one per line: whole labels on a phone too
            ui.page_link(
                f"pages/{page}.py",
                label=t(f"compression.priors.link.{arch}"),
                icon=":material/arrow_forward:",
                query_params={"part": to},
            )
        checked = data.checked(n, d, k)
    ui.takeaway(t("compression.priors.takeaway"))
    ui.try_this(t("compression.priors.try"))
    with ui.curious():
        check_table(names, checked, n, d, k)


def layers_table(names: dict[str, str], n: int, d: int, k: int) -> None:
    """How much bigger (or smaller) the MLP is, and each layer's assumption, weights, reach."""
    factor = analysis.mlp_factor(n, d, k=k)
    key = "compression.priors.caption.more" if factor > 1 else "compression.priors.caption.less"
    shown = f"{factor:.1f}" if factor > 1 else f"{1 / factor:.1f}"
    st.caption(t(key, n=n, d=d, factor=shown))
    header = [t(f"compression.priors.col.{c}") for c in ("layer", "assumes", "weights", "reach")]
    rows = [
        [
            md.escape(names[a]),
            md.escape(t(f"compression.priors.assumes.{a}", k=k)),
            md.escape(f"{analysis.weights(a, n, d, k=k):,}"),
            md.escape(t(f"compression.priors.reach.{a}", steps=analysis.reach(a, n, k), n=n, k=k)),
        ]
        for a in analysis.ARCHITECTURES
    ]
    st.markdown(md.table(header, rows))


def check_table(names: dict[str, str], checked: dict, n: int, d: int, k: int) -> None:
    """For the curious: each layer's formula, its value, and PyTorch's own count."""
    st.markdown(t("compression.priors.curious", d=d))
    st.markdown(
        md.table(
            [t(f"compression.priors.check.{c}") for c in ("layer", "formula", "value", "torch")],
            [
                [
                    md.escape(names[a]),
                    md.code(analysis.FORMULAS[a]),
                    md.escape(f"{checked[a][0]:,}"),
                    md.escape(f"{checked[a][1]:,}"),
                ]
                for a in analysis.ARCHITECTURES
            ],
        )
    )
    agree = all(a == b for a, b in checked.values())
    st.caption(
        t(
            ("compression.priors.check.ok" if agree else "compression.priors.check.bad"),
            n=n,
            d=d,
            k=k,
        )
    )
