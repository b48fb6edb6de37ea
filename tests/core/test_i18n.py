"""The two catalogues agree: same keys, no empty strings, same placeholders."""

from __future__ import annotations

import json
import re

import pytest

from core import i18n
from ui.nav import LESSON_MAP, PAGES


def _raw(lang: str) -> dict[str, str]:
    return i18n.load_catalogue(lang)


def test_every_page_catalogue_has_both_languages_with_the_same_keys():
    for en_path in (i18n.I18N_DIR / "pages").glob("*.en.json"):
        zh_path = en_path.with_name(en_path.name.replace(".en.json", ".zh.json"))
        assert zh_path.is_file(), f"{zh_path.name} is missing"
        en = json.loads(en_path.read_text(encoding="utf-8"))
        zh = json.loads(zh_path.read_text(encoding="utf-8"))
        assert set(en) == set(zh), en_path.name


def test_same_keys_in_both_languages():
    en, zh = _raw("en"), _raw("zh")
    assert sorted(set(en) - set(zh)) == [], "keys missing from zh.json"
    assert sorted(set(zh) - set(en)) == [], "keys missing from en.json"


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_no_empty_strings(lang):
    empty = [k for k, v in _raw(lang).items() if not isinstance(v, str) or not v.strip()]
    assert empty == []


def test_placeholders_agree():
    en, zh = _raw("en"), _raw("zh")
    diff = {k: (i18n.placeholders(en[k]), i18n.placeholders(zh[k])) for k in en}
    assert {k: v for k, v in diff.items() if v[0] != v[1]} == {}


def test_chinese_catalogue_is_chinese():
    zh, en = _raw("zh"), _raw("en")
    # proper names written the same in both languages (LSTM, GRU, Transformer) and pure
    # format strings ("{page} · {part}") are Chinese as they are
    same = {k for k, v in zh.items() if k.startswith("model.") and k.endswith(".name")}
    same = {k for k in same if zh[k] == en[k]}
    # strings of placeholders and symbols only ("{page} · {part}", "{v} ✓") have no language
    same |= {k for k, v in zh.items() if not re.search(r"[^\W\d_]", re.sub(r"\{\w*\}", "", v))}
    no_cjk = [
        k
        for k, v in zh.items()
        if k not in same and not any("\u4e00" <= ch <= "\u9fff" for ch in v)
    ]
    assert no_cjk == [], "these zh strings contain no Chinese characters"


def test_every_page_and_lesson_stop_has_title_and_claim():
    slugs = {p.slug for p in PAGES} | {s.slug for s in LESSON_MAP}
    for slug in slugs:
        for part in ("title", "claim"):
            assert f"page.{slug}.{part}" in _raw(i18n.DEFAULT_LANG), f"page.{slug}.{part}"


def test_every_model_has_a_description():
    from core.zoo import MODEL_NAMES

    en = _raw(i18n.DEFAULT_LANG)  # the reference catalogue
    assert [n for n in MODEL_NAMES if f"model.{n}.desc" not in en] == []


def test_translate_formats_and_falls_back():
    assert "manifest.json" in i18n.translate(
        "zoo.missing", "zh", file="manifest.json", command="x", detail="", reason=""
    )
    assert i18n.translate("no.such.key", "zh") == "no.such.key"
    assert i18n.translate("app.title", "fr") == i18n.translate("app.title", "en")


@pytest.mark.parametrize(
    ("locale", "lang"),
    [("zh-CN", "zh"), ("zh-TW", "zh"), ("ZH", "zh"), ("en-US", "en"), ("de", "en"), (None, "en")],
)
def test_lang_from_locale(locale, lang):
    assert i18n.lang_from_locale(locale) == lang


def test_unknown_language_is_an_error():
    with pytest.raises(ValueError, match="unknown language"):
        i18n.load_catalogue("fr")


# --- bold that renders: CommonMark's flanking rule for "**" --------------------------------
# Streamlit renders markdown with micromark (CommonMark). A "**" opens bold only when it is
# left-flanking and closes only when it is right-flanking; Unicode punctuation (and symbols)
# counts against it. Chinese puts full-width punctuation right before a closing "**" often
# ("**先预测：**然后"): that "**" closes nothing and the asterisks stay on screen.


def _space(c: str | None) -> bool:
    return c is None or c.isspace()  # the start and the end of a paragraph count as space


def _punct(c: str | None) -> bool:
    import unicodedata

    return c is not None and unicodedata.category(c)[0] in "PS"


def bold_problems(text: str) -> list[str]:
    """Where a ``**`` of ``text`` cannot open or close the bold it is meant to (runs paired in
    order within a paragraph; placeholders read as a word, code spans left out)."""
    text = re.sub(r"\{[^{}]*\}", "x", re.sub(r"`[^`]*`", "x", text))
    out = []
    for para in re.split(r"\n\s*\n", text):
        runs = [(m.start(), len(m.group())) for m in re.finditer(r"\*{2,}", para)]
        if len(runs) % 2:
            out.append(f"an odd number of ** in {para[:50]!r}")
            continue
        for k, (i, n) in enumerate(runs):
            before = para[i - 1] if i else None
            after = para[i + n] if i + n < len(para) else None
            if k % 2 == 0 and not (
                not _space(after) and (not _punct(after) or _space(before) or _punct(before))
            ):
                out.append(f"** cannot open: {para[max(0, i - 8) : i + n + 8]!r}")
            if k % 2 == 1 and not (
                not _space(before) and (not _punct(before) or _space(after) or _punct(after))
            ):
                out.append(f"** cannot close: {para[max(0, i - 8) : i + n + 8]!r}")
    return out


@pytest.mark.parametrize(
    "text, ok",
    [
        ("**先预测**：训练结束时", True),
        ("**先预测：**训练结束时", False),  # the live page's predict box, once
        ("**怎么看这张图。**每一列", False),  # the bottleneck's latent guide until then
        ("**“引号”**里", False),
        ("（**注意**）", True),
        ("**Try this:** drag", True),
        ("a **b** c and **{n} words**.", True),
        ("**one** and **two", False),
        ("x**，y**z", False),
        ("`a**b` **c**", True),
    ],
)
def test_the_bold_check_follows_commonmark(text, ok):
    assert (bold_problems(text) == []) is ok, bold_problems(text)


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_every_bold_in_the_catalogues_renders(lang):
    bad = {k: p for k, v in _raw(lang).items() if (p := bold_problems(v))}
    assert bad == {}, bad
