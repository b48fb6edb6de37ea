"""What a slide says, as a newcomer reads it: the words of one rendered part, sorted into
what the slide puts in front of the class (control labels and options, chart and axis
titles, legends, headings, the lead and body sentences, the takeaway and "try this") and
the rest (captions, tables, the folds "For the curious" and "Predict, then check")."""

from __future__ import annotations

import json
from dataclasses import dataclass

from streamlit.testing.v1 import element_tree as et

from core.i18n import translate

PROSE = ("Markdown", "Success", "Info", "Warning", "Error", "Title", "Header", "Subheader")
ASIDE = ("Caption",)


@dataclass(frozen=True)
class Said:
    kind: str  # the element kind ("Slider", "chart", "Markdown" ...)
    text: str
    on_slide: bool  # in front of the class (see the module docstring)


def _chart_words(spec: dict) -> list[str]:
    layout = spec.get("layout", {})
    words = []

    def text_of(title) -> str:
        return title.get("text", "") if isinstance(title, dict) else str(title or "")

    words.append(text_of(layout.get("title")))
    for name, axis in layout.items():
        if name.startswith(("xaxis", "yaxis")) and isinstance(axis, dict):
            words.append(text_of(axis.get("title")))
            words += [str(tick) for tick in axis.get("ticktext") or []]
    words += [str(a.get("text", "")) for a in layout.get("annotations") or []]
    for trace in spec.get("data", []):
        if trace.get("showlegend", True) is not False and trace.get("name"):
            words.append(str(trace["name"]))
        words.append(text_of((trace.get("colorbar") or {}).get("title")))
    return [w for w in words if w]


def _navigation(node, kind: str) -> bool:
    """The part selector and the deck's links: they name other parts, they use no term."""
    if kind == "PageLink":
        return True
    label = str(getattr(node, "label", "") or "")
    return str(getattr(node, "key", "") or "").endswith("_part") or "▸" in label or "◂" in label


def said(at, lang: str) -> list[Said]:
    """Every text of the main area of ``at`` (an AppTest that has run)."""
    asides = {translate("shell.curious", lang), translate("poll.predict.title", lang)}
    out: list[Said] = []

    def walk(node, on_slide: bool) -> None:
        if isinstance(node, et.Block):
            if isinstance(node, et.Expander):
                on_slide = on_slide and node.label not in asides
                out.append(Said("fold", node.label, on_slide))
            for child in node.children.values():
                walk(child, on_slide)
            return
        kind = type(node).__name__
        if getattr(node, "type", None) == "plotly_chart":
            spec = json.loads(node.proto.spec)
            out.extend(Said("chart", w, on_slide) for w in _chart_words(spec))
        elif kind in PROSE:
            text = str(node.value)
            table = text.lstrip().startswith("|")
            out.append(Said(kind, text, on_slide and not table))
        elif kind == "Latex":  # a formula: on a slide only if outside the folds
            out.append(Said(kind, str(node.value), on_slide))
        elif kind in ASIDE:
            out.append(Said(kind, str(node.value), False))
        elif _navigation(node, kind):
            return
        elif getattr(node, "label", None):
            out.append(Said(kind, str(node.label), on_slide))
            for option in getattr(node, "options", None) or []:
                out.append(Said(kind + " option", str(option), on_slide))

    walk(at.main, True)
    return out
