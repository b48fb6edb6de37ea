"""The files the image's build context takes: ``.dockerignore`` read as Docker and podman do.

``**`` spans folders, a leading ``/`` is dropped, the last matching pattern wins and a
``!pattern`` lets a path back in. tests/deploy/test_dockerignore.py checks the patterns with
it; deploy/space.py copies what the image would hold into a Hugging Face Space.
"""

from __future__ import annotations

import re
from pathlib import Path

Rules = tuple[tuple[bool, re.Pattern[str]], ...]  # (negated, pattern), in the file's order


def pattern_regex(pattern: str) -> re.Pattern[str]:
    """A .dockerignore pattern (Go's filepath.Match plus ``**``) as a regular expression
    for a path and everything under it."""
    out = ""
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
            continue
        if pattern.startswith("**", i):
            out += ".*"
            i += 2
            continue
        out += {"*": "[^/]*", "?": "[^/]"}.get(c, re.escape(c))
        i += 1
    return re.compile(out + "(?:/.*)?")


def read_rules(path: Path) -> Rules:
    """The patterns of a .dockerignore file, comments and blank lines left out."""
    rules = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        pattern = line.lstrip("!").strip().lstrip("/").rstrip("/")
        rules.append((negated, pattern_regex(pattern)))
    return tuple(rules)


def ignored(path: str, rules: Rules) -> bool:
    """Whether the build context leaves ``path`` (relative, ``/``-separated) out."""
    out = False
    for negated, rx in rules:
        if rx.fullmatch(path):
            out = not negated
    return out
