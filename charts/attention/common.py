"""What the attention page's figures share: the checks of their input, axes and fonts set on
the figure itself, and the traces of a line chart."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from charts import base


def check_matrix(name: str, m: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
    """``m`` as a float array, after checking it is a non-empty finite 2-D matrix."""
    z = np.asarray(m, dtype=float)
    if z.ndim != 2 or 0 in z.shape:
        raise ValueError(f"{name} must be a non-empty 2-D array (rows, cols), got {z.shape}")
    if not np.all(np.isfinite(z)):
        raise ValueError(f"{name} contains NaN or infinity; pass finite attention weights")
    return z


def check_labels(name: str, labels: Sequence[object], n: int) -> list[str]:
    """``labels`` as strings, after checking there is one per row (or column) of ``n``."""
    out = [str(x) for x in labels]
    if len(out) != n:
        raise ValueError(f"{name} has {len(out)} entries for {n} rows/columns; pass one each")
    return out


def axis(s: base.Scale, title: str = "", **extra: object) -> dict:
    """An axis of a panel, with its fonts set on the figure itself: Streamlit's chart theme
    writes its own (small) fonts over the template's on axes the figure leaves unset."""
    return dict(
        title=dict(text=title, font=dict(size=s.font + 2)), tickfont=dict(size=s.font), **extra
    )


def fonts(s: base.Scale, **legend: object) -> dict:
    """The layout's fonts on the figure itself, not only in the template: Streamlit's chart
    theme writes its own (small) fonts over the template's in the browser. ``legend``: the
    legend's other properties (where it goes)."""
    return dict(
        font=dict(family=base.FONT_FAMILY, size=s.font),
        legend=dict(**legend, font=dict(size=s.font)),
    )


def line_traces(x: np.ndarray, curves: Mapping[str, Sequence[float] | np.ndarray]) -> list[dict]:
    """The traces of ``charts.base.line_chart`` (one line with markers per named curve)."""
    if not curves:
        raise ValueError("curves is empty; pass {name: values} with at least one line")
    data = []
    for name, ys in curves.items():
        arr = np.asarray(ys, dtype=float)
        if arr.shape != x.shape or not np.all(np.isfinite(arr)):
            raise ValueError(f"{name!r}: pass {x.size} finite values, one per x")
        data.append(dict(type="scatter", x=x, y=arr, name=str(name), mode="lines+markers"))
    return data
