"""Figures of the path-length page: Table 1 against n, the paths between two words, the
distance probes (shared with the CNN page) and the lesson's three problems side by side.

Builders take numbers, token lists and already-translated labels and return plotly
figures styled with the app template (``charts.base``). Models and probes are drawn with
their one look from ``core.lexicon``; the layer types of Table 1 take the look of the probe
that embodies them (self-attention, recurrent, convolution), so a colour means the same
thing in every part of the page. No streamlit here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from charts import base, common
from charts.common import Titles
from charts.screen import sizes
from charts.screen.text import wrap
from core import lexicon

Polyline = Sequence[tuple[int, int]]  # (position, layer) points

# Each layer type of Table 1 in its family's look (core.lexicon: the hue of the models of
# that kind, a marker no model uses); the dilated stack has no model, so it is grey.
ARCH_FAMILY: dict[str, str] = {
    "self_attention": "self_attention",
    "recurrent": "plain_rnn",
    "conv": "cnn",
    "conv_dilated": "dilated_cnn",
}
NEUTRAL = "#9A9A9A"  # a series that is a formula, not any model (e.g. equal shares)


def arch_look(arch: str) -> lexicon.Look:
    """The look of a Table-1 layer type (``core.analysis.path_length.ARCHITECTURES``)."""
    if arch in ARCH_FAMILY:
        return lexicon.family_look(ARCH_FAMILY[arch])
    raise ValueError(f"unknown layer type {arch!r}; use one of {list(ARCH_FAMILY)}")


def table_chart(
    ns: Sequence[int],
    series: Mapping[str, Sequence[float]],
    *,
    current_n: int,
    current_label: str,
    titles: Titles,
    log_y: bool = False,
    looks: Mapping[str, lexicon.Look] | None = None,
    presenter: bool = False,
) -> go.Figure:
    """One Table-1 metric against n (one line per layer type), the chosen n marked.
    ``looks``: series name -> its look (see :func:`arch_look`)."""
    fig = common.look_lines(ns, series, looks or {}, titles, presenter, log_y=log_y)
    s = base.scale(presenter)
    # the chosen n, marked (and the legend placed) in one layout update
    base.vmark(
        fig,
        current_n,
        current_label,
        font_size=s.font - 2 if not presenter else s.font,
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
    colors: Mapping[str, str] | None = None,
    presenter: bool = False,
    phone: bool = False,
) -> go.Figure:
    """One panel per layer type: every node faint, the signal's path bold, the pair marked.
    ``phone``: the words under the panels as a phone can read them (:func:`_words_axis`).

    ``paths[arch]``: polylines of (position, layer); ``titles[arch]``: the panel's title
    (e.g. "recurrent: 26 steps"). The panels are stacked y axes (``yaxis`` at the top) over
    one shared x axis of words (``xaxis``, drawn under the bottom panel), built in one go:
    ``make_subplots`` and per-panel updates cost ~10x more on every rerun.
    """
    tokens = [str(t) for t in tokens]
    archs = _check_paths(tokens, paths, titles)
    s = base.scale(presenter)
    rows = len(archs)
    tops = {a: max(1, max(layer for line in paths[a] for _, layer in line)) for a in archs}
    domains = _panel_domains([tops[a] for a in archs], presenter)
    data: list[go.Scatter] = []
    layout: dict = {}
    annotations = []
    for row, arch in enumerate(archs, start=1):
        top = tops[arch]
        yname = "y" if row == 1 else f"y{row}"
        # the same colour as in table_chart
        color = (colors or {}).get(arch) or base.SERIES[(row - 1) % len(base.SERIES)]
        data += _path_traces(tokens, paths[arch], top, yname, color, pair, s)
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
    anchor = "y" if rows == 1 else f"y{rows}"
    layout["xaxis"] = _words_axis(tokens, anchor, s, pair if phone else None)
    return go.Figure(
        data=data,
        layout=dict(
            template=base.template(presenter),
            title=dict(text=title),
            height=int((260 if presenter else 190) * rows + 60),
            margin=dict(t=90 if presenter else 80),
            annotations=annotations,
            **layout,
        ),
    )


def _check_paths(
    tokens: list[str], paths: Mapping[str, Sequence[Polyline]], titles: Mapping[str, str]
) -> list[str]:
    """The layer types of ``paths``, after checking that every point lies on the sentence."""
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
    return archs


def _panel_domains(tops: Sequence[int], presenter: bool) -> list[tuple[float, float]]:
    """The paper y domain of each panel, top first, heights in proportion to its layers
    (as make_subplots did)."""
    gap = 0.09 if presenter else 0.07
    weights = [top + 1.5 for top in tops]
    # the top panel's title sits above its domain, under the figure's title: leave it a gap
    unit = (1 - gap * len(tops)) / sum(weights)
    domains, top_edge = [], 1.0 - gap
    for w in weights:
        domains.append((max(0.0, top_edge - w * unit), top_edge))
        top_edge -= w * unit + gap
    return domains


def _path_traces(
    tokens: list[str],
    lines: Sequence[Polyline],
    top: int,
    yname: str,
    color: str,
    pair: tuple[int, int],
    s: base.Scale,
) -> list[go.Scatter]:
    """One panel's traces: every node faint, the path bold, the pair as two diamonds."""
    n = len(tokens)
    a, b = pair
    line_x, line_y = _joined(lines)
    return [
        go.Scatter(
            x=np.tile(np.arange(n), top + 1),
            y=np.repeat(np.arange(top + 1), n),
            yaxis=yname,
            mode="markers",
            marker=dict(color="#C8C8C8", size=max(4, s.marker - 3)),
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


def _words_axis(
    tokens: list[str], anchor: str, s: base.Scale, phone_pair: tuple[int, int] | None = None
) -> dict:
    """The shared x axis of words, drawn under the bottom panel (``anchor``). With
    ``phone_pair`` (a phone): at a phone's least size, the pair's two words and every
    ``step``-th other word where they do not run into each other (slanted words each take
    :data:`_SLANT` of their size along the axis; 27 words in 10-px type were a smear there).
    """
    n = len(tokens)
    text, size = list(tokens), max(10, s.font - (4 if n > 24 else 0))
    if phone_pair is not None:
        size = sizes.MIN_PHONE_FONT
        step = max(1, math.ceil(n * _SLANT * size / (sizes.PHONE_WIDTH - _PHONE_Y_AXIS)))
        keep = set(phone_pair) | {
            i for i in range(0, n, step) if all(abs(i - j) >= step for j in phone_pair)
        }
        text = [w if i in keep else "" for i, w in enumerate(tokens)]
    return dict(
        anchor=anchor,
        tickmode="array",
        tickvals=list(range(n)),
        ticktext=text,
        range=[-0.6, n - 0.4],
        showgrid=False,
        tickangle=-60 if n > 12 else 0,
        tickfont=dict(size=size),
    )


def probe_chart(
    distances: Sequence[float],
    series: Mapping[str, Sequence[float]],
    *,
    models: Mapping[str, str] | None = None,
    fields: Mapping[str, int] | None = None,
    together: Sequence[Sequence[str]] = (),
    together_label: str = "",
    joiner: str = ", ",
    chance: float | None = None,
    titles: Titles,
    field_label: str = "",
    chance_label: str = "",
    presenter: bool = False,
) -> go.Figure:
    """Accuracy against distance, one line per probe, each in its lexicon look.

    ``models`` maps a series to its model (``probe_rnn``...) for its name-independent look.
    ``fields`` maps a series to its receptive field: a dashed line in the series' colour
    marks the farthest distance it can see (field - 1); ``field_label`` may use ``{d}``.
    ``together``: groups of series drawn on top of each other (see
    ``core.analysis.distance_probes.overlaps``): their markers take turns along the shared
    line, so each legend entry stays visible, and ``together_label`` (may use ``{names}``)
    says so on the chart, next to the line. ``chance`` draws the guessing level.
    """
    names = list(series)
    if not names:
        raise ValueError("series is empty; pass {probe label: accuracy per distance}")
    for group in together:
        unknown = [g for g in group if g not in series]
        if unknown:
            raise ValueError(f"together names {unknown}, which are not series {names}")
    fig = base.line_chart(distances, series, **titles._asdict(), presenter=presenter)
    colors = _probe_looks(fig, models or {}, together, len(distances), presenter)
    shapes, annotations = _field_marks(fields or {}, names, colors, field_label, presenter)
    if together_label:
        annotations += _together_notes(together, series, together_label, joiner, presenter)
    if chance is not None:
        shapes.append(base.hline(chance, dict(dash="dot", color="#777777")))
        annotations.append(base.hline_label(chance, chance_label))
    fig.update_layout(  # one update: every add_vline / add_annotation call costs ~15 ms
        shapes=shapes,
        annotations=annotations,
        yaxis=dict(range=[0, 1.08], tickformat=".0%"),
        legend=dict(orientation="h", yanchor="top", y=-0.2, xanchor="left", x=0),
    )
    return fig


def longrange_chart(
    distances: Sequence[int],
    series: Mapping[str, Sequence[float]],
    *,
    models: Mapping[str, str],
    titles: Titles,
    together: Sequence[Sequence[str]] = (),
    together_label: str = "",
    joiner: str = ", ",
    presenter: bool = False,
) -> go.Figure:
    """The translation models' share right against distance (the lesson's long dependency):
    :func:`probe_chart`'s lines (``together``: lines on top of each other, said on the
    chart), without a field or a guessing level, with the legend right of the plot (seven
    models' names under it ran into the distance axis's title)."""
    fig = probe_chart(
        distances,
        series,
        models=models,
        together=together,
        together_label=together_label,
        joiner=joiner,
        titles=titles,
        presenter=presenter,
    )
    fig.update_layout(legend=dict(orientation="v", x=1.02, xanchor="left", y=1, yanchor="top"))
    return fig


def _probe_looks(
    fig: go.Figure,
    models: Mapping[str, str],
    together: Sequence[Sequence[str]],
    n_points: int,
    presenter: bool,
) -> dict[str, str]:
    """Each probe's line in its lexicon look (markers taking turns along a shared line);
    returns {series: colour}."""
    s = base.scale(presenter)
    colors: dict[str, str] = {}
    turn = {name: (i, len(g)) for g in together for i, name in enumerate(g)}
    for k, tr in enumerate(fig.data):
        model = models.get(tr.name)
        if model is not None and lexicon.known(model):
            lk = lexicon.look(model)
            colors[tr.name] = lk.color
            tr.line = dict(color=lk.color, dash=lk.dash, width=s.line)
            tr.marker = dict(color=lk.color, symbol=lk.marker, size=s.marker + 2)
        else:
            colors[tr.name] = base.SERIES[k % len(base.SERIES)]
        if tr.name in turn:  # markers take turns along a shared line
            i, m = turn[tr.name]
            tr.marker.size = [s.marker + 4 if j % m == i else 0 for j in range(n_points)]
    return colors


def _field_marks(
    fields: Mapping[str, int],
    names: list[str],
    colors: Mapping[str, str],
    field_label: str,
    presenter: bool,
) -> tuple[list[dict], list[dict]]:
    """A dashed line at the farthest distance each probe can see (field - 1), and its label."""
    s = base.scale(presenter)
    shapes, annotations = [], []
    for i, (name, rf) in enumerate(fields.items()):
        if name not in names:
            raise ValueError(f"fields has {name!r}, which is not one of the series {names}")
        color = colors[name]
        shapes.append(
            dict(
                type="line",
                xref="x",
                yref="paper",
                x0=rf - 1,
                x1=rf - 1,
                y0=0,
                y1=1,
                line=dict(dash="dash", width=max(1.0, s.line - 1), color=color),
            )
        )
        # labels on steps down the chart, so neighbouring lines do not print over each other
        annotations.append(
            dict(
                x=rf - 1,
                y=0.62 - 0.14 * (i % 4),
                text=field_label.format(d=rf - 1),
                showarrow=False,
                xanchor="left",
                xshift=4,
                bgcolor="rgba(255,255,255,0.85)",
                font=dict(color=color, size=s.font - 2 if not presenter else s.font),
            )
        )
    return shapes, annotations


def _together_notes(
    together: Sequence[Sequence[str]],
    series: Mapping[str, Sequence[float]],
    together_label: str,
    joiner: str,
    presenter: bool,
) -> list[dict]:
    """One note per group of lines drawn on top of each other, next to the shared line."""
    s = base.scale(presenter)
    notes = []
    for g, group in enumerate(together):
        level = float(np.mean(series[group[0]]))
        notes.append(
            dict(
                x=1,
                y=series[group[0]][-1],
                xref="paper",
                yref="y",
                xanchor="right",
                yanchor="top" if level > 0.5 else "bottom",
                yshift=-6 - 30 * g if level > 0.5 else 6,
                # wrapped to under half the plot, so it stays clear of the falling curves
                text=wrap(
                    together_label.format(names=joiner.join(group)),
                    s.font,
                    (sizes.PROJECTOR_WIDTH if presenter else 700) * 0.36,
                ),
                showarrow=False,
                bgcolor="rgba(255,255,255,0.85)",
                font=dict(size=s.font),
            )
        )
    return notes


def problems_figure(
    panels: Sequence[dict],
    *,
    title: str,
    presenter: bool = False,
    stacked: bool = False,
) -> go.Figure:
    """The lesson's three problems side by side: one small panel each; ``stacked`` (a
    phone): the same panels full width, one under the other, each title above its panel.

    Each panel is ``{"title", "x", "series": {label: values}, "looks": {label: Look},
    "kind": "bar" | "line", "x_title", "y_title", "y_range" (optional), "y_format"
    (optional)}``; panels share nothing but the legend (one entry per label).
    """
    if not panels:
        raise ValueError("panels is empty; pass one dict per problem")
    s = base.scale(presenter)
    cols = len(panels)
    gap = 0.09
    width = (1 - gap * (cols - 1)) / cols
    col_px = (sizes.PROJECTOR_WIDTH if presenter else 700) * width * 0.85
    if stacked:
        col_px = sizes.PHONE_WIDTH - _PHONE_Y_AXIS
        stack = _Stack(panels, s, col_px)
    data, annotations, layout = [], [], {}
    for c, panel in enumerate(panels):
        for key in ("title", "x", "series"):
            if key not in panel:
                raise ValueError(f"panel {c} has no {key!r}")
        lo = c * (width + gap)
        suffix = "" if c == 0 else str(c + 1)
        data += _panel_traces(c, panel, suffix, s)
        layout.update(_panel_axes(panel, suffix, (lo, width), stack.domain(c) if stacked else None))
        annotations.append(
            dict(
                text=wrap(panel["title"], s.font, col_px),
                x=0 if stacked else lo + width / 2,
                y=stack.domain(c)[1] if stacked else 1.02,
                xref="paper",
                yref="paper",
                xanchor="left" if stacked else "center",
                yanchor="bottom",
                showarrow=False,
                font=dict(size=s.font),
                **({"yshift": 8, "align": "left"} if stacked else {}),
            )
        )
    lines = max(a["text"].count("<br>") + 1 for a in annotations)
    if stacked:  # pixel sizes from the stack: panels one under the other, legend below
        legend_y = -stack.below / stack.area
        margin = dict(t=stack.top, b=stack.bottom(data))
        height = int(stack.area + stack.top + stack.bottom(data))
    else:
        legend_y = -0.32
        margin = dict(t=int(16 + lines * s.font * 1.3), b=140 if presenter else 120)
        height = s.height + (40 if presenter else 60)
    return go.Figure(
        data=data,
        layout=dict(
            template=base.template(presenter),
            title=dict(text=title),
            annotations=annotations,
            legend=dict(orientation="h", yanchor="top", y=legend_y, xanchor="left", x=0),
            margin=margin,
            height=height,
            bargap=0.35,
            **layout,
        ),
    )


def _panel_traces(c: int, panel: dict, suffix: str, s: base.Scale) -> list[go.BaseTraceType]:
    """Panel ``c``'s series: bars, or lines in each label's look (a formula in grey)."""
    xs = list(panel["x"])
    traces: list[go.BaseTraceType] = []
    for label, values in panel["series"].items():
        if len(values) != len(xs):
            raise ValueError(f"panel {c}: {label!r} has {len(values)} values for {len(xs)} x")
        lk = (panel.get("looks") or {}).get(label)
        color = lk.color if lk else NEUTRAL
        common = dict(x=xs, y=list(values), name=label, xaxis=f"x{suffix}", yaxis=f"y{suffix}")
        if panel.get("kind") == "bar":
            traces.append(go.Bar(marker=dict(color=color), showlegend=False, **common))
        else:
            traces.append(
                go.Scatter(
                    mode="lines+markers",
                    line=dict(color=color, dash=lk.dash if lk else "solid", width=s.line),
                    marker=dict(color=color, symbol=lk.marker if lk else "circle"),
                    **common,
                )
            )
    return traces


def _panel_axes(
    panel: dict, suffix: str, column: tuple[float, float], domain: list[float] | None
) -> dict:
    """A panel's x and y axes: side by side in ``column`` (left edge, width), or, stacked,
    full width at the y ``domain``."""
    stacked = domain is not None
    lo, width = column
    xs = list(panel["x"])
    # category labels along a narrow panel: slanted, so they do not run together (a
    # full-width panel has room: plotly slants them only if they would)
    angle = -35 if isinstance(xs[0], str) and panel.get("kind") != "bar" else 0
    return {
        f"xaxis{suffix}": dict(
            domain=[0, 1] if stacked else [round(lo, 4), min(1.0, round(lo + width, 4))],
            anchor=f"y{suffix}",
            title=dict(text=panel.get("x_title", "")),
            type="category" if panel.get("kind") == "bar" else "-",
            **({} if stacked else {"tickangle": angle}),  # stacked: plotly's "auto"
        ),
        f"yaxis{suffix}": dict(
            anchor=f"x{suffix}",
            title=dict(text=panel.get("y_title", "")),
            **({"range": panel["y_range"]} if "y_range" in panel else {}),
            **({"tickformat": panel["y_format"]} if "y_format" in panel else {}),
            **({"domain": domain} if stacked else {}),
        ),
    }


# On a phone: the px a y axis's ticks and title take left of a plot, and the height of an
# x axis's ticks and title under it, in fonts (~50 px at 14 px; slanted ticks need more)
_PHONE_Y_AXIS = 90
_X_AXIS_FONTS = 4.2
# px along the x axis a word slanted at -60 degrees takes, in its font size (its line's
# height over sin 60 degrees, measured: 12-px words in a row stop touching ~17 px apart)
_SLANT = 1.4


class _Stack:
    """Where the panels of a stacked :func:`problems_figure` go, in px of the plot area:
    a panel, then under it its x axis and the next panel's title, and so on."""

    def __init__(self, panels: Sequence[dict], s: base.Scale, col_px: float) -> None:
        self.font = s.font
        self.panel = 0.55 * s.height  # each panel's own height
        self.below = _X_AXIS_FONTS * s.font  # an x axis's ticks and title
        self.title_px = [
            (wrap(p["title"], s.font, col_px).count("<br>") + 1) * s.font * 1.3 + 12 for p in panels
        ]
        self.top = int(16 + self.title_px[0])  # the first panel's title, in the margin
        n = len(panels)
        self.area = n * self.panel + sum(self.below + t for t in self.title_px[1:])
        self.tops = [self.area]
        for t in self.title_px[1:]:
            self.tops.append(self.tops[-1] - self.panel - self.below - t)

    def domain(self, c: int) -> list[float]:
        """The paper y domain of panel ``c`` (0 at the top)."""
        top = self.tops[c]
        return [round((top - self.panel) / self.area, 4), round(top / self.area, 4)]

    def bottom(self, data: Sequence[go.BaseTraceType]) -> int:
        """The bottom margin: the last x axis, then the legend (its rows estimated from
        the width of its entries: a symbol and a label each)."""
        room = sizes.PHONE_WIDTH
        rows, used = 1, 0.0
        for trace in data:
            if trace.showlegend is False:
                continue
            wide = 50 + sum(
                self.font if ord(ch) > 0x2E80 else 0.56 * self.font for ch in trace.name
            )
            if used and used + wide > room:
                rows, used = rows + 1, 0.0
            used += wide
        return int(self.below + rows * self.font * 1.6 + 12)
