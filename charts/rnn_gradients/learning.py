"""What the fading does to learning: training curves (:func:`curves_figure`), held-out
accuracy against the distance a fact must travel (:func:`accuracy_figure`, its note placed
where no line runs, :func:`note_place`), and one gradient step against the learning rate,
with and without clipping (:func:`step_figure`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache

import numpy as np
import plotly.graph_objects as go

from charts import base
from charts.common import Titles
from charts.rnn_gradients.common import page_figure, page_layout, positive
from charts.screen.margins import TEXT_SIZE
from charts.screen.sizes import PHONE_WIDTH
from charts.screen.text import text_width, wrap
from core import lexicon

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


def _model_line(
    name: str, i: int, looks: Mapping[str, str], palette: Sequence[str]
) -> tuple[str | None, dict]:
    """The model series ``name`` is drawn as (``looks`` maps a series to a model of
    :mod:`core.lexicon`) and its line: the model's colour and dash, else the i-th colour of
    ``palette`` (series that are no model)."""
    model = looks.get(name)
    color = lexicon.look(model).color if model else palette[i % len(palette)]
    return model, dict(color=color, dash=lexicon.look(model).dash if model else None)


def curves_figure(
    curves: Mapping[str, Sequence[Sequence[float]]],
    *,
    column: int,
    titles: Titles,
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
    palette = base.SERIES
    traces = []
    for i, (name, rows) in enumerate(curves.items()):
        arr = np.asarray(rows, dtype=float)
        if arr.ndim != 2 or arr.shape[1] < 3 or arr.shape[0] == 0:
            raise ValueError(f"curve {name!r} must be rows of [step, loss, acc]")
        _, line = _model_line(name, i, looks or {}, palette)
        traces.append(
            go.Scatter(
                x=arr[:, 0],
                y=arr[:, column],
                name=str(name),
                mode="lines",
                line=line,
                marker=dict(color=line["color"]),
            )
        )
    yaxis = dict(type="log") if log_y else None
    if column == 2:  # accuracy: in percent, as on every chart
        yaxis = dict(yaxis or {}, tickformat=base.PERCENT)
    return page_figure(traces, presenter, titles, yaxis=yaxis)


def accuracy_figure(
    distances: Sequence[float],
    series: Mapping[str, Sequence[float]],
    *,
    chance: float,
    chance_label: str,
    titles: Titles,
    presenter: bool = False,
    looks: Mapping[str, str] | None = None,
    note: str | None = None,
    phone: bool = False,
    x_axis: Mapping[str, object] | None = None,
) -> go.Figure:
    """Accuracy against distance, one line per model, with the chance level dotted
    (``x_axis``: e.g. a range and ticks shared with another chart of the same distances);
    ``note`` (e.g. "LSTM and GRU overlap") is written inside the plot where no line runs
    through it (:func:`note_place`), or under the plot when there is no such place, and
    always with ``phone`` (a phone's plot is narrower than one line of it)."""
    xs = np.asarray(distances, dtype=float)
    if xs.ndim != 1 or xs.size == 0 or not np.all(np.isfinite(xs)):
        raise ValueError(f"distances must be a finite non-empty 1-D sequence, got {xs.shape}")
    if not series:
        raise ValueError("series is empty; pass {name: values} with at least one line")
    s = base.scale(presenter)
    traces = _accuracy_traces(xs, series, looks or {}, base.SERIES)
    lines = [np.asarray(t.y, dtype=float) for t in traces]
    notes, bottom = _accuracy_note(note, phone, s, xs, lines, chance, presenter)
    layout = page_layout(
        presenter,
        titles,
        yaxis=_accuracy_axis(),
        shapes=[_hline(chance, dict(dash="dot", color="#000000"), presenter)],
        annotations=[base.hline_label(chance, chance_label), *notes],
        **({"xaxis": dict(x_axis)} if x_axis else {}),
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
        model, line = _model_line(name, i, looks, palette)
        traces.append(
            go.Scatter(
                x=xs,
                y=arr,
                name=str(name),
                mode="lines+markers",
                line=line,
                marker=dict(
                    color=line["color"], symbol=lexicon.look(model).marker if model else None
                ),
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
    return base.vline(x, dict(color=color, width=base.scale(presenter).line / 2))


def _accuracy_axis() -> dict:
    """An accuracy axis: 0 to 105 % (room for the markers at 100 %)."""
    return dict(range=[0, 1.05], tickformat=".0%")


def step_figure(
    lrs: Sequence[float],
    before: float,
    plain: Sequence[float],
    clipped: Sequence[float],
    *,
    chosen: float,
    chance: float,
    labels: Mapping[str, str],
    titles: Titles,
    presenter: bool = False,
) -> go.Figure:
    """Held-out accuracy after ONE gradient step against the learning rate (log x): the
    unclipped and the clipped step, the accuracy before the step and chance as dotted
    lines, the chosen learning rate marked. ``labels``: "plain", "clipped", "before",
    "chance" (already translated)."""
    x = positive("lrs", lrs)
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
    rates = dict(type="log", tickvals=list(x), ticktext=[f"{v:g}" for v in x])
    return page_figure(
        traces,
        presenter,
        titles,
        xaxis=rates,
        yaxis=_accuracy_axis(),
        shapes=[
            _hline(before, dict(dash="dash", color="#000000"), presenter),
            _hline(chance, dict(dash="dot", color="#000000"), presenter),
            _vline(chosen, "#777777", presenter),
        ],
        annotations=[
            # at the right end: the unclipped step's line starts under it at the left
            base.hline_label(before, labels["before"]),
            base.hline_label(chance, labels["chance"], side="left", anchor="bottom"),
        ],
    )
