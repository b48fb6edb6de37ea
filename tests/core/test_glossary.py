"""One term per concept in each language: every catalogue uses the glossary's term, never a
variant spelling (``assets/glossary.json``)."""

from __future__ import annotations

import json
import re
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

from core import i18n

GLOSSARY = i18n.I18N_DIR.parent / "glossary.json"  # beside the catalogues, not one of them


def _glossary() -> dict[str, dict]:
    return json.loads(GLOSSARY.read_text(encoding="utf-8"))["concepts"]


def _texts() -> dict[str, dict[str, str]]:
    """``lang -> {key: text}`` read from every catalogue file (not the cached catalogue, so a
    test that edits a file sees the edit)."""
    out: dict[str, dict[str, str]] = {}
    for lang in i18n.LANGS:
        out[lang] = {}
        for path in i18n.catalogue_files(lang):
            out[lang].update(json.loads(path.read_text(encoding="utf-8")))
    return out


def _word(term: str) -> re.Pattern:
    """``term`` as a whole word (no Latin letter glued on either side), ignoring case."""
    return re.compile(rf"(?<![A-Za-z]){re.escape(term)}(?![A-Za-z])", re.IGNORECASE)


def _in_scope(key: str, scope: list[str] | None) -> bool:
    return scope is None or any(fnmatchcase(key, pattern) for pattern in scope)


def variant_uses(texts: dict[str, dict[str, str]], glossary: dict[str, dict]) -> list[str]:
    """Every place a catalogue spells a glossary concept another way: "key: variant (use
    term)"."""
    found = []
    for concept in glossary.values():
        scope = concept.get("scope")
        for variant in concept.get("variants", []):
            pattern = _word(variant)
            for lang, table in texts.items():
                for key, text in table.items():
                    if _in_scope(key, scope) and pattern.search(text):
                        found.append(f"{key}: “{variant}” (use “{concept[lang]}”)")
    return sorted(found)


def key_mismatches(texts: dict[str, dict[str, str]], glossary: dict[str, dict]) -> list[str]:
    """Catalogue keys a concept names (``keys``) whose text is not exactly its term."""
    bad = []
    for concept in glossary.values():
        for lang, table in texts.items():
            for key, text in table.items():
                if _in_scope(key, concept.get("keys", [])) and text != concept[lang]:
                    bad.append(f"{lang} {key}: “{text}” (use “{concept[lang]}”)")
    return sorted(bad)


def test_glossary_is_well_formed():
    glossary = _glossary()
    assert len(glossary) >= 15
    for name, concept in glossary.items():
        assert concept.get("en") and concept.get("zh"), name
        for variant in concept.get("variants", []):
            # a variant that is the term, or contains it, would flag the term itself
            for lang in i18n.LANGS:
                assert not _word(variant).search(concept[lang]), (name, variant)


def test_every_term_is_used_in_its_language():
    texts, glossary = _texts(), _glossary()
    unused = [
        f"{lang} {name}: {concept[lang]}"
        for name, concept in glossary.items()
        for lang in i18n.LANGS
        if not any(_word(concept[lang]).search(text) for text in texts[lang].values())
    ]
    assert unused == [], "the glossary names a term no catalogue uses"


def test_no_catalogue_spells_a_concept_another_way():
    assert variant_uses(_texts(), _glossary()) == []


def test_keys_named_by_the_glossary_say_the_term():
    assert key_mismatches(_texts(), _glossary()) == []


def test_a_variant_put_back_is_found():
    """The check can fail: a variant in any catalogue text, in either language, is named."""
    texts, glossary = _texts(), _glossary()
    texts["zh"]["bottleneck.metric.edit_acc"] = "编辑准确率"
    texts["en"]["bottleneck.probe.chance"] = "chance (most frequent word at i)"
    texts["zh"]["arena.part"] = "画面"
    assert variant_uses(texts, glossary) == [
        "bottleneck.metric.edit_acc: “编辑准确率” (use “编辑距离准确率”)",
        "bottleneck.probe.chance: “chance” (use “baseline”)",
    ]
    assert key_mismatches(texts, glossary) == ["zh arena.part: “画面” (use “本课的部分”)"]


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_no_model_name_inside_brackets(lang):
    """Model names carry their own brackets in Chinese ("GRU（C = 256 维）"): a text that puts
    {model} inside brackets nests them ("（GRU（C = 256 维），32 个词）")."""
    nested = []
    for key, text in _texts()[lang].items():
        depth = 0
        for m in re.finditer(r"[（(]|[）)]|\{(?:model|models|encoder|name)\}", text):
            if m.group() in "（(":
                depth += 1
            elif m.group() in "）)":
                depth = max(0, depth - 1)
            elif depth:
                nested.append(key)
                break
    assert nested == []


def test_glossary_file_is_not_a_catalogue():
    # the glossary sits beside the catalogues but is never merged into one
    assert GLOSSARY not in [p for lang in i18n.LANGS for p in i18n.catalogue_files(lang)]
    assert Path(GLOSSARY).is_file()
