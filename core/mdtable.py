"""Plain Markdown tables (no pandas): cheap to build, cheap for the browser to draw.

The home page is the first thing a cold server shows; a Markdown table there costs no
pandas/pyarrow import on the server and no table or chart bundle in the browser, and its
text grows with the presenter stylesheet like every other paragraph.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

# Characters Markdown (or Streamlit: "$" LaTeX, ":" icons and colours) would read as syntax.
_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+\-.!|~$:])")
ALIGN = {"left": ":---", "right": "---:", "center": ":---:"}
BAR = "█"


def escape(value: object) -> str:
    """``value`` as literal text for one table cell (one line, no Markdown, no HTML)."""
    if value is None:
        return "—"
    text = " ".join(str(value).split())  # newlines and runs of spaces become one space
    return _SPECIAL.sub(r"\\\1", text) if text else "—"


def code(value: object) -> str:
    """``value`` in a code span (shown monospaced, never interpreted)."""
    text = " ".join(str(value).split()).replace("`", "'").replace("|", "\\|")
    return f"`{text}`" if text else "—"


def table(header: Sequence[str], rows: Sequence[Sequence[str]], align: Sequence[str] = ()) -> str:
    """A GitHub-flavoured Markdown table. Cells must already be escaped (see :func:`escape`);
    ``align`` gives "left"/"right"/"center" per column (left by default)."""
    width = len(header)
    if width == 0:
        raise ValueError("a table needs at least one column")
    bad = [i for i, r in enumerate(rows) if len(r) != width]
    if bad:
        raise ValueError(f"rows {bad} do not have {width} cells like the header")
    aligns = list(align) + ["left"] * (width - len(align))
    unknown = sorted(set(aligns) - set(ALIGN))
    if unknown:
        raise ValueError(f"unknown alignment {unknown}; use one of {sorted(ALIGN)}")
    lines = [
        "| " + " | ".join(escape(h) for h in header) + " |",
        "|" + "|".join(ALIGN[a] for a in aligns[:width]) + "|",
    ]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def log_bar(value: float, lo: float, hi: float, width: int = 12) -> str:
    """A bar of 1..``width`` blocks whose length grows with log(value) from ``lo`` to ``hi``.

    Equal ratios get equal steps (log scale), so a model ten times bigger is a fixed number
    of blocks longer whatever its size.
    """
    if not (0 < lo <= value <= hi) or width < 1:
        raise ValueError(f"need 0 < lo <= value <= hi and width >= 1, got {lo}, {value}, {hi}")
    if hi == lo:
        return BAR * width
    frac = (math.log(value) - math.log(lo)) / (math.log(hi) - math.log(lo))
    return BAR * (1 + round(frac * (width - 1)))


def unescape(cell: str) -> str:
    """The literal text of a cell written by :func:`escape` (backslash escapes removed) or
    by :func:`code` (the code span's backticks removed)."""
    if len(cell) >= 2 and cell[0] == cell[-1] == "`":
        return cell[1:-1].replace("\\|", "|")
    return re.sub(r"\\(.)", r"\1", cell)


def parse(src: str) -> list[list[str]] | None:
    """The rows of a table written by :func:`table` (header first, alignment row dropped),
    each cell unescaped; ``None`` if ``src`` is not such a table."""
    lines = src.splitlines()
    if len(lines) < 2 or not lines[0].startswith("| ") or not set(lines[1]) <= set("|:-"):
        return None
    return [
        [unescape(c.strip()) for c in r.strip("| ").split(" | ")] for r in [lines[0], *lines[2:]]
    ]
