"""Figures of the autoregressive page, on the app's template (``charts.base``).

Builders take plain lists, check them and raise a ``ValueError`` that says how to fix the
call; they never read models. Titles and axis names come from the page (translated).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from charts import base, common
from charts.common import Titles
from core import lexicon


def next_token_bars(
    tokens: Sequence[str],
    probs: Sequence[float],
    chosen: int | None,
    *,
    titles: Titles,
    presenter: bool = False,
) -> go.Figure:
    """Horizontal bars of the top-k next-token probabilities, most probable on top.

    ``chosen`` is the index (into ``tokens``) of the token that was appended, drawn in the
    highlight colour (:data:`charts.base.HIGHLIGHT`); ``None`` if it is not among them.
    Every bar has its probability written on it.
    """
    p = np.asarray(probs, dtype=float)
    if p.ndim != 1 or p.size == 0:
        raise ValueError("probs must be a non-empty 1-D list, one probability per token")
    if len(tokens) != p.size:
        raise ValueError(f"{len(tokens)} tokens but {p.size} probabilities; pass one each")
    if not np.all(np.isfinite(p)) or p.min() < 0 or p.max() > 1 + 1e-6:
        raise ValueError("probs must be probabilities in [0, 1]")
    if chosen is not None and not 0 <= chosen < p.size:
        raise ValueError(f"chosen={chosen} is not an index into the {p.size} tokens")
    s = base.scale(presenter)
    labels = base.unique_labels(tokens)  # repeated tokens stay separate
    colors = [base.HIGHLIGHT if i == chosen else "#BBBBBB" for i in range(p.size)]
    text = [f"{v:.0%}" if v >= 0.005 else f"{v:.1%}" for v in p]
    return go.Figure(  # built in one go: every update_* call re-validates (~5 ms each)
        go.Bar(
            x=p,
            y=labels,
            orientation="h",
            marker_color=colors,
            text=text,
            textposition="outside",
            constraintext="none",  # each bar's number at full size, however thin the bar
            cliponaxis=False,
            hovertemplate="%{y}: %{x:.1%}<extra></extra>",
        ),
        layout=common.titled_layout(
            presenter,
            titles,
            # room after the longest bar for its number ("100%"): more at the projector's font;
            # the ticks, a probability's, stop at 100 %
            xaxis=dict(
                range=[0, 1.3 if presenter else 1.15],
                tickformat=".0%",
                tickvals=[0, 0.25, 0.5, 0.75, 1],
            ),
            # every candidate named, also on a slide short enough for the step buttons
            yaxis=dict(type="category", autorange="reversed", tickmode="linear", dtick=1),
            height=max(s.height - 60, 70 + p.size * (s.font * 2 + 8)),
            showlegend=False,
        ),
    )


def attention_row(
    source: Sequence[str], weights: Sequence[float], *, titles: Titles, presenter: bool = False
) -> go.Figure:
    """One decoder step's attention over the source tokens (bars in sentence order), the
    largest weight in the highlight colour (:data:`charts.base.HIGHLIGHT`)."""
    w = np.asarray(weights, dtype=float)
    if w.ndim != 1 or w.size == 0:
        raise ValueError("weights must be a non-empty 1-D list, one weight per source token")
    if len(source) != w.size:
        raise ValueError(f"{len(source)} source tokens but {w.size} weights; pass one each")
    if not np.all(np.isfinite(w)):
        raise ValueError("weights contain NaN or infinity")
    top = int(w.argmax())
    colors = [base.HIGHLIGHT if i == top else "#BBBBBB" for i in range(w.size)]
    return go.Figure(
        go.Bar(
            x=base.unique_labels(source),
            y=w,
            marker_color=colors,
            hovertemplate="%{x}: %{y:.3f}<extra></extra>",
        ),
        layout=common.titled_layout(
            presenter,
            titles,
            xaxis=dict(type="category", tickangle=-45 if w.size > 8 else 0),
            yaxis=dict(range=[0, max(1e-9, float(w.max())) * 1.1]),
            showlegend=False,
        ),
    )


def _lines(x: Sequence[float], series: dict[str, Sequence[float]], **kwargs: Any) -> go.Figure:
    """``base.line_chart(x, series, **kwargs)`` with a horizontal legend under the plot
    (the page's line charts sit in narrow columns)."""
    fig = base.line_chart(x, series, **kwargs)
    # Under the axis title, never on the chart title (also on the projector, where a
    # legend above the plot met a one-line title).
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.28, x=0), margin=dict(b=120))
    return fig


SLIP_BINS = 8  # the distribution's last bin is "this many or more later words changed"


def slip_shares(histogram: dict[int, int], bins: int = SLIP_BINS) -> list[float]:
    """Share of sentences with 0, 1, … ``bins - 1`` and ``bins`` or more later words changed,
    from a {edits: count} histogram (:meth:`core.analysis.slips.SlipStudy.summary`)."""
    total = sum(histogram.values())
    if total <= 0:
        raise ValueError("the histogram is empty; measure at least one sentence")
    if any(int(k) < 0 or v < 0 for k, v in histogram.items()):
        raise ValueError("edits and counts must be >= 0")
    counts = [0] * (bins + 1)
    for edits, n in histogram.items():
        counts[min(int(edits), bins)] += n
    return [c / total for c in counts]


def slip_distribution(
    histograms: dict[str, dict[int, int]],
    looks: dict[str, str],
    *,
    titles: Titles,
    presenter: bool = False,
) -> go.Figure:
    """Distribution of the later words changed after one forced slip: one line per model
    (``histograms`` {series name: {edits: count}}; ``looks`` {series name: model} gives its
    colour, marker and dash from :mod:`core.lexicon`). x: 0, 1, … and "N+"."""
    if not histograms:
        raise ValueError("histograms is empty; pass {model: {edits: count}} for one model or more")
    missing = [n for n in histograms if n not in looks]
    if missing:
        raise ValueError(f"no look for {missing}; pass looks={{series name: model}}")
    s = base.scale(presenter)
    x = list(range(SLIP_BINS + 1))
    fig = base.line_chart(
        x,
        {n: slip_shares(h) for n, h in histograms.items()},
        **titles._asdict(),
        presenter=presenter,
    )
    # several models: the legend in rows above the plot, never over the axis; the title above
    # it (on the projector charts.screen.projector places both; two entries a row assumed here)
    rows = -(-len(histograms) // 2)
    fig.update_layout(
        legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0),
        title=dict(yref="container", y=1.0, yanchor="top", pad=dict(t=10)),
        margin=dict(t=s.title * 2 + int(rows * s.font * 1.8)),
    )
    for trace in fig.data:
        model = looks[trace.name]
        trace.line = lexicon.line(model, s.line)
        trace.marker = lexicon.marker(model, s.marker)
    fig.update_yaxes(rangemode="tozero", tickformat=".0%")
    labels = [str(i) for i in x[:-1]] + [f"{SLIP_BINS}+"]
    fig.update_xaxes(tickmode="array", tickvals=x, ticktext=labels)
    return fig


def cost_chart(
    lengths: Sequence[int],
    series: dict[str, Sequence[float]],
    *,
    titles: Titles,
    families: dict[str, str] | None = None,
    presenter: bool = False,
) -> go.Figure:
    """The serial cost against the number of tokens, one line per way of computing: steps or
    model calls (counted, exact) or time (ms, measured); from zero up, never negative.
    ``families`` {series name: family} draws a series that stands for a kind of layer in its
    family's look (:data:`core.lexicon.FAMILY_LOOKS`); the others stay black and greys."""
    if any(v < 0 for values in series.values() for v in values):
        raise ValueError("calls and times are never negative: pass values >= 0")
    unknown = set(families or {}) - set(series)
    if unknown:
        raise ValueError(f"families names {sorted(unknown)}, not a series; use a key of series")
    fig = _lines(lengths, series, **titles._asdict(), presenter=presenter)
    s = base.scale(presenter)
    # the series that are no model each get their own dash and marker: two equal lines (the
    # GRU steps through the words whether it writes or reads) stay visible on top of each other
    plain = iter(zip(("solid", "dot", "dashdot"), ("circle", "circle-open", "square-open")))
    for trace in fig.data:
        if trace.name in (families or {}):
            look = lexicon.family_look(families[trace.name])
            trace.line = dict(color=look.color, dash=look.dash, width=s.line)
            trace.marker = dict(color=look.color, symbol=look.marker, size=s.marker)
        else:
            dash, symbol = next(plain, ("solid", "circle"))
            trace.line = dict(dash=dash, width=s.line)
            trace.marker = dict(symbol=symbol, size=s.marker * (1.6 if dash != "solid" else 1))
    fig.update_yaxes(
        **zero_based_ticks(max((max(v, default=0) for v in series.values()), default=0))
    )
    return fig


def zero_based_ticks(top: float, ticks: int = 6) -> dict:
    """A y axis from 0 to a little past ``top``, labelled every 1, 2 or 5 times a power of
    ten (about ``ticks`` labels), each label given: the milliseconds move from run to run,
    and the labels plotly chose for a range it padded itself were wider than the margins
    estimated for them (CI: "10" drawn where "8" was the last label expected, 94 -> 101 px)."""
    if top < 0 or not math.isfinite(top):
        raise ValueError(f"top must be a finite number >= 0, got {top}")
    end = (top or 1.0) * 1.06  # room for the last marker
    rough = end / ticks
    mag = 10.0 ** math.floor(math.log10(rough))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= rough * 0.999999)
    values = [k * step for k in range(math.floor(end / step + 1e-9) + 1)]
    decimals = max(0, -math.floor(math.log10(step) + 1e-9))
    text = ["0" if v == 0 else f"{v:.{decimals}f}" for v in values]
    return dict(range=[0, end], tickmode="array", tickvals=values, ticktext=text)


# --- sentences as Markdown lines (tokens come from the model vocabularies) ---------------------


def marked(tokens: Sequence[str], start: int, current: int | None, sep: str = " ") -> str:
    """Tokens as markdown: given words plain, generated ones (from ``start``) bold, the one
    at ``current`` marked; ``∅`` for no tokens.

    Tokens come from the model vocabularies (never raw user text), escaped anyway.
    """
    out = []
    for i, tok in enumerate(tokens):
        tok = tok.replace("[", "(").replace("]", ")").replace("*", "").replace("`", "'")
        if i == current:
            out.append(f":orange-background[**{tok}**]")
        elif i >= start:
            out.append(f"**{tok}**")
        else:
            out.append(tok)
    return sep.join(out) if out else "∅"


def sentence_row(tokens: Sequence[str], mark: int | None, new: Sequence[int] = ()) -> str:
    """One output as a big markdown line: the forced word (at ``mark``) orange, the new later
    words (positions in ``new``) red."""
    cells = []
    for i, tok in enumerate(tokens):
        tok = tok.replace("[", "(").replace("]", ")")
        if i == mark:
            cells.append(f":orange-background[**{tok}**]")
        elif i in new:
            cells.append(f":red[**{tok}**]")
        else:
            cells.append(tok)
    return "### " + " ".join(cells)
