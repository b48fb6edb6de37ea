"""Plain words on the class path: a slide (control labels, chart and axis titles, legends,
headings, the lead, the body sentences, the takeaway, "try this") shows no symbol a newcomer
has not been given, outside "For the curious"; and a term of the glossary that has a gloss
is first used on the stop that gives that gloss (``core.glossary``), never before it.

Walked as a class sees it: presenter mode, the class path, both languages."""

from __future__ import annotations

import re
from functools import cache

import pytest

from core import glossary
from tests.conftest import make_app
from tests.lessons.slide_words import Said, said
from ui.nav import Stop, deck

# Symbols and jargon that belong in "For the curious", never on a slide: (pattern, what).
SYMBOLS: tuple[tuple[str, str], ...] = (
    (r"∂", "a partial derivative"),
    (r"ρ", "rho (spectral radius)"),
    (r"W_hh|W_\{?hh", "a weight matrix's name"),
    (r"‖", "a norm"),
    (r"tanh\s*['′]", "tanh's slope"),
    (r"\bO\(\s*n", "big-O notation"),
    (r"⟨bos⟩", "the start token"),
    (r"\b[ehx]_[a-zA-Z{]", "a subscripted symbol (e_j, h_t, x_t)"),
    (r"[ατΣσ√]", "a Greek letter or root sign"),
    (r"\$", "a formula"),
    # C is the glossed context vector (in the model names); n and d are named on the axes of
    # the slides that set them ("n (words per n-gram)", "distance d (symbols back)"); any
    # other letter is a symbol the slide never defined
    (r"(?-i:\b[ABD-Zabce-mo-z] = \{?\d)", "a one-letter variable (T = 60: say 60 steps)"),
)
JARGON: dict[str, tuple[tuple[str, str], ...]] = {
    "en": (
        (r"\beigen", "eigenvalues"),
        (r"\bentropy\b", "entropy"),
        (r"\bbits\b", "bits of information"),
        (r"read-?out", "a linear read-out"),
        (r"held-out", "held-out (say: sentences it never saw)"),
        (r"spectral radius", "spectral radius"),
        (r"\bVanilla\b", "vanilla (the app says plain)"),
    ),
    "zh": (
        (r"特征值", "特征值"),
        (r"熵", "熵"),
        (r"比特", "比特"),
        (r"线性读出|读出器", "线性读出"),
        (r"探针准确率", "探针准确率"),
        (r"留出(集|测试|句子|数据)", "留出集"),
        (r"谱半径", "谱半径"),
    ),
}


def symbol_problems(stop: Stop, words: list[Said], lang: str) -> list[str]:
    """ "stop kind: what («text»)" for every symbol or jargon on the slide."""
    found = []
    for w in words:
        if not w.on_slide:
            continue
        if w.kind == "Latex":
            found.append(f"{stop.slug}/{stop.part} a formula outside 'For the curious'")
            continue
        for pattern, what in SYMBOLS + JARGON[lang]:
            if re.search(pattern, w.text, flags=re.IGNORECASE if lang == "en" else 0):
                found.append(f"{stop.slug}/{stop.part} {w.kind}: {what} «{w.text[:90]}»")
    return found


def _uses(term: str, text: str, lang: str) -> bool:
    if lang == "zh":  # a one-character term (键, 值) is part of too many other words to find
        return len(term) > 1 and term in text
    return re.search(rf"(?<![A-Za-z-]){re.escape(term)}", text, flags=re.IGNORECASE) is not None


def gloss_problems(slides: list[tuple[Stop, list[Said]]], lang: str) -> list[str]:
    """A glossed concept used on the slides before the stop that introduces it, an
    introducing stop off the class path, or a gloss its stop does not show."""
    found = []
    order = [stop for stop, _ in slides]
    for concept in glossary.concepts().values():
        if concept.introduced is None:
            continue
        home = Stop(*concept.introduced)
        if home not in order:
            found.append(f"{concept.name}: introduced on {home}, which is not on the class path")
            continue
        for stop, words in slides[: order.index(home)]:
            used = [w.text for w in words if w.on_slide and _uses(concept.term[lang], w.text, lang)]
            if used and stop.slug != "home":  # the title page names what the lesson covers
                found.append(
                    f"{concept.name} («{concept.term[lang]}») used on {stop.slug}/{stop.part}, "
                    f"before {home.slug}/{home.part} glosses it: «{used[0][:90]}»"
                )
        shown = " ".join(w.text for w in slides[order.index(home)][1])
        if shown.count(concept.gloss[lang]) != 1:  # a nested fragment's slide repeats none
            found.append(f"{concept.name}: {home.slug}/{home.part} shows its gloss ≠ once")
    return found


@cache
def class_slides(lang: str) -> list[tuple[Stop, list[Said]]]:
    slides = []
    for stop in deck("class"):
        page = None if stop.slug == "home" else f"pages/{stop.slug}.py"
        at = make_app(page, lang=lang, present="1", part=stop.part or "").run(timeout=300)
        assert not at.exception, (stop, [e.value for e in at.exception])
        slides.append((stop, said(at, lang)))
    return slides


@pytest.mark.long
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_class_path_speaks_plainly(lang):
    slides = class_slides(lang)
    problems = [p for stop, words in slides for p in symbol_problems(stop, words, lang)]
    problems += gloss_problems(slides, lang)
    assert problems == [], "\n".join(problems)


def test_the_checks_find_a_symbol_and_an_early_term():
    stop, later = Stop("rnn_gradients", "fresh"), Stop("attention", "self")
    words = [Said("Slider", "Spectral radius ρ of W_hh", True), Said("Caption", "ρ", False)]
    assert len(symbol_problems(stop, words, "en")) == 3  # ρ, W_hh, spectral radius
    assert symbol_problems(stop, [Said("Slider", "谱半径 ρ", True)], "zh") != []
    early = [Said("Markdown", "Self-attention mixes the words.", True)]
    glossed = [Said("Caption", glossary.concepts()["self_attention"].gloss["en"], False)]
    problems = gloss_problems([(stop, early), (later, glossed)], "en")
    assert any(p.startswith("self_attention («self-attention») used on") for p in problems)
    assert not any("self_attention" in p for p in gloss_problems([(later, glossed)], "en"))
