"""Figures of the path-length page: Table 1 against n, and the paths between two words.

Builders take numbers, token lists and already-translated labels and return plotly
figures styled with the app template (``core.charts``). No streamlit here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

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
    # The chosen n as a dotted vertical line with its label at the top left of it: one
    # layout update (plotly's add_vline costs ~15 ms a call on every slider move).
    fig.update_layout(
        shapes=[
            dict(
                type="line",
                xref="x",
                yref="paper",
                x0=current_n,
                x1=current_n,
                y0=0,
                y1=1,
                line=dict(dash="dot", color="#777777"),
            )
        ],
        annotations=[
            dict(
                x=current_n,
                y=1,
                xref="x",
                yref="paper",
                xanchor="right",
                yanchor="top",
                text=current_label,
                showarrow=False,
                font=dict(size=max(10, s.font - 2)),
            )
        ],
        legend=dict(orientation="h", yanchor="top", y=-0.22, xanchor="left", x=0),
    )
    return fig


def _joined(lines: Sequence[Polyline]) -> tuple[list[int | None], list[int | None]]:
    """Polylines as one x and one y list, ``None`` between them (one trace, same drawing)."""
    xs: list[int | None] = []
    ys: list[int | None] = []
    for line in lines:
        if xs:
            xs.append(None)
            ys.append(None)
        xs += [p for p, _ in line]
        ys += [layer for _, layer in line]
    return xs, ys


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
    (e.g. "recurrent: 26 steps"). The panels are stacked y axes (``yaxis`` at the top) over
    one shared x axis of words (``xaxis``, drawn under the bottom panel), built in one go:
    ``make_subplots`` and per-panel updates cost ~10x more on every rerun.
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
    rows = len(archs)
    tops = {a: max(1, max(layer for line in paths[a] for _, layer in line)) for a in archs}
    # panel heights in proportion to their layers, top panel first, as make_subplots did
    gap = 0.09 if presenter else 0.07
    weights = [tops[a] + 1.5 for a in archs]
    unit = (1 - gap * (rows - 1)) / sum(weights)
    domains, top_edge = [], 1.0
    for w in weights:
        domains.append((max(0.0, top_edge - w * unit), top_edge))
        top_edge -= w * unit + gap
    faint = "#C8C8C8"
    a, b = pair
    data: list[go.Scatter] = []
    layout: dict = {}
    annotations = []
    for row, arch in enumerate(archs, start=1):
        top = tops[arch]
        yname = "y" if row == 1 else f"y{row}"
        color = s.palette[(row - 1) % len(s.palette)]  # the same colour as in table_chart
        line_x, line_y = _joined(paths[arch])
        data += [
            go.Scatter(
                x=np.tile(np.arange(n), top + 1),
                y=np.repeat(np.arange(top + 1), n),
                yaxis=yname,
                mode="markers",
                marker=dict(color=faint, size=max(4, s.marker - 3)),
                hoverinfo="skip",
                showlegend=False,
            ),
            go.Scatter(
                x=line_x,
                y=line_y,
                yaxis=yname,
                mode="lines+markers",
                line=dict(color=color, width=s.line + 1),
                marker=dict(color=color, size=s.marker),
                hoverinfo="skip",
                showlegend=False,
            ),
            go.Scatter(
                x=[a, b],
                y=[0, 0],
                yaxis=yname,
                mode="markers",
                marker=dict(color=s.palette[4], size=s.marker + 6, symbol="diamond"),
                hovertext=[tokens[a], tokens[b]],
                hoverinfo="text",
                showlegend=False,
            ),
        ]
        lo, hi = domains[row - 1]
        layout["yaxis" if row == 1 else f"yaxis{row}"] = dict(
            domain=[lo, hi],
            anchor="x",
            range=[-0.5, top + 0.5],
            tickmode="linear",
            dtick=1 if top <= 6 else max(1, top // 4),
            title=dict(text=layer_title if row == (rows + 1) // 2 else ""),
        )
        annotations.append(
            dict(
                text=titles[arch],
                x=0.5,
                y=hi,
                xref="paper",
                yref="paper",
                xanchor="center",
                yanchor="bottom",
                showarrow=False,
                font=dict(size=s.font + 1),
            )
        )
    bottom = "y" if rows == 1 else f"y{rows}"
    layout["xaxis"] = dict(
        anchor=bottom,
        tickmode="array",
        tickvals=list(range(n)),
        ticktext=tokens,
        range=[-0.6, n - 0.4],
        showgrid=False,
        tickangle=-60 if n > 12 else 0,
        tickfont=dict(size=max(10, s.font - (4 if n > 24 else 0))),
    )
    return go.Figure(
        data=data,
        layout=dict(
            template=charts.template(presenter),
            title=dict(text=title),
            height=int((260 if presenter else 190) * rows + 60),
            margin=dict(t=90 if presenter else 80),
            annotations=annotations,
            **layout,
        ),
    )
