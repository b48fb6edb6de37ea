"""How a gradient, and a word's influence, fade with distance in a recurrent network: the
measured norms on a log axis (:func:`decay_figure`), the eigenvalues of the recurrent matrix
that decide it (:func:`eigen_figure`), and a sentence's words by how much each moves the
final state (:func:`influence_strip`, :func:`fade_words_figure`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from charts import base
from charts.common import Titles
from charts.rnn_gradients.common import page_figure, positive
from core import lexicon

# Points of the unit and radius circles on the eigenvalue plane: a regular 60-gon strays
# from the true circle by r·(1 − cos 3°) ≈ 0.14 % of its radius, under half a pixel even at
# the presenter's size, and the browser draws 61 points instead of hundreds.
CIRCLE_POINTS = 61


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
    a model of :mod:`core.lexicon`), else the i-th colour of a series that is no model."""
    if looks and name in looks:
        return lexicon.line(looks[name], s.line)
    return dict(color=base.SERIES[i % len(base.SERIES)], width=s.line)


def _decay_traces(
    distance: Sequence[float] | np.ndarray,
    series: Mapping[str, Sequence[float] | np.ndarray],
    bound: tuple[str, Sequence[float] | np.ndarray] | None,
    presenter: bool,
    looks: Mapping[str, str] | None = None,
) -> list[dict]:
    """One line per cell (and ``bound`` dashed over them), checked; plain dicts, so that
    the figure validates them once."""
    d = base.vector("distance", distance)
    if not series:
        raise ValueError("series is empty; pass {cell name: norms}")
    s = base.scale(presenter)
    x = _x_of(d)
    traces = []
    for i, (name, values) in enumerate(series.items()):
        ys = _along(d, f"series[{name!r}]", values, prefix=True)
        xs = x if ys.size == d.size else _x_of(d[: ys.size])
        traces.append(_decay_line(xs, ys, str(name), _line(name, i, looks, s)))
    if bound is not None:
        label, values = bound
        dashed = dict(color="#000000", dash="longdashdot", width=s.line)
        traces.append(_decay_line(x, _along(d, "bound", values), label, dashed))
    return traces


def _along(
    d: np.ndarray, name: str, values: Sequence[float] | np.ndarray, prefix: bool = False
) -> np.ndarray:
    """``values`` checked for a log axis, one per distance of ``d`` (with ``prefix``, one per
    distance of its start: a model measured on shorter sequences stops where they end)."""
    ys = positive(name, values)
    if ys.size > d.size or (ys.size < d.size and not prefix):
        raise ValueError(f"{name} has {ys.size} values but distance has {d.size}")
    return ys


def _decay_line(x: dict, ys: np.ndarray, name: str, line: dict) -> dict:
    """One decay over the distances ``x`` (:func:`_x_of`), as a plain trace dict."""
    return dict(
        type="scatter",
        **x,
        y=ys,
        name=name,
        mode="lines",
        line=line,
        hovertemplate="T−t=%{x}<br>%{y:.3g}<extra>" + name + "</extra>",
    )


def decay_figure(
    distance: Sequence[float] | np.ndarray,
    series: Mapping[str, Sequence[float] | np.ndarray],
    *,
    titles: Titles,
    bound: tuple[str, Sequence[float] | np.ndarray] | None = None,
    presenter: bool = False,
    looks: Mapping[str, str] | None = None,
    x_axis: Mapping[str, object] | None = None,
) -> go.Figure:
    """Measured norms against distance T − t on a log y axis, one line per cell (a series
    may stop before the last distance); ``bound`` (label, values) is drawn dashed over them
    (e.g. ρ^(T−t)); ``looks`` {series: model}; ``x_axis`` e.g. a range and ticks shared with
    another chart of the same distances."""
    traces = _decay_traces(distance, series, bound, presenter, looks)
    # over a few decades plotly adds "2" and "5" between the powers of ten in a smaller font,
    # which crowded the decade labels and fell under 10 px on a phone: one tick per power of
    # ten there; over more decades plotly's own spacing keeps the labels apart
    ys = np.concatenate([np.asarray(tr["y"], dtype=float) for tr in traces])
    decades = float(np.log10(ys.max() / ys.min()))
    log = dict(type="log", exponentformat="power", **({"dtick": 1} if decades <= 6 else {}))
    extra = {"xaxis": dict(x_axis)} if x_axis else {}
    return page_figure(traces, presenter, titles, yaxis=log, **extra)


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
            line=dict(color=base.SERIES[1], width=s.line, dash="dash"),
            hoverinfo="skip",
            **axes,
        ),
        dict(
            type="scatter",
            x=ev.real,
            y=ev.imag,
            name=eig_label,
            mode="markers",
            # the untrained cell is a plain RNN: its family's look, never a trained model's
            marker=dict(
                color=lexicon.family_look("plain_rnn").color,
                symbol=lexicon.family_look("plain_rnn").marker,
                size=s.marker,
            ),
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
    titles: Titles,
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
    square = dict(range=[-lim, lim], zeroline=True)
    same_scale = dict(square, scaleanchor="x", scaleratio=1)
    return page_figure(traces, presenter, titles, xaxis=square, yaxis=same_scale)


def influence_strip(
    words: Sequence[str],
    values: Sequence[float] | np.ndarray,
    *,
    title: str,
    colorbar_title: str,
    presenter: bool = False,
) -> go.Figure:
    """One row of cells, one per word, coloured by log10 of the (unnormalised) influence."""
    vals = positive("values", values)
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


def fade_words_figure(
    words: Sequence[str],
    series: Mapping[str, Sequence[float] | np.ndarray],
    *,
    titles: Titles,
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
        ys = positive(f"series[{name!r}]", values)
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
    words = dict(type="category", tickangle=-60, automargin=True)
    share = dict(range=[0, 1.05], rangemode="tozero")
    return page_figure(traces, presenter, titles, xaxis=words, yaxis=share)
