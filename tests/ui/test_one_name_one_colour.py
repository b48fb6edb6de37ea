"""One vocabulary across the app, read from what every part actually shows.

Every default view of every part is run through AppTest, in both languages:
- every chart trace that names a model or probe uses its one display name
  (``core.lexicon.name``) and its one colour (``core.lexicon.look``);
- no two visible lines lie exactly on top of each other unless an annotation names them;
- no student-visible text (titles, prose, captions, alerts, labels, chart titles, legends)
  contains a command, a file path or a code identifier, except inside the "for the curious"
  fold (and the messages for a missing weight file, which are not part of a default view).
"""

from __future__ import annotations

import json
import re

import pytest

from core import lexicon, zoo
from core.i18n import translate
from tests.conftest import make_app
from ui.nav import deck

STOPS = [s for s in deck()]
IDS = [f"{s.slug}-{s.part}" if s.part else s.slug for s in STOPS]

IDENTIFIER = re.compile(
    # model identifiers (the ones with an underscore: "transformer" is also an English word)
    r"\b(?:" + "|".join(re.escape(n) for n in zoo.MODEL_NAMES if "_" in n) + r")\b"
    r"|python -m|\b[\w/]+\.(?:py|json|pt)\b|\bperf_counter\b|\bmanifest\b|\bst\.\w+",
    re.IGNORECASE,
)


def _run(stop, lang: str):
    params = {"part": stop.part} if stop.part else {}
    at = make_app(f"pages/{stop.slug}.py", lang=lang, present="0", **params)
    at.run(timeout=240)
    assert not at.exception, [e.message for e in at.exception]
    return at


def _figures(at) -> list[dict]:
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def _colour(trace: dict) -> str | None:
    for key in ("line", "marker"):
        c = (trace.get(key) or {}).get("color")
        if isinstance(c, str):
            return c.upper()
    return None


def _plain(text: str) -> str:
    return re.sub(r"<[^>]+>", "", str(text or "")).strip()


_PROSE = {"Markdown", "Caption", "Title", "Header", "Subheader", "Text", "Code"}
_ALERTS = {"Success", "Info", "Warning", "Error", "Exception"}


def _visible_texts(node, curious: str, out: list[str]) -> None:
    """Every text a student reads under ``node``: prose and alerts, widget labels and the
    options as shown (not a widget's internal value), skipping the curious fold."""
    kind = type(node).__name__
    if kind == "Expander" and curious in str(getattr(node, "label", "")):
        return
    children = getattr(node, "children", None)
    if isinstance(children, dict) and children:
        for child in children.values():
            _visible_texts(child, curious, out)
        return
    if kind in _PROSE or kind in _ALERTS:
        value = getattr(node, "value", None)
        if isinstance(value, str):
            out.append(value)
        return
    label = getattr(node, "label", None)
    if isinstance(label, str):
        out.append(label)
    try:
        options = getattr(node, "options", None)
    except Exception:  # noqa: BLE001 (not every widget has options)
        options = None
    if isinstance(options, (list, tuple)):
        out += [str(o) for o in options]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("stop", STOPS, ids=IDS)
def test_one_name_one_colour_no_identifiers(stop, lang):
    at = _run(stop, lang)
    names = {lexicon.name(m, lang): m for m in lexicon.LOOKS}
    problems: list[str] = []
    for i, fig in enumerate(_figures(at)):
        layout = fig.get("layout", {})
        texts = [_plain((layout.get("title") or {}).get("text"))]
        lines: dict[tuple, list[str]] = {}
        for tr in fig.get("data", []):
            name = _plain(tr.get("name"))
            texts.append(name)
            model = names.get(name)
            if model is not None:
                colour = _colour(tr)
                want = lexicon.look(model).color.upper()
                if colour is not None and colour != want:
                    problems.append(f"chart {i}: {name!r} drawn in {colour}, its colour is {want}")
            if (
                tr.get("type", "scatter") == "scatter"
                and "lines" in str(tr.get("mode", "lines"))
                and tr.get("visible", True) is True
                and isinstance(tr.get("y"), list)
                and name
            ):
                key = (
                    tr.get("xaxis"),
                    tr.get("yaxis"),
                    json.dumps(tr.get("x")),
                    json.dumps(tr["y"]),
                )
                lines.setdefault(key, []).append(name)
        notes = " ".join(_plain(a.get("text")) for a in layout.get("annotations", []) or [])
        for same in lines.values():
            # said by a note on the chart, or by each legend entry naming the others
            in_legend = all(
                all(o.split(" (")[0].split("（")[0] in n for o in same if o != n) for n in same
            )
            if len(set(same)) > 1 and not (all(n in notes for n in same) or in_legend):
                problems.append(f"chart {i}: {same} lie on one line and no label says so")
        for axis in [k for k in layout if k.startswith(("xaxis", "yaxis"))]:
            texts.append(_plain(((layout[axis] or {}).get("title") or {}).get("text")))
        hits = [x for x in texts if x and IDENTIFIER.search(x)]
        problems += [f"chart {i}: identifier in {x!r}" for x in hits]
    visible: list[str] = []
    _visible_texts(at.main, translate("shell.curious", lang), visible)
    for x in dict.fromkeys(visible):  # each text once (an element can carry it twice)
        hit = IDENTIFIER.search(x)
        if hit:
            problems.append(f"text has {hit.group(0)!r}: {x[:100]!r}")
    assert problems == [], "\n".join(problems)
