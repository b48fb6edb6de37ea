"""Figures of the attention page, built on ``core.charts`` (template, palette, presenter scale).

Builders take arrays and token lists, check them, and raise ``ValueError`` saying how to
fix the call. Every hover label text is passed in by the page, so it is translated.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from core import charts


def _matrix(name: str, m: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
    z = np.asarray(m, dtype=float)
    if z.ndim != 2 or 0 in z.shape:
        raise ValueError(f"{name} must be a non-empty 2-D array (rows, cols), got {z.shape}")
    if not np.all(np.isfinite(z)):
        raise ValueError(f"{name} contains NaN or infinity; pass finite attention weights")
    return z


def _labels(name: str, labels: Sequence[object], n: int) -> list[str]:
    out = [str(x) for x in labels]
    if len(out) != n:
        raise ValueError(f"{name} has {len(out)} entries for {n} rows/columns; pass one each")
    return out


def attention_heatmap(
    weights: Sequence[Sequence[float]] | np.ndarray,
    x_labels: Sequence[str],
    y_labels: Sequence[str],
    *,
    title: str,
    x_title: str,
    y_title: str,
    hover: Mapping[str, str],
    presenter: bool = False,
    highlight_row: int | None = None,
    show_values: bool = False,
) -> go.Figure:
    """Attention weights (rows = the attending words, columns = the attended words).

    ``hover`` gives the translated words for ``row``, ``col``, ``weight`` and ``sum``; the
    hover shows each cell's weight and its row's sum (1 for a softmax row).
    ``highlight_row`` draws a frame around one row (the current decoding step).
    """
    z = _matrix("weights", weights)
    missing = {"row", "col", "weight", "sum"} - set(hover)
    if missing:
        raise ValueError(f"hover needs the labels {sorted(missing)}")
    rows, cols = z.shape
    xl = _unique(_labels("x_labels", x_labels, cols))
    yl = _unique(_labels("y_labels", y_labels, rows))
    s = charts.scale(presenter)
    # one construction, as core.charts.heatmap draws it (plotly validates every call)
    trace = dict(
        type="heatmap",
        z=z,
        x=xl,
        y=yl,
        zmin=0.0,
        zmax=1.0,
        colorscale="Cividis",
        hoverongaps=False,
        customdata=np.repeat(z.sum(1, keepdims=True), cols, axis=1),  # each row's sum
        hovertemplate=(
            f"{hover['row']}: %{{y}}<br>{hover['col']}: %{{x}}<br>"
            f"{hover['weight']}: %{{z:.3f}}<br>{hover['sum']}: %{{customdata:.3f}}<extra></extra>"
        ),
        colorbar=dict(title=dict(text=hover["weight"])),
    )
    if show_values:
        trace.update(
            text=np.round(z, 2), texttemplate="%{text}", textfont=dict(size=max(10, s.font - 4))
        )
    shapes = []
    if highlight_row is not None:
        if not 0 <= highlight_row < rows:
            raise ValueError(f"highlight_row {highlight_row} is outside 0..{rows - 1}")
        shapes.append(
            dict(
                type="rect",
                xref="x",
                yref="y",
                x0=-0.5,
                x1=cols - 0.5,
                y0=highlight_row - 0.5,
                y1=highlight_row + 0.5,
                line=dict(color=s.palette[1] if presenter else "#EE6677", width=s.line + 1),
            )
        )
    return go.Figure(
        data=[trace],
        layout=dict(
            template=charts.template(presenter),
            # the x axis (source words and its title) sits on top: the chart title above it
            title=dict(text=title, yref="container", y=0.99, yanchor="top"),
            margin=dict(t=150 if presenter else 110),
            xaxis=dict(title=dict(text=x_title), type="category", side="top"),
            yaxis=dict(title=dict(text=y_title), type="category", autorange="reversed"),
            height=max(s.height, min(900, 40 + math.ceil(rows * s.font * 2.2))),
            shapes=shapes,
        ),
    )


def weight_bars(
    labels: Sequence[str],
    weights: Sequence[float] | np.ndarray,
    *,
    title: str,
    x_title: str,
    y_title: str,
    presenter: bool = False,
    reference: Sequence[float] | np.ndarray | None = None,
    reference_name: str = "",
    bars_name: str = "",
    signed: bool = False,
    highlight: int | bool | None = None,
    ceiling: float | None = None,
) -> go.Figure:
    """One bar per word (an attention row, a score vector or a difference of rows).

    The largest bar is coloured (or bar ``highlight``; none with ``highlight=False``);
    ``reference`` adds markers (e.g. the model's own weights) over the bars; ``signed``
    colours positive and negative bars apart; ``ceiling`` draws a dashed horizontal line.
    """
    w = np.asarray(weights, dtype=float)
    if w.ndim != 1 or w.size == 0:
        raise ValueError(f"weights must be a non-empty 1-D sequence, got shape {w.shape}")
    if not np.all(np.isfinite(w)):
        raise ValueError("weights contain NaN or infinity")
    if len(labels) != w.size:
        raise ValueError(f"{len(labels)} labels for {w.size} bars; pass one label per bar")
    s = charts.scale(presenter)
    xl = _unique([str(x) for x in labels])
    if signed:
        colors = [s.palette[1] if v > 0 else s.palette[2] for v in w]
    elif highlight is False:  # every bar alike
        colors = [s.palette[2]] * w.size
    else:
        top = int(np.argmax(w)) if highlight is None else highlight
        if not 0 <= top < w.size:
            raise ValueError(f"highlight {highlight} is outside 0..{w.size - 1}")
        colors = [s.palette[1] if i == top else s.palette[2] for i in range(w.size)]
    data: list[dict] = [
        dict(
            type="bar",
            x=xl,
            y=w,
            marker_color=colors,
            name=bars_name,
            showlegend=bool(reference_name),
        )
    ]
    if reference is not None:
        r = np.asarray(reference, dtype=float)
        if r.shape != w.shape:
            raise ValueError(f"reference has shape {r.shape} but weights have {w.shape}")
        data.append(
            dict(
                type="scatter",
                x=xl,
                y=r,
                mode="markers",
                name=reference_name,
                marker=dict(symbol="diamond", size=s.marker + 4, color=s.palette[0]),
            )
        )
    shapes = []
    if ceiling is not None:  # e.g. log2(S) bits: the most spread-out a row can be
        shapes.append(charts.hline(ceiling, dict(color="#888888", dash="dash")))
    # one construction: plotly validates every update call separately
    return go.Figure(
        data=data,
        layout=dict(
            template=charts.template(presenter),
            title_text=title,
            xaxis=dict(
                title=dict(text=x_title), type="category", tickangle=-45 if w.size > 8 else 0
            ),
            yaxis_title=y_title,
            legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1.0),
            shapes=shapes,
        ),
    )


def _unique(labels: list[str]) -> list[str]:
    """Repeated words stay separate bars (zero-width-space suffixes, as core.charts does)."""
    seen: dict[str, int] = {}
    out = []
    for lab in labels:
        k = seen.get(lab, 0)
        seen[lab] = k + 1
        out.append(lab + "\u200b" * k)
    return out


_WIDTH_BINS = (0.05, 0.1, 0.2, 0.4, 0.7)  # weights below the first bin get no line


def attention_lines(
    weights: Sequence[Sequence[float]] | np.ndarray,
    tokens: Sequence[str],
    *,
    title: str,
    presenter: bool = False,
    selected: int | None = None,
    left_title: str = "",
    right_title: str = "",
) -> go.Figure:
    """Self-attention drawn as BertViz does: each word twice (left: attending, right:
    attended), a line from left i to right j whose width and darkness grow with weight
    (i, j). Weights under 0.05 are not drawn. ``selected`` highlights one word's lines.
    """
    z = _matrix("weights", weights)
    n = len(tokens)
    if z.shape != (n, n):
        raise ValueError(f"weights must be ({n}, {n}) for {n} tokens, got {z.shape}")
    if selected is not None and not 0 <= selected < n:
        raise ValueError(f"selected {selected} is outside 0..{n - 1}")
    s = charts.scale(presenter)
    y = -np.arange(n, dtype=float)
    accent = s.palette[1] if presenter else "#EE6677"
    data: list[dict] = []
    edges = list(_WIDTH_BINS) + [1.01]
    for b in range(len(_WIDTH_BINS)):
        lo, hi = edges[b], edges[b + 1]
        for chosen in (False, True):
            xs: list[float | None] = []
            ys: list[float | None] = []
            for i in range(n):
                if selected is not None and (i == selected) != chosen:
                    continue
                if selected is None and chosen:
                    continue
                for j in np.flatnonzero((lo <= z[i]) & (z[i] < hi)):
                    xs += [0.0, 1.0, None]
                    ys += [y[i], y[j], None]
            if not xs:
                continue
            faint = selected is not None and not chosen
            data.append(
                dict(
                    type="scatter",
                    x=xs,
                    y=ys,
                    mode="lines",
                    hoverinfo="skip",
                    showlegend=False,
                    line=dict(
                        width=(1 + 2.5 * b) * (1.6 if presenter else 1.0),
                        color=accent if chosen else ("#BBBBBB" if faint else s.palette[2]),
                    ),
                    opacity=0.25 if faint else min(1.0, 0.35 + 0.15 * b),
                )
            )
    bold = ["<b>" + t + "</b>" if i == selected else t for i, t in enumerate(tokens)]
    for x, anchor in ((0.0, "right"), (1.0, "left")):
        data.append(
            dict(
                type="scatter",
                x=[x] * n,
                y=y,
                mode="text",
                text=bold,
                textposition=f"middle {anchor}",
                textfont=dict(size=s.font + 2),
                hoverinfo="skip",
                showlegend=False,
            )
        )
    annotations = [
        dict(x=x, y=0.75, text=f"<i>{text}</i>", showarrow=False, font=dict(size=s.font))
        for x, text in ((0.0, left_title), (1.0, right_title))
        if text
    ]
    layout = dict(
        template=charts.template(presenter),
        title_text=title,
        height=max(s.height, int(70 + n * (s.font + 12))),
        xaxis=dict(visible=False, range=[-0.9, 1.9], fixedrange=True),
        yaxis=dict(visible=False, range=[-n + 0.4, 0.8], fixedrange=True),
        annotations=annotations,
    )
    breaks = title.count("<br>")
    if breaks:  # a title broken for a narrow column gets the room of its extra lines
        top = charts.template(presenter).layout.margin.t
        layout["margin"] = dict(t=top + breaks * (s.title + 6))
    # one construction: plotly validates every add_trace / update call separately
    return go.Figure(data=data, layout=layout)


def _line_traces(x: np.ndarray, curves: Mapping[str, Sequence[float] | np.ndarray]) -> list[dict]:
    """The traces of ``core.charts.line_chart`` (one line with markers per named curve)."""
    if not curves:
        raise ValueError("curves is empty; pass {name: values} with at least one line")
    data = []
    for name, ys in curves.items():
        arr = np.asarray(ys, dtype=float)
        if arr.shape != x.shape or not np.all(np.isfinite(arr)):
            raise ValueError(f"{name!r}: pass {x.size} finite values, one per x")
        data.append(dict(type="scatter", x=x, y=arr, name=str(name), mode="lines+markers"))
    return data


def saturation_figure(
    dims: Sequence[int],
    curves: Mapping[str, Sequence[float] | np.ndarray],
    *,
    title: str,
    x_title: str,
    y_title: str,
    presenter: bool = False,
    marker_d: int | None = None,
    ceiling: float | None = None,
    ceiling_label: str = "",
) -> go.Figure:
    """Entropy (or largest weight) against d on a log axis, one line per score kind;
    ``marker_d`` draws the slider's d, ``ceiling`` a dashed line (e.g. log2(S) bits)."""
    x = np.asarray(dims, dtype=float)
    if x.ndim != 1 or x.size == 0 or not np.all(x > 0):
        raise ValueError(f"dims must be a non-empty list of positive sizes, got {dims!r}")
    s = charts.scale(presenter)
    shapes, annotations = [], []
    if marker_d is not None:
        shapes.append(
            dict(
                type="line",
                xref="x",
                x0=marker_d,
                x1=marker_d,
                yref="y domain",
                y0=0,
                y1=1,
                line=dict(color=s.palette[4], width=s.line, dash="dot"),
            )
        )
    if ceiling is not None:
        line = dict(color="#888888", width=max(1.0, s.line / 2), dash="dash")
        shapes.append(charts.hline(ceiling, line))
        if ceiling_label:
            annotations.append(charts.hline_label(ceiling, ceiling_label))
    # one construction: plotly validates every update call separately
    return go.Figure(
        data=_line_traces(x, curves),
        layout=dict(
            template=charts.template(presenter),
            title_text=title,
            xaxis=dict(
                title=dict(text=x_title),
                type="log",
                tickvals=list(dims),
                ticktext=[str(d) for d in dims],
            ),
            yaxis_title=y_title,
            legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0.0),
            shapes=shapes,
            annotations=annotations,
        ),
    )


def bucket_lines(
    buckets: Sequence[str],
    series: Mapping[str, Sequence[float]],
    *,
    title: str,
    x_title: str,
    y_title: str,
    presenter: bool = False,
) -> go.Figure:
    """Accuracy per source-length bucket, one line per model (buckets as category labels)."""
    if not buckets:
        raise ValueError("buckets is empty; pass at least one length bucket")
    x = np.arange(len(buckets), dtype=float)
    return go.Figure(
        data=_line_traces(x, series),
        layout=dict(
            template=charts.template(presenter),
            title_text=title,
            xaxis=dict(title=dict(text=x_title), tickvals=list(x), ticktext=list(buckets)),
            yaxis=dict(title=dict(text=y_title), range=[-0.03, 1.03]),
            legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0.0),
        ),
    )


def score_kinds_bars(
    labels: Sequence[str],
    weights: Mapping[str, Sequence[float] | np.ndarray],
    scores: Mapping[str, Sequence[float] | np.ndarray],
    *,
    title: str,
    x_title: str,
    y_title: str,
    hover: Mapping[str, str],
    presenter: bool = False,
    selected: str | None = None,
    even_label: str = "",
) -> go.Figure:
    """Grouped bars: the weight of every key (x) under each score function (one colour per
    entry of ``weights``, keyed by the trace name; ``scores`` holds the matching energies).

    ``hover`` gives the translated words for ``key``, ``score`` and ``weight``; the hover
    shows a bar's score and weight. ``selected`` (a trace name) is drawn solid, the others
    lighter; ``even_label`` adds a dashed line at 1/S (weights spread evenly).
    """
    missing = {"key", "score", "weight"} - set(hover)
    if missing:
        raise ValueError(f"hover needs the labels {sorted(missing)}")
    if set(weights) != set(scores):
        raise ValueError("weights and scores need the same names (one per score function)")
    if selected is not None and selected not in weights:
        raise ValueError(f"selected {selected!r} is not one of {sorted(weights)}")
    s = charts.scale(presenter)
    xl = _unique([str(x) for x in labels])
    data = []
    for i, (name, w) in enumerate(weights.items()):
        w = np.asarray(w, dtype=float)
        e = np.asarray(scores[name], dtype=float)
        if w.shape != (len(xl),) or e.shape != w.shape:
            raise ValueError(
                f"{name}: {len(xl)} labels need {len(xl)} weights and scores, "
                f"got {w.shape} and {e.shape}"
            )
        if not (np.isfinite(w).all() and np.isfinite(e).all()):
            raise ValueError(f"{name}: weights and scores must be finite")
        data.append(
            dict(
                type="bar",
                x=xl,
                y=w,
                name=name,
                customdata=e,
                marker_color=s.palette[i % len(s.palette)],
                opacity=1.0 if selected in (None, name) else 0.45,
                text=[f"{x:.2f}" for x in w],
                textposition="outside",
                hovertemplate=(
                    f"<b>{name}</b><br>{hover['key']}: %{{x}}<br>"
                    f"{hover['score']}: %{{customdata:.3f}}<br>"
                    f"{hover['weight']}: %{{y:.3f}}<extra></extra>"
                ),
            )
        )
    shapes, annotations = [], []
    if even_label and xl:
        even = 1.0 / len(xl)
        line = dict(color="#888888", width=max(1.0, s.line / 2), dash="dash")
        shapes.append(charts.hline(even, line))
        annotations.append(charts.hline_label(even, even_label, anchor="bottom"))
    # one construction: plotly validates every add_trace / update call separately
    return go.Figure(
        data=data,
        layout=dict(
            template=charts.template(presenter),
            barmode="group",
            title_text=title,
            xaxis=dict(title=dict(text=x_title), type="category"),
            # weights live in [0, 1]; room for the labels
            yaxis=dict(title=dict(text=y_title), range=[0.0, 1.12]),
            legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="left", x=0.0),
            margin=dict(t=130 if presenter else 100),
            uniformtext=dict(minsize=max(8, s.font - 4), mode="hide"),
            shapes=shapes,
            annotations=annotations,
        ),
    )


# ---------------------------------------------------------------------------------------
# The worked example in formulas: every step with the numbers substituted (KaTeX strings)
# ---------------------------------------------------------------------------------------


def _n(x: float, digits: int = 3) -> str:
    """A number for a formula: short, with a real minus sign, never ``-0``."""
    text = f"{round(float(x), digits) + 0.0:.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _big(x: float) -> str:
    """A possibly large positive number (an exponential) with 4 significant digits."""
    mantissa, _, exp = f"{x:.4g}".partition("e")
    return rf"{mantissa}	imes 10^{{{int(exp)}}}" if exp else mantissa


def _p(x: float) -> str:
    """A number as a factor: negative numbers in parentheses."""
    return f"({_n(x)})" if x < 0 else _n(x)


def _word(label: str) -> str:
    # Labels come from core.analysis.attention.TOY_WORDS: plain lower-case words. Anything
    # else is dropped so no text can reach KaTeX as a command.
    return r"\text{" + "".join(ch for ch in label if ch.isalnum()) + "}"


def _vec(v: Sequence[float] | np.ndarray) -> str:
    return "[" + ",\\ ".join(_n(x) for x in v) + "]"


def score_latex(
    kind: str,
    query: np.ndarray,
    keys: np.ndarray,
    energy: np.ndarray,
    labels: Sequence[str],
) -> str:
    """One line per key: the score e_j of ``kind`` with every product or tanh written out."""
    q, k = np.asarray(query, float), np.asarray(keys, float)
    if k.ndim != 2 or k.shape != (len(labels), q.size) or np.shape(energy) != (len(labels),):
        raise ValueError("keys (S, d), energy (S,) and labels (S) must match the query (d,)")
    d = q.size
    lines = []
    for lab, kj, e in zip(labels, k, energy):
        if kind == "additive":
            terms = " + ".join(rf"\tanh({_n(a)} + {_p(b)})" for a, b in zip(q, kj))
        else:
            terms = " + ".join(f"{_p(a)}\\cdot{_p(b)}" for a, b in zip(q, kj))
            if kind == "scaled":
                terms = rf"\big({terms}\big) / \sqrt{{{d}}}"
        lines.append(rf"e_{{{_word(lab)}}} &= {terms} = \mathbf{{{_n(e)}}}")
    return r"\begin{aligned}" + r" \\ ".join(lines) + r"\end{aligned}"


def softmax_latex(
    energy: np.ndarray, weights: np.ndarray, labels: Sequence[str], temperature: float, j: int
) -> str:
    """The softmax of key ``j`` written out: exp(e_j/τ) over the sum of every exp(e_k/τ)
    (the exponentials themselves are shown when they are small enough to read)."""
    e, w = np.asarray(energy, float), np.asarray(weights, float)
    if e.shape != w.shape or e.shape != (len(labels),) or not 0 <= j < e.size:
        raise ValueError("energy, weights and labels need one entry per key; j must be a key")
    tau = _n(temperature, 2)
    terms = [rf"e^{{{_n(x)}/{tau}}}" for x in e]
    out = rf"\alpha_{{{_word(labels[j])}}} = \frac{{{terms[j]}}}{{{' + '.join(terms)}}}"
    z = e / temperature
    if np.abs(z).max() <= 30:  # e^30 ~ 1e13: still a number a student can read
        out += rf" = \frac{{{_big(np.exp(z[j]))}}}{{{_big(np.exp(z).sum())}}}"
    return out + rf" = \mathbf{{{_n(w[j])}}}"


def context_latex(weights: np.ndarray, values: np.ndarray, labels: Sequence[str]) -> str:
    """The output as a weighted sum of the values, with the result: sum_j α_j v_j = [...]."""
    w, v = np.asarray(weights, float), np.asarray(values, float)
    if v.ndim != 2 or w.shape != (v.shape[0],) or len(labels) != w.size:
        raise ValueError("weights (S,), values (S, d_v) and labels (S) must match")
    terms = r" + ".join(f"{_n(a)}\\,{_vec(vj)}" for a, vj in zip(w, v))
    return rf"o = \sum_j \alpha_j v_j = {terms} = \mathbf{{{_vec(w @ v)}}}"
