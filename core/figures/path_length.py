"""Figures of the path-length page: Table 1 against n, and the paths between two words.

Builders take numbers, token lists and already-translated labels and return plotly
figures styled with the app template (``core.charts``). No streamlit here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from core import charts

Polyline = Sequence[tuple[int, int]]  # (position, layer) points


def table_chart(
    ns: Sequence[int],
    series: Mapping[str, Sequence[float]],
    *,
    current_n: int,
    current_label: str,
    title: str,
    x_title: str,
    y_title: str,
    log_y: bool = False,
    presenter: bool = False,
) -> go.Figure:
    """One Table-1 metric against n (one line per layer type), the chosen n marked."""
    fig = charts.line_chart(
        ns,
        series,
        title=title,
        x_title=x_title,
        y_title=y_title,
        presenter=presenter,
        log_y=log_y,
        markers=False,
    )
    s = charts.scale(presenter)
    fig.add_vline(
        x=current_n,
        line_dash="dot",
        line_color="#777777",
        annotation_text=current_label,
        annotation_position="top left",
        annotation_font=dict(size=max(10, s.font - 2)),
    )
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.22, xanchor="left", x=0))
    return fig


def paths_figure(
    tokens: Sequence[str],
    paths: Mapping[str, Sequence[Polyline]],
    titles: Mapping[str, str],
    pair: tuple[int, int],
    *,
    title: str,
    layer_title: str,
    presenter: bool = False,
) -> go.Figure:
    """One panel per layer type: every node faint, the signal's path bold, the pair marked.

    ``paths[arch]``: polylines of (position, layer); ``titles[arch]``: the panel's title
    (e.g. "recurrent: 26 steps").
    """
    tokens = [str(t) for t in tokens]
    n = len(tokens)
    if n == 0:
        raise ValueError("tokens is empty; pass the words of a sentence")
    archs = list(paths)
    if not archs:
        raise ValueError("paths is empty; pass {layer type: polylines}")
    missing = [a for a in archs if a not in titles]
    if missing:
        raise ValueError(f"titles has no entry for {missing}")
    for arch in archs:
        for line in paths[arch]:
            for p, layer in line:
                if not 0 <= p < n or layer < 0:
                    raise ValueError(f"{arch}: point ({p}, {layer}) is outside the sentence")
    s = charts.scale(presenter)
    tops = {a: max(layer for line in paths[a] for _, layer in line) for a in archs}
    fig = make_subplots(
        rows=len(archs),
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.09 if presenter else 0.07,
        subplot_titles=[titles[a] for a in archs],
        row_heights=[max(1, tops[a]) + 1.5 for a in archs],
    )
    faint = "#C8C8C8"
    a, b = pair
    for row, arch in enumerate(archs, start=1):
        top = max(1, tops[arch])
        grid_x = np.tile(np.arange(n), top + 1)
        grid_y = np.repeat(np.arange(top + 1), n)
        fig.add_trace(
            go.Scatter(
                x=grid_x,
                y=grid_y,
                mode="markers",
                marker=dict(color=faint, size=max(4, s.marker - 3)),
                hoverinfo="skip",
                showlegend=False,
            ),
            row=row,
            col=1,
        )
        color = s.palette[(row - 1) % len(s.palette)]  # the same colour as in table_chart
        for line in paths[arch]:
            xs = [p for p, _ in line]
            ys = [layer for _, layer in line]
            fig.add_trace(
                go.Scatter(
                    x=xs,
                    y=ys,
                    mode="lines+markers",
                    line=dict(color=color, width=s.line + 1),
                    marker=dict(color=color, size=s.marker),
                    hoverinfo="skip",
                    showlegend=False,
                ),
                row=row,
                col=1,
            )
        fig.add_trace(
            go.Scatter(
                x=[a, b],
                y=[0, 0],
                mode="markers",
                marker=dict(color=s.palette[4], size=s.marker + 6, symbol="diamond"),
                hovertext=[tokens[a], tokens[b]],
                hoverinfo="text",
                showlegend=False,
            ),
            row=row,
            col=1,
        )
        fig.update_yaxes(
            range=[-0.5, top + 0.5],
            tickmode="linear",
            dtick=1 if top <= 6 else max(1, top // 4),
            title_text=layer_title if row == (len(archs) + 1) // 2 else "",
            row=row,
            col=1,
        )
    fig.update_annotations(font=dict(size=s.font + 1))
    fig.update_layout(
        template=charts.template(presenter),
        title_text=title,
        height=int((260 if presenter else 190) * len(archs) + 60),
        margin=dict(t=90 if presenter else 80),
    )
    fig.update_xaxes(
        tickmode="array",
        tickvals=list(range(n)),
        ticktext=tokens,
        range=[-0.6, n - 0.4],
        showgrid=False,
        tickangle=-60 if n > 12 else 0,
        tickfont=dict(size=max(10, s.font - (4 if n > 24 else 0))),
        row=len(archs),
        col=1,
    )
    return fig
