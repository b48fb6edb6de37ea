"""What each stop of the deck shows, read from the page itself run without a browser.

Each stop runs once through ``AppTest`` (:func:`ui.headless.run_view`, the figure oracle's
run too) on the laptop's view, its default state: the handout takes the page's own words
(the part's one plain sentence, the words under its chart, the takeaway) and the page's own
chart, its plotly JSON exactly as the page sends it to the browser. Nothing here builds a
figure or writes a sentence of its own: a handout cannot disagree with the page.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field

from charts import describe
from core.i18n import translate
from ui import headless
from ui.nav import Stop

PRESENT = "0"  # the laptop's view: fonts for a page read at arm's length, not a projector
# A gloss line starts with this icon (ui.slide.new_words); the takeaway is the success box
GLOSS_ICON = ":material/menu_book:"


@dataclass(frozen=True)
class Chart:
    """One chart as the page sent it: ``spec`` and ``config`` are the JSON texts."""

    spec: str
    config: str
    view: str  # the figure oracle's id of the view that drew it: page/part/lang/present=0

    def figure(self) -> dict:
        return json.loads(self.spec)

    def tables(self, lang: str) -> list[tuple[str, list[str], list[list[str]]]]:
        """The numbers the chart draws (``charts.describe.tables``, its data table on the page)."""
        return describe.tables(self.figure(), lang)

    def has_data(self) -> bool:
        """Whether the chart draws numbers (a live race before its run draws empty axes)."""
        return any(rows for _, _, rows in self.tables("en"))


@dataclass(frozen=True)
class StopView:
    """One stop's words and chart in one language (markdown texts, as the page wrote them)."""

    slug: str
    part: str | None
    lang: str
    title: str  # the page's title
    claim: str  # the page's claim
    part_label: str  # the part's name in the part selector ("" for home)
    lead: str = ""
    words: list[str] = field(default_factory=list)
    glosses: str = ""  # "New words: ..." under the chart, without its icon
    takeaway: str = ""
    chart: Chart | None = None
    texts: list[str] = field(default_factory=list)  # home: its prose; tables as markdown


def view_id(stop: Stop, lang: str) -> str:
    return f"{stop.slug}/{stop.part}/{lang}/present={PRESENT}"


def _leaves(node) -> Iterator:
    """The elements under ``node`` in page order (containers walked into)."""
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        children = children.values()
    for child in children or ():
        if getattr(child, "children", None):
            yield from _leaves(child)
        else:
            yield child


def _text(el) -> str:
    try:
        return str(el.value)
    except Exception:  # noqa: BLE001 - an element without a text value
        return ""


def read(stop: Stop, lang: str) -> StopView:
    """The stop ``stop`` in ``lang``, as the page shows it on a laptop by default."""
    at = headless.run_view(stop.slug, stop.part, lang, PRESENT)
    title = translate(f"page.{stop.slug}.title", lang)
    claim = translate(f"page.{stop.slug}.claim", lang)
    label = translate(f"{stop.slug}.part.{stop.part}", lang) if stop.part else ""
    leaves = [el for el in _leaves(at.main) if getattr(el, "type", "") != "divider"]
    if stop.part is None:
        texts = [
            _text(el)
            for el in leaves
            if el.type in ("markdown", "header", "caption") and _text(el) != f"**{claim}**"
        ]
        return StopView(stop.slug, None, lang, title, claim, label, texts=texts)
    charts = [i for i, el in enumerate(leaves) if el.type == "plotly_chart"]
    first = charts[0] if charts else None
    said = [i for i, el in enumerate(leaves) if el.type == "success"]
    after = first if first is not None else 0
    end = next((i for i in said if i > after), len(leaves))
    lead = ""
    if first is not None:
        before = [el for el in leaves[:first] if el.type == "markdown"]
        lead = _text(before[-1]) if before and _text(before[-1]) != f"**{claim}**" else ""
    words, glosses = [], ""
    for el in leaves[(first + 1 if first is not None else 0) : end]:
        text = _text(el)
        if el.type == "caption" and text.startswith(GLOSS_ICON):
            glosses = text[len(GLOSS_ICON) :].strip()
        elif el.type in ("markdown", "caption") and text and text != lead:
            words.append(text)
    chart = None
    if first is not None:
        proto = leaves[first].proto
        chart = Chart(spec=proto.spec, config=proto.config, view=view_id(stop, lang))
    takeaway = _text(leaves[end]) if end < len(leaves) else ""
    return StopView(
        stop.slug,
        stop.part,
        lang,
        title,
        claim,
        label,
        lead=lead,
        words=words,
        glosses=glosses,
        takeaway=takeaway,
        chart=chart,
    )
