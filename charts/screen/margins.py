"""The margins a plotly figure will need, worked out before the browser draws it.

Plotly draws a chart, measures what sticks out of the plot area (its "automargin pushes")
and, if a margin must grow, draws it all again: with Streamlit's base margins, every chart,
on every rerun (measured on path_length's first chart: ~1,580 DOM changes for its first
draw, ~1,320 with the margins set in advance). :func:`preset` estimates the pushes from the
figure itself and sets ``layout.margin`` to what plotly would end with. A hint, never a
limit: automargin stays on; the browser tests check that plotly kept the margins. The
constants describe Streamlit 1.67 and plotly.js ``autoMargin`` (``plots.js``).
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Iterable, Sequence
from types import SimpleNamespace

import numpy as np

from charts.screen.text import text_width, wrap

TICK_SIZE = 12  # px: a tick label (axis or colour bar) whose size the figure leaves unset
TITLE_SIZE = 14  # px: an axis title whose size the figure leaves unset
TITLE_EDGE = 8  # px: an axis title keeps this much from the chart's edges (wrap_x_titles)
LEGEND_SIZE = 12  # px: legend entries whose size the figure leaves unset
TEXT_SIZE = 12  # px: an annotation whose size the figure leaves unset (Streamlit's theme)
BAR_TITLE_SIZE = 17  # px: a colour bar's title whose size the figure leaves unset (measured)
STANDOFF = {"x": 20, "y": 24}  # px: Streamlit's axis title standoff
AXIS_PAD = 8  # px: Streamlit's margin.pad, between the plot area and an axis's labels
BASE = {"l": 0, "r": 0, "t": 50, "b": 10}  # the margins a figure leaves unset end up at these
# px: Streamlit draws a figure without a ``layout.height`` of its own this tall (it reads the
# figure's layout, not its template: the template's height never reaches the browser)
HEIGHT = 450
SLACK = 4  # px added to an estimated push: rounding in the browser
TOP_TITLE_EXTRA = 0.35  # x title above the plot: this many of its font sizes more (measured)


def _lines(text: object) -> int:
    return len(re.split(r"<br\s*/?>", str(text)))


def _size(holder: dict | None, key: str, default: float) -> float:
    font = (holder or {}).get(key) or {}
    return float(font.get("size") or default)


# ---- tick labels -------------------------------------------------------------------------


def _nice(rough: float) -> float:
    """Plotly's tick step for a rough one: 1, 2 or 5 times a power of ten, rounded up."""
    if rough <= 0 or not math.isfinite(rough):
        return 1.0
    base = 10.0 ** math.floor(math.log10(rough))
    for m in (1.0, 2.0, 5.0, 10.0):
        if rough <= m * base * 1.0000001:
            return m * base
    return 10.0 * base


def _number(v: float, step: float, fmt: str | None) -> str:
    """A tick value as plotly writes it (its minus sign, ``k`` / ``M`` for big numbers)."""
    if fmt:
        m = re.fullmatch(r"[,]?\.?(\d*)([%fdse])", fmt)
        if m:
            digits = int(m.group(1) or 0)
            kind = m.group(2)
            if kind == "%":
                s = f"{v * 100:.{digits}f}%"
            elif kind == "f":
                s = f"{v:.{digits}f}"
            elif kind == "d":
                s = f"{v:.0f}"
            else:
                s = f"{v:.{max(digits, 1)}g}"
            return s.replace("-", "−")
    if abs(v) >= 10000:
        for div, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
            if abs(v) >= div:
                return _number(v / div, step / div, None) + suffix
    decimals = max(0, -math.floor(math.log10(step) + 1e-9)) if step > 0 else 0
    s = f"{v:.{decimals}f}"
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    if s in ("-0", ""):
        s = "0"
    return s.replace("-", "−")


def _linear_labels(lo: float, hi: float, length_px: float, letter: str, fmt: str | None):
    n = min(max(length_px / (40.0 if letter == "y" else 80.0), 4.0), 9.0) + 1.0
    step = _nice(abs(hi - lo) / n)
    if hi < lo:
        lo, hi = hi, lo
    first = math.ceil(lo / step - 1e-9)
    last = math.floor(hi / step + 1e-9)
    if last - first > 60:  # not a range plotly would tick this finely
        return [_number(lo, step, fmt), _number(hi, step, fmt)]
    return [_number(k * step, step, fmt) for k in range(first, last + 1)]


def _log_labels(lo: float, hi: float) -> list[str]:
    """Labels of a log axis over 10**lo .. 10**hi (lo, hi in decades): powers of ten
    written ``10`` + superscript for wide ranges, plain numbers for narrow ones."""
    if hi < lo:
        lo, hi = hi, lo
    if hi - lo > 3:
        # "10" then the exponent, a superscript a little narrower than the digits
        return ["10" + str(k).replace("-", "−") for k in range(math.floor(lo), math.ceil(hi) + 1)]
    out = []
    for k in range(math.floor(lo), math.ceil(hi) + 1):
        for m in (1, 2, 5):
            v = m * 10.0**k
            if 10**lo <= v * 1.0000001 and v <= 10**hi * 1.0000001:
                out.append(_number(v, 10.0 ** min(k, 0), None))
    return out or [_number(10**lo, 10**lo, None)]


def _values(data: Iterable[dict], letter: str, ref: str) -> tuple[list, bool]:
    """The values the traces put on the axis ``ref`` ("x", "x2", ...): (values, has_bars)."""
    vals: list = []
    bars = False
    for tr in data:
        if str(tr.get(letter + "axis") or letter) != ref:
            continue
        kind = tr.get("type") or "scatter"
        if kind in ("pie", "table", "sankey", "indicator"):
            continue
        v = tr.get(letter)
        if v is None and kind == "heatmap":
            z = tr.get("z")
            if z is not None:
                z = np.asarray(z)
                if z.ndim == 2:
                    v = list(range(z.shape[1] if letter == "x" else z.shape[0]))
        elif v is None:  # the other coordinate alone: plotly numbers the points 0, 1, ...
            other = tr.get("y" if letter == "x" else "x")
            if other is not None:
                v = list(range(len(np.ravel(np.asarray(other, dtype=object)))))
        if v is None:
            continue
        if kind == "bar":
            value_letter = "x" if tr.get("orientation") == "h" else "y"
            if letter == value_letter:
                bars = True
                base = tr.get("base")
                if base is not None:
                    vals.extend(np.ravel(np.asarray(base, dtype=object)).tolist())
        vals.extend(np.ravel(np.asarray(v, dtype=object)).tolist())
    return vals, bars


def _numeric(vals: list) -> list[float] | None:
    out = []
    for v in vals:
        if v is None:
            continue
        if isinstance(v, bool):
            return None
        if isinstance(v, (int, float, np.integer, np.floating)):
            f = float(v)
        else:
            try:
                f = float(str(v).replace("−", "-"))
            except ValueError:
                return None
        if math.isfinite(f):
            out.append(f)
    return out


def tick_labels(axis: dict, data: Sequence[dict], letter: str, ref: str, length_px: float):
    """The tick labels plotly will write on an axis (an estimate for numbers: the steps it
    would pick; exact for categories and explicit ``ticktext``)."""
    if axis.get("showticklabels") is False or axis.get("visible") is False:
        return []
    if axis.get("ticktext") is not None:
        return [str(x) for x in axis["ticktext"]]
    fmt = axis.get("tickformat")
    if axis.get("tickvals") is not None:
        nums = _numeric(list(axis["tickvals"]))
        if nums is None:
            return [str(x) for x in axis["tickvals"]]
        step = min((abs(b - a) for a, b in zip(nums, nums[1:]) if b != a), default=1.0)
        return [_number(v, step, fmt) for v in nums]
    vals, bars = _values(data, letter, ref)
    kind = axis.get("type")
    nums = None if kind in ("category", "multicategory") else _numeric(vals)
    if nums is None:
        seen = dict.fromkeys(str(v) for v in vals if v is not None)
        return list(seen)
    rng = axis.get("range")
    if kind == "log":
        if rng is not None and None not in rng:
            lo, hi = float(rng[0]), float(rng[1])
        else:
            pos = [v for v in nums if v > 0]
            if not pos:
                return []
            lo, hi = math.log10(min(pos)), math.log10(max(pos))
        return _log_labels(lo, hi)
    if rng is not None and None not in rng:
        lo, hi = float(rng[0]), float(rng[1])
    elif nums:
        lo, hi = min(nums), max(nums)
        if bars:
            lo, hi = min(lo, 0.0), max(hi, 0.0)
        pad = (hi - lo) * 0.06 or 0.5  # plotly pads an autorange for markers and bars
        lo, hi = lo - (0 if bars and lo == 0 else pad), hi + pad
    else:
        return []
    return _linear_labels(lo, hi, length_px, letter, fmt)


# ---- pushes ------------------------------------------------------------------------------


def _axes(lay: dict, data: Sequence[dict]) -> dict[str, dict]:
    """Every cartesian axis the figure draws: {"x": {...}, "y2": {...}}."""
    names = {k for k in lay if re.fullmatch(r"[xy]axis\d*", k)}
    for tr in data:
        if (tr.get("type") or "scatter") in ("pie", "table", "sankey", "indicator"):
            continue
        for letter in "xy":
            names.add(letter + "axis" + str(tr.get(letter + "axis") or letter)[1:])
    return {n[0] + n[5:]: (lay.get(n) or {}) for n in names}


def _title(axis: dict) -> dict:
    title = axis.get("title")
    if isinstance(title, str):
        title = {"text": title}
    return title or {}


def _title_depth(axis: dict, letter: str) -> float:
    title = _title(axis)
    text = title.get("text")
    if text is None:  # no title at all (an empty one still gets its room: plotly's rule)
        return 0.0
    size = _size(title, "font", TITLE_SIZE)
    standoff = title.get("standoff")
    standoff = STANDOFF[letter] if standoff is None else float(standoff)
    return size * (0.7 + 1.3 * (_lines(text) - 1)) + standoff


def _label_box(labels: Sequence[str], size: float, angle: float) -> tuple[float, float]:
    """(width, height) of the widest label turned by ``angle`` degrees."""
    if not labels:
        return 0.0, 0.0
    w = max(text_width(s, size) for s in labels)
    h = max(_lines(s) for s in labels) * size * 1.45
    a = math.radians(abs(angle))
    return w * math.cos(a) + h * math.sin(a), w * math.sin(a) + h * math.cos(a)


def _angle(axis: dict, labels: Sequence[str], size: float, length_px: float) -> float:
    angle = axis.get("tickangle")
    if isinstance(angle, (int, float)):
        return float(angle)
    # "auto": plotly turns x labels that would overlap (its autotickangles, 0/30/90): by 30
    # degrees when the ticks stand at least sqrt(3) x 1.25 line heights apart, else it
    # stands them up (plotly.js axes.js: the first angle with |cos| <= q / hypot(q, J))
    if labels and length_px > 0:
        room = length_px / len(labels)
        if max(text_width(s, size) for s in labels) + 4 > room:
            line = size * 1.25 * max(_lines(s) for s in labels)
            return 30.0 if room >= math.sqrt(3) * line else 90.0
    return 0.0


def _domain(axis: dict) -> tuple[float, float]:
    d = axis.get("domain") or (0.0, 1.0)
    return float(d[0]), float(d[1])


def axis_pushes(lay: dict, data: Sequence[dict], width: float, height: float) -> dict:
    """Plotly's automargin pushes of every axis: {id: {side: (position, px)}}."""
    axes = _axes(lay, data)
    heat_axes = {
        str(tr.get(letter + "axis") or letter)
        for tr in data
        if tr.get("type") in ("heatmap", "contour", "histogram2d")
        for letter in "xy"
    }
    pushes: dict[str, dict[str, tuple[float, float]]] = {}
    for ref, axis in axes.items():
        letter = ref[0]
        if axis.get("automargin") is False or axis.get("visible") is False:
            continue
        lo, hi = _domain(axis)
        anchor_ref = axis.get("anchor") or ("y" if letter == "x" else "x")
        other = axes.get(anchor_ref, {}) if anchor_ref != "free" else {}
        o_lo, o_hi = _domain(other) if anchor_ref != "free" else (0.0, 1.0)
        length = (hi - lo) * (width if letter == "x" else height)
        labels = tick_labels(axis, data, letter, ref, length)
        size = _size(axis, "tickfont", TICK_SIZE)
        ticks = axis.get("ticks")
        if ticks is None and ref in heat_axes:
            ticks = "outside"  # Streamlit's theme gives a heatmap's axes outside ticks
        ticks = axis.get("ticklen", 5) + 2 if ticks == "outside" else 0
        if letter == "y":
            side = "r" if axis.get("side") == "right" else "l"
            w, _ = _label_box(labels, size, float(axis.get("tickangle") or 0))
            depth = (w + AXIS_PAD + 1 if labels else 0) + ticks
            depth += _title_depth(axis, "y")
            pos = axis.get("position", 0.0) if anchor_ref == "free" else o_lo
            if side == "r":
                pos = axis.get("position", 1.0) if anchor_ref == "free" else o_hi
            if depth > 0:
                pushes[ref] = {side: (pos, depth)}
            if labels:  # the end labels stick out above and below the plot by half a line
                pushes.setdefault(ref, {}).update(t=(1.0, size * 0.72), b=(0.0, size * 0.72))
        else:
            side = "t" if axis.get("side") == "top" else "b"
            angle = _angle(axis, labels, size, length)
            _, h = _label_box(labels, size, angle)
            depth = (h + 7 + (size / 2 if angle else 0) if labels else 0) + ticks
            title_px = _title_depth(axis, "x")
            depth += title_px
            if side == "t" and title_px:
                # a title above its axis needs more room than one below it (measured on
                # phones' attention maps, 16-px titles over standing words: 4.4-5.5 px more)
                depth += TOP_TITLE_EXTRA * _size(_title(axis), "font", TITLE_SIZE)
            pos = o_hi if side == "t" else o_lo
            if anchor_ref == "free":
                pos = axis.get("position", 0.0)
            if depth > 0:
                pushes[ref] = {side: (pos, depth)}
            if labels and angle and (axis.get("type") == "category" or not _numeric(labels)):
                # a turned label is anchored at its top right corner: the last one's line
                # height sticks out right of the plot by up to half of it, less half a slot
                h_line = max(_lines(x) for x in labels) * size * 1.45
                out = h_line * abs(math.sin(math.radians(angle))) / 2 - length / len(labels) / 2
                if out > 0:
                    pushes.setdefault(ref, {})["r"] = (1.0, out)
    return pushes


def _finite_range(values: object) -> tuple[float | None, float | None]:
    """(min, max) of the finite numbers in ``values`` (a heatmap's z: thousands of cells,
    so numpy first; values that are not all numbers go through :func:`_numeric`)."""
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        nums = _numeric(list(np.ravel(np.asarray(values, dtype=object)))) or []
        return (min(nums), max(nums)) if nums else (None, None)
    arr = arr[np.isfinite(arr)]
    return (float(arr.min()), float(arr.max())) if arr.size else (None, None)


def _colorbar_pushes(data: Sequence[dict], height: float) -> dict:
    """Each colour bar's push on the right: its bar, tick labels, paddings and title."""
    out = {}
    for i, tr in enumerate(data):
        if tr.get("type") in ("heatmap", "contour", "histogram2d"):
            if tr.get("showscale") is False or tr.get("coloraxis"):
                continue
            bar, z = tr.get("colorbar") or {}, tr.get("z")
        elif (tr.get("marker") or {}).get("showscale"):
            bar, z = tr["marker"].get("colorbar") or {}, tr["marker"].get("color")
        else:
            continue
        zmin, zmax = tr.get("zmin"), tr.get("zmax")
        if (zmin is None or zmax is None) and z is not None:
            lo, hi = _finite_range(z)
            zmin = lo if zmin is None else zmin
            zmax = hi if zmax is None else zmax
        size = _size(bar, "tickfont", TICK_SIZE)
        labels: list[str] = []
        if bar.get("ticktext") is not None:
            labels = [str(x) for x in bar["ticktext"]]
        elif zmin is not None and zmax is not None:
            length = height * float(bar.get("len") or 1.0)
            labels = _linear_labels(float(zmin), float(zmax), length, "y", bar.get("tickformat"))
        xpad = float(bar.get("xpad", 10))
        px = float(bar.get("thickness") or 30) + max(
            (text_width(s, size) for s in labels), default=0.0
        )
        px += 2 * xpad + 1
        title = bar.get("title") or {}
        if isinstance(title, str):
            title = {"text": title}
        if title.get("text"):
            tsize = _size(title, "font", BAR_TITLE_SIZE)
            if title.get("side") == "right":  # turned on its side: one line's height
                px += _lines(title["text"]) * tsize * 1.45 + 4
            else:  # above the bar: as wide as its text
                px = max(px, text_width(title["text"], tsize) + 2 * xpad - 1)
        out[f"colorbar{i}"] = {"r": (float(bar.get("x", 1.02)), px)}
    return out


def _legend_pushes(lay: dict, data: Sequence[dict], plot_width: float) -> dict:
    """The legend's push: on the right (vertical, right of the plot) or at the bottom or top
    (horizontal, under or over the plot). One in the plot area pushes nothing."""
    shown = [
        tr
        for tr in data
        if tr.get("showlegend") is not False
        and tr.get("name") not in (None, "")
        and (tr.get("type") or "scatter") not in ("heatmap", "contour", "histogram2d")
    ]
    show = lay.get("showlegend")
    if show is False or not shown or (show is None and len(shown) < 2):
        return {}
    legend = lay.get("legend") or {}
    size = _size(legend, "font", LEGEND_SIZE)
    widths = [text_width(tr["name"], size) + 45 for tr in shown]  # symbol and gaps: 45 px
    if legend.get("orientation") == "h":
        room = plot_width
        if sum(widths) <= room:
            rows = 1
        else:  # plotly's grid: every entry as wide as the widest
            rows = math.ceil(len(widths) / max(1, int(room // max(widths))))
        lh = rows * (size * 1.35 + 3) + 10
        y = float(legend.get("y", -0.1))
        anchor = legend.get("yanchor") or ("top" if y < 0.5 else "bottom")
        if anchor == "top" and y <= 0:
            return {"legend": {"b": (y, lh)}}
        if anchor == "bottom" and y >= 1:
            return {"legend": {"t": (y, lh)}}
        return {}
    x = float(legend.get("x", 1.02))
    if x >= 1 and (legend.get("xanchor") or "left") == "left":
        return {"legend": {"r": (x, max(widths) + 1)}}
    return {}


def title_pushes(lay: dict) -> bool:
    """Whether the figure's title grows the top margin itself (automargin: presenter mode).

    Its top margin is then left to plotly: plotly moves the lines of a wrapped title up
    above the plot only when it had to push the margin for them; given room enough in
    advance, it leaves the second line hanging into the plot (measured, plotly 3)."""
    title = lay.get("title") or {}
    return bool(title.get("text") and title.get("automargin"))


def _fit_pair(
    low: tuple[float, float], high: tuple[float, float], size: float, now: tuple[float, float]
) -> tuple[float, float]:
    """Plotly's margins for one push on the low side (left or bottom) and one on the high
    side, each (place as a fraction of the plot, px): kept if they need more in total than
    ``now``, the margins so far."""
    (f_lo, p_lo), (f_hi, p_hi) = low, high
    if f_hi <= f_lo:
        return now
    new_lo = (p_lo * f_hi + (p_hi - size) * f_lo) / (f_hi - f_lo)
    new_hi = (p_hi * (1 - f_lo) + (p_lo - size) * (1 - f_hi)) / (f_hi - f_lo)
    return (new_lo, new_hi) if new_lo + new_hi > now[0] + now[1] else now


def solve(
    base: dict[str, float], pushes: dict, width: float, height: float, pad: float
) -> dict[str, int]:
    """Plotly's ``doAutoMargin``: the smallest margins that fit ``base`` and every push (a
    push gives, per side, its place as a fraction of the plot area and the px it needs
    beyond it). Plotly adds ``pad`` to every side of every push: 12 px, or the smallest
    requested margin if that is less (see :func:`preset`)."""
    full = [
        {"l": (0.0, base["l"]), "r": (1.0, base["r"]), "t": (1.0, base["t"]), "b": (0.0, base["b"])}
    ]
    for push in pushes.values():
        # a side a push does not name sits mid-plot, where it binds nothing (plotly's pad)
        full.append(
            {
                side: (push[side][0], push[side][1] + SLACK + pad) if side in push else (0.5, pad)
                for side in "lrtb"
            }
        )
    ml, mr, mt, mb = base["l"], base["r"], base["t"], base["b"]
    for a in full:
        for b in full:  # each push on the low side against each on the high side
            ml, mr = _fit_pair(a["l"], b["r"], width, (ml, mr))
            mb, mt = _fit_pair(a["b"], b["t"], height, (mb, mt))
    return {"l": math.ceil(ml), "r": math.ceil(mr), "t": math.ceil(mt), "b": math.ceil(mb)}


def preset(fig, *, width_px: float) -> dict[str, int]:
    """Set ``fig``'s ``layout.margin`` to the margins plotly will end with when the chart is
    ``width_px`` wide (its height: the figure's, else Streamlit's :data:`HEIGHT`); returns
    them. Margins the figure sets itself are kept as the floor they are to plotly."""
    lay: dict = fig._layout  # noqa: SLF001 (as projector.fit_projector: no validation pass)
    data: list[dict] = fig._data  # noqa: SLF001
    height = float(lay.get("height") or HEIGHT)
    margin = lay.get("margin") or {}
    base = {side: float(margin.get(side, BASE[side]) or 0) for side in "lrtb"}
    got = {side: int(math.ceil(v)) for side, v in base.items()}
    for _ in range(3):  # plot size -> tick steps -> margins -> plotly's pad; settles fast
        plot_w = max(50.0, width_px - got["l"] - got["r"])
        plot_h = max(50.0, height - got["t"] - got["b"])
        pushes = axis_pushes(lay, data, plot_w, plot_h)
        pushes.update(_colorbar_pushes(data, plot_h))
        pushes.update(_legend_pushes(lay, data, plot_w))
        if title_pushes(lay):  # the top margin is plotly's (see title_pushes)
            pushes = {k: {s: v for s, v in p.items() if s != "t"} for k, p in pushes.items()}
        # plotly pads pushes by the smallest margin asked for (at most 12 px): the margins
        # this sets are the ones asked for, so the pad follows them
        result = got
        for _ in range(3):
            pad = min(12.0, *(float(v) for v in result.values()))
            result = solve(base, pushes, width_px, height, pad)
            if min(12.0, *(float(v) for v in result.values())) == pad:
                break
        if result == got:
            break
        got = result
    lay["margin"] = {**margin, **got}
    return got


def wrap_x_titles(fig, *, width_px: float, smallest: float) -> list[str]:
    """Wrap each horizontal axis title that is wider than the room it has. plotly centres an
    axis title on its axis and never wraps it: on a phone a long one ran past the chart's
    edges (eight parts in the two languages: the arena's bars, attention's maps, the probes'
    curves). The room is twice the distance from the axis's centre to the nearer edge of a
    chart ``width_px`` wide, with the margins :func:`preset` works out for it, less
    :data:`TITLE_EDGE`; :func:`charts.screen.text.wrap` breaks the text. The title of an
    axis above another panel (a stacked subplot) is made smaller instead, not under
    ``smallest`` px: an extra line would run into the panel under it. Returns the axes
    whose titles changed, ["x", "x3"]; sets nothing else (call :func:`preset` after it: a
    title on more lines asks for a deeper bottom margin)."""
    lay: dict = fig._layout  # noqa: SLF001 (as preset)
    data: list[dict] = fig._data  # noqa: SLF001
    # preset only replaces the layout's "margin": a shallow copy keeps the figure's own
    probe = SimpleNamespace(_layout=dict(lay), _data=data)
    got = preset(probe, width_px=width_px)
    plot_w = max(50.0, width_px - got["l"] - got["r"])
    panels = [_domain(a) for n, a in _axes(lay, data).items() if n.startswith("y")]
    wrapped = []
    for name, axis in sorted(_axes(lay, data).items()):
        title = _title(axis)
        text = title.get("text")
        if not name.startswith("x") or not text:
            continue
        lo, hi = _domain(axis)
        centre = got["l"] + plot_w * (lo + hi) / 2
        room = max(40.0, 2 * min(centre, width_px - centre) - TITLE_EDGE)
        size = _size(title, "font", TITLE_SIZE)
        wide = text_width(text, size)
        if wide <= room:
            continue
        anchor = str(axis.get("anchor") or "y")
        bottom = _domain(lay.get("yaxis" + anchor[1:]) or {})[0]
        if any(top <= bottom for _, top in panels):  # a panel under it
            small = max(smallest, math.floor(size * room / wide))
            axis["title"] = {**title, "font": {**(title.get("font") or {}), "size": small}}
            title, size = axis["title"], small
            wrapped.append(name)
            if text_width(text, size) <= room:
                continue
        line = room
        for _ in range(8):  # wrap's widths are rough: narrower until the lines fit
            new = wrap(str(text), size, line)
            if text_width(new, size) <= room:
                break
            line *= 0.9
        axis["title"] = {**title, "text": new}
        if name not in wrapped:
            wrapped.append(name)
    return wrapped


# ---- every category labelled -------------------------------------------------------------


def _big_font(size: float) -> int:
    """plotly's ``Lib.bigFont``: the room a category's label asks for, per category."""
    return round(1.2 * size)


def label_every_category(fig, *, width_px: float, smallest: float) -> dict[str, int]:
    """Make each category axis (a heatmap's words, a bar chart's names) label every
    category instead of every second or third one, by shrinking its tick labels: plotly
    labels every category only when the axis has ``round(1.2 x font size)`` px for each
    (its ``prepTicks``), otherwise it skips some -- on a phone, every second word of an
    attention map. The plot's length is the one :func:`preset` works out for a chart
    ``width_px`` wide. No font goes below ``smallest`` px: an axis with more categories
    than fit then keeps plotly's choice. An axis whose ticks the figure sets itself
    (``tickmode``, ``dtick``, ``nticks``, ``tickvals``) is left alone. Returns the new
    tick sizes, {"x": 11, ...}; sets nothing else (call :func:`preset` after it)."""
    lay: dict = fig._layout  # noqa: SLF001 (as preset)
    data: list[dict] = fig._data  # noqa: SLF001
    probe = SimpleNamespace(_layout=copy.deepcopy(lay), _data=data)
    got = preset(probe, width_px=width_px)  # on a copy: the margins come after the sizes
    height = float(lay.get("height") or HEIGHT)
    plot = {
        "x": max(50.0, width_px - got["l"] - got["r"]),
        "y": max(50.0, height - got["t"] - got["b"]),
    }
    out: dict[str, int] = {}
    for ref, axis in _axes(lay, data).items():
        letter = ref[0]
        if axis.get("showticklabels") is False or axis.get("visible") is False:
            continue
        if any(axis.get(k) is not None for k in ("tickmode", "dtick", "nticks", "tickvals")):
            continue
        vals, _ = _values(data, letter, ref)
        if axis.get("type") not in ("category", "multicategory") and _numeric(vals) is not None:
            continue
        n = len(dict.fromkeys(str(v) for v in vals if v is not None))
        lo, hi = _domain(axis)
        length = (hi - lo) * plot[letter] - SLACK  # the browser's rounding: a little short
        size = _size(axis, "tickfont", TICK_SIZE)
        if n < 2 or _big_font(size) * n <= length:
            continue
        fit = math.floor(size)
        while fit >= smallest and _big_font(fit) * n > length:
            fit -= 1
        if fit < smallest:
            continue
        held = lay.setdefault(letter + "axis" + ref[1:], {})
        held["tickfont"] = {**(held.get("tickfont") or {}), "size": fit}
        out[ref] = fit
    return out
