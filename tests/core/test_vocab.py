"""Tests for core.vocab: tokenization, vocabularies, OOV suggestions."""

from __future__ import annotations

import json

import pytest

from core.vocab import BOS, EOS, OOV, PAD, UNK, Vocab, detokenize_zh, tokenize_en


def test_tokenize_lesson_sentence() -> None:
    assert tokenize_en("You should wear shoes.") == ["you", "should", "wear", "shoes"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", []),
        ("   \t\n ", []),
        ("Hello,   WORLD!!", ["hello", "world"]),
        ("don't stop", ["don't", "stop"]),
        ("don\u2019t", ["don't"]),
        ("'quoted'", ["quoted"]),
        ("i ate 2 apples", ["i", "ate", "2", "apples"]),
        ("<script>alert('x')</script>", ["script", "alert", "x", "script"]),
        ("I 😀 love 🐱 you", ["i", "love", "you"]),
        ("a\x00b\x07c", ["a", "b", "c"]),
        ("snake_case", ["snake", "case"]),
        ("—–…", []),
    ],
)
def test_tokenize_odd_input(text: str, expected: list[str]) -> None:
    assert tokenize_en(text) == expected


def test_tokenize_huge_text_is_fast_and_complete() -> None:
    text = "The cat, drank milk! " * 50_000
    tokens = tokenize_en(text)
    assert len(tokens) == 4 * 50_000
    assert tokens[:4] == ["the", "cat", "drank", "milk"]


def test_detokenize_zh() -> None:
    assert detokenize_zh(["我", "爱", "你"]) == "我爱你"
    assert detokenize_zh(["Transformer", "模型", "很", "大"]) == "Transformer模型很大"
    assert detokenize_zh(["用", "Transformer", "GPU", "训练"]) == "用Transformer GPU训练"
    assert detokenize_zh([]) == ""


def test_specials_have_fixed_ids() -> None:
    v = Vocab(["b", "a"])
    assert v.encode([PAD, BOS, EOS, UNK]) == [0, 1, 2, 3]
    assert v.tokens[:6] == (PAD, BOS, EOS, UNK, "b", "a")
    assert len(v) == 6
    assert "a" in v and "z" not in v


def test_constructor_skips_duplicates_and_specials() -> None:
    v = Vocab(["a", "a", UNK, "b"])
    assert v.tokens == (PAD, BOS, EOS, UNK, "a", "b")


def test_build_is_sorted_by_frequency_then_token() -> None:
    sents = [["b", "a", "c"], ["c", "a"], ["c"]]
    v = Vocab.build(sents)
    assert v.tokens[4:] == ("c", "a", "b")
    # order of sentences does not matter
    assert Vocab.build(reversed(sents)) == v


def test_encode_decode_round_trip() -> None:
    v = Vocab.build([["你", "应该", "穿", "鞋"]])
    ids = v.encode(["你", "应该", "穿", "鞋"], bos=True, eos=True)
    assert ids[0] == 1 and ids[-1] == 2
    assert v.decode(ids) == ["你", "应该", "穿", "鞋"]
    assert v.decode(ids, strip_special=False) == [BOS, "你", "应该", "穿", "鞋", EOS]


def test_encode_unknown_and_decode_stops_at_eos() -> None:
    v = Vocab(["a", "b"])
    assert v.encode(["a", "zzz"]) == [4, 3]
    assert v.decode([1, 4, 3, 2, 5, 5]) == ["a", UNK]
    assert v.decode([0, 0, 4]) == ["a"]
    with pytest.raises(ValueError, match="outside"):
        v.decode([99])


def test_unknown_with_suggestions() -> None:
    v = Vocab.build([["you", "should", "wear", "shoes"], ["the", "cat", "drank", "milk"]])
    report = v.unknown(["you", "shoez", "wear", "shoez", "xyzzyq", "cats"])
    assert [o.word for o in report] == ["shoez", "xyzzyq", "cats"]
    assert report[0] == OOV("shoez", report[0].suggestions)
    assert report[0].suggestions[0] == "shoes"
    assert report[1].suggestions == ()
    assert "cat" in report[2].suggestions
    assert all(len(o.suggestions) <= 3 for o in report)
    assert v.unknown(["you", "cat"]) == []


def test_json_round_trip() -> None:
    v = Vocab.build([["我", "爱", "你"], ["你", "好", "吗"]])
    data = json.loads(json.dumps(v.to_json(), ensure_ascii=False))
    w = Vocab.from_json(data)
    assert w == v
    assert w.encode(["你", "好"]) == v.encode(["你", "好"])


def test_from_json_rejects_bad_data() -> None:
    with pytest.raises(ValueError):
        Vocab.from_json(["a", "b"])
    with pytest.raises(ValueError):
        Vocab.from_json([PAD, BOS, EOS, UNK, "a", "a"])
