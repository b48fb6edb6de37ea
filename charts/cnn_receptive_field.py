"""Figures of the CNN receptive-field page: growing windows, measured gradients, probes.

Builders take arrays, token lists and already-translated labels, check them, and return
plotly figures styled with the app template (``charts.base``). No streamlit here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from charts import base, common
from charts.common import Titles


def _tokens_axis(tokens: Sequence[str], presenter: bool) -> dict:
    """Word positions on x, labelled with the words (repeated words stay distinct)."""
    n = len(tokens)
    s = base.scale(presenter)
    return dict(
        tickmode="array",
        tickvals=list(range(n)),
        ticktext=[str(t) for t in tokens],
        range=[-0.6, n - 0.4],
        tickangle=-60 if n > 12 else 0,
        # long sentences get slightly smaller words, never below 11 px (phones) or the
        # projector's floor (fit_projector raises anything under 18 px)
        tickfont=dict(size=max(11, s.font - (3 if n > 24 else 0))),
        showgrid=False,
    )


def _vline(x: float, **line) -> dict:
    """A vertical line across the plot as a layout shape (``add_vline`` without its
    ~15 ms of plotly bookkeeping per call)."""
    return dict(type="line", xref="x", yref="paper", x0=x, x1=x, y0=0, y1=1, line=line)


def _check_tokens(tokens: Sequence[str]) -> list[str]:
    tokens = [str(t) for t in tokens]
    if not tokens:
        raise ValueError("tokens is empty; pass the words of a sentence")
    return tokens


def window_figure(
    tokens: Sequence[str],
    wins: Sequence[tuple[int, int]],
    pair: tuple[int, int],
    *,
    titles: Titles,
    hover: str,
    pair_label: str,
    presenter: bool = False,
    phone: bool = False,
) -> go.Figure:
    """The window of one position at layers ``0..L`` as stacked bars, the word pair marked.
    ``phone``: the pair's label ends at its line, toward the middle (centred on it, as on a
    wider screen, it ran past the edge of a phone's narrow plot).

    ``wins``: ``(lo, hi)`` per layer (inclusive positions, layer 0 first). Bars whose window
    holds both words of ``pair`` get the highlight colour. ``hover`` is a format string with
    ``{layer}``, ``{lo}``, ``{hi}``, ``{width}``.
    """
    tokens = _check_tokens(tokens)
    n = len(tokens)
    if not wins:
        raise ValueError("wins is empty; pass one (lo, hi) window per layer, layer 0 first")
    for lo, hi in wins:
        if not 0 <= lo <= hi < n:
            raise ValueError(f"window ({lo}, {hi}) does not fit a sentence of {n} words")
    a, b = pair
    if not (0 <= a < n and 0 <= b < n):
        raise ValueError(f"pair {pair} is outside the sentence (0..{n - 1})")
    s = base.scale(presenter)
    both = [lo <= min(a, b) and max(a, b) <= hi for lo, hi in wins]
    colors = [base.HIGHLIGHT if ok else s.palette[2] for ok in both]
    bars = _window_bars(tokens, wins, colors, hover)
    layout = _window_layout(tokens, len(wins), pair, titles, pair_label, presenter, phone)
    return go.Figure(bars, layout=layout)


def _window_bars(
    tokens: list[str], wins: Sequence[tuple[int, int]], colors: list[str], hover: str
) -> go.Bar:
    """One horizontal bar per layer spanning its window (words lo..hi)."""
    return go.Bar(
        y=list(range(len(wins))),
        x=[hi - lo + 1 for lo, hi in wins],
        base=[lo - 0.5 for lo, _ in wins],
        orientation="h",
        marker_color=colors,
        width=0.7,
        hovertext=[
            hover.format(layer=l_, lo=tokens[lo], hi=tokens[hi], width=hi - lo + 1)
            for l_, (lo, hi) in enumerate(wins)
        ],
        hoverinfo="text",
        showlegend=False,
    )


def _window_layout(
    tokens: list[str],
    n_layers: int,
    pair: tuple[int, int],
    titles: Titles,
    pair_label: str,
    presenter: bool,
    phone: bool,
) -> dict:
    """The windows' axes, the pair's two dashed lines and its label."""
    s = base.scale(presenter)
    a, b = pair
    n = len(tokens)
    return common.titled_layout(
        presenter,
        titles,
        xaxis=_tokens_axis(tokens, presenter),
        yaxis=dict(tickmode="linear", dtick=1 if n_layers <= 12 else 2, range=[-0.6, None]),
        shapes=[_vline(p, dash="dash", width=s.line, color=s.palette[4]) for p in sorted({a, b})],
        annotations=[
            dict(
                x=max(a, b),
                y=1.0,
                yref="paper",
                yanchor="bottom",
                text=pair_label,
                showarrow=False,
                font=dict(color=s.palette[4], size=s.font),
                **({"xanchor": "right" if max(a, b) > (n - 1) / 2 else "left"} if phone else {}),
            )
        ],
        bargap=0.2,
        height=max(s.height, 120 + n_layers * (34 if presenter else 24)),
    )


def gradient_heatmap(
    field: np.ndarray,
    tokens: Sequence[str],
    wins: Sequence[tuple[int, int]],
    *,
    titles: Titles,
    colorbar: str,
    window_label: str,
    presenter: bool = False,
) -> go.Figure:
    """Measured field (L, S) as a heatmap, layer 1 at the bottom, with the theoretical
    window of each layer (``wins``: (lo, hi) for layers 1..L) drawn as its outline."""
    z = np.asarray(field, dtype=float)
    tokens = _check_tokens(tokens)
    if z.ndim != 2 or z.shape[1] != len(tokens):
        raise ValueError(f"field must be (layers, {len(tokens)}) for these tokens, got {z.shape}")
    if len(wins) != z.shape[0]:
        raise ValueError(f"pass one window per layer: {z.shape[0]} layers, {len(wins)} windows")
    if not np.all(np.isfinite(z)):
        raise ValueError("field contains NaN or infinity")
    s = base.scale(presenter)
    L = z.shape[0]
    xs, ys = [], []
    for layer, (lo, hi) in enumerate(wins, start=1):
        xs += [lo - 0.5, lo - 0.5, hi + 0.5, hi + 0.5, None]
        ys += [layer - 0.5, layer + 0.5, layer + 0.5, layer - 0.5, None]
    return go.Figure(
        [
            go.Heatmap(
                z=z,
                x=list(range(len(tokens))),
                y=list(range(1, L + 1)),
                zmin=0,
                zmax=1,
                colorscale="Cividis",
                colorbar=dict(title=dict(text=colorbar, side="right"), thickness=14),
                customdata=np.array([tokens] * L, dtype=object),
                hovertemplate="%{customdata} · %{y}: %{z:.2f}<extra></extra>",
            ),
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines",
                # a formula, not a model: white, clear on the dark cells it frames
                line=dict(color="#FFFFFF", width=s.line),
                name=window_label,
                hoverinfo="skip",
            ),
        ],
        layout=common.titled_layout(
            presenter,
            titles,
            xaxis=_tokens_axis(tokens, presenter),
            yaxis=dict(tickmode="linear", dtick=1, range=[0.5, L + 0.5]),
            legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1.0),
            height=max(s.height, 160 + L * (48 if presenter else 36)),
        ),
    )
