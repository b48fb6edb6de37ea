"""A figure fitted to a phone's narrow screen: its title taken out to stand above the chart
as text that wraps (:func:`take_title`), long panel titles made smaller, a legend right of
the plot laid above it and colour bars made thin (:func:`fit_phone`), so that the plot keeps
the phone's width.
"""

from __future__ import annotations

import html
import math
import re
from typing import TYPE_CHECKING

from charts.screen.sizes import (
    LAPTOP_FONT,
    LAPTOP_TITLE,
    MIN_PHONE_FONT,
    PHONE_BAR,
    PHONE_BAR_PAD,
    PHONE_BAR_TITLE,
    PHONE_WIDTH,
)
from charts.screen.text import rough_width, wrap

if TYPE_CHECKING:
    import plotly.graph_objects as go


def take_title(fig: go.Figure) -> str:
    """Remove the figure's title and return it as plain text (line breaks and tags gone),
    for the page to show above the chart. On a phone plotly cut a title wider than the
    chart (it never wraps one) and a long one ran over a legend at the top; text above
    the chart wraps like any text. The room the figure kept for its title row goes too."""
    lay: dict = fig._layout  # noqa: SLF001 (see projector.fit_projector)
    title = lay.get("title") or {}
    text = title.get("text") or ""
    if not text:
        return ""
    size = (title.get("font") or {}).get("size") or LAPTOP_TITLE
    title["text"] = ""
    margin = lay.get("margin") or {}
    if margin.get("t"):
        margin["t"] = max(10, margin["t"] - math.ceil(size * 1.5))
    plain = re.sub(r"<br\s*/?>", " ", text)
    return html.unescape(re.sub(r"<[^>]+>", "", plain)).strip()


def fit_phone(fig: go.Figure, *, width_px: float = PHONE_WIDTH) -> go.Figure:
    """Fit long panel titles (annotations on a panel's top edge) to a phone's width:
    smaller (not under :data:`MIN_PHONE_FONT`), wrapped only if that is not enough; lay a
    legend that stands right of the plot above it, in rows, and make colour bars thin
    (:data:`PHONE_BAR`), so that the plot keeps the phone's width; returns the same figure.
    (The chart's own title: :func:`take_title`.)"""
    lay: dict = fig._layout  # noqa: SLF001 (see projector.fit_projector)
    # a panel title starts at the plot's left edge (x = 0 on the paper) and may run to the
    # figure's right edge: the room is the width less the left margin, which plotly grows
    # for the axis's title and labels (~130 px measured for a heatmap of words)
    room = max(120.0, width_px - max((lay.get("margin") or {}).get("l") or 0, 130))
    for ann in lay.get("annotations") or []:
        if ann.get("yanchor") == "bottom" and ann.get("text") and not ann.get("showarrow", True):
            # smaller rather than wrapped: an extra line would grow up into the panel above
            font = ann.setdefault("font", {})
            size = font.get("size") or LAPTOP_FONT
            lines = [re.sub(r"<[^>]+>", "", ln) for ln in re.split(r"<br\s*/?>", ann["text"])]
            wide = max(rough_width(line, size) for line in lines)
            if wide > room:
                font["size"] = max(MIN_PHONE_FONT, math.floor(size * room / wide))
                if max(rough_width(line, font["size"]) for line in lines) > room:
                    ann["text"] = wrap(str(ann["text"]), font["size"], room)
                    if ann.get("xanchor") == "left":  # its lines from the same left edge
                        ann.setdefault("align", "left")
    # a legend standing right of the plot would leave it a sliver of a phone's width (the
    # bottleneck's probe curves: 3 px): it lies above the plot instead, in rows
    legend = lay.get("legend") or {}
    data: list[dict] = fig._data  # noqa: SLF001
    shown = any(tr.get("showlegend") is not False and tr.get("name") for tr in data)
    right = legend.get("x", 1.02) >= 1 and legend.get("xanchor", "left") in ("left", "auto")
    vertical = legend.get("orientation", "v") == "v"
    if lay.get("showlegend") is not False and shown and vertical and right:
        lay["legend"] = {
            **legend,
            "orientation": "h",
            "x": 0.0,
            "xanchor": "left",
            "y": 1.02,
            "yanchor": "bottom",
        }
    # colour bars: thin, close to the plot (a 13-word attention map keeps ~30 px more)
    bars = [lay[k].setdefault("colorbar", {}) for k in lay if k.startswith("coloraxis")]
    for tr in data:
        if tr.get("type") in ("heatmap", "contour", "histogram2d") and tr.get("showscale", True):
            if not tr.get("coloraxis"):
                bars.append(tr.setdefault("colorbar", {}))
        elif (tr.get("marker") or {}).get("showscale"):
            bars.append(tr["marker"].setdefault("colorbar", {}))
    for bar in bars:
        if bar.get("orientation", "v") == "v":
            bar["thickness"] = min(bar.get("thickness") or 30, PHONE_BAR)
            bar["xpad"] = min(bar.get("xpad", 10), PHONE_BAR_PAD)
            title = bar.get("title")
            if isinstance(title, dict) and title.get("text"):  # above the bar: sets its width
                font = title.setdefault("font", {})
                font["size"] = min(font.get("size") or PHONE_BAR_TITLE, PHONE_BAR_TITLE)
    return fig
