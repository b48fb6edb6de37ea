"""Every "Try this" that names a control (in quotes: “Input strength”) names one that is on
the page, on a laptop (a phone has the same layout) and on the projector, in both languages.
"More controls" exists only on the projector, so an instruction must name the control itself.

Runs on the shipped zoo (the part's real default view)."""

from __future__ import annotations

import re

import pytest

from core import i18n
from tests.conftest import make_app
from ui import nav

# (page, part): the parts whose "Try this" names controls (the others quote sentences and
# words of the lesson, not controls)
PARTS = (
    ("bottleneck", "read"),
    ("bottleneck", "stretch"),
    ("rnn_gradients", "fresh"),
    ("rnn_gradients", "words"),
    ("arena", "sentence"),
    ("autoregressive", "cost"),
    ("path_length", "pair"),
    ("path_length", "table"),
    ("compression", "priors"),
)
QUOTED = re.compile(r"“([^”]+)”")
# the kinds of widget a "Try this" can name: a label, and for choices their options too
WIDGETS = (
    "button",
    "download_button",
    "toggle",
    "checkbox",
    "slider",
    "select_slider",
    "selectbox",
    "radio",
    "number_input",
    "text_input",
    "text_area",
    "button_group",
)


def quoted_names(text: str) -> list[str]:
    """The names a "Try this" puts in quotes."""
    return QUOTED.findall(text)


def _short(label: str) -> str:
    """A label's name before its explanation: "Encoder (no attention, size of C)" ->
    "Encoder"; "k：CNN 的卷积核" stays whole (a colon right after one symbol is the name)."""
    return re.split(r"\s*[（(]", label, maxsplit=1)[0].strip()


def control_names(at) -> set[str]:
    """Every label and option of the page's widgets, and each label's short name."""
    names: set[str] = set()
    for kind in WIDGETS:
        for w in at.get(kind):
            label = getattr(w, "label", None) or getattr(w.proto, "label", "")
            if label:
                names |= {label, _short(label)}
            options = getattr(w, "options", None)
            if options is None and hasattr(w.proto, "options"):
                options = [getattr(o, "content", o) for o in w.proto.options]
            names |= {str(o) for o in options or ()}
    return names


def try_text(at, lang: str) -> str:
    start = f"**{i18n.translate('shell.try', lang)}**"
    texts = [str(el.value) for el in at.info if str(el.value).startswith(start)]
    assert len(texts) == 1, texts
    return texts[0]


def test_the_listed_parts_exist():
    declared = {(p.slug, part) for p in nav.PAGES for part in p.parts}
    assert set(PARTS) <= declared


def test_quoted_names_are_found_and_a_missing_one_is_not():
    names = {"Input strength", "Encoder"}
    assert [q for q in quoted_names("Set “Input strength” to 1.0") if q not in names] == []
    missing = [q for q in quoted_names("Under “More controls”, pick “Encoder”") if q not in names]
    assert missing == ["More controls"]


@pytest.mark.parametrize("present", ["0", "1"], ids=["laptop", "projector"])
@pytest.mark.parametrize("lang", i18n.LANGS)
@pytest.mark.parametrize(("page", "part"), PARTS, ids=[f"{p}/{q}" for p, q in PARTS])
def test_try_this_names_only_controls_on_the_page(page, part, lang, present):
    at = make_app(f"pages/{page}.py", lang=lang, present=present, part=part).run(timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    text = try_text(at, lang)
    names = control_names(at)
    missing = [q for q in quoted_names(text) if q not in names]
    assert missing == [], f"{text!r} names controls that are not on the page"
    # the projector's fold is never an instruction's target
    assert i18n.translate("shell.more_controls", lang) not in text
