"""Figures of the RNN-gradients page, on the app's template, palette and presenter scale.

Builders take arrays and already-translated labels, check them, and raise a ``ValueError``
that says how to fix the call. All norm axes are logarithmic and unnormalised.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache

import numpy as np
import plotly.graph_objects as go

from charts import base
from charts.screen.margins import TEXT_SIZE
from charts.screen.sizes import PHONE_WIDTH
from charts.screen.text import text_width, wrap
from core import lexicon

# Points of the unit and radius circles on the eigenvalue plane: a regular 60-gon strays
# from the true circle by r·(1 − cos 3°) ≈ 0.14 % of its radius, under half a pixel even at
# the presenter's size, and the browser draws 61 points instead of hundreds.
CIRCLE_POINTS = 61

# On a phone: the px a y axis's ticks and title take left of the plot, and the height of the
# x axis's ticks and title under it, in fonts (measured: ~45 px at 14 px)
_PHONE_Y_AXIS = 90
_X_AXIS_FONTS = 3.4
# The accuracy chart's plot area in px (width, height) at 1280 px, as its note's place is
# worked out for it (measured in Chromium on the learning part: 742 x 263 on a laptop,
# 1010 x 282 on the projector; a little less here, so a place found holds with some room),
# and the room plotly's autorange leaves beyond the first and last distance (a fraction of
# their span, measured 6.3 %).
_PLOT_PX = {False: (740.0, 255.0), True: (1010.0, 275.0)}
_X_PAD = 0.065


def _positive(name: str, values: Sequence[float] | np.ndarray) -> np.ndarray:
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name} must be positive and finite for a log axis; clean it first")
    return arr


def _layout_dict(presenter: bool, title: str, x_title: str, y_title: str, **extra) -> dict:
    """:func:`charts.base.layout` with this page's legend, in a row between the title
    and the plot, and the template's fonts."""
    extra = {"legend": dict(orientation="h", yanchor="bottom", y=1.02, x=0), **extra}
    out = base.layout(presenter, title, x_title, y_title, fonts=False, **extra)
    if "<br>" in title and "margin" not in extra:  # two title lines above the legend's row
        out["margin"] = dict(t=150 if presenter else 128)
    return out


def _x_of(d: np.ndarray) -> dict:
    """The x of a trace over distances ``d``: ``x0``/``dx`` when they are evenly spaced
    (0, 1, 2, … as every decay here is), so no per-point x array is sent and decoded for
    each line; the array itself otherwise."""
    step = float(d[1] - d[0]) if d.size > 1 else 1.0
    if step > 0 and np.array_equal(d, d[0] + step * np.arange(d.size)):
        return dict(x0=float(d[0]), dx=step)
    return dict(x=d)


def _line(name: str, i: int, looks: Mapping[str, str] | None, s: base.Scale) -> dict:
    """The line of series ``name``: the look of its model (``looks`` maps a series name to
    a model of :mod:`core.lexicon`), else the palette's i-th colour."""
    if looks and name in looks:
        return lexicon.line(looks[name], s.line)
    return dict(color=s.palette[(i + 1) % len(s.palette)], width=s.line)


def _decay_traces(
    distance: Sequence[float] | np.ndarray,
    series: Mapping[str, Sequence[float] | np.ndarray],
    bound: tuple[str, Sequence[float] | np.ndarray] | None,
    presenter: bool,
    looks: Mapping[str, str] | None = None,
) -> list[dict]:
    """One line per cell (and ``bound`` dashed over them), checked; plain dicts, so that
    the figure validates them once."""
    d = np.asarray(distance, dtype=float)
    if d.ndim != 1 or d.size == 0:
        raise ValueError(f"distance must be a non-empty 1-D sequence, got shape {d.shape}")
    if not series:
        raise ValueError("series is empty; pass {cell name: norms}")
    s = base.scale(presenter)
    x = _x_of(d)
    traces = []
    for i, (name, values) in enumerate(series.items()):
        ys = _positive(f"series[{name!r}]", values)
        if ys.shape != d.shape:
            raise ValueError(f"series[{name!r}] has {ys.size} values but distance has {d.size}")
        traces.append(
            dict(
                type="scatter",
                **x,
                y=ys,
                name=str(name),
                mode="lines",
                line=_line(name, i, looks, s),
                hovertemplate="T−t=%{x}<br>%{y:.3g}<extra>" + str(name) + "</extra>",
            )
        )
    if bound is not None:
        label, values = bound
        ys = _positive("bound", values)
        if ys.shape != d.shape:
            raise ValueError(f"bound has {ys.size} values but distance has {d.size}")
        traces.append(
            dict(
                type="scatter",
                **x,
                y=ys,
                name=label,
                mode="lines",
                line=dict(color="#000000", dash="longdashdot", width=s.line),
                hovertemplate="T−t=%{x}<br>%{y:.3g}<extra>" + label + "</extra>",
            )
        )
    return traces


def decay_figure(
    distance: Sequence[float] | np.ndarray,
    series: Mapping[str, Sequence[float] | np.ndarray],
    *,
    title: str,
    x_title: str,
    y_title: str,
    bound: tuple[str, Sequence[float] | np.ndarray] | None = None,
    presenter: bool = False,
    looks: Mapping[str, str] | None = None,
) -> go.Figure:
    """Measured norms against distance T − t on a log y axis, one line per cell; ``bound``
    (label, values) is drawn dashed over them (e.g. ρ^(T−t)); ``looks`` {series: model}."""
    return go.Figure(
        data=_decay_traces(distance, series, bound, presenter, looks),
        layout=_layout_dict(
            presenter, title, x_title, y_title, yaxis=dict(type="log", exponentformat="power")
        ),
    )


def _eigen_traces(
    ev: np.ndarray, radius: float, labels: tuple[str, str, str], presenter: bool, **axes: str
) -> tuple[list[dict], float]:
    """The unit circle, the circle of radius ``radius`` and the eigenvalues as traces (on
    the axes ``axes``, e.g. xaxis="x2"), and the half-width of a square view holding all."""
    ev = np.asarray(ev, dtype=complex)
    if ev.ndim != 1 or ev.size == 0 or not np.all(np.isfinite(ev)):
        raise ValueError("eigenvalues must be a non-empty 1-D sequence of finite numbers")
    if not radius > 0:
        raise ValueError(f"radius must be positive, got {radius}")
    eig_label, unit_label, radius_label = labels
    s = base.scale(presenter)
    theta = np.linspace(0, 2 * np.pi, CIRCLE_POINTS)
    cos, sin = np.cos(theta), np.sin(theta)  # (CIRCLE_POINTS,), closed: last = first
    traces = [
        dict(
            type="scatter",
            x=cos,
            y=sin,
            name=unit_label,
            mode="lines",
            line=dict(color="#000000", width=s.line),
            hoverinfo="skip",
            **axes,
        ),
        dict(
            type="scatter",
            x=radius * cos,
            y=radius * sin,
            name=radius_label,
            mode="lines",
            line=dict(color=s.palette[1], width=s.line, dash="dash"),
            hoverinfo="skip",
            **axes,
        ),
        dict(
            type="scatter",
            x=ev.real,
            y=ev.imag,
            name=eig_label,
            mode="markers",
            marker=dict(color=s.palette[2], size=s.marker),
            customdata=np.abs(ev),
            hovertemplate="%{x:.3f} %{y:+.3f}i<br>|λ|=%{customdata:.3f}<extra></extra>",
            **axes,
        ),
    ]
    return traces, 1.1 * max(1.0, radius, float(np.max(np.abs(ev))))


def eigen_figure(
    eigenvalues: Sequence[complex] | np.ndarray,
    *,
    radius: float,
    title: str,
    x_title: str,
    y_title: str,
    eig_label: str,
    unit_label: str,
    radius_label: str,
    presenter: bool = False,
) -> go.Figure:
    """Eigenvalues on the complex plane with the unit circle (solid) and the circle of the
    spectral radius (dashed). Equal axis scales, so circles look round."""
    traces, lim = _eigen_traces(
        eigenvalues, radius, (eig_label, unit_label, radius_label), presenter
    )
    return go.Figure(
        data=traces,
        layout=_layout_dict(
            presenter,
            title,
            x_title,
            y_title,
            xaxis=dict(range=[-lim, lim], zeroline=True),
            yaxis=dict(range=[-lim, lim], zeroline=True, scaleanchor="x", scaleratio=1),
        ),
    )


def curves_figure(
    curves: Mapping[str, Sequence[Sequence[float]]],
    *,
    column: int,
    title: str,
    x_title: str,
    y_title: str,
    log_y: bool = False,
    presenter: bool = False,
    looks: Mapping[str, str] | None = None,
) -> go.Figure:
    """Training curves from the manifest ([[step, loss, acc], ...] per model): ``column``
    1 for the loss, 2 for the accuracy, against the step."""
    if not curves:
        raise ValueError("curves is empty; pass {model name: [[step, loss, acc], ...]}")
    if column not in (1, 2):
        raise ValueError(f"column must be 1 (loss) or 2 (accuracy), got {column}")
    palette = base.scale(presenter).palette
    traces = []
    for i, (name, rows) in enumerate(curves.items()):
        arr = np.asarray(rows, dtype=float)
        if arr.ndim != 2 or arr.shape[1] < 3 or arr.shape[0] == 0:
            raise ValueError(f"curve {name!r} must be rows of [step, loss, acc]")
        model = (looks or {}).get(name)
        color = lexicon.look(model).color if model else palette[(i + 1) % len(palette)]
        traces.append(
            go.Scatter(
                x=arr[:, 0],
                y=arr[:, column],
                name=str(name),
                mode="lines",
                line=dict(color=color, dash=lexicon.look(model).dash if model else None),
                marker=dict(color=color),
            )
        )
    return go.Figure(
        data=traces,
        layout=_layout_dict(
            presenter, title, x_title, y_title, yaxis=dict(type="log") if log_y else None
        ),
    )


def accuracy_figure(
    distances: Sequence[float],
    series: Mapping[str, Sequence[float]],
    *,
    chance: float,
    chance_label: str,
    title: str,
    x_title: str,
    y_title: str,
    presenter: bool = False,
    looks: Mapping[str, str] | None = None,
    note: str | None = None,
    phone: bool = False,
) -> go.Figure:
    """Accuracy against distance, one line per model, with the chance level dotted;
    ``note`` (e.g. "LSTM and GRU overlap") is written inside the plot where no line runs
    through it (:func:`note_place`), or under the plot when there is no such place, and
    always with ``phone`` (a phone's plot is narrower than one line of it)."""
    xs = np.asarray(distances, dtype=float)
    if xs.ndim != 1 or xs.size == 0 or not np.all(np.isfinite(xs)):
        raise ValueError(f"distances must be a finite non-empty 1-D sequence, got {xs.shape}")
    if not series:
        raise ValueError("series is empty; pass {name: values} with at least one line")
    s = base.scale(presenter)
    traces = _accuracy_traces(xs, series, looks or {}, s.palette)
    lines = [np.asarray(t.y, dtype=float) for t in traces]
    notes, bottom = _accuracy_note(note, phone, s, xs, lines, chance, presenter)
    layout = _layout_dict(
        presenter,
        title,
        x_title,
        y_title,
        yaxis=dict(range=[0, 1.05], tickformat=".0%"),
        shapes=[_hline(chance, dict(dash="dot", color="#000000"), presenter)],
        annotations=[base.hline_label(chance, chance_label), *notes],
    )
    if bottom is not None:  # room under the plot for the note
        layout.setdefault("margin", {})["b"] = bottom
    return go.Figure(data=traces, layout=layout)


def _accuracy_traces(
    xs: np.ndarray,
    series: Mapping[str, Sequence[float]],
    looks: Mapping[str, str],
    palette: Sequence[str],
) -> list[go.Scatter]:
    """One line per model, in its lexicon look (else a palette colour)."""
    traces = []
    for i, (name, ys) in enumerate(series.items()):
        arr = np.asarray(ys, dtype=float)
        if arr.shape != xs.shape or not np.all(np.isfinite(arr)):
            raise ValueError(
                f"series[{name!r}] must hold one finite value per distance, got {arr.shape}"
            )
        model = looks.get(name)
        color = lexicon.look(model).color if model else palette[(i + 1) % len(palette)]
        traces.append(
            go.Scatter(
                x=xs,
                y=arr,
                name=str(name),
                mode="lines+markers",
                line=dict(color=color, dash=lexicon.look(model).dash if model else None),
                marker=dict(color=color, symbol=lexicon.look(model).marker if model else None),
            )
        )
    return traces


def _accuracy_note(
    note: str | None,
    phone: bool,
    s: base.Scale,
    xs: np.ndarray | None = None,
    lines: Sequence[np.ndarray] = (),
    chance: float = 0.0,
    presenter: bool = False,
) -> tuple[list[dict], int | None]:
    """The note as an annotation, inside the plot where no line runs through it
    (:func:`note_place`; ``xs`` and ``lines`` are the plotted values), else, and always on a
    phone, wrapped under the plot; and the bottom margin the latter needs (else ``None``)."""
    if not note:
        return [], None
    if not phone and xs is not None:
        inside = note_place(note, xs, lines, chance, presenter)
        if inside is not None:
            return [inside], None
    # under the x ticks and the axis title, from the plot's left edge, wrapped to it
    width = PHONE_WIDTH - _PHONE_Y_AXIS if phone else _PLOT_PX[presenter][0]
    text = wrap(note, s.font, width)
    below = _X_AXIS_FONTS * s.font
    n_lines = text.count("<br>") + 1
    where = dict(xref="paper", x=0, xanchor="left", align="left", yref="paper", y=0)
    note_below = dict(text=text, showarrow=False, yanchor="top", yshift=-below, **where)
    return [note_below], int(below + n_lines * s.font * 1.3 + 12)


def note_place(
    note: str,
    xs: np.ndarray,
    lines: Sequence[np.ndarray],
    chance: float,
    presenter: bool,
    y_max: float = 1.05,
) -> dict | None:
    """Where ``note`` goes inside the accuracy plot (y from 0 to ``y_max``): right-aligned
    at the plot's right edge, on as few lines as it can and, among those, as high as it can
    with no line or marker within half a marker and a line's width of its text, and above
    the chance line and its label. A search over every wrapping of the note into one to
    three lines and tops in steps of 1/40 of the axis, in px of the plot as the app draws
    it at 1280 px (:data:`_PLOT_PX`), the note in the size it is drawn in (the projector's
    font, else Streamlit's theme's). ``None`` when no place is free (then the note goes under
    the plot)."""
    s = base.scale(presenter)
    font = s.font if presenter else TEXT_SIZE
    width_px, height_px = _PLOT_PX[presenter]
    lo, hi = float(np.min(xs)), float(np.max(xs))
    pad = _X_PAD * ((hi - lo) or 1.0)  # plotly's autorange leaves room for the end markers
    x0, x1 = lo - pad, hi + pad
    to_px = np.array([width_px / (x1 - x0), height_px / y_max])
    clear = s.marker / 2 + s.line  # px kept free around the text
    # the plotted polylines, each point in px, densely sampled so a segment is caught
    sampled = []
    for ys in lines:
        pts = np.column_stack([xs, np.asarray(ys, dtype=float)])
        steps = np.linspace(0.0, 1.0, 25)[:-1, None]
        dense = [a + steps * (b - a) for a, b in zip(pts[:-1], pts[1:], strict=True)]
        sampled.append(np.vstack([*dense, pts[-1:]]) - [x0, 0.0])
    points = np.vstack(sampled) * to_px if sampled else np.zeros((0, 2))
    floor_px = chance * to_px[1] + 1.6 * font + clear  # the chance line's label hangs under it
    for text in _wrappings(note, font):
        n_lines = text.count("<br>") + 1
        box_w = text_width(text, font) + 2 * clear
        box_h = n_lines * font * 1.3 + 2 * clear
        left = width_px - box_w
        for top in np.arange(y_max * to_px[1], floor_px + box_h - 1e-9, -y_max * to_px[1] / 40):
            bottom = top - box_h
            inside = (points[:, 0] >= left) & (points[:, 1] >= bottom) & (points[:, 1] <= top)
            if not inside.any():
                return dict(
                    text=text,
                    showarrow=False,
                    xref="x domain",
                    x=1,
                    xanchor="right",
                    align="right",
                    yref="y",
                    y=round(float((top - clear) / to_px[1]), 4),
                    yanchor="top",
                    font=dict(size=font),
                )
    return None


@cache  # the same note and size on every rerun of the part: ~1.4 ms of wrapping each time
def _wrappings(note: str, font: float) -> tuple[str, ...]:
    """``note`` on one line, then wrapped into two and three lines, each as narrow as
    :func:`charts.screen.text.wrap` makes it on that many lines."""
    full = text_width(note, font)
    out: dict[int, str] = {1: note}
    for factor in np.linspace(1.0, 0.25, 31):  # narrower and narrower: the last one kept
        text = wrap(note, font, full * factor)
        if "<br>" in text:
            out[text.count("<br>") + 1] = text
    return tuple(out[n] for n in sorted(out) if n <= 3)


def _hline(y: float, line: dict, presenter: bool) -> dict:
    """:func:`charts.base.hline` at this page's width (half the scale's line)."""
    return base.hline(y, dict(line, width=base.scale(presenter).line / 2))


def _vline(x: float, color: str, presenter: bool) -> dict:
    """The chosen value's mark: a line up the whole plot at ``x``, half the scale's line."""
    return dict(
        type="line",
        xref="x",
        x0=x,
        x1=x,
        yref="y domain",
        y0=0,
        y1=1,
        line=dict(color=color, width=base.scale(presenter).line / 2),
    )


def influence_strip(
    words: Sequence[str],
    values: Sequence[float] | np.ndarray,
    *,
    title: str,
    colorbar_title: str,
    presenter: bool = False,
) -> go.Figure:
    """One row of cells, one per word, coloured by log10 of the (unnormalised) influence."""
    vals = _positive("values", values)
    labels = base.unique_labels(words)  # repeated words stay separate cells
    if len(labels) != vals.size:
        raise ValueError(f"{len(labels)} words but {vals.size} values; pass one value per word")
    s = base.scale(presenter)
    logs = np.log10(vals)
    lo, hi = float(np.floor(logs.min())), float(np.ceil(logs.max()))
    hi = hi if hi > lo else lo + 1
    ticks = np.arange(lo, hi + 1)
    return go.Figure(
        data=[
            go.Heatmap(
                z=[logs],
                x=labels,
                y=[""],
                zmin=lo,
                zmax=hi,
                colorscale="Cividis",
                customdata=[vals],
                hovertemplate="%{x}<br>%{customdata:.3g}<extra></extra>",
                colorbar=dict(
                    title=dict(text=colorbar_title, side="right"),
                    tickvals=ticks,
                    ticktext=[f"1e{int(k)}" for k in ticks],
                    thickness=12 if not presenter else 20,
                ),
            )
        ],
        layout=dict(
            template=base.template(presenter),
            title=dict(text=title),
            xaxis=dict(type="category", tickangle=-60, showgrid=False, automargin=True),
            yaxis=dict(showticklabels=False, showgrid=False),
            height=s.height // 2 + 120,
        ),
    )


def step_figure(
    lrs: Sequence[float],
    before: float,
    plain: Sequence[float],
    clipped: Sequence[float],
    *,
    chosen: float,
    chance: float,
    labels: Mapping[str, str],
    title: str,
    x_title: str,
    y_title: str,
    presenter: bool = False,
) -> go.Figure:
    """Held-out accuracy after ONE gradient step against the learning rate (log x): the
    unclipped and the clipped step, the accuracy before the step and chance as dotted
    lines, the chosen learning rate marked. ``labels``: "plain", "clipped", "before",
    "chance" (already translated)."""
    x = _positive("lrs", lrs)
    ys = {k: np.asarray(v, dtype=float) for k, v in (("plain", plain), ("clipped", clipped))}
    for k, v in ys.items():
        if v.shape != x.shape or not np.all(np.isfinite(v)):
            raise ValueError(f"{k} must hold one finite accuracy per learning rate")
    s = base.scale(presenter)
    look = dict(plain=("#E41A1C", "x", "solid"), clipped=("#6A3D9A", "circle", "solid"))
    traces = [
        go.Scatter(
            x=x,
            y=ys[k],
            name=labels[k],
            mode="lines+markers",
            line=dict(color=look[k][0], width=s.line, dash=look[k][2]),
            marker=dict(color=look[k][0], symbol=look[k][1], size=s.marker + 2),
            hovertemplate="lr=%{x}<br>%{y:.0%}<extra>" + labels[k] + "</extra>",
        )
        for k in ("plain", "clipped")
    ]
    return go.Figure(
        data=traces,
        layout=_layout_dict(
            presenter,
            title,
            x_title,
            y_title,
            xaxis=dict(type="log", tickvals=list(x), ticktext=[f"{v:g}" for v in x]),
            yaxis=dict(range=[0, 1.05], tickformat=".0%"),
            shapes=[
                _hline(before, dict(dash="dash", color="#000000"), presenter),
                _hline(chance, dict(dash="dot", color="#000000"), presenter),
                _vline(chosen, "#777777", presenter),
            ],
            annotations=[
                base.hline_label(before, labels["before"], side="left"),
                base.hline_label(chance, labels["chance"], side="left", anchor="bottom"),
            ],
            legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0),
        ),
    )


def fade_words_figure(
    words: Sequence[str],
    series: Mapping[str, Sequence[float] | np.ndarray],
    *,
    title: str,
    x_title: str,
    y_title: str,
    presenter: bool = False,
    looks: Mapping[str, str] | None = None,
) -> go.Figure:
    """How much each word of one sentence moves C, one line per model (values already
    divided by the model's largest, so 1 = its strongest word), words along x in order."""
    labels = base.unique_labels(words)  # repeated words stay separate points
    if not series:
        raise ValueError("series is empty; pass {model name: influence per word}")
    s = base.scale(presenter)
    traces = []
    for i, (name, values) in enumerate(series.items()):
        ys = _positive(f"series[{name!r}]", values)
        if ys.size != len(labels):
            raise ValueError(f"series[{name!r}] has {ys.size} values for {len(labels)} words")
        traces.append(
            dict(
                type="scatter",
                x=labels,
                y=ys,
                name=str(name),
                mode="lines+markers",
                line=_line(name, i, looks, s),
                marker=(
                    lexicon.marker(looks[name], s.marker)
                    if looks and name in looks
                    else dict(size=s.marker)
                ),
                hovertemplate="%{x}<br>%{y:.2f}<extra>" + str(name) + "</extra>",
            )
        )
    return go.Figure(
        data=traces,
        layout=_layout_dict(
            presenter,
            title,
            x_title,
            y_title,
            xaxis=dict(type="category", tickangle=-60, automargin=True),
            yaxis=dict(range=[0, 1.05], rangemode="tozero"),
        ),
    )
