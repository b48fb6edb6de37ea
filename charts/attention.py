"""Figures of the attention page, on ``charts.base`` (template, palette, presenter scale).

Builders take arrays and token lists, check them, and raise ``ValueError`` saying how to
fix the call. Every hover label text is passed in by the page, so it is translated.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from charts import base, margins
from core import lexicon


def _matrix(name: str, m: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
    z = np.asarray(m, dtype=float)
    if z.ndim != 2 or 0 in z.shape:
        raise ValueError(f"{name} must be a non-empty 2-D array (rows, cols), got {z.shape}")
    if not np.all(np.isfinite(z)):
        raise ValueError(f"{name} contains NaN or infinity; pass finite attention weights")
    return z


def _labels(name: str, labels: Sequence[object], n: int) -> list[str]:
    out = [str(x) for x in labels]
    if len(out) != n:
        raise ValueError(f"{name} has {len(out)} entries for {n} rows/columns; pass one each")
    return out


def _heatmap_trace(
    z: np.ndarray,
    xl: list[str],
    yl: list[str],
    hover: Mapping[str, str],
    s: base.Scale,
    *,
    show_values: bool,
) -> dict:
    """The heatmap trace of :func:`attention_heatmap` (as ``charts.base.heatmap`` draws it,
    with the hover of each cell's weight and its row's sum)."""
    missing = {"row", "col", "weight", "sum"} - set(hover)
    if missing:
        raise ValueError(f"hover needs the labels {sorted(missing)}")
    trace = dict(
        type="heatmap",
        z=z,
        x=xl,
        y=yl,
        zmin=0.0,
        zmax=1.0,
        colorscale="Cividis",
        hoverongaps=False,
        customdata=np.repeat(z.sum(1, keepdims=True), z.shape[1], axis=1),  # each row's sum
        hovertemplate=(
            f"{hover['row']}: %{{y}}<br>{hover['col']}: %{{x}}<br>"
            f"{hover['weight']}: %{{z:.3f}}<br>{hover['sum']}: %{{customdata:.3f}}<extra></extra>"
        ),
        colorbar=dict(title=dict(text=hover["weight"])),
    )
    if show_values:
        trace.update(
            text=np.round(z, 2), texttemplate="%{text}", textfont=dict(size=max(10, s.font - 4))
        )
    return trace


def _row_frame(row: int, z: np.ndarray, presenter: bool, name: str = "highlight_row") -> dict:
    """The frame around row ``row`` of the heatmap of ``z`` (the current step or word;
    ``name``: the caller's argument, for the error)."""
    rows, cols = z.shape
    if not 0 <= row < rows:
        raise ValueError(f"{name} {row} is outside 0..{rows - 1}")
    s = base.scale(presenter)
    return dict(
        type="rect",
        xref="x",
        yref="y",
        x0=-0.5,
        x1=cols - 0.5,
        y0=row - 0.5,
        y1=row + 0.5,
        line=dict(color=base.HIGHLIGHT, width=s.line + 1),
    )


def _words_on_top_px(xl: Sequence[str], s: base.Scale) -> int:
    """Room above a heatmap for the chart title, the axis title and the words of a top x
    axis. The words' angle depends on the screen: plotly slants them by 30° when they fit
    side by side and stands them up on a phone, so the room is for standing words (their
    length: ~0.6 font size a character); on a laptop that leaves a little air."""
    longest = max((len(x) for x in xl), default=1)
    return math.ceil((s.title + s.font + 2) * 1.8 + s.font * (1.8 + 0.6 * longest))


def _heat_top(presenter: bool, xl: Sequence[str] = (), s: base.Scale | None = None) -> int:
    """The top margin of a heatmap whose x axis (words and title) sits above it: the
    chart title goes above the axis (on the projector the words go under the map)."""
    if presenter:
        return 150
    return max(110, _words_on_top_px(xl, s or base.scale(False)))


def _heat_height(rows: int, s: base.Scale) -> int:
    """The height of a heatmap figure of ``rows`` rows (as ``charts.base.heatmap``)."""
    return max(s.height, min(900, 40 + math.ceil(rows * s.font * 2.2)))


def attention_heatmap(
    weights: Sequence[Sequence[float]] | np.ndarray,
    x_labels: Sequence[str],
    y_labels: Sequence[str],
    *,
    title: str,
    x_title: str,
    y_title: str,
    hover: Mapping[str, str],
    presenter: bool = False,
    highlight_row: int | None = None,
    show_values: bool = False,
) -> go.Figure:
    """Attention weights (rows = the attending words, columns = the attended words).

    ``hover`` gives the translated words for ``row``, ``col``, ``weight`` and ``sum``; the
    hover shows each cell's weight and its row's sum (1 for a softmax row).
    ``highlight_row`` draws a frame around one row (the current decoding step).
    """
    z = _matrix("weights", weights)
    rows, cols = z.shape
    xl = base.unique_labels(_labels("x_labels", x_labels, cols))
    yl = base.unique_labels(_labels("y_labels", y_labels, rows))
    s = base.scale(presenter)
    # one construction, as charts.base.heatmap draws it (plotly validates every call)
    trace = _heatmap_trace(z, xl, yl, hover, s, show_values=show_values)
    shapes = [] if highlight_row is None else [_row_frame(highlight_row, z, presenter)]
    return go.Figure(
        data=[trace],
        layout=dict(
            template=base.template(presenter),
            # the x axis (source words and its title) sits on top: the chart title above it
            title=dict(text=title, yref="container", y=0.99, yanchor="top"),
            margin=dict(t=_heat_top(presenter, xl, s)),
            # on the projector the title alone sits on top (fit_projector sizes the margin
            # for the title only), so the words go under the map
            xaxis=_axis(s, x_title, type="category", side="bottom" if presenter else "top"),
            yaxis=_axis(s, y_title, type="category", autorange="reversed"),
            font=dict(family=base.FONT_FAMILY, size=s.font),
            height=_heat_height(rows, s),
            shapes=shapes,
        ),
    )


def _bar_values(labels: Sequence[str], weights: Sequence[float] | np.ndarray) -> np.ndarray:
    w = np.asarray(weights, dtype=float)
    if w.ndim != 1 or w.size == 0:
        raise ValueError(f"weights must be a non-empty 1-D sequence, got shape {w.shape}")
    if not np.all(np.isfinite(w)):
        raise ValueError("weights contain NaN or infinity")
    if len(labels) != w.size:
        raise ValueError(f"{len(labels)} labels for {w.size} bars; pass one label per bar")
    return w


def _bar_traces(
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


def _tick_angle(n: int) -> int:
    """Words under bars: slanted when there are too many to stand side by side."""
    return -45 if n > 8 else 0


# px: the narrowest plot a page's bars are drawn in (a phone's: its y title and ticks take
# ~70 px of base.PHONE_WIDTH; ui.chart fits nothing else of them) and a slide's
_BAR_PLOT = {False: base.PHONE_WIDTH - 70, True: base.PRESENTER_WIDTH - 90}


def _bar_tick_angle(labels: Sequence[str], s: base.Scale) -> int:
    """Words under bars: slanted when there are more than 8, or when the widest would not
    stand in its bar's share of the narrowest plot the figure is drawn in (a phone's for a
    page: the pair's "power/transformer" among six bars ran into its neighbours)."""
    angle = _tick_angle(len(labels))
    if angle or not labels:
        return angle
    room = _BAR_PLOT[s is base.PRESENTER] / len(labels)
    widest = max(margins.text_width(x, s.font) for x in labels)
    return -45 if widest + 0.5 * s.font > room else 0


def weight_bars(
    labels: Sequence[str],
    weights: Sequence[float] | np.ndarray,
    *,
    title: str,
    x_title: str,
    y_title: str,
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
    data = _bar_traces(
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
            title_text=title,
            xaxis=_axis(
                s,
                x_title,
                type="category",
                tickangle=_bar_tick_angle(base.unique_labels(labels), s),
            ),
            yaxis=_axis(s, y_title),
            legend=dict(
                orientation="h",
                yanchor="bottom",
                y=1.02,
                xanchor="right",
                x=1.0,
                font=dict(size=s.font),
            ),
            font=dict(family=base.FONT_FAMILY, size=s.font),
            shapes=shapes,
        ),
    )


# ---------------------------------------------------------------------------------------
# Figures of several panels stacked top to bottom: one chart for the browser to redraw
# when a control changes them all (each redrawn chart costs ~50 ms in Streamlit's page).
# Panels are placed in pixels (a title row, the plot, a row of words under it) and the
# pixels turned into the fractions of the figure plotly's axis domains are.
# ---------------------------------------------------------------------------------------


def _stack(blocks: Sequence[tuple[int, int, int]]) -> tuple[list[list[float]], int]:
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


def _panel_px(s: base.Scale) -> int:
    """The height of one panel of bars."""
    return round(s.height * 0.42)


def _title_px(s: base.Scale) -> int:
    """The room of a panel's title row."""
    return math.ceil((s.font + 2) * 1.9)


def _words_px(labels: Sequence[str], s: base.Scale, x_title: str = "") -> int:
    """The room under a panel for its words (slanted ones take their length times
    sin 45°) and its axis title."""
    px = s.font * 1.8
    if _bar_tick_angle(labels, s):
        px += 0.45 * s.font * max(len(str(x)) for x in labels)
    if x_title:
        px += (s.font + 2) * 1.8
    return math.ceil(px)


def _panel_title(text: str, top: float, s: base.Scale) -> dict:
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


def _axis(s: base.Scale, title: str = "", **extra: object) -> dict:
    """An axis of a panel, with its fonts set on the figure itself: Streamlit's chart theme
    writes its own (small) fonts over the template's on axes the figure leaves unset."""
    return dict(
        title=dict(text=title, font=dict(size=s.font + 2)), tickfont=dict(size=s.font), **extra
    )


def _fonts(s: base.Scale) -> dict:
    """The layout's fonts on the figure itself, not only in the template: Streamlit's chart
    theme writes its own (small) fonts over the template's in the browser."""
    return dict(
        font=dict(family=base.FONT_FAMILY, size=s.font),
        legend=dict(font=dict(size=s.font)),
    )


def alignment_figure(
    weights: Sequence[Sequence[float]] | np.ndarray,
    x_labels: Sequence[str],
    y_labels: Sequence[str],
    *,
    step: int,
    title: str,
    x_title: str,
    y_title: str,
    row_title: str,
    row_y_title: str,
    hover: Mapping[str, str],
    presenter: bool = False,
    show_values: bool = False,
) -> go.Figure:
    """The decoder's attention (T, S) as a heatmap with the row of ``step`` framed (top),
    and that row as bars (bottom) on the same source-word axis: each bar under its column,
    so the framed row becomes the bars. One figure, one chart for the browser to redraw
    when the step moves. On the projector the heatmap alone (:func:`_alignment_slide`).

    The heatmap is :func:`attention_heatmap`'s (``hover``, ``show_values`` and its top
    axis, titled ``x_title``); the bars are :func:`weight_bars`' (largest coloured) with
    their words under them, ``row_title`` above them and ``row_y_title`` on their axis.
    The two x axes match: zooming one zooms the other.
    """
    z = _matrix("weights", weights)
    rows, cols = z.shape
    xl = base.unique_labels(_labels("x_labels", x_labels, cols))
    yl = base.unique_labels(_labels("y_labels", y_labels, rows))
    s = base.scale(presenter)
    frame = _row_frame(step, z, presenter, name="step")
    if presenter:
        heatmap = _heatmap_trace(z, xl, yl, hover, s, show_values=show_values)
        return _alignment_slide(heatmap, frame, title, s)
    top, heat, bars, plot_px = _alignment_geometry(rows, xl, s, presenter)
    heatmap = _heatmap_trace(z, xl, yl, hover, s, show_values=show_values)
    heatmap["colorbar"].update(
        y=sum(heat) / 2, len=heat[1] - heat[0], yanchor="middle", tickfont=dict(size=s.font)
    )
    heatmap["colorbar"]["title"]["font"] = dict(size=s.font)
    row = _bar_traces(xl, z[step], s, axes=dict(xaxis="x2", yaxis="y2"))
    row[0]["hovertemplate"] = (
        f"{hover['col']}: %{{x}}<br>{hover['weight']}: %{{y:.3f}}<extra></extra>"
    )
    layout = dict(
        template=base.template(presenter),
        **_fonts(s),
        title=dict(text=title, yref="container", y=0.99, yanchor="top", font=dict(size=s.title)),
        margin=dict(t=top),
        height=top + plot_px + 10,
        **_alignment_axes(s, presenter, cols, heat, bars, x_title, y_title, row_y_title),
        shapes=[frame],
        annotations=[_panel_title(row_title, bars[1], s)],
    )
    return go.Figure(data=[heatmap, *row], layout=layout)


def every_category(n: int, room_px: float, s: base.Scale) -> dict:
    """A projector's category axis of ``n`` words that labels every one (plotly drops every
    other label when they crowd), at the scale's font or smaller to fit ``room_px``, never
    under :data:`charts.base.MIN_PROJECTOR_FONT`."""
    size = min(s.font, math.floor(room_px / max(n, 1) / 1.15))
    size = max(size, base.MIN_PROJECTOR_FONT)
    return dict(tickmode="linear", tick0=0, dtick=1, tickfont=dict(size=size))


def _slide_words(xl: Sequence[str], s: base.Scale, width: float) -> tuple[int, int]:
    """The angle and font size of a slide's source words under a heatmap ``width`` px wide:
    level at the scale's font when each fits its column (~0.6 font size a character),
    else slanted at the projector's smallest size (slanted words eat the rows' height)."""
    longest = max(len(x) for x in xl)
    if 0.6 * s.font * longest * 1.1 <= width / len(xl):
        return 0, s.font
    return -45, base.MIN_PROJECTOR_FONT


def _alignment_slide(heatmap: dict, frame: dict, title: str, s: base.Scale) -> go.Figure:
    """:func:`alignment_figure` on the projector: the heatmap alone, the step's row framed,
    every row and column labelled at projector size (the step's bars under it left the rows
    ~13 px, too thin to label), the step controls on the same screen."""
    xl, yl = heatmap["x"], heatmap["y"]
    height = base.SLIDE_HEIGHT - 85  # the step slider (~75 px) under it on the first screen
    top = math.ceil(12 + s.title * 1.3 + 8)
    angle, size = _slide_words(xl, s, base.PRESENTER_WIDTH * 0.75)
    heatmap["colorbar"]["tickfont"] = dict(size=s.font)
    heatmap["colorbar"]["title"]["font"] = dict(size=s.font)
    words = size * 1.8 + (0.45 * size * max(len(x) for x in xl) if angle else 0)
    rows_px = height - top - words - 10
    layout = dict(
        template=base.template(True),
        **_fonts(s),
        title=dict(text=title, yref="container", y=0.99, yanchor="top", font=dict(size=s.title)),
        # the words' own room: plotly's automargin leaves ~60 px more under slanted ones
        margin=dict(t=top, b=math.ceil(words) + 8),
        height=height,
        xaxis=_axis(s, type="category", side="bottom", tickangle=angle, automargin=False),
        yaxis=_axis(s, type="category", autorange="reversed"),
        shapes=[frame],
    )
    layout["xaxis"].update(every_category(len(xl), base.PRESENTER_WIDTH * 0.75, s))
    layout["xaxis"]["tickfont"]["size"] = size
    layout["yaxis"].update(every_category(len(yl), rows_px, s))
    return go.Figure(data=[heatmap], layout=layout)


def _alignment_geometry(
    rows: int, xl: Sequence[str], s: base.Scale, presenter: bool
) -> tuple[int, list[float], list[float], int]:
    """Where :func:`alignment_figure`'s panels sit: the top margin (title, axis title,
    standing words), the heatmap's and the bars' y domains, and the plot's height in px."""
    heat_px = _heat_height(rows, s) - _heat_top(presenter, xl, s) - 10  # as attention_heatmap's
    top = _words_on_top_px(xl, s)  # above the heatmap: title, axis title, standing words
    bars_px = _panel_px(s)
    if presenter:  # one slide: the words only under the bars (the same columns), all in view
        top, bars_px = math.ceil(12 + s.title * 1.3 + 8), round(s.font * 4)
        rest = top + _title_px(s) + bars_px + _words_px(xl, s) + round(s.font * 0.6) + 10
        heat_px = max(150, base.SLIDE_HEIGHT - rest)
    (heat, bars), plot_px = _stack(
        [
            (0, heat_px, round(s.font * 0.6)),
            (_title_px(s), bars_px, _words_px(xl, s)),
        ]
    )
    return top, heat, bars, plot_px


def _alignment_axes(
    s: base.Scale,
    presenter: bool,
    cols: int,
    heat: list[float],
    bars: list[float],
    x_title: str,
    y_title: str,
    row_y_title: str,
) -> dict:
    """The two x and two y axes of :func:`alignment_figure`: the heatmap's words on top (off
    on a slide), the bars' words under them; zooming one x axis zooms the other."""
    return dict(
        xaxis=_axis(
            s,
            "" if presenter else x_title,
            type="category",
            side="top",
            anchor="y",
            showticklabels=not presenter,
        ),
        yaxis=_axis(
            s,
            "" if presenter else y_title,
            type="category",
            autorange="reversed",
            domain=heat,
        ),
        xaxis2=_axis(s, type="category", matches="x", anchor="y2", tickangle=_tick_angle(cols)),
        yaxis2=_axis(s, row_y_title, domain=bars, anchor="x2", rangemode="tozero"),
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
            (_title_px(s) if p.title else 0) + (legend_px if p.reference_name else 0),
            _panel_px(s),
            _words_px(lab, s, p.x_title),
        )
        for p, lab in zip(panels, labels)
    ]
    blocks[0] = (blocks[0][0] + round(s.font * 0.6), *blocks[0][1:])  # air under the title
    top = base.template_of(presenter).layout.margin.t if title else 10
    if presenter:  # one slide: the panels share what the titles and words leave
        fixed = top + sum(b[0] + b[2] for b in blocks) + 10
        each = max(60, (base.SLIDE_HEIGHT - fixed) // len(blocks))
        blocks = [(b[0], each, b[2]) for b in blocks]
    domains, plot_px = _stack(blocks)
    data: list[dict] = []
    layout: dict = dict(
        template=base.template(presenter),
        **_fonts(s),
        margin=dict(t=top),
        height=top + plot_px + 10,
    )
    annotations = []
    for i, (p, xl, w, domain) in enumerate(zip(panels, labels, values, domains)):
        n = "" if i == 0 else str(i + 1)
        data += _bar_traces(
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
        layout[f"xaxis{n}"] = _axis(
            s,
            p.x_title,
            type="category",
            anchor=f"y{n}",
            tickangle=_bar_tick_angle(xl, s),
            **({"matches": "x"} if share_x and i else {}),
        )
        layout[f"yaxis{n}"] = _axis(s, p.y_title, domain=domain, anchor=f"x{n}")
        if p.reference_name:
            layout["legend"].update(
                orientation="h", yanchor="bottom", y=domain[1], xanchor="right", x=1.0
            )
        if p.title:
            above = domain[1] + (legend_px / plot_px if p.reference_name else 0.0)
            annotations.append(_panel_title(p.title, above, s))
    if title:
        layout["title"] = dict(text=title, font=dict(size=s.title))
    layout["annotations"] = annotations
    # one construction: plotly validates every update call separately
    return go.Figure(data=data, layout=layout)


_WIDTH_BINS = (0.05, 0.1, 0.2, 0.4, 0.7)  # weights below the first bin get no line


def attention_lines(
    weights: Sequence[Sequence[float]] | np.ndarray,
    tokens: Sequence[str],
    *,
    title: str,
    presenter: bool = False,
    selected: int | None = None,
    left_title: str = "",
    right_title: str = "",
) -> go.Figure:
    """Self-attention drawn as BertViz does: each word twice (left: attending, right:
    attended), a line from left i to right j whose width and darkness grow with weight
    (i, j). Weights under 0.05 are not drawn. ``selected`` highlights one word's lines.
    """
    z = _matrix("weights", weights)
    n = len(tokens)
    if z.shape != (n, n):
        raise ValueError(f"weights must be ({n}, {n}) for {n} tokens, got {z.shape}")
    if selected is not None and not 0 <= selected < n:
        raise ValueError(f"selected {selected} is outside 0..{n - 1}")
    s = base.scale(presenter)
    y = -np.arange(n, dtype=float)
    data = _weight_lines(z, y, s, presenter, selected)
    data.append(  # an invisible point that puts the right axis on the figure
        dict(
            type="scatter",
            x=[0.5],
            y=[0.0],
            yaxis="y2",
            mode="markers",
            hoverinfo="skip",
            showlegend=False,
            marker=dict(opacity=0),
        )
    )
    layout = _lines_layout(tokens, y, s, presenter, selected, title, left_title, right_title)
    # one construction: plotly validates every add_trace / update call separately
    return go.Figure(data=data, layout=layout)


def _weight_lines(
    z: np.ndarray, y: np.ndarray, s: base.Scale, presenter: bool, selected: int | None
) -> list[dict]:
    """:func:`attention_lines`' lines: one trace per width bin (and, with a ``selected``
    word, per "its lines or the others'"), a line from left i to right j for each weight
    (i, j) in the bin."""
    n = len(y)
    accent = base.HIGHLIGHT
    data: list[dict] = []
    edges = list(_WIDTH_BINS) + [1.01]
    for b in range(len(_WIDTH_BINS)):
        lo, hi = edges[b], edges[b + 1]
        for chosen in (False, True):
            xs: list[float | None] = []
            ys: list[float | None] = []
            for i in range(n):
                if selected is not None and (i == selected) != chosen:
                    continue
                if selected is None and chosen:
                    continue
                for j in np.flatnonzero((lo <= z[i]) & (z[i] < hi)):
                    xs += [0.0, 1.0, None]
                    ys += [y[i], y[j], None]
            if not xs:
                continue
            faint = selected is not None and not chosen
            data.append(
                dict(
                    type="scatter",
                    x=xs,
                    y=ys,
                    mode="lines",
                    hoverinfo="skip",
                    showlegend=False,
                    line=dict(
                        width=(1 + 2.5 * b) * (1.6 if presenter else 1.0),
                        color=accent if chosen else ("#BBBBBB" if faint else s.palette[2]),
                    ),
                    opacity=0.25 if faint else min(1.0, 0.35 + 0.15 * b),
                )
            )
    return data


def _lines_layout(
    tokens: Sequence[str],
    y: np.ndarray,
    s: base.Scale,
    presenter: bool,
    selected: int | None,
    title: str,
    left_title: str,
    right_title: str,
) -> dict:
    """:func:`attention_lines`' layout: the words as the tick labels of a left and a right
    axis, the two column titles above them, room for a title broken over lines."""
    n = len(tokens)
    # The words are the tick labels of a left and a right axis: plotly makes room for them
    # outside the plot, so a long word never runs into its twin on the other side (drawn
    # as text inside the plot, "because" at the left and "because" at the right touched in
    # a narrow column and read "becausbecause").
    bold = ["<b>" + t + "</b>" if i == selected else t for i, t in enumerate(tokens)]
    ticks = dict(
        tickvals=list(y),
        ticktext=bold,
        tickfont=dict(size=s.font + 2),
        showgrid=False,
        zeroline=False,
        showline=False,
        ticks="",
        range=[-n + 0.4, 0.8],
        fixedrange=True,
        automargin=True,
    )
    annotations = [
        dict(
            x=x,
            xref="x",
            y=1.0,
            yref="paper",
            yanchor="bottom",
            xanchor=anchor,
            text=f"<i>{text}</i>",
            showarrow=False,
            font=dict(size=s.font),
        )
        for x, anchor, text in ((0.0, "left", left_title), (1.0, "right", right_title))
        if text
    ]
    layout = dict(
        template=base.template(presenter),
        title_text=title,
        font=dict(family=base.FONT_FAMILY, size=s.font),
        height=max(s.height, int(110 + n * (s.font + 12))),
        xaxis=dict(visible=False, range=[-0.02, 1.02], fixedrange=True),
        yaxis=dict(side="left", **ticks),
        yaxis2=dict(side="right", overlaying="y", **ticks),
        annotations=annotations,
    )
    breaks = title.count("<br>")
    top = base.template_of(presenter).layout.margin.t
    layout["margin"] = dict(t=top + s.font * 2 + breaks * (s.title + 6))
    return layout


def _line_traces(x: np.ndarray, curves: Mapping[str, Sequence[float] | np.ndarray]) -> list[dict]:
    """The traces of ``charts.base.line_chart`` (one line with markers per named curve)."""
    if not curves:
        raise ValueError("curves is empty; pass {name: values} with at least one line")
    data = []
    for name, ys in curves.items():
        arr = np.asarray(ys, dtype=float)
        if arr.shape != x.shape or not np.all(np.isfinite(arr)):
            raise ValueError(f"{name!r}: pass {x.size} finite values, one per x")
        data.append(dict(type="scatter", x=x, y=arr, name=str(name), mode="lines+markers"))
    return data


def saturation_figure(
    dims: Sequence[int],
    curves: Mapping[str, Sequence[float] | np.ndarray],
    *,
    title: str,
    x_title: str,
    y_title: str,
    presenter: bool = False,
    marker_d: int | None = None,
    ceiling: float | None = None,
    ceiling_label: str = "",
) -> go.Figure:
    """Entropy (or largest weight) against d on a log axis, one line per score kind;
    ``marker_d`` draws the slider's d, ``ceiling`` a dashed line (e.g. log2(S) bits)."""
    x = np.asarray(dims, dtype=float)
    if x.ndim != 1 or x.size == 0 or not np.all(x > 0):
        raise ValueError(f"dims must be a non-empty list of positive sizes, got {dims!r}")
    s = base.scale(presenter)
    shapes, annotations = [], []
    if marker_d is not None:
        shapes.append(
            dict(
                type="line",
                xref="x",
                x0=marker_d,
                x1=marker_d,
                yref="y domain",
                y0=0,
                y1=1,
                line=dict(color=s.palette[4], width=s.line, dash="dot"),
            )
        )
    if ceiling is not None:
        line = dict(color="#888888", width=max(1.0, s.line / 2), dash="dash")
        shapes.append(base.hline(ceiling, line))
        if ceiling_label:
            annotations.append(base.hline_label(ceiling, ceiling_label))
    # one construction: plotly validates every update call separately
    return go.Figure(
        data=_line_traces(x, curves),
        layout=dict(
            template=base.template(presenter),
            title_text=title,
            xaxis=_axis(
                s, x_title, type="log", tickvals=list(dims), ticktext=[str(d) for d in dims]
            ),
            yaxis=_axis(s, y_title),
            legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0.0, font=dict(size=s.font)),
            # the title's line, then the legend's row above the plot: room for both
            margin=dict(t=round(3 * s.title + 4 * s.font)),
            font=dict(family=base.FONT_FAMILY, size=s.font),
            shapes=shapes,
            annotations=annotations,
        ),
    )


def bucket_lines(
    buckets: Sequence[str],
    series: Mapping[str, Sequence[float]],
    *,
    title: str,
    x_title: str,
    y_title: str,
    presenter: bool = False,
    names: Mapping[str, str] | None = None,
) -> go.Figure:
    """Accuracy per source-length bucket, one line per model (buckets as category labels).

    ``series`` is keyed by model; each line takes the model's one look from
    ``core.lexicon`` and its display name from ``names`` (model -> name)."""
    if not buckets:
        raise ValueError("buckets is empty; pass at least one length bucket")
    s = base.scale(presenter)
    x = np.arange(len(buckets), dtype=float)
    data = _line_traces(x, series)
    for trace, model in zip(data, series):
        trace["name"] = (names or {}).get(model, model)
        if lexicon.known(model):
            trace["line"] = lexicon.line(model, s.line)
            trace["marker"] = lexicon.marker(model, s.marker)
    return go.Figure(
        data=data,
        layout=dict(
            template=base.template(presenter),
            title_text=title,
            xaxis=_axis(s, x_title, tickvals=list(x), ticktext=list(buckets)),
            yaxis=_axis(s, y_title, range=[-0.03, 1.03]),
            # inside the plot, bottom left (where no line goes: every model starts high), so
            # a narrow screen never puts it on the title
            legend=dict(
                orientation="v",
                yanchor="bottom",
                y=0.02,
                xanchor="left",
                x=0.01,
                bgcolor="rgba(255,255,255,0.8)",
                font=dict(size=s.font),
            ),
            font=dict(family=base.FONT_FAMILY, size=s.font),
        ),
    )


def score_kinds_bars(
    labels: Sequence[str],
    weights: Mapping[str, Sequence[float] | np.ndarray],
    scores: Mapping[str, Sequence[float] | np.ndarray],
    *,
    title: str,
    x_title: str,
    y_title: str,
    hover: Mapping[str, str],
    presenter: bool = False,
    selected: str | None = None,
    even_label: str = "",
) -> go.Figure:
    """Grouped bars: the weight of every key (x) under each score function (one colour per
    entry of ``weights``, keyed by the trace name; ``scores`` holds the matching energies).

    ``hover`` gives the translated words for ``key``, ``score`` and ``weight``; the hover
    shows a bar's score and weight. ``selected`` (a trace name) is drawn solid, the others
    lighter; ``even_label`` adds a dashed line at 1/S (weights spread evenly).
    """
    missing = {"key", "score", "weight"} - set(hover)
    if missing:
        raise ValueError(f"hover needs the labels {sorted(missing)}")
    if set(weights) != set(scores):
        raise ValueError("weights and scores need the same names (one per score function)")
    if selected is not None and selected not in weights:
        raise ValueError(f"selected {selected!r} is not one of {sorted(weights)}")
    s = base.scale(presenter)
    xl = base.unique_labels(labels)
    data = [
        _score_kind_trace(i, name, xl, w, scores[name], hover, s, selected)
        for i, (name, w) in enumerate(weights.items())
    ]
    shapes, annotations = [], []
    if even_label and xl:
        even = 1.0 / len(xl)
        line = dict(color="#888888", width=max(1.0, s.line / 2), dash="dash")
        shapes.append(base.hline(even, line))
        annotations.append(base.hline_label(even, even_label, anchor="bottom"))
    # one construction: plotly validates every add_trace / update call separately
    return go.Figure(
        data=data,
        layout=dict(
            template=base.template(presenter),
            barmode="group",
            title_text=title,
            xaxis=_axis(s, x_title, type="category"),
            # weights live in [0, 1]; room for the labels
            yaxis=_axis(s, y_title, range=[0.0, 1.12]),
            # on the projector the long names (kind · H) go right of the plot, one a line
            legend=dict(orientation="v", yanchor="top", y=1.0, xanchor="left", x=1.01)
            if presenter
            else dict(orientation="h", yanchor="bottom", y=1.0, xanchor="left", x=0.0),
            font=dict(family=base.FONT_FAMILY, size=s.font),
            margin=dict(t=130 if presenter else 100),
            uniformtext=dict(minsize=max(8, s.font - 4), mode="hide"),
            shapes=shapes,
            annotations=annotations,
        ),
    )


def _score_kind_trace(
    i: int,
    name: str,
    xl: list[str],
    weights: Sequence[float] | np.ndarray,
    scores: Sequence[float] | np.ndarray,
    hover: Mapping[str, str],
    s: base.Scale,
    selected: str | None,
) -> dict:
    """The bars of score function ``name`` (the ``i``-th) in :func:`score_kinds_bars`."""
    w = np.asarray(weights, dtype=float)
    e = np.asarray(scores, dtype=float)
    if w.shape != (len(xl),) or e.shape != w.shape:
        raise ValueError(
            f"{name}: {len(xl)} labels need {len(xl)} weights and scores, "
            f"got {w.shape} and {e.shape}"
        )
    if not (np.isfinite(w).all() and np.isfinite(e).all()):
        raise ValueError(f"{name}: weights and scores must be finite")
    return dict(
        type="bar",
        x=xl,
        y=w,
        name=name,
        customdata=e,
        marker_color=s.palette[i % len(s.palette)],
        opacity=1.0 if selected in (None, name) else 0.45,
        text=[f"{x:.2f}" for x in w],
        textposition="outside",
        textfont=dict(size=max(s.font - 4, 12)),
        hovertemplate=(
            f"<b>{name}</b><br>{hover['key']}: %{{x}}<br>"
            f"{hover['score']}: %{{customdata:.3f}}<br>"
            f"{hover['weight']}: %{{y:.3f}}<extra></extra>"
        ),
    )


# ---------------------------------------------------------------------------------------
# The worked example in formulas: every step with the numbers substituted (KaTeX strings)
# ---------------------------------------------------------------------------------------


def _n(x: float, digits: int = 3) -> str:
    """A number for a formula: short, with a real minus sign, never ``-0``."""
    text = f"{round(float(x), digits) + 0.0:.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _big(x: float) -> str:
    """A possibly large positive number (an exponential) with 4 significant digits."""
    mantissa, _, exp = f"{x:.4g}".partition("e")
    return rf"{mantissa}	imes 10^{{{int(exp)}}}" if exp else mantissa


def _p(x: float) -> str:
    """A number as a factor: negative numbers in parentheses."""
    return f"({_n(x)})" if x < 0 else _n(x)


def _word(label: str) -> str:
    # Labels come from core.analysis.attention.TOY_WORDS: plain lower-case words. Anything
    # else is dropped so no text can reach KaTeX as a command.
    return r"\text{" + "".join(ch for ch in label if ch.isalnum()) + "}"


def _vec(v: Sequence[float] | np.ndarray) -> str:
    return "[" + ",\\ ".join(_n(x) for x in v) + "]"


def score_latex(
    kind: str,
    query: np.ndarray,
    keys: np.ndarray,
    energy: np.ndarray,
    labels: Sequence[str],
) -> str:
    """One line per key: the score e_j of ``kind`` with every product or tanh written out."""
    q, k = np.asarray(query, float), np.asarray(keys, float)
    if k.ndim != 2 or k.shape != (len(labels), q.size) or np.shape(energy) != (len(labels),):
        raise ValueError("keys (S, d), energy (S,) and labels (S) must match the query (d,)")
    d = q.size
    lines = []
    for lab, kj, e in zip(labels, k, energy):
        # each term braced: a line too wide for a phone wraps between terms, never inside one
        if kind == "additive":
            terms = " + ".join(rf"{{\tanh({_n(a)} + {_p(b)})}}" for a, b in zip(q, kj))
        else:
            terms = " + ".join(f"{{{_p(a)}\\cdot{_p(b)}}}" for a, b in zip(q, kj))
            if kind == "scaled":
                terms = rf"\big({terms}\big) / \sqrt{{{d}}}"
        lines.append(rf"e_{{{_word(lab)}}} = {terms} = \mathbf{{{_n(e)}}}")
    # one line per key at the top level (not an aligned block): a line wider than a phone
    # wraps after its + signs (ui.style lets display math wrap)
    return r" \\ ".join(lines)


def softmax_latex(
    energy: np.ndarray, weights: np.ndarray, labels: Sequence[str], temperature: float, j: int
) -> str:
    """The softmax of key ``j`` written out in two lines: the sum Z of every exp(e_k/τ), then
    exp(e_j/τ) / Z (the exponentials themselves are shown when they are small enough to read).
    Z on a line of its own: a line too wide for a phone wraps after a + of that sum."""
    e, w = np.asarray(energy, float), np.asarray(weights, float)
    if e.shape != w.shape or e.shape != (len(labels),) or not 0 <= j < e.size:
        raise ValueError("energy, weights and labels need one entry per key; j must be a key")
    tau = _n(temperature, 2)
    terms = [rf"e^{{{_n(x)}/{tau}}}" for x in e]
    z = e / temperature
    readable = np.abs(z).max() <= 30  # e^30 ~ 1e13: still a number a student can read
    total = rf"Z = \sum_k e^{{e_k/\tau}} = {' + '.join(terms)}"
    share = rf"\alpha_{{{_word(labels[j])}}} = \frac{{{terms[j]}}}{{Z}}"
    if readable:
        total += rf" = {_big(np.exp(z).sum())}"
        share += rf" = \frac{{{_big(np.exp(z[j]))}}}{{{_big(np.exp(z).sum())}}}"
    return rf"{total} \\ {share} = \mathbf{{{_n(w[j])}}}"


def context_latex(weights: np.ndarray, values: np.ndarray, labels: Sequence[str]) -> str:
    """The output as a weighted sum of the values, with the result: sum_j α_j v_j = [...]."""
    w, v = np.asarray(weights, float), np.asarray(values, float)
    if v.ndim != 2 or w.shape != (v.shape[0],) or len(labels) != w.size:
        raise ValueError("weights (S,), values (S, d_v) and labels (S) must match")
    terms = r" + ".join(f"{_n(a)}\\,{_vec(vj)}" for a, vj in zip(w, v))
    return rf"o = \sum_j \alpha_j v_j = {terms} = \mathbf{{{_vec(w @ v)}}}"


def model_score_latex(kind: str, d: int | None = None) -> str:
    """The score and softmax of a trained model's attention: additive (Bahdanau) over the
    decoder state and the encoder states, or dot / scaled dot with query size ``d``."""
    if kind == "additive":
        return (
            r"e_{ij} = v^\top \tanh(W s_{i-1} + U h_j) \\ "
            r"\alpha_{ij} = \frac{\exp(e_{ij}/\tau)}{\sum_k \exp(e_{ik}/\tau)}"
        )
    if kind not in ("dot", "scaled") or (kind == "scaled" and d is None):
        raise ValueError("kind is 'additive', 'dot' or 'scaled' (scaled needs the size d)")
    scale = r"\frac{q \cdot k_j}{\sqrt{d}},\ d = " + str(d)
    return (  # two lines: each fits a phone
        r"e_j = " + (r"q \cdot k_j" if kind == "dot" else scale) + r" \\ "
        r"\alpha_j = \frac{\exp(e_j/\tau)}{\sum_k \exp(e_k/\tau)}"
    )
