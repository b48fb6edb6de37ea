"""Translation catalogues for the app's two languages (no streamlit here).

Every visible string lives in a flat ``key -> text`` JSON table (keys are dotted, e.g.
``"home.title"``): the shell's in ``assets/i18n/<lang>.json``, each lesson page's in
``assets/i18n/pages/<slug>.<lang>.json`` (so pages can be written side by side). A
language's catalogue is the union; a key defined twice is an error. Texts may contain
``str.format`` placeholders (``"{file}"``); both catalogues must use the same placeholders
for the same key, which ``tests/core/test_i18n.py`` checks.
"""

from __future__ import annotations

import json
import string
from functools import cache
from pathlib import Path

I18N_DIR = Path(__file__).resolve().parent.parent / "assets" / "i18n"
LANGS: tuple[str, ...] = ("en", "zh")
DEFAULT_LANG = "en"
LANG_NAMES: dict[str, str] = {"en": "English", "zh": "简体中文"}


@cache
def load_catalogue(lang: str) -> dict[str, str]:
    """The ``key -> text`` table of one language (read once, then cached; read-only)."""
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}; use one of {LANGS}")
    merged: dict[str, str] = {}
    for path in catalogue_files(lang):
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in data.items()
        ):
            raise ValueError(f"{path} must be a flat JSON object of strings")
        twice = sorted(set(merged) & set(data))
        if twice:
            raise ValueError(f"{path} defines keys already defined elsewhere: {twice[:5]}")
        merged.update(data)
    return merged


def catalogue_files(lang: str) -> list[Path]:
    """The JSON files that make up one language's catalogue: the shell's, then each page's."""
    return [I18N_DIR / f"{lang}.json", *sorted((I18N_DIR / "pages").glob(f"*.{lang}.json"))]


def placeholders(text: str) -> set[str]:
    """The names of the ``{placeholders}`` in a catalogue text."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def translate(key: str, lang: str = DEFAULT_LANG, **fmt: object) -> str:
    """The text of ``key`` in ``lang``, formatted with ``fmt``.

    A key missing from ``lang`` falls back to English, then to the key itself, so a
    forgotten string shows up as its key instead of crashing a lesson in class.
    """
    lang = lang if lang in LANGS else DEFAULT_LANG
    text = load_catalogue(lang).get(key)
    if text is None:
        text = load_catalogue(DEFAULT_LANG).get(key, key)
    return text.format(**fmt) if fmt else text


def lang_from_locale(locale: str | None) -> str:
    """Map a browser locale (``navigator.language``, e.g. ``"zh-CN"``) to ``"en"``/``"zh"``."""
    if locale and locale.strip().lower().startswith("zh"):
        return "zh"
    return DEFAULT_LANG
