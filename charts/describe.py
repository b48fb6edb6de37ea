"""A chart's text alternative, built from the figure's own data (no streamlit here).

:func:`describe` says what a screen reader should hear: the title, the axes, and per trace
the numbers a takeaway rests on (a heatmap's size, range, maximum and strongest cell per row;
each bar's value and the highest; a line's start, end and extremes). :func:`tables` gives
the same data as tables. Both read a plotly figure as a plain dict (``fig.to_plotly_json()``,
a figure's own ``_data``/``_layout``, or the spec Streamlit sends: arrays may be lists, numpy
arrays or plotly's base64 ``bdata``), in ``"en"`` or ``"zh"`` (catalogue keys ``chart.alt.*``).
"""

from __future__ import annotations

import base64
import html
import math
import re
from collections.abc import Mapping, Sequence

import numpy as np

from core.i18n import translate

MAX_ITEMS = 12  # bars, rows or points named one by one; beyond: the top ones and a count
MAX_CELLS = 2000  # table cells sent with a chart; a larger table keeps its first rows
# plotly's default symbol of an axis that has no title
_AXES = ("x", "y")


def _plain(text: object) -> str:
    """Plotly rich text as plain text: tags gone, line breaks as spaces, entities decoded."""
    out = re.sub(r"<br\s*/?>", " ", str(text or ""))
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", out)).split())


def _title(holder: Mapping | None) -> str:
    title = (holder or {}).get("title")
    return _plain(title.get("text") if isinstance(title, Mapping) else title)


def _array(value: object) -> np.ndarray | None:
    """A trace's array as numpy (``bdata`` decoded), or ``None`` when absent."""
    if value is None:
        return None
    if isinstance(value, Mapping) and "bdata" in value:
        arr = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        shape = value.get("shape")
        if shape:
            dims = [int(d) for d in str(shape).split(",")] if isinstance(shape, str) else shape
            arr = arr.reshape(dims)
        return arr
    return np.asarray(value, dtype=object)


def _num(v: object) -> str:
    """A number as a student reads it: 3 significant digits, whole numbers whole."""
    f = float(v)
    if f.is_integer() and abs(f) < 1e15:
        return f"{int(f):,}"
    return f"{f:.3g}"


def _percent(v: object) -> str:
    """A share as the chart's percent axis shows it: 3 significant digits, then %."""
    return f"{float(v) * 100:.3g}%"


def _value_format(tr: Mapping, layout: Mapping):
    """How the numbers of trace ``tr`` are written: in percent when its value axis (y, or
    x for horizontal bars) shows percent, as every accuracy and share does, else plainly."""
    letter = "x" if tr.get("type") == "bar" and tr.get("orientation") == "h" else "y"
    ref = str(tr.get(f"{letter}axis") or letter)
    axis = layout.get(f"{letter}axis{ref[1:]}") or {}
    return _percent if str(axis.get("tickformat") or "").endswith("%") else _num


def _label(v: object) -> str:
    if isinstance(v, (float, np.floating)) or (isinstance(v, (int, np.integer))):
        return _num(v)
    return _plain(v)


def _floats(arr: np.ndarray) -> np.ndarray:
    """As floats; a value that is no number (``None``, text) becomes NaN."""
    try:
        return np.asarray(arr, dtype=float)
    except (TypeError, ValueError):
        out = np.full(arr.shape, np.nan)
        for i, v in np.ndenumerate(arr):
            try:
                out[i] = float(v)
            except (TypeError, ValueError):
                pass
        return out


def _shown(tr: Mapping) -> bool:
    """A trace a viewer sees as data (not hidden, not an invisible helper or decoration)."""
    if tr.get("visible") in (False, "legendonly") or tr.get("hoverinfo") == "skip":
        return False
    return (tr.get("marker") or {}).get("opacity") != 0


def _t(key: str, lang: str, **fmt: object) -> str:
    return translate(f"chart.alt.{key}", lang, **fmt)


def _listing(items: Sequence[str], lang: str) -> str:
    sep = "；" if lang == "zh" else "; "
    if len(items) > MAX_ITEMS:
        rest = len(items) - MAX_ITEMS
        return sep.join(items[:MAX_ITEMS]) + sep + _t("more", lang, n=rest)
    return sep.join(items)


def _heatmap(tr: Mapping, lang: str) -> str:
    z = _floats(np.atleast_2d(_array(tr.get("z"))))
    rows, cols = z.shape
    xs = _array(tr.get("x"))
    ys = _array(tr.get("y"))
    xs = (
        [_label(v) for v in xs]
        if xs is not None and len(xs) == cols
        else [str(c + 1) for c in range(cols)]
    )
    ys = (
        [_label(v) for v in ys]
        if ys is not None and len(ys) == rows
        else [str(r + 1) for r in range(rows)]
    )
    if not np.isfinite(z).any():
        return _t("heatmap_empty", lang, rows=rows, cols=cols)
    r, c = np.unravel_index(np.nanargmax(z), z.shape)
    text = _t(
        "heatmap",
        lang,
        rows=rows,
        cols=cols,
        lo=_num(np.nanmin(z)),
        hi=_num(z[r, c]),
        row=ys[r],
        col=xs[c],
    )
    if rows <= MAX_ITEMS or rows <= cols:  # the highest cell of each row
        best = [(i, int(np.nanargmax(z[i]))) for i in range(rows) if np.isfinite(z[i]).any()]
        key = "per_row"
    else:  # a tall map (a state's units): the highest cell of each column
        best = [(int(np.nanargmax(z[:, j])), j) for j in range(cols) if np.isfinite(z[:, j]).any()]
        key = "per_col"
    cells = [_t("cell", lang, row=ys[i], col=xs[j], v=_num(z[i, j])) for i, j in best]
    return text + ("" if lang == "zh" else " ") + _t(key, lang, cells=_listing(cells, lang))


def _xy(tr: Mapping) -> tuple[list[str], np.ndarray]:
    """A bar or scatter trace's categories (or x values) and numbers, horizontal bars too."""
    x, y = _array(tr.get("x")), _array(tr.get("y"))
    if tr.get("type") == "bar" and tr.get("orientation") == "h":
        x, y = y, x
    if y is None:
        return [], np.array([])
    y = _floats(np.ravel(y))
    labels = [_label(v) for v in np.ravel(x)] if x is not None else [str(i) for i in range(len(y))]
    n = min(len(labels), len(y))
    return labels[:n], y[:n]


def _bars(tr: Mapping, lang: str, num=_num) -> str:
    labels, y = _xy(tr)
    ok = np.isfinite(y)
    if not ok.any():
        return ""
    items = [_t("item", lang, x=x, v=num(v)) for x, v, k in zip(labels, y, ok) if k]
    top = int(np.nanargmax(y))
    return _t("bars", lang, items=_listing(items, lang), top=labels[top], v=num(y[top]))


def _line(tr: Mapping, lang: str, num=_num) -> str:
    labels, y = _xy(tr)
    ok = np.flatnonzero(np.isfinite(y))
    if not ok.size:
        return ""
    first, last = ok[0], ok[-1]
    lo, hi = int(np.nanargmin(y)), int(np.nanargmax(y))
    return _t(
        "line",
        lang,
        n=ok.size,
        x0=labels[first],
        x1=labels[last],
        y0=num(y[first]),
        y1=num(y[last]),
        lo=num(y[lo]),
        xlo=labels[lo],
        hi=num(y[hi]),
        xhi=labels[hi],
    )


def _traces(spec: Mapping) -> list[Mapping]:
    return [tr for tr in spec.get("data") or [] if _shown(tr)]


def describe(spec: Mapping, lang: str) -> str:
    """The text alternative of a figure ``spec`` (``{"data": [...], "layout": {...}}``) in
    ``lang``: title, axes, notes on the chart, then one sentence per trace shown."""
    layout = spec.get("layout") or {}
    title = _title(layout)
    out = [_t("title", lang, title=title) if title else _t("untitled", lang)]
    for axis in _AXES:
        names = [_title(layout[k]) for k in sorted(layout) if re.fullmatch(rf"{axis}axis\d*", k)]
        names = list(dict.fromkeys(n for n in names if n))
        if names:
            out.append(_t(f"{axis}_axis", lang, names=_listing(names, lang)))
    notes = [_plain(a.get("text")) for a in layout.get("annotations") or [] if a.get("text")]
    notes = list(dict.fromkeys(n for n in notes if n))
    if notes:
        out.append(_t("notes", lang, notes=_listing(notes, lang)))
    for tr in _traces(spec):
        kind = tr.get("type") or "scatter"
        if kind == "heatmap":
            body = _heatmap(tr, lang)
        elif kind == "bar":
            body = _bars(tr, lang, _value_format(tr, layout))
        elif kind == "scatter":
            body = _line(tr, lang, _value_format(tr, layout))
        else:
            body = _t("other", lang, kind=kind)
        if body:
            name = _plain(tr.get("name"))
            out.append(_t("series", lang, name=name, body=body) if name else body)
    return ("" if lang == "zh" else " ").join(out)


def tables(spec: Mapping, lang: str) -> list[tuple[str, list[str], list[list[str]]]]:
    """The figure's data as tables ``(caption, header, rows)`` of strings: a heatmap as its
    matrix (rows × columns), every bar and line trace as rows (series, x, value)."""
    layout = spec.get("layout") or {}
    out: list[tuple[str, list[str], list[list[str]]]] = []
    grouped: dict[tuple[str, str], list[list[str]]] = {}  # by the trace's axes' titles
    for tr in _traces(spec):
        kind = tr.get("type") or "scatter"
        name = _plain(tr.get("name"))
        if kind == "heatmap":
            z = _floats(np.atleast_2d(_array(tr.get("z"))))
            xs, ys = _array(tr.get("x")), _array(tr.get("y"))
            cols = [_label(v) for v in xs] if xs is not None and len(xs) == z.shape[1] else None
            cols = cols or [str(c + 1) for c in range(z.shape[1])]
            rows = [_label(v) for v in ys] if ys is not None and len(ys) == z.shape[0] else None
            rows = rows or [str(r + 1) for r in range(z.shape[0])]
            keep = max(1, MAX_CELLS // max(1, len(cols) + 1))
            # each row as Python floats: a test and a format a cell on numpy's scalars cost
            # twice as much (a map of 256 x 33 states keeps 2,000 cells, on every click)
            body = [
                [r, *(_num(v) if math.isfinite(v) else "" for v in z[i].tolist())]
                for i, r in enumerate(rows[:keep])
            ]
            out.append((name or _t("heatmap_table", lang), ["", *cols], body))
        elif kind in ("bar", "scatter"):
            axes = [
                _title(layout.get(f"{a}axis{str(tr.get(f'{a}axis', a))[1:]}")) or a for a in _AXES
            ]
            if kind == "bar" and tr.get("orientation") == "h":
                axes.reverse()
            labels, y = _xy(tr)
            num = _value_format(tr, layout)
            rows = [[name, x, num(v)] for x, v in zip(labels, y) if np.isfinite(v)]
            grouped.setdefault((axes[0], axes[1]), []).extend(rows)
    for (x_name, y_name), rows in grouped.items():
        header = [_t("series_col", lang), x_name, y_name]
        if not any(r[0] for r in rows):
            header, rows = header[1:], [r[1:] for r in rows]
        keep = MAX_CELLS // len(header)
        out.append((_t("values_table", lang), header, rows[:keep]))
    return out


# Read by screen readers, not drawn: the usual "visually hidden" rules (not display:none,
# which hides from assistive technology too).
_HIDDEN = (
    "position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;"
    "clip:rect(0,0,0,0);white-space:nowrap;border:0"
)


def alternative_html(spec: Mapping, lang: str) -> str:
    """One HTML block (for ``st.html``) to put under a chart: its :func:`describe` text,
    visually hidden but read by a screen reader, then a closed ``<details>`` whose summary
    ("Chart data as a table") opens :func:`tables` (keyboard-operable, every text escaped)."""
    from charts.arena import table_html

    parts = [f'<p class="chart-alt" style="{_HIDDEN}">{html.escape(describe(spec, lang))}</p>']
    blocks = []
    for caption, header, rows in tables(spec, lang):
        align = ["left"] * len(header)
        blocks.append(f'<p style="margin:0.4em 0 0.2em 0"><b>{html.escape(caption)}</b></p>')
        blocks.append(table_html(header, rows, align, label=caption))
    if blocks:
        summary = html.escape(_t("table", lang))
        parts.append(
            f'<details class="chart-data"><summary style="cursor:pointer">{summary}</summary>'
            + "".join(blocks)
            + "</details>"
        )
    return "".join(parts)
