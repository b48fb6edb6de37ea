"""Figures of the model arena, built on the app's template, palette and presenter scale.

Builders take plain arrays and labels (from ``core.analysis.arena``), check them, and
raise a ``ValueError`` that says how to fix the call. No streamlit here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from core import charts

# Plain (attention-free) encoder-decoders are dashed, so the two families differ without
# colour too (print-outs, colour-blind viewers, a washed-out projector).
_DASHED_PREFIX = "gru_plain"
_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "cross", "star", "hexagon")
# Widest output whose words are still written inside the confidence cells.
MAX_TEXT_COLUMNS = 24
MAX_TEXT_COLUMNS_PRESENTER = 14


def _check_series(x: Sequence[object], series: Mapping[str, Sequence[float | None]]) -> None:
    if len(x) == 0:
        raise ValueError("x is empty; pass at least one bucket or distance")
    if not series:
        raise ValueError("series is empty; pass {model name: values} with at least one model")
    for name, ys in series.items():
        if len(ys) != len(x):
            raise ValueError(
                f"series[{name!r}] has {len(ys)} values but x has {len(x)}; "
                "pass one value (or None for a gap) per x"
            )
        for v in ys:
            if v is not None and not (np.isfinite(v) and -1e-9 <= v <= 1 + 1e-9):
                raise ValueError(f"series[{name!r}] has {v!r}; accuracies must lie in [0, 1]")


def _lines(
    x: Sequence[object],
    series: Mapping[str, Sequence[float | None]],
    *,
    title: str,
    x_title: str,
    y_title: str,
    presenter: bool,
) -> go.Figure:
    s = charts.scale(presenter)
    fig = go.Figure()
    n = len(series)
    for k, (name, ys) in enumerate(series.items()):
        # Equal curves (several models at 100%) would hide each other: earlier lines are
        # drawn wider and every model has its own marker, so each stays visible.
        width = s.line * (1 + 1.5 * (n - 1 - k) / max(1, n - 1))
        fig.add_trace(
            go.Scatter(
                x=list(x),
                y=[np.nan if v is None else v for v in ys],
                name=name,
                mode="lines+markers",
                line=dict(
                    color=s.palette[k % len(s.palette)],
                    width=width,
                    dash="dash" if name.startswith(_DASHED_PREFIX) else "solid",
                ),
                marker=dict(
                    size=s.marker + round(6 * (n - 1 - k) / max(1, n - 1)),
                    symbol=_SYMBOLS[k % len(_SYMBOLS)],
                ),
                hovertemplate=f"{name}<br>%{{x}}: %{{y:.0%}}<extra></extra>",
            )
        )
    fig.update_layout(
        template=charts.template(presenter),
        title_text=title,
        xaxis_title=x_title,
        yaxis_title=y_title,
        legend=dict(orientation="h", yanchor="top", y=-0.22, xanchor="left", x=0),
        height=s.height + (120 if presenter else 60),
    )
    fig.update_yaxes(range=[-0.03, 1.03], tickformat=".0%")
    return fig


def accuracy_by_length(
    buckets: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    *,
    title: str,
    x_title: str = "",
    y_title: str = "",
    presenter: bool = False,
) -> go.Figure:
    """Held-out accuracy per source-length bucket, one line per model (None = no data)."""
    _check_series(buckets, series)
    fig = _lines(
        [str(b) for b in buckets],
        series,
        title=title,
        x_title=x_title,
        y_title=y_title,
        presenter=presenter,
    )
    fig.update_xaxes(type="category")
    return fig


def accuracy_by_distance(
    distances: Sequence[int],
    series: Mapping[str, Sequence[float | None]],
    *,
    title: str,
    x_title: str = "",
    y_title: str = "",
    chance: float | None = None,
    chance_label: str = "",
    presenter: bool = False,
) -> go.Figure:
    """Probe accuracy against the distance to recall, one line per architecture."""
    _check_series(distances, series)
    fig = _lines(
        [int(d) for d in distances],
        series,
        title=title,
        x_title=x_title,
        y_title=y_title,
        presenter=presenter,
    )
    if chance is not None:
        if not 0 <= chance <= 1:
            raise ValueError(f"chance must lie in [0, 1], got {chance}")
        fig.add_hline(
            y=chance,
            line=dict(
                color="#777777", dash="dot", width=max(1.0, charts.scale(presenter).line / 2)
            ),
            annotation_text=chance_label,
            annotation_position="bottom left",
        )
    return fig


def confidence_grid(
    models: Sequence[str],
    tokens: Sequence[Sequence[str]],
    probs: Sequence[Sequence[float]],
    marks: Sequence[Sequence[str]] | None = None,
    *,
    title: str,
    x_title: str = "",
    presenter: bool = False,
    mark_symbols: Mapping[str, str] | None = None,
) -> go.Figure:
    """One row per model: its output tokens left to right, coloured by the probability the
    model gave each one (its confidence). ``marks`` (optional, one per token, e.g. "ok" /
    "wrong") add a symbol after each token from ``mark_symbols``."""
    if not models:
        raise ValueError("models is empty; pass at least one model row")
    if not (len(tokens) == len(probs) == len(models)):
        raise ValueError(
            f"got {len(models)} models, {len(tokens)} token rows and {len(probs)} probability "
            "rows; pass one row of each per model"
        )
    if marks is not None and len(marks) != len(models):
        raise ValueError(f"marks has {len(marks)} rows for {len(models)} models")
    width = max(1, max(len(t) for t in tokens))
    z = np.full((len(models), width), np.nan)
    text = [[""] * width for _ in models]
    symbols = dict(mark_symbols or {})
    for r, (toks, ps) in enumerate(zip(tokens, probs)):
        if len(toks) != len(ps):
            raise ValueError(
                f"row {r} ({models[r]}) has {len(toks)} tokens but {len(ps)} probabilities"
            )
        if marks is not None and len(marks[r]) != len(toks):
            raise ValueError(
                f"row {r} ({models[r]}) has {len(marks[r])} marks for {len(toks)} tokens"
            )
        for c, (tok, p) in enumerate(zip(toks, ps)):
            if not (np.isfinite(p) and 0 <= p <= 1):
                raise ValueError(f"probability {p!r} at row {r}, token {c} is not in [0, 1]")
            z[r, c] = p
            text[r][c] = tok + (symbols.get(marks[r][c], "") if marks is not None else "")
    s = charts.scale(presenter)
    # Words inside the cells only while they fit; longer outputs keep them in the hover.
    show_text = width <= (MAX_TEXT_COLUMNS_PRESENTER if presenter else MAX_TEXT_COLUMNS)
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=list(range(1, width + 1)),
            y=list(models),
            text=text,
            texttemplate="%{text}" if show_text else "",
            textfont=dict(size=max(10, s.font - 2)),
            zmin=0,
            zmax=1,
            colorscale="Cividis",
            hoverongaps=False,
            hovertemplate="%{y} · %{x}: %{text}<br>p = %{z:.2f}<extra></extra>",
            colorbar=dict(tickformat=".0%", thickness=14 if not presenter else 22),
        )
    )
    fig.update_layout(
        template=charts.template(presenter),
        title_text=title,
        xaxis_title=x_title,
        height=max(s.height // 2, 90 + len(models) * s.font * 3),
    )
    fig.update_xaxes(dtick=1 if width <= 30 else 5)
    fig.update_yaxes(type="category", autorange="reversed")
    return fig


def standalone_html(fig: go.Figure) -> str:
    """The figure as one self-contained HTML file (plotly.js inlined, no CDN: works offline)."""
    return fig.to_html(include_plotlyjs=True, full_html=True)
