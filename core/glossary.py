"""The glossary: one term per concept in each language, and the one-line gloss a newcomer
is given where the class path first uses the concept (``assets/glossary.json``).

A concept with a ``gloss`` names the part that introduces it (``"introduced":
"<slug>/<part>"``, a stop of the class path); that part shows the gloss under its part
selector, on either path. ``tests/lessons/test_plain_words.py`` walks the class path and
fails when a slide uses a glossed term before the stop that introduces it. No streamlit here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache

from core.i18n import I18N_DIR, LANGS

GLOSSARY = I18N_DIR.parent / "glossary.json"  # beside the catalogues, not one of them


@dataclass(frozen=True)
class Concept:
    name: str
    term: dict[str, str]  # the one term per language
    gloss: dict[str, str] | None  # one plain line per language, or None
    introduced: tuple[str, str] | None  # (slug, part) of the stop that gives the gloss


@cache
def concepts() -> dict[str, Concept]:
    """Every concept of the glossary, in its order (read once; read-only)."""
    raw = json.loads(GLOSSARY.read_text(encoding="utf-8"))["concepts"]
    out: dict[str, Concept] = {}
    for name, entry in raw.items():
        gloss = entry.get("gloss")
        where = entry.get("introduced")
        if (gloss is None) != (where is None):
            raise ValueError(f"glossary concept {name!r}: give both 'gloss' and 'introduced'")
        if gloss is not None and set(gloss) != set(LANGS):
            raise ValueError(f"glossary concept {name!r}: a gloss in each of {LANGS}")
        stop = None
        if where is not None:
            slug, _, part = where.partition("/")
            if not (slug and part):
                raise ValueError(f"glossary concept {name!r}: 'introduced' is '<slug>/<part>'")
            stop = (slug, part)
        out[name] = Concept(name, {lang: entry[lang] for lang in LANGS}, gloss, stop)
    return out


def introduced_at(slug: str, part: str | None) -> tuple[Concept, ...]:
    """The concepts whose gloss the part ``(slug, part)`` gives, in the glossary's order."""
    return tuple(c for c in concepts().values() if c.introduced == (slug, part))
