"""Bars of attention weights, one per word: one chart (:func:`weight_bars`) or panels stacked
in one figure (:func:`bar_panels`: the pairs, score and self parts), and the bars under the
align part's heatmap."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from charts import base
from charts.attention.common import axis, fonts
from charts.common import Titles
from charts.screen import sizes
from charts.screen.text import text_width


def _bar_values(labels: Sequence[str], weights: Sequence[float] | np.ndarray) -> np.ndarray:
    w = np.asarray(weights, dtype=float)
    if w.ndim != 1 or w.size == 0:
        raise ValueError(f"weights must be a non-empty 1-D sequence, got shape {w.shape}")
    if not np.all(np.isfinite(w)):
        raise ValueError("weights contain NaN or infinity")
    if len(labels) != w.size:
        raise ValueError(f"{len(labels)} labels for {w.size} bars; pass one label per bar")
    return w


def bar_traces(
    xl: list[str],
    w: np.ndarray,
    s: base.Scale,
    *,
    reference: Sequence[float] | np.ndarray | None = None,
    reference_name: str = "",
    bars_name: str = "",
    signed: bool = False,
    highlight: int | bool | None = None,
    axes: Mapping[str, str] | None = None,
) -> list[dict]:
    """The traces of :func:`weight_bars`: the bars (the largest, or bar ``highlight``,
    coloured; none with ``highlight=False``; ``signed``: positive and negative apart) and
    the optional ``reference`` markers. ``axes`` (``xaxis``, ``yaxis``...) puts them on
    a panel of a figure with several."""
    if signed:
        colors = [s.palette[1] if v > 0 else s.palette[2] for v in w]
    elif highlight is False:  # every bar alike
        colors = [s.palette[2]] * w.size
    else:
        top = int(np.argmax(w)) if highlight is None else highlight
        if not 0 <= top < w.size:
            raise ValueError(f"highlight {highlight} is outside 0..{w.size - 1}")
        colors = [base.HIGHLIGHT if i == top else s.palette[2] for i in range(w.size)]
    data: list[dict] = [
        dict(
            type="bar",
            x=xl,
            y=w,
            marker_color=colors,
            name=bars_name,
            showlegend=bool(reference_name),
            **(axes or {}),
        )
    ]
    if reference is not None:
        r = np.asarray(reference, dtype=float)
        if r.shape != w.shape:
            raise ValueError(f"reference has shape {r.shape} but weights have {w.shape}")
        data.append(
            dict(
                type="scatter",
                x=xl,
                y=r,
                mode="markers",
                name=reference_name,
                marker=dict(symbol="diamond", size=s.marker + 4, color=s.palette[0]),
                **(axes or {}),
            )
        )
    return data


def tick_angle(n: int) -> int:
    """Words under bars: slanted when there are too many to stand side by side."""
    return -45 if n > 8 else 0


# px: the narrowest plot a page's bars are drawn in (a phone's: its y title and ticks take
# ~70 px of sizes.PHONE_WIDTH; ui.chart fits nothing else of them) and a slide's
_BAR_PLOT = {False: sizes.PHONE_WIDTH - 70, True: sizes.PRESENTER_WIDTH - 90}


def _bar_tick_angle(labels: Sequence[str], s: base.Scale) -> int:
    """Words under bars: slanted when there are more than 8, or when the widest would not
    stand in its bar's share of the narrowest plot the figure is drawn in (a phone's for a
    page: the pair's "power/transformer" among six bars ran into its neighbours)."""
    angle = tick_angle(len(labels))
    if angle or not labels:
        return angle
    room = _BAR_PLOT[s is base.PRESENTER] / len(labels)
    widest = max(text_width(x, s.font) for x in labels)
    return -45 if widest + 0.5 * s.font > room else 0


def weight_bars(
    labels: Sequence[str],
    weights: Sequence[float] | np.ndarray,
    *,
    titles: Titles,
    presenter: bool = False,
    reference: Sequence[float] | np.ndarray | None = None,
    reference_name: str = "",
    bars_name: str = "",
    signed: bool = False,
    highlight: int | bool | None = None,
    ceiling: float | None = None,
) -> go.Figure:
    """One bar per word (an attention row, a score vector or a difference of rows).

    The largest bar is coloured (or bar ``highlight``; none with ``highlight=False``);
    ``reference`` adds markers (e.g. the model's own weights) over the bars; ``signed``
    colours positive and negative bars apart; ``ceiling`` draws a dashed horizontal line.
    """
    w = _bar_values(labels, weights)
    s = base.scale(presenter)
    data = bar_traces(
        base.unique_labels(labels),
        w,
        s,
        reference=reference,
        reference_name=reference_name,
        bars_name=bars_name,
        signed=signed,
        highlight=highlight,
    )
    shapes = []
    if ceiling is not None:  # e.g. log2(S) bits: the most spread-out a row can be
        shapes.append(base.hline(ceiling, dict(color="#888888", dash="dash")))
    # one construction: plotly validates every update call separately
    return go.Figure(
        data=data,
        layout=dict(
            template=base.template(presenter),
            title_text=titles.title,
            xaxis=axis(
                s,
                titles.x_title,
                type="category",
                tickangle=_bar_tick_angle(base.unique_labels(labels), s),
            ),
            yaxis=axis(s, titles.y_title),
            **fonts(s, orientation="h", yanchor="bottom", y=1.02, xanchor="right", x=1.0),
            shapes=shapes,
        ),
    )


# ---------------------------------------------------------------------------------------
# Figures of several panels stacked top to bottom: one chart for the browser to redraw
# when a control changes them all (each redrawn chart costs ~50 ms in Streamlit's page).
# Panels are placed in pixels (a title row, the plot, a row of words under it) and the
# pixels turned into the fractions of the figure plotly's axis domains are.
# ---------------------------------------------------------------------------------------


def stack(blocks: Sequence[tuple[int, int, int]]) -> tuple[list[list[float]], int]:
    """The vertical domains of panels stacked top to bottom. Each block is, in pixels,
    (room above the plot: its title, a legend; the plot; room under it: its words, its
    axis title). Returns each plot's [bottom, top] domain and the height of them all."""
    total = sum(sum(b) for b in blocks)
    domains = []
    y = total
    for head, plot, foot in blocks:
        top = y - head
        domains.append([round((top - plot) / total, 6), round(top / total, 6)])
        y = top - plot - foot
    return domains, total


def panel_px(s: base.Scale) -> int:
    """The height of one panel of bars."""
    return round(s.height * 0.42)


def title_px(s: base.Scale) -> int:
    """The room of a panel's title row."""
    return math.ceil((s.font + 2) * 1.9)


def words_px(labels: Sequence[str], s: base.Scale, x_title: str = "") -> int:
    """The room under a panel for its words (slanted ones take their length times
    sin 45°) and its axis title."""
    px = s.font * 1.8
    if _bar_tick_angle(labels, s):
        px += 0.45 * s.font * max(len(str(x)) for x in labels)
    if x_title:
        px += (s.font + 2) * 1.8
    return math.ceil(px)


def panel_title(text: str, top: float, s: base.Scale) -> dict:
    """A panel's title: an annotation on the left, just above the panel (``top``, paper)."""
    return dict(
        text=f"<b>{text}</b>",
        xref="paper",
        x=0.0,
        xanchor="left",
        yref="paper",
        y=top,
        yanchor="bottom",
        yshift=4,
        showarrow=False,
        font=dict(size=s.font + 2),
    )


@dataclass(frozen=True)
class BarPanel:
    """One panel of :func:`bar_panels`: one bar per word, as :func:`weight_bars` draws it
    (``title`` above the panel; ``highlight``, ``signed``, ``reference`` as there)."""

    labels: Sequence[str]
    weights: Sequence[float] | np.ndarray
    title: str
    y_title: str
    x_title: str = ""
    reference: Sequence[float] | np.ndarray | None = None
    reference_name: str = ""
    bars_name: str = ""
    signed: bool = False
    highlight: int | bool | None = None


def bar_panels(
    panels: Sequence[BarPanel],
    *,
    title: str = "",
    presenter: bool = False,
    share_x: bool = False,
) -> go.Figure:
    """Panels of bars stacked top to bottom in one figure (one chart for the browser to
    redraw when a control changes them all), each with its title above it, its words and
    x title under it and its own y axis. With ``share_x`` every panel has the same words
    and the x axes match (zooming one zooms all); without, panels of as many words still
    put position i under position i. A legend (panels with ``reference``) sits above the
    panel it belongs to, on the right.
    """
    if not panels:
        raise ValueError("panels is empty; pass at least one BarPanel")
    s = base.scale(presenter)
    labels = [base.unique_labels(p.labels) for p in panels]
    values = [_bar_values(p.labels, p.weights) for p in panels]
    if share_x and any(lab != labels[0] for lab in labels):
        raise ValueError("share_x needs the same labels on every panel; pass share_x=False")
    legend_px = math.ceil(s.font * 1.9)
    blocks = [
        (
            (title_px(s) if p.title else 0) + (legend_px if p.reference_name else 0),
            panel_px(s),
            words_px(lab, s, p.x_title),
        )
        for p, lab in zip(panels, labels)
    ]
    blocks[0] = (blocks[0][0] + round(s.font * 0.6), *blocks[0][1:])  # air under the title
    top = base.template_of(presenter).layout.margin.t if title else 10
    if presenter:  # one slide: the panels share what the titles and words leave
        fixed = top + sum(b[0] + b[2] for b in blocks) + 10
        each = max(60, (sizes.SLIDE_HEIGHT - fixed) // len(blocks))
        blocks = [(b[0], each, b[2]) for b in blocks]
    domains, plot_px = stack(blocks)
    data: list[dict] = []
    layout: dict = dict(
        template=base.template(presenter),
        **fonts(s),
        margin=dict(t=top),
        height=top + plot_px + 10,
    )
    annotations = []
    for i, (p, xl, w, domain) in enumerate(zip(panels, labels, values, domains)):
        n = "" if i == 0 else str(i + 1)
        data += bar_traces(
            xl,
            w,
            s,
            reference=p.reference,
            reference_name=p.reference_name,
            bars_name=p.bars_name,
            signed=p.signed,
            highlight=p.highlight,
            axes=dict(xaxis=f"x{n}", yaxis=f"y{n}"),
        )
        layout[f"xaxis{n}"] = axis(
            s,
            p.x_title,
            type="category",
            anchor=f"y{n}",
            tickangle=_bar_tick_angle(xl, s),
            **({"matches": "x"} if share_x and i else {}),
        )
        layout[f"yaxis{n}"] = axis(s, p.y_title, domain=domain, anchor=f"x{n}")
        if p.reference_name:
            layout["legend"].update(
                orientation="h", yanchor="bottom", y=domain[1], xanchor="right", x=1.0
            )
        if p.title:
            above = domain[1] + (legend_px / plot_px if p.reference_name else 0.0)
            annotations.append(panel_title(p.title, above, s))
    if title:
        layout["title"] = dict(text=title, font=dict(size=s.title))
    layout["annotations"] = annotations
    # one construction: plotly validates every update call separately
    return go.Figure(data=data, layout=layout)
