"""Figures of the bottleneck page, on the app's one template (``charts.base``).

Every builder takes plain arrays and labels, checks them, and raises a ``ValueError`` that
says how to fix the call; text (titles, axis names, legend names) comes in already
translated. No streamlit here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from charts import base
from charts.common import Titles
from charts.screen import sizes
from charts.screen.text import is_cjk
from core import lexicon, mdtable

GREY = "#9E9E9E"


# --- tokens as markdown (the side-by-side part and the stretch part's sentences) -------------


def chip(token: str) -> str:
    """One token as body text, shown literally (Markdown escaped), never broken across two
    lines (a word joiner between its characters: 猴子 stays whole)."""
    whole = all(is_cjk(ch) for ch in token)
    return mdtable.escape("\u2060".join(token) if whole else token)


def chips(tokens: Sequence[str]) -> str:
    """Tokens as body text (:func:`chip`), special tokens in their one display spelling
    (``⟨eos⟩``)."""
    return " ".join(chip(tok) for tok in lexicon.show_tokens(tokens))


def marked(output: Sequence[str], reference: Sequence[str] | None, *, empty: str) -> str:
    """The output's tokens as chips; with a reference, each run of wrong tokens marked ✗ in
    bold red (one marker per run keeps the markdown short). ``empty``: the text for an
    empty output."""
    from core.analysis.bottleneck import error_marks

    if not output:
        return empty
    if reference is None:
        return chips(output)
    parts: list[str] = []
    run: list[str] = []
    for tok, wrong in zip(lexicon.show_tokens(output), error_marks(output, reference)):
        if wrong:
            run.append(tok)
            continue
        if run:
            parts.append(_wrong(run))
            run = []
        parts.append(chip(tok))
    if run:
        parts.append(_wrong(run))
    return " ".join(parts)


def _wrong(run: Sequence[str]) -> str:
    """A run of wrong tokens, as strong as the arena's ✗ cards: a ✗, bold, in red."""
    return f":red[**✗ {chips(run)}**]"


def states_heatmap(
    hidden: np.ndarray,
    words: Sequence[str],
    *,
    titles: Titles,
    context_label: str,
    context: np.ndarray | None = None,
    strip_title: str = "",
    strip_x_title: str = "",
    presenter: bool = False,
    label_digits: int = 0,
) -> go.Figure:
    """The encoder's hidden states, one column per word read: (H, S) as dimensions x words.
    The dimension labels are padded to ``label_digits`` (:func:`dimension_ticks`).

    ``hidden`` is (S, H) as the encoder returns it; the last column (after EOS) is C and
    gets a frame labelled ``context_label``. With ``context`` (H,), C is also drawn under
    the heatmap as one strip of H cells, the same size whatever the sentence's length
    (one figure, not two: the browser draws one chart per click instead of two).

    The values go to the browser as float32 (the encoder's own precision: a float32 input
    arrives bit for bit, so colours and the 2-decimal hover are those of the model) and the
    dimension axes as a start and a step, not arrays: the figure's JSON is half as heavy
    as with float64 (33 words x 256 dimensions: ~60 KB instead of ~115 KB).
    """
    h = np.asarray(hidden, dtype=np.float32)  # plotly sends float32 arrays as 4 bytes a value
    if h.ndim != 2 or 0 in h.shape:
        raise ValueError(f"hidden must be a non-empty (S, H) array, got shape {h.shape}")
    if len(words) != h.shape[0]:
        raise ValueError(f"{len(words)} words for {h.shape[0]} states; pass one word per state")
    if not np.all(np.isfinite(h)):
        raise ValueError("hidden contains NaN or infinity")
    s = base.scale(presenter)
    x = base.unique_labels(words)
    angled = len(words) > 12
    heat_px = s.height + (80 if presenter else 40)
    heatmap = go.Heatmap(
        z=h.T,  # (H, S)
        x=x,
        y0=1,  # dimensions 1..H, without an array of H numbers in the JSON
        dy=1,
        zmin=-1,
        zmax=1,
        colorscale="RdBu_r",
        colorbar=dict(thickness=12 if not presenter else 20),
        hovertemplate="%{x} · dim %{y}: %{z:.2f}<extra></extra>",
    )
    frame, label = _context_marks(x, h.shape[1], context_label, s)
    layout = base.layout(
        presenter,
        *titles,
        xaxis=dict(type="category", tickangle=-60 if angled else 0),
        # dimension 1 on top
        yaxis=dict(range=[h.shape[1] + 0.5, 0.5], **dimension_ticks(h.shape[1], label_digits)),
        shapes=[frame],
        annotations=[label],
        height=heat_px,
    )
    if context is None:
        return go.Figure(data=[heatmap], layout=layout)
    rows = _strip_rows(presenter, angled, heat_px)
    strip = _context_strip(context)
    _add_strip(layout, heatmap, rows, s, presenter, strip_title, strip_x_title)
    return go.Figure(data=[heatmap, strip], layout=layout)


FIGURE_SPACE = "\u2007"  # a space as wide as a digit (charts/screen/glyphs.json)


def dimension_ticks(n_dims: int, digits: int = 0) -> dict:
    """Ticks of a dimension axis 1..``n_dims``, a quarter of it apart (8, 16, 24, 32 of 32),
    each label padded with figure spaces to ``digits`` digits: every model of a part then
    gives its labels one width and the plot keeps its place when the model changes (a plot
    that moves makes plotly.js measure every label of the chart again: the first switch of
    bottleneck's model took ~200 ms in a new tab against ~160 with the place kept)."""
    step = max(1, n_dims // 4)
    values = list(range(step, n_dims + 1, step))
    return {"tickvals": values, "ticktext": [str(v).rjust(digits, FIGURE_SPACE) for v in values]}


def _context_marks(x: list[str], n_dims: int, context_label: str, s: base.Scale):
    """The frame around C (the last column) and its label under the heatmap."""
    last = len(x) - 1
    frame = dict(
        type="rect",
        x0=last - 0.5,
        x1=last + 0.5,
        y0=0.5,
        y1=n_dims + 0.5,
        line=dict(color="#000000", width=s.line + 1),
    )
    label = dict(
        x=x[last],
        y=0.5,
        text=f"<b>{context_label}</b>",
        showarrow=False,
        yanchor="bottom",
        font=dict(size=s.font + 2),
    )
    return frame, label


def _context_strip(context: np.ndarray) -> go.Heatmap:
    """C (H,) as one row of H cells, on the second pair of axes."""
    c = np.asarray(context, dtype=np.float32)
    if c.ndim != 1 or c.size == 0 or not np.all(np.isfinite(c)):
        raise ValueError(f"context must be a finite 1-D vector (H,), got shape {c.shape}")
    return go.Heatmap(
        z=c[None, :],  # (1, H)
        x0=1,  # dimensions 1..H
        dx=1,
        y=["C"],
        xaxis="x2",
        yaxis="y2",
        zmin=-1,
        zmax=1,
        colorscale="RdBu_r",
        showscale=False,
        hovertemplate="C[%{x}] = %{z:.2f}<extra></extra>",
    )


def _strip_rows(presenter: bool, angled: bool, heat_px: int) -> tuple[int, float, float]:
    """Fixed pixel rows, top to bottom: the heatmap, its word labels and axis title (a gap),
    the strip's title, the strip, then the strip's own axis in the bottom margin. Returns
    the plot's height in pixels, the strip's top and the heatmap's bottom (paper units)."""
    k = 1.5 if presenter else 1.0
    gap_px = round(k * (135 if angled else 70))
    strip_px = round(k * 34)
    head_px = round(k * 30)
    plot_px = heat_px + gap_px + head_px + strip_px
    return plot_px, strip_px / plot_px, (strip_px + head_px + gap_px) / plot_px


def _add_strip(
    layout: dict,
    heatmap: go.Heatmap,
    rows: tuple[int, float, float],
    s: base.Scale,
    presenter: bool,
    strip_title: str,
    strip_x_title: str,
) -> None:
    """Make room under the heatmap's ``layout`` for C's strip (``rows``: :func:`_strip_rows`):
    the strip's axes and title, fixed margins, the colour bar beside the heatmap only."""
    plot_px, strip_top, heat_bottom = rows
    heatmap.colorbar.update(y=(1 + heat_bottom) / 2, len=1 - heat_bottom, yanchor="middle")
    top = 60 if presenter else 50
    bottom = round((1.5 if presenter else 1.0) * 64)
    layout["xaxis"]["automargin"] = False
    layout["yaxis"].update(domain=[heat_bottom, 1.0], automargin=True)
    layout["xaxis2"] = dict(
        anchor="y2",
        automargin=False,
        title=dict(text=strip_x_title, font=dict(size=s.font + 2), standoff=8),
        tickfont=dict(size=s.font),
    )
    layout["yaxis2"] = dict(domain=[0.0, strip_top], anchor="x2", tickfont=dict(size=s.font))
    layout["annotations"].append(
        dict(
            text=f"<b>{strip_title}</b>",
            xref="paper",
            yref="paper",
            x=0.0,
            xanchor="left",
            y=strip_top,
            yanchor="bottom",
            showarrow=False,
            font=dict(size=s.font + 2),
        )
    )
    layout["margin"] = dict(t=top, b=bottom)
    layout["height"] = top + plot_px + bottom


def length_figure(
    buckets: Sequence[str],
    curves: Mapping[str, Sequence[float]],
    *,
    focus: Sequence[str],
    titles: Titles,
    names: Mapping[str, str] | None = None,
    presenter: bool = False,
) -> go.Figure:
    """A score per source-length bucket, one line per model (the Figure-2 analogue).

    Every model is drawn in its one look (``core.lexicon``); models not in ``focus`` are
    thinner and paler. ``names`` maps a model to its display name (default: the model).
    """
    names = names or {}
    if not curves:
        raise ValueError("curves is empty; pass {model name: [score per bucket]}")
    s = base.scale(presenter)
    traces = []
    order = [n for n in curves if n not in focus] + [n for n in curves if n in focus]
    for name in order:
        ys = np.asarray(curves[name], dtype=float)
        if ys.shape != (len(buckets),):
            raise ValueError(f"curves[{name!r}] has {ys.size} values for {len(buckets)} buckets")
        on = name in focus
        shown = names.get(name, name)
        traces.append(
            go.Scatter(
                x=list(buckets),
                y=ys.tolist(),  # plain numbers in the figure JSON: readable, checkable
                name=shown,
                mode="lines+markers",
                line=lexicon.line(name, s.line if on else max(1.0, s.line / 2)),
                marker=lexicon.marker(name, 2 * s.line + 4),
                opacity=1.0 if on else 0.55,
                hovertemplate=f"{shown} · %{{x}}: %{{y:{base.PERCENT}}}<extra></extra>",
            )
        )
    return go.Figure(
        data=traces,
        layout=base.layout(
            presenter,
            *titles,
            xaxis=dict(type="category"),
            yaxis=base.share_axis(),
        ),
    )


def lines_by_position(
    positions: Sequence[int] | np.ndarray,
    series: Mapping[str, Sequence[float] | np.ndarray],
    *,
    titles: Titles,
    presenter: bool = False,
    baseline: Sequence[float] | np.ndarray | None = None,
    baseline_name: str = "",
    names: Mapping[str, str] | None = None,
) -> go.Figure:
    """Shares in [0, 1] against a position, one line per model (NaN leaves a gap), each in
    its one look (``core.lexicon``); ``names`` maps a model to its display name.

    ``baseline`` (optional) is drawn grey and dashed, e.g. the chance level of a probe.
    """
    names = names or {}
    xs = np.asarray(positions, dtype=float)
    if xs.ndim != 1 or xs.size == 0:
        raise ValueError(f"positions must be a non-empty 1-D sequence, got shape {xs.shape}")
    if not series:
        raise ValueError("series is empty; pass {model name: values}")
    s = base.scale(presenter)
    traces = []
    for name, ys in series.items():
        arr = np.asarray(ys, dtype=float)
        if arr.shape != xs.shape:
            raise ValueError(f"series[{name!r}] has shape {arr.shape}, positions {xs.shape}")
        traces.append(
            go.Scatter(
                x=xs,
                y=arr,
                name=names.get(name, name),
                mode="lines+markers",
                line=lexicon.line(name, s.line),
                marker=lexicon.marker(name, 2 * s.line + 4),
            )
        )
    if baseline is not None:
        floor = np.asarray(baseline, dtype=float)
        if floor.shape != xs.shape:
            raise ValueError(f"baseline has shape {floor.shape}, positions {xs.shape}")
        traces.append(
            go.Scatter(
                x=xs,
                y=floor,
                name=baseline_name,
                mode="lines",
                line=dict(color=GREY, width=s.line, dash="dash"),
            )
        )
    return go.Figure(
        data=traces,
        layout=base.layout(presenter, *titles, yaxis=base.share_axis()),
    )


def influence_bars(
    words: Sequence[str],
    values: Sequence[float] | np.ndarray,
    *,
    titles: Titles,
    color: str,
    presenter: bool = False,
    log_y: bool = False,
) -> go.Figure:
    """One bar per source word (repeated words stay separate bars); ``log_y`` puts the
    values on a logarithmic axis."""
    vals = np.asarray(values, dtype=float)
    if vals.ndim != 1 or vals.size == 0 or not np.all(np.isfinite(vals)):
        raise ValueError(f"values must be a finite non-empty 1-D array, got shape {vals.shape}")
    if len(words) != vals.size:
        raise ValueError(f"{len(words)} words for {vals.size} values; pass one word per value")
    return go.Figure(
        data=[
            go.Bar(
                x=base.unique_labels(words),
                y=vals,
                marker=dict(color=color),
                hovertemplate="%{x}: %{y:.3g}<extra></extra>",
            )
        ],
        layout=base.layout(
            presenter,
            *titles,
            xaxis=dict(type="category", tickangle=-60 if len(words) > 12 else 0),
            yaxis=dict(type="log") if log_y else None,
        ),
    )


def latent_figure(
    states: np.ndarray,
    read: Sequence[str],
    guesses: Sequence[str],
    guess_probs: Sequence[float] | np.ndarray,
    *,
    titles: Titles,
    bar_title: str,
    presenter: bool = False,
    phone: bool = False,
) -> go.Figure:
    """A language model's latent state step by step: on top the state ``h_t`` after each
    word read, one column per step ((T, H) drawn as H x T); under it, from the same ``h_t``,
    the probability of its top next-word guess, the guess written on the bar. ``phone``:
    the guess and its probability on two lines, without the arrow, at a phone's least size
    and not shrunk (plotly shrinks a text over a bar to the bar's width: on one line a
    phone's ~45-px bars made it 5-6 px high; so it is about as wide as the bar's slot)."""
    from plotly.subplots import make_subplots

    h = np.asarray(states, dtype=np.float32)
    p = np.asarray(guess_probs, dtype=float)
    if h.ndim != 2 or 0 in h.shape or not np.all(np.isfinite(h)):
        raise ValueError(f"states must be a finite non-empty (T, H) array, got shape {h.shape}")
    if not len(read) == len(guesses) == p.size == h.shape[0]:
        raise ValueError(
            f"{len(read)} words read, {len(guesses)} guesses, {p.size} probabilities for "
            f"{h.shape[0]} states; pass one of each per state"
        )
    s = base.scale(presenter)
    x = base.unique_labels(read)
    fig = make_subplots(
        rows=2, cols=1, shared_xaxes=True, row_heights=[0.62, 0.38], vertical_spacing=0.06
    )
    fig.add_trace(_latent_states(h, x, presenter), row=1, col=1)
    fig.add_trace(_latent_guesses(x, guesses, p, s, phone), row=2, col=1)
    layout = base.layout(presenter, *titles, height=s.height + 140)
    layout.pop("xaxis")
    layout.pop("yaxis")
    fig.update_layout(**layout)
    _latent_axes(fig, s, titles, bar_title, top=1.6 if phone else 1.35)
    return fig


def _latent_states(h: np.ndarray, x: list[str], presenter: bool) -> go.Heatmap:
    """The states (T, H) as a heatmap, one column per step."""
    return go.Heatmap(
        z=h.T,  # (H, T)
        x=x,
        y0=1,
        dy=1,
        zmin=-1,
        zmax=1,
        colorscale="RdBu_r",
        colorbar=dict(thickness=20 if presenter else 12, len=0.6, y=1, yanchor="top"),
        hovertemplate="%{x} · h[%{y}] = %{z:.2f}<extra></extra>",
    )


def _latent_guesses(
    x: list[str], guesses: Sequence[str], p: np.ndarray, s: base.Scale, phone: bool = False
):
    """One bar per step: the probability of the top guess, the guess written on the bar
    (with ``phone`` the probability on a second line, no arrow)."""
    # on a phone without the arrow: "-> shoes" ran into its neighbour's text
    text = [f"{g}<br>{v:.0%}" if phone else f"→ {g} {v:.0%}" for g, v in zip(guesses, p)]
    return go.Bar(
        x=x,
        y=p,
        text=text,
        textposition="outside",
        constraintext="none" if phone else "both",
        textfont=dict(size=sizes.MIN_PHONE_FONT if phone else s.font),
        cliponaxis=False,
        marker=dict(color=lexicon.look("lm_gru").color),
        hovertemplate="%{x} → %{text}<extra></extra>",
        showlegend=False,
    )


def _latent_axes(fig: go.Figure, s: base.Scale, titles: Titles, bar_title: str, top: float):
    """The two rows' axes (titled ``titles``' x and y, ``bar_title``): dimension 1 on top of
    the states, the guesses as percentages up to ``top`` (room above a bar for its text)."""
    tick = dict(tickfont=dict(size=s.font))
    fig.update_yaxes(
        title=dict(text=titles.y_title, font=dict(size=s.font + 2)),
        autorange="reversed",
        row=1,
        col=1,
        **tick,
    )
    fig.update_yaxes(
        title=dict(text=bar_title, font=dict(size=s.font + 2)),
        range=[0, top],
        tickformat=".0%",
        tickvals=[0, 0.5, 1],  # no 150 % of a probability
        row=2,
        col=1,
        **tick,
    )
    fig.update_xaxes(type="category", **tick)
    fig.update_xaxes(title=dict(text=titles.x_title, font=dict(size=s.font + 2)), row=2, col=1)
