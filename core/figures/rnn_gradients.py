"""Figures of the RNN-gradients page, on the app's template, palette and presenter scale.

Builders take arrays and already-translated labels, check them, and raise a ``ValueError``
that says how to fix the call. All norm axes are logarithmic and unnormalised.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from core import charts


def _positive(name: str, values: Sequence[float] | np.ndarray) -> np.ndarray:
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name} must be positive and finite for a log axis; clean it first")
    return arr


def _layout(fig: go.Figure, presenter: bool, title: str, x_title: str, y_title: str) -> None:
    fig.update_layout(
        template=charts.template(presenter),
        title_text=title,
        xaxis_title=x_title,
        yaxis_title=y_title,
        legend=dict(orientation="h", yanchor="top", y=-0.2, x=0),
    )
    if "<br>" in title:  # a two-line title (what, then on which model/data) needs room
        fig.update_layout(margin=dict(t=100 if presenter else 80))


def _recolor(fig: go.Figure, presenter: bool) -> None:
    """Series colours in the order rnn, lstm, gru on every chart of the page."""
    palette = charts.scale(presenter).palette
    for i, trace in enumerate(fig.data):
        color = palette[(i + 1) % len(palette)]
        trace.update(line=dict(color=color), marker=dict(color=color))


def decay_figure(
    distance: Sequence[float] | np.ndarray,
    series: Mapping[str, Sequence[float] | np.ndarray],
    *,
    title: str,
    x_title: str,
    y_title: str,
    bound: tuple[str, Sequence[float] | np.ndarray] | None = None,
    presenter: bool = False,
) -> go.Figure:
    """Measured norms against distance T − t on a log y axis, one line per cell; ``bound``
    (label, values) is drawn dashed over them (e.g. ρ^(T−t))."""
    d = np.asarray(distance, dtype=float)
    if d.ndim != 1 or d.size == 0:
        raise ValueError(f"distance must be a non-empty 1-D sequence, got shape {d.shape}")
    if not series:
        raise ValueError("series is empty; pass {cell name: norms}")
    s = charts.scale(presenter)
    fig = go.Figure()
    for i, (name, values) in enumerate(series.items()):
        ys = _positive(f"series[{name!r}]", values)
        if ys.shape != d.shape:
            raise ValueError(f"series[{name!r}] has {ys.size} values but distance has {d.size}")
        fig.add_trace(
            go.Scatter(
                x=d,
                y=ys,
                name=str(name),
                mode="lines",
                line=dict(color=s.palette[(i + 1) % len(s.palette)], width=s.line),
                hovertemplate="T−t=%{x}<br>%{y:.3g}<extra>" + str(name) + "</extra>",
            )
        )
    if bound is not None:
        label, values = bound
        ys = _positive("bound", values)
        if ys.shape != d.shape:
            raise ValueError(f"bound has {ys.size} values but distance has {d.size}")
        fig.add_trace(
            go.Scatter(
                x=d,
                y=ys,
                name=label,
                mode="lines",
                line=dict(color="#000000", dash="dash", width=s.line),
                hovertemplate="T−t=%{x}<br>%{y:.3g}<extra>" + label + "</extra>",
            )
        )
    _layout(fig, presenter, title, x_title, y_title)
    fig.update_yaxes(type="log", exponentformat="power")
    return fig


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
    ev = np.asarray(eigenvalues, dtype=complex)
    if ev.ndim != 1 or ev.size == 0 or not np.all(np.isfinite(ev)):
        raise ValueError("eigenvalues must be a non-empty 1-D sequence of finite numbers")
    if not radius > 0:
        raise ValueError(f"radius must be positive, got {radius}")
    s = charts.scale(presenter)
    theta = np.linspace(0, 2 * np.pi, 181)
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=np.cos(theta),
            y=np.sin(theta),
            name=unit_label,
            mode="lines",
            line=dict(color="#000000", width=s.line),
            hoverinfo="skip",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=radius * np.cos(theta),
            y=radius * np.sin(theta),
            name=radius_label,
            mode="lines",
            line=dict(color=s.palette[1], width=s.line, dash="dash"),
            hoverinfo="skip",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=ev.real,
            y=ev.imag,
            name=eig_label,
            mode="markers",
            marker=dict(color=s.palette[2], size=s.marker),
            customdata=np.abs(ev),
            hovertemplate="%{x:.3f} %{y:+.3f}i<br>|λ|=%{customdata:.3f}<extra></extra>",
        )
    )
    _layout(fig, presenter, title, x_title, y_title)
    lim = 1.1 * max(1.0, radius, float(np.max(np.abs(ev))))
    fig.update_xaxes(range=[-lim, lim], zeroline=True)
    fig.update_yaxes(range=[-lim, lim], zeroline=True, scaleanchor="x", scaleratio=1)
    return fig


def curves_figure(
    curves: Mapping[str, Sequence[Sequence[float]]],
    *,
    column: int,
    title: str,
    x_title: str,
    y_title: str,
    log_y: bool = False,
    presenter: bool = False,
) -> go.Figure:
    """Training curves from the manifest ([[step, loss, acc], ...] per model): ``column``
    1 for the loss, 2 for the accuracy, against the step."""
    if not curves:
        raise ValueError("curves is empty; pass {model name: [[step, loss, acc], ...]}")
    if column not in (1, 2):
        raise ValueError(f"column must be 1 (loss) or 2 (accuracy), got {column}")
    fig = go.Figure()
    for name, rows in curves.items():
        arr = np.asarray(rows, dtype=float)
        if arr.ndim != 2 or arr.shape[1] < 3 or arr.shape[0] == 0:
            raise ValueError(f"curve {name!r} must be rows of [step, loss, acc]")
        fig.add_trace(go.Scatter(x=arr[:, 0], y=arr[:, column], name=str(name), mode="lines"))
    _recolor(fig, presenter)
    _layout(fig, presenter, title, x_title, y_title)
    if log_y:
        fig.update_yaxes(type="log")
    return fig


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
) -> go.Figure:
    """Accuracy against distance, one line per model, with the chance level dotted."""
    fig = charts.line_chart(
        distances, series, title=title, x_title=x_title, y_title=y_title, presenter=presenter
    )
    _recolor(fig, presenter)
    fig.add_hline(
        y=chance,
        line=dict(dash="dot", color="#000000", width=charts.scale(presenter).line / 2),
        annotation_text=chance_label,
        annotation_position="bottom right",
    )
    fig.update_yaxes(range=[0, 1.05], tickformat=".0%")
    _layout(fig, presenter, title, x_title, y_title)
    return fig


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
    labels = charts._unique([str(w) for w in words])  # repeated words stay separate cells
    if len(labels) != vals.size:
        raise ValueError(f"{len(labels)} words but {vals.size} values; pass one value per word")
    s = charts.scale(presenter)
    logs = np.log10(vals)
    lo, hi = float(np.floor(logs.min())), float(np.ceil(logs.max()))
    hi = hi if hi > lo else lo + 1
    ticks = np.arange(lo, hi + 1)
    fig = go.Figure(
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
    )
    fig.update_layout(template=charts.template(presenter), title_text=title)
    fig.update_xaxes(type="category", tickangle=-60, showgrid=False, automargin=True)
    fig.update_yaxes(showticklabels=False, showgrid=False)
    fig.update_layout(height=s.height // 2 + 120)
    return fig


def explosion_figure(
    radii: Sequence[float],
    grad_norms: Sequence[float],
    *,
    chosen: float,
    clip: float,
    clip_label: str,
    title: str,
    x_title: str,
    y_title: str,
    presenter: bool = False,
) -> go.Figure:
    """Gradient norm of one loss against the recurrent weight scale (log y), the clipping
    threshold as a dotted line and the chosen scale marked."""
    r = np.asarray(radii, dtype=float)
    g = _positive("grad_norms", grad_norms)
    if r.shape != g.shape:
        raise ValueError(f"{r.size} radii but {g.size} gradient norms; pass one per radius")
    s = charts.scale(presenter)
    fig = go.Figure(
        go.Scatter(
            x=r,
            y=g,
            mode="lines+markers",
            name=y_title,
            showlegend=False,
            line=dict(color=s.palette[2]),
            hovertemplate="ρ=%{x}<br>%{y:.3g}<extra></extra>",
        )
    )
    fig.add_hline(
        y=clip,
        line=dict(dash="dot", color="#000000", width=s.line / 2),
        annotation_text=clip_label,
        annotation_position="top left",
    )
    fig.add_vline(x=chosen, line=dict(color=s.palette[1], width=s.line / 2))
    _layout(fig, presenter, title, x_title, y_title)
    fig.update_yaxes(type="log", exponentformat="power")
    return fig
