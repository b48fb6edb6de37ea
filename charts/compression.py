"""Figures of the compression page (lesson 1.6), on the app's template (``charts.base``).

Builders take plain lists and already-translated labels, check them, and raise a
``ValueError`` that says how to fix the call; they never read models or corpora.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from charts import base, common
from charts.common import Titles
from core import lexicon

# Each kind of layer in its family's look (core.lexicon: the hue of its models, an open
# marker); the MLP has no model in the app and is grey.
ARCH_LOOKS: dict[str, lexicon.Look] = {
    "mlp": lexicon.family_look("mlp"),
    "cnn": lexicon.family_look("cnn"),
    "rnn": lexicon.family_look("plain_rnn"),
    "attention": lexicon.family_look("self_attention"),
}


def _legend(fig: go.Figure, presenter: bool) -> None:
    """A horizontal legend: above the plot on the projector (``fit_projector`` moves it
    under the wrapped title), under the plot elsewhere (a phone's narrow chart would wrap
    it onto the title)."""
    if presenter:
        fig.update_layout(legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0))
    else:
        fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.25, x=0))


def growth_chart(
    n: Sequence[int],
    series: Mapping[str, Sequence[float]],
    *,
    current_n: int,
    current_label: str,
    titles: Titles,
    presenter: bool = False,
) -> go.Figure:
    """Counts against n on a log axis (possible Vⁿ, distinct seen, corpus words), the
    chosen n marked."""
    if current_n not in n:
        raise ValueError(f"current_n={current_n} is not one of the plotted n {list(n)}")
    fig = base.line_chart(n, series, **titles._asdict(), presenter=presenter, log_y=True)
    fig.update_yaxes(exponentformat="power")
    fig.update_xaxes(tickmode="array", tickvals=list(n))
    _legend(fig, presenter)
    base.vmark(fig, current_n, current_label, font_size=base.scale(presenter).font, width=2)
    return fig


def unseen_chart(
    n: Sequence[int], share: Sequence[float], *, titles: Titles, presenter: bool = False
) -> go.Figure:
    """Share of held-out n-grams never seen in training, one bar per n, all in one colour
    (the page's order n is marked on the growth chart beside it)."""
    if len(n) != len(share):
        raise ValueError(f"{len(n)} values of n but {len(share)} shares; pass one share per n")
    fig = base.bar_chart(
        [str(k) for k in n],
        share,
        **titles._asdict(),
        presenter=presenter,
    )
    fig.update_traces(
        text=[f"{v:.0%}" if v >= 0.01 else f"{v:.1%}" for v in share],
        textposition="outside",
        cliponaxis=False,
    )
    fig.update_yaxes(range=[0, 1.1], tickformat=".0%")
    return fig


def weights_chart(
    ns: Sequence[int],
    series: Mapping[str, Sequence[float]],
    names: Mapping[str, str],
    *,
    current_n: int,
    current_label: str,
    titles: Titles,
    presenter: bool = False,
) -> go.Figure:
    """Weights of one layer against the context length n (log–log), one line per
    architecture (keys of ``series``: ``mlp``, ``cnn``, ``rnn``, ``attention``), shown
    under ``names[arch]`` in that architecture's one look."""
    unknown = sorted(set(series) - set(ARCH_LOOKS))
    if unknown:
        raise ValueError(f"unknown architectures {unknown}; use {sorted(ARCH_LOOKS)}")
    missing = sorted(set(series) - set(names))
    if missing:
        raise ValueError(f"no display name for {missing}; pass names[arch] for every series")
    fig = common.look_lines(
        ns,
        {names[a]: v for a, v in series.items()},
        {names[a]: ARCH_LOOKS[a] for a in series},
        titles,
        presenter,
        log_y=True,
        # a marker too: the RNN's and attention's lines are both solid, colour alone is not enough
        markers=True,
    )
    s = base.scale(presenter)
    ticks = [v for v in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024) if min(ns) <= v <= max(ns)]
    fig.update_xaxes(type="log", tickmode="array", tickvals=ticks)
    fig.update_yaxes(exponentformat="power", dtick=1)  # powers of ten only
    _legend(fig, presenter)
    base.vmark(fig, current_n, current_label, font_size=s.font, width=2, log_x=True)
    return fig
