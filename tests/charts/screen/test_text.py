"""charts.screen.text: the measured width of the chart font, and line breaking in Latin and
Chinese text."""

from __future__ import annotations

import pytest

from charts.screen.text import text_width, wrap


def test_text_width_uses_the_measured_advances_and_counts_cjk_as_square():
    assert text_width("0", 10) == pytest.approx(5.55)
    assert text_width("60%", 12) == pytest.approx((555 + 555 + 921) * 12 / 1000)
    assert text_width("老虎", 14) == pytest.approx(28.0)
    # lines: the widest; tags and zero-width spaces take no room
    assert text_width("ab<br>abcd", 10) == text_width("abcd", 10)
    assert text_width("<b>ab</b>\u200b", 10) == text_width("ab", 10)


def test_wrap_breaks_chinese_anywhere_and_latin_at_spaces():
    zh = wrap("编码器把整句话压进一个固定长度的向量长句子装不下", 20, 200)
    assert (
        "<br>" in zh
        and zh.replace("<br>", "") == "编码器把整句话压进一个固定长度的向量长句子装不下"
    )
    en = wrap("one two three four five six seven", 20, 120)
    assert all(" " not in (w[:1] + w[-1:]) for w in en.split("<br>"))
    assert en.replace("<br>", " ") == "one two three four five six seven"
    assert wrap("short", 20, 500) == "short"


def test_wrap_never_leaves_chinese_brackets_or_commas_at_the_wrong_end_of_a_line():
    text = "h_t 的单元（1–256）与句子，长句子。好（很好）"
    for width in range(40, 400, 7):
        lines = wrap(text, 24, width).split("<br>")
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")
        assert not any(line[-1:] in "（《“" for line in lines), (width, lines)
        assert not any(line[:1] in "）》”，。" for line in lines), (width, lines)
