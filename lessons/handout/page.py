"""The handout's HTML: one A4 page per stop of the deck, self-contained.

Texts come as the page wrote them (Streamlit's markdown: ``**bold**``, ``*italic*``,
```code```, ``:blue[text]``, ``:material/<name>:``, backslash escapes, pipe tables); this
module turns that small subset into escaped HTML. Every text a stop holds is escaped here.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.i18n import translate

# Named system fonts, CJK first for the Chinese handout (Noto/Source Han on Linux, PingFang
# on macOS, Microsoft YaHei on Windows): nothing is fetched, a reader's own font draws it.
FONTS = (
    "'Noto Sans CJK SC', 'Noto Sans SC', 'Source Han Sans SC', 'PingFang SC', "
    "'Microsoft YaHei', 'WenQuanYi Micro Hei', 'Source Sans 3', 'DejaVu Sans', sans-serif"
)
MAX_ROWS = 8  # of a chart's numbers: the handout's table is a glance, the page has them all
TALL_ROWS = 4  # ... under a tall chart (several panels stacked), which takes their room
TALL = 0.75  # a chart this much higher than wide, or more, is drawn taller on its page
MAX_COLS = 9

CSS = """
@page { size: A4; margin: 11mm 13mm; }
* { box-sizing: border-box; }
body { font-family: %(fonts)s; color: #1f1f1f; margin: 0; font-size: 10pt; line-height: 1.4; }
main { max-width: 184mm; margin: 0 auto; }
section.stop { padding: 6mm 0; border-bottom: 1px solid #ccc; display: flex;
  flex-direction: column; gap: 1.5mm; }
@media print {
  section.stop { height: 274mm; overflow: hidden; padding: 0; border: 0;
    break-after: page; page-break-after: always; }
  section.stop:last-child { break-after: auto; page-break-after: auto; }
}
h1 { font-size: 20pt; margin: 0 0 2mm; }
h2 { font-size: 15pt; margin: 0; }
h3 { font-size: 11pt; margin: 3mm 0 1mm; }
.where { color: #555; font-size: 9pt; display: flex; justify-content: space-between; }
.claim { font-weight: 600; margin: 0; }
.lead { font-size: 11pt; margin: 0; }
p { margin: 0 0 1.5mm; }
img.chart { display: block; width: 100%%; max-height: 100mm; object-fit: contain; }
img.chart.tall { max-height: 140mm; }
.chart-box { width: 100%%; }
.takeaway { background: #eaf6ec; border-left: 4px solid #2e7d32; padding: 2mm 3mm; }
.glosses, .word { font-size: 8.5pt; color: #333; }
.note { font-size: 9pt; color: #555; font-style: italic; }
table { border-collapse: collapse; font-size: 7.5pt; margin: 1mm 0; }
th, td { border: 1px solid #d0d0d0; padding: 0.5mm 1.5mm; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; font-size: 8pt; }
.more { font-size: 7.5pt; color: #666; }
footer { margin-top: auto; font-size: 8pt; color: #666; }
"""


@dataclass(frozen=True)
class Labels:
    """The handout's own words in one language (``handout.*`` keys)."""

    lang: str

    def __call__(self, key: str, **fmt: object) -> str:
        return translate(key, self.lang, **fmt)


_ICON = re.compile(r":material/[a-z_]+:\s*")
_COLOUR = re.compile(r":(red|orange|green|blue|violet|gray|grey|rainbow|primary)\[([^\]]*)\]")
_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|:<>~])")


def inline(text: str) -> str:
    """One line of Streamlit markdown as escaped HTML."""
    text = _ICON.sub("", text)
    codes: list[str] = []

    def keep_code(m: re.Match) -> str:
        codes.append(m.group(1))
        return f"\x00{len(codes) - 1}\x00"

    text = re.sub(r"`([^`]*)`", keep_code, text)
    marks: list[str] = []

    def keep_escaped(m: re.Match) -> str:
        marks.append(m.group(1))
        return f"\x01{len(marks) - 1}\x01"

    text = _ESCAPED.sub(keep_escaped, text)
    out = html.escape(text, quote=False)
    out = _COLOUR.sub(lambda m: f'<span class="c-{m.group(1)}">{m.group(2)}</span>', out)
    out = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", out)
    out = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<i>\1</i>", out)
    out = re.sub(r"\x01(\d+)\x01", lambda m: html.escape(marks[int(m.group(1))]), out)
    return re.sub(
        r"\x00(\d+)\x00", lambda m: f"<code>{html.escape(codes[int(m.group(1))])}</code>", out
    )


def block(text: str, cls: str = "") -> str:
    """A markdown text (paragraphs, a list, a pipe table, a heading line) as escaped HTML, in
    a ``div`` of class ``cls`` when given."""
    lines = text.strip().splitlines()
    if lines and lines[0].lstrip().startswith("|"):
        out = _pipe_table(lines)
    elif lines and lines[0].startswith("- "):
        out = "<ul>" + "".join(f"<li>{inline(x[2:])}</li>" for x in lines if x.startswith("- "))
        out += "</ul>"
    else:
        out = "".join(
            "<p>" + "<br>".join(_line(x) for x in p.splitlines()) + "</p>"
            for p in re.split(r"\n\s*\n", text.strip())
        )
    return f'<div class="{cls}">{out}</div>' if cls else out


def _line(text: str) -> str:
    """One line of a paragraph; a markdown heading's line in bold."""
    heading = re.match(r"#{1,6}\s+", text)
    return f"<b>{inline(text[heading.end() :])}</b>" if heading else inline(text)


def _cells(line: str) -> list[str]:
    body = line.strip()[1:-1] if line.strip().endswith("|") else line.strip()[1:]
    return [c.strip() for c in re.split(r"(?<!\\)\|", body)]


def _parse(lines: Sequence[str]) -> tuple[list[str], list[bool], list[list[str]]]:
    """A pipe table's header, which columns are right-aligned (numbers), and rows."""
    right = [c.endswith(":") and not c.startswith(":") for c in _cells(lines[1])]
    return _cells(lines[0]), right, [_cells(x) for x in lines[2:] if x.strip()]


def _html_table(header: list[str], right: list[bool], rows: list[list[str]]) -> str:
    def cell(i: int, c: str) -> str:
        return f'<td class="n">{inline(c)}</td>' if right[i] else f"<td>{inline(c)}</td>"

    head = "".join(f"<th>{inline(c)}</th>" for c in header)
    body = "".join(
        "<tr>" + "".join(cell(i, c) for i, c in enumerate(row)) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _pipe_table(lines: Sequence[str]) -> str:
    return _html_table(*_parse(lines))


def joined_tables(main: str, more: str) -> str:
    """Two pipe tables about the same rows (the home page's models and their training facts)
    as one: ``main``, then the number columns of ``more``, row by row (the rows must name
    the same things in the same order: each ``more`` row's first cell starts ``main``'s)."""
    header, right, rows = _parse(main.strip().splitlines())
    extra_header, extra_right, extra_rows = _parse(more.strip().splitlines())
    take = [i for i, r in enumerate(extra_right) if r]
    if len(rows) != len(extra_rows) or any(
        not a[0].startswith(b[0]) for a, b in zip(rows, extra_rows)
    ):
        raise ValueError("the two tables do not list the same rows in the same order")
    return _html_table(
        header + [extra_header[i] for i in take],
        right + [True] * len(take),
        [a + [b[i] for i in take] for a, b in zip(rows, extra_rows)],
    )


def numbers(
    tables: Sequence[tuple[str, list[str], list[list[str]]]], label: Labels, rows: int = MAX_ROWS
) -> str:
    """A chart's numbers (``charts.describe.tables``) as small tables, cut at ``rows`` rows
    and :data:`MAX_COLS` columns in all, with a line saying how much the page has beyond."""
    out, left = [], rows
    for caption, header, body in tables:
        if left <= 0:
            break
        cols = min(len(header), MAX_COLS)
        shown = body[:left]
        left -= len(shown)
        head = "".join(f"<th>{html.escape(h)}</th>" for h in header[:cols])
        cells = "".join(
            "<tr>"
            + "".join(
                f'<td class="{"n" if j else ""}">{html.escape(c)}</td>'
                for j, c in enumerate(r[:cols])
            )
            + "</tr>"
            for r in shown
        )
        out.append(
            f"<table><caption>{html.escape(caption)}</caption><thead><tr>{head}</tr></thead>"
            f"<tbody>{cells}</tbody></table>"
        )
        cut_rows, cut_cols = len(body) - len(shown), len(header) - cols
        if cut_rows or cut_cols:
            if cut_rows and cut_cols:
                more = label("handout.more", rows=cut_rows, cols=cut_cols)
            elif cut_rows:
                more = label("handout.more_rows", rows=cut_rows)
            else:
                more = label("handout.more_cols", cols=cut_cols)
            out.append(f'<p class="more">{html.escape(more)}</p>')
    hidden = len(tables) - sum(1 for x in out if x.startswith("<table"))
    if hidden > 0:
        out.append(f'<p class="more">{html.escape(label("handout.more_tables", n=hidden))}</p>')
    return "".join(out)


def document(lang: str, title: str, sections: Sequence[str], head_extra: str = "") -> str:
    """The whole handout: ``sections`` (each a ``<section class="stop">``) in one page."""
    css = CSS % {"fonts": FONTS}
    colours = "".join(
        f".c-{c} {{ color: {v}; }}"
        for c, v in (
            ("blue", "#1f77b4"),
            ("orange", "#d9730d"),
            ("green", "#2e7d32"),
            ("red", "#c62828"),
            ("violet", "#6a1b9a"),
            ("gray", "#666"),
            ("grey", "#666"),
        )
    )
    return (
        f'<!doctype html><html lang="{"zh-Hans" if lang == "zh" else "en"}"><head>'
        '<meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{css}{colours}</style>{head_extra}</head>"
        f"<body><main>{''.join(sections)}</main></body></html>\n"
    )
