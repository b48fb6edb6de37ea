"""core.mdtable: Markdown tables whose cells stay literal text."""

from __future__ import annotations

import re

import pytest

from core import mdtable as md


@pytest.mark.parametrize(
    "raw",
    ["a|b", "<b>x</b>", "$x^2$", "**bold**", ":red[x]", "[link](http://x)", "`tick`", "1. item"],
)
def test_escape_leaves_no_markdown_syntax(raw):
    out = md.escape(raw)
    # every special character is preceded by a backslash, so Markdown shows it literally
    assert re.search(r"(?<!\\)[|<>$*\[\]`:]", out) is None, out
    assert out.replace("\\", "") == raw


def test_escape_one_line_and_empty():
    assert md.escape("a\nb\t c") == "a b c"
    assert md.escape(None) == md.escape("") == md.escape("   ") == "—"


def test_code_span_cannot_be_closed_early():
    assert md.code("a`b") == "`a'b`"
    assert md.code("a|b") == "`a\\|b`"  # a pipe would end the table cell
    assert md.code("") == "—"
    assert md.parse(md.table(["A"], [[md.code("猫|狗")]])) == [["A"], ["猫|狗"]]


def test_table_shape_and_alignment():
    src = md.table(["A", "B|C"], [["1", "2"], ["3", "4"]], ["left", "right"])
    assert src.splitlines() == ["| A | B\\|C |", "|:---|---:|", "| 1 | 2 |", "| 3 | 4 |"]
    with pytest.raises(ValueError, match="rows \\[1\\]"):
        md.table(["A", "B"], [["1", "2"], ["3"]])
    with pytest.raises(ValueError, match="unknown alignment"):
        md.table(["A"], [["1"]], ["middle"])
    with pytest.raises(ValueError, match="at least one column"):
        md.table([], [])


def test_log_bar_is_logarithmic():
    lengths = [len(md.log_bar(v, 10, 100_000, width=9)) for v in (10, 100, 1_000, 10_000, 100_000)]
    assert lengths == [1, 3, 5, 7, 9]  # each tenfold step adds the same number of blocks
    assert md.log_bar(5, 5, 5) == md.BAR * 12
    for bad in ((0, 1, 2), (3, 1, 2), (1, 2, 3)):
        with pytest.raises(ValueError):
            md.log_bar(*bad)


def test_parse_reads_back_what_table_wrote():
    header, rows = ["A|1", "B"], [["x | y", "$2"], ["", "<b>"]]
    src = md.table(header, [[md.escape(c) for c in r] for r in rows])
    assert md.parse(src) == [header, ["x | y", "$2"], ["—", "<b>"]]
    assert md.parse("just a paragraph") is None and md.parse("| a |\nnot a rule") is None
