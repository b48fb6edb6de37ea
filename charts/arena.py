"""Figures of the model arena, built on the app's template, palette and presenter scale.

Builders take plain arrays and labels (from ``core.analysis.arena``), check them, and
raise a ``ValueError`` that says how to fix the call. No streamlit here.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from charts import base
from charts.common import Titles
from charts.html_look import MARK_CLASS
from charts.screen import sizes
from core import lexicon


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
    names: Mapping[str, str] | None,
    titles: Titles,
    presenter: bool,
    *,
    x_type: str | None = None,
    shapes: Sequence[Mapping] = (),
    annotations: Sequence[Mapping] = (),
) -> go.Figure:
    """One line per model in its one look (``core.lexicon``), named by ``names`` (display
    names; the model's key when absent)."""
    title, x_title, y_title = titles
    s = base.scale(presenter)
    names = dict(names or {})
    data = []
    n = len(series)
    for k, (model, ys) in enumerate(series.items()):
        label = names.get(model, model)
        # Equal curves (several models at 100%) would hide each other: earlier lines are
        # drawn wider with bigger markers, so each stays visible (and the page says so).
        width = s.line * (1 + 1.5 * (n - 1 - k) / max(1, n - 1))
        size = s.marker + round(6 * (n - 1 - k) / max(1, n - 1))
        known = lexicon.known(model)
        data.append(
            dict(
                type="scatter",
                x=list(x),
                y=[np.nan if v is None else v for v in ys],
                name=label,
                meta=model,  # the model's key, for tests and downloads
                mode="lines+markers",
                line=lexicon.line(model, width) if known else dict(width=width),
                marker=lexicon.marker(model, size) if known else dict(size=size),
                hovertemplate=f"{html.escape(label)}<br>%{{x}}: %{{y:.0%}}<extra></extra>",
            )
        )
    xaxis: dict = dict(title=dict(text=x_title))
    if x_type is not None:
        xaxis["type"] = x_type
    # one construction: plotly validates every add_trace / update call separately
    return go.Figure(
        data=data,
        layout=dict(
            template=base.template(presenter),
            title_text=title,
            xaxis=xaxis,
            yaxis=dict(title=dict(text=y_title), range=[-0.03, 1.03], tickformat=".0%"),
            # never on the title: at the right on a projector, under the plot otherwise
            # (a phone keeps the plot's width)
            legend=(
                dict(orientation="v", yanchor="top", y=1, xanchor="left", x=1.02)
                if presenter
                else dict(orientation="h", yanchor="top", y=-0.2, xanchor="left", x=0)
            ),
            height=s.height + (40 if presenter else 80),
            shapes=list(shapes),
            annotations=list(annotations),
        ),
    )


def accuracy_by_length(
    buckets: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    *,
    titles: Titles,
    names: Mapping[str, str] | None = None,
    presenter: bool = False,
) -> go.Figure:
    """Held-out accuracy per source-length bucket, one line per model (None = no data);
    ``names``: the models' display names."""
    _check_series(buckets, series)
    return _lines([str(b) for b in buckets], series, names, titles, presenter, x_type="category")


def accuracy_by_distance(
    distances: Sequence[int],
    series: Mapping[str, Sequence[float | None]],
    *,
    titles: Titles,
    chance: float | None = None,
    chance_label: str = "",
    names: Mapping[str, str] | None = None,
    presenter: bool = False,
) -> go.Figure:
    """Probe accuracy against the distance to recall, one line per architecture;
    ``names``: the probes' display names."""
    _check_series(distances, series)
    shapes, annotations = [], []
    if chance is not None:
        if not 0 <= chance <= 1:
            raise ValueError(f"chance must lie in [0, 1], got {chance}")
        line = dict(color="#777777", dash="dot", width=max(1.0, base.scale(presenter).line / 2))
        shapes.append(base.hline(chance, line))
        if chance_label:
            annotations.append(base.hline_label(chance, chance_label, side="left"))
    x = [int(d) for d in distances]
    return _lines(x, series, names, titles, presenter, shapes=shapes, annotations=annotations)


def sentence_bars(
    models: Sequence[str],
    values: Sequence[float | None],
    labels: Sequence[str],
    *,
    names: Mapping[str, str],
    title: str,
    x_title: str = "",
    presenter: bool = False,
) -> go.Figure:
    """One horizontal bar per model (first model on top) in the model's colour
    (``core.lexicon``): ``values`` in [0, 1] (``None``: not shown yet, an empty bar) and a
    text ``labels`` at the end of each bar (e.g. "100% ✓ exact", or "?")."""
    if not models:
        raise ValueError("models is empty; pass at least one model")
    if not (len(values) == len(labels) == len(models)):
        raise ValueError(
            f"got {len(models)} models, {len(values)} values and {len(labels)} labels; "
            "pass one value and one label per model"
        )
    for m, v in zip(models, values):
        if v is not None and not (np.isfinite(v) and -1e-9 <= v <= 1 + 1e-9):
            raise ValueError(f"value {v!r} of {m!r} is not in [0, 1]")
    s = base.scale(presenter)
    shown = [names.get(m, m) for m in models]
    return go.Figure(
        data=[
            dict(
                type="bar",
                orientation="h",
                y=shown,
                x=[0.0 if v is None else v for v in values],
                text=list(labels),
                textposition="auto",  # inside a long bar, after a short one
                insidetextanchor="end",
                cliponaxis=False,
                textfont=dict(size=s.font),
                marker=dict(
                    color=[
                        lexicon.look(m).color if lexicon.known(m) else "#888888" for m in models
                    ],
                    line=dict(color="rgba(0,0,0,0.35)", width=1),
                ),
                hovertemplate="%{y}: %{x:.0%}<extra></extra>",
            )
        ],
        layout=dict(
            template=base.template(presenter),
            title_text=title,
            xaxis=dict(
                title=dict(text=x_title),
                range=[0, 1.12],
                tickformat=".0%",
                tickvals=[0, 0.25, 0.5, 0.75, 1],
            ),
            yaxis=dict(type="category", autorange="reversed", automargin=True),
            showlegend=False,
            # plotly shrinks a bar's inside text to the bar's height: on the projector 22 px
            # came out at 16 px (seven bars in 280 px of plot), on a phone at ~10 px beside
            # 14 px outside a short bar. There the bars are thicker; everywhere every bar's
            # text has one size, never under the projector's (or a phone's) least
            bargap=0.12 if presenter else 0.25,
            uniformtext=dict(
                minsize=sizes.MIN_PROJECTOR_FONT if presenter else sizes.MIN_PHONE_FONT, mode="show"
            ),
            height=(420 if presenter else 330),
            margin=dict(l=10, r=10),
        ),
    )


def scroll_box(inner: str, label: str) -> str:
    """``inner`` HTML in a box that scrolls sideways on a narrow screen: focusable (a
    keyboard scrolls it too) and named ``label`` (escaped) for a screen reader."""
    name = f' role="region" aria-label="{html.escape(label)}"' if label else ""
    return f'<div tabindex="0"{name} class="road-scroll">{inner}</div>'


_ALIGN_CLASS = {"left": "", "center": ' class="c"', "right": ' class="r"'}


def table_html(
    header: Sequence[str], rows: Sequence[Sequence[str]], align: Sequence[str], *, label: str = ""
) -> str:
    """A plain table (for ``st.html``; its look: :mod:`~charts.html_look`) in its own
    sideways-scrolling box (:func:`scroll_box`, named ``label``), so a narrow phone screen
    scrolls the table, not the page. Every cell is HTML-escaped text; ``align`` is each
    column's "left", "center" or "right"."""
    if any(len(r) != len(header) for r in rows) or len(align) != len(header):
        raise ValueError(f"every row and align need {len(header)} cells, one per column")
    unknown = sorted(set(align) - set(_ALIGN_CLASS))
    if unknown:
        raise ValueError(f"align must be left, center or right, not {unknown}")
    cls = [_ALIGN_CLASS[a] for a in align]
    head = "".join(f"<th{c}>{html.escape(h)}</th>" for h, c in zip(header, cls))
    return scroll_box(
        f'<table class="road-table"><thead><tr>{head}</tr></thead><tbody>'
        f"{_rows_html(rows, cls)}</tbody></table>",
        label,
    )


_SEP = "\x1f"  # a control character (unit separator) no table text holds


def _rows_html(rows: Sequence[Sequence[str]], cls: Sequence[str]) -> str:
    """The table's rows as ``<tr>``s, each cell escaped. A chart's data table runs to 2,000
    cells, redrawn on every click: each row is escaped in one call (its cells joined by a
    separator no cell holds, then split again), and a row whose columns all align alike is
    joined in one pass, not a formatted string a cell."""
    uniform = len(set(cls)) == 1
    first = cls[0] if cls else ""
    start, inner, end = f"<tr><td{first}>", f"</td><td{first}>", "</td></tr>"
    out = []
    for r in rows:
        joined = _SEP.join(r)
        if joined.count(_SEP) == len(r) - 1:
            cells = html.escape(joined).split(_SEP)
        else:  # a cell holds the separator itself: cell by cell
            cells = [html.escape(x) for x in r]
        if uniform:
            out.append(start + inner.join(cells) + end)
        else:
            out.append("<tr>" + "".join(f"<td{c}>{x}</td>" for x, c in zip(cells, cls)) + "</tr>")
    return "".join(out)


def card_html(name: str, color: str, meta: str, body: str, lines: Sequence[str]) -> str:
    """One result card (for ``st.html``; its look: :mod:`~charts.html_look`): a colour
    swatch and the model's ``name`` (escaped) with ``meta`` (escaped, small), the ``body``
    (HTML already built from escaped text, e.g. :func:`strip_html`), then ``lines`` (escaped,
    small)."""
    small = '<span class="road-small">{}</span>'
    head = (
        f'<span style="color:{html.escape(color)}">&#9632;</span> <b>{html.escape(name)}</b>'
        f" · {small.format(html.escape(meta))}"
    )
    parts = [head, body] + [small.format(html.escape(x)) for x in lines]
    return '<div class="road-card">' + "<br>".join(parts) + "</div>"


def _grid(
    models: Sequence[str],
    tokens: Sequence[Sequence[str]],
    probs: Sequence[Sequence[float]],
    marks: Sequence[Sequence[str]] | None,
    mark_symbols: Mapping[str, str] | None,
) -> tuple[np.ndarray, list[list[str]]]:
    """The checked (models, positions) grid: probabilities (NaN past an output's end) and
    the cell texts (each word with the symbol of its mark)."""
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
    return z, text


def confidence_html(
    models: Sequence[str],
    tokens: Sequence[Sequence[str]],
    probs: Sequence[Sequence[float]],
    marks: Sequence[Sequence[str]] | None = None,
    *,
    mark_symbols: Mapping[str, str] | None = None,
    label: str = "",
) -> str:
    """The confidence grid as one small HTML table (for ``st.html``): one row per model, one
    column per output position, each word (with its mark) on the colour of its probability
    on the Cividis scale (dark blue = unsure, yellow = sure). One element that costs the
    server no Arrow conversion and the browser no table widget; a wide table scrolls
    sideways. Every word is HTML-escaped."""
    z, text = _grid(models, tokens, probs, marks, mark_symbols)
    ok = np.isfinite(z)
    colours = iter(base.sample_colors("Cividis", z[ok]) if ok.any() else [])
    head = "".join(f"<th>{c + 1}</th>" for c in range(z.shape[1]))
    rows = []
    for name, zs, words in zip(models, z, text):
        tds = []
        for p, word in zip(zs, words):
            if np.isfinite(p):  # white ink on the dark (unsure) half of the scale
                ink = "w" if p < 0.5 else "k"
                tds.append(f'<td class="{ink}" style="background:{next(colours)}">')
            else:
                tds.append("<td>")
            tds[-1] += f"{html.escape(word)}</td>"
        rows.append(f'<tr><th class="l">{html.escape(str(name))}</th>{"".join(tds)}</tr>')
    return scroll_box(
        f'<table class="road-grid"><thead><tr><th></th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>",
        label,
    )


def strip_html(
    tokens: Sequence[str],
    marks: Sequence[str] | None = None,
    *,
    mark_symbols: Mapping[str, str] | None = None,
) -> str:
    """One output as a row of HTML chips (for ``st.html``): each word, HTML-escaped, on the
    background of its mark and followed by the mark's symbol. Far cheaper for the browser
    to redraw than the same strip as Markdown colour directives."""
    if marks is not None and len(marks) != len(tokens):
        raise ValueError(f"got {len(marks)} marks for {len(tokens)} tokens; pass one per token")
    symbols = dict(mark_symbols or {})
    chips = []
    for i, tok in enumerate(tokens):
        mark = marks[i] if marks is not None else None
        cls = MARK_CLASS.get(mark, "none")
        sym = html.escape(symbols.get(mark, "")) if mark is not None else ""
        chips.append(f'<span class="road-chip {cls}"><code>{html.escape(tok)}</code>{sym}</span>')
    return "".join(chips)


def standalone_html(fig: go.Figure) -> str:
    """The figure as one self-contained HTML file (plotly.js inlined, no CDN: works offline)."""
    return fig.to_html(include_plotlyjs=True, full_html=True)
