"""How wide a chart's text is, and where it breaks: the measured width of the app's chart
font (:func:`text_width`, from ``glyphs.json``), a rough width (:func:`rough_width`) and the
line breaking it drives (:func:`wrap`, with the Chinese rules). No plotly, no numpy: builders
measure their own labels with it, and the fitting of :mod:`charts.screen` wraps titles with it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

# Advance widths per 1000 px of font size, measured in Chromium with ``base.FONT_FAMILY``
# (its first installed face here, Noto Sans CJK SC: canvas ``measureText`` at 1000 px), one
# character a row in ``glyphs.json``. A character not listed counts as a full em (CJK glyphs
# are square), an upper bound.
_ADVANCE: dict[str, int] = json.loads(
    (Path(__file__).with_name("glyphs.json")).read_text(encoding="utf-8")
)
_INVISIBLE = "\u200b\u200c\u200d\ufeff"


def text_width(text: object, size: float) -> float:
    """Width in px of ``text`` at ``size`` px in the app's chart font: the widest of its
    lines (``<br>``), tags (``<b>``, ``<sup>``) and invisible characters removed."""
    lines = re.split(r"<br\s*/?>", str(text))
    best = 0.0
    for line in lines:
        plain = re.sub(r"<[^>]+>", "", line)
        w = sum(_ADVANCE.get(ch, 1000) for ch in plain if ch not in _INVISIBLE)
        best = max(best, w * size / 1000.0)
    return best


def is_cjk(ch: str) -> bool:
    """Whether ``ch`` is a Chinese, Japanese or Korean character or mark (a square glyph)."""
    return "\u2e80" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef" or "\u3000" <= ch <= "\u303f"


def rough_width(text: str, size: float) -> float:
    """Rough rendered width in px of ``text`` at ``size`` px (CJK glyphs are square)."""
    return sum(size if is_cjk(ch) else 0.56 * size for ch in text)


def wrap(text: str, size: float, width: float) -> str:
    """``text`` with ``<br>`` inserted so that no line is wider than ``width`` px at
    ``size`` px: at spaces in Latin text, between any two characters in Chinese. Text that
    already has line breaks is wrapped line by line."""
    if not text:
        return text
    out: list[str] = []
    for para in text.split("<br>"):
        line = ""
        # tokens: words with their trailing space, or single CJK characters
        tokens: list[str] = []
        word = ""
        for ch in para:
            if is_cjk(ch):
                if word:
                    tokens.append(word)
                    word = ""
                tokens.append(ch)
            else:
                word += ch
                if ch == " ":
                    tokens.append(word)
                    word = ""
        if word:
            tokens.append(word)
        tokens = _keep_punctuation_attached(tokens)
        for tok in tokens:
            if line and rough_width(line + tok.rstrip(), size) > width:
                out.append(line.rstrip())
                line = tok.lstrip() if tok.strip() else ""
            else:
                line += tok
        out.append(line.rstrip())
    return "<br>".join(out)


# Chinese line-breaking rules (kinsoku): no line starts with a closing mark, none ends with an
# opening one.
_OPENING = set("（《“‘「『【〔(")
_CLOSING = set("）》”’」』】〕，。、；：！？)")


def _keep_punctuation_attached(tokens: list[str]) -> list[str]:
    """Merge an opening mark with the token after it and a closing mark with the one before,
    so that :func:`wrap` never breaks next to them ("（1–256）" stays whole)."""
    out: list[str] = []
    glue = False  # the last token was an opening mark: the next one joins it
    for tok in tokens:
        if out and (glue or tok in _CLOSING):
            out[-1] += tok
        else:
            out.append(tok)
        glue = tok in _OPENING
    return out
