"""The varied coreference frames: their words, their Chinese, and what is held out."""

from __future__ import annotations

import json
import re
from collections import Counter
from functools import cache

import pytest

from core import corpus, zoo
from core.corpus import coref_frames as cf
from core.corpus.words import NOUNS

KIND = {n.en: n.kind for n in NOUNS}
ZH = {n.en: n.zh for n in NOUNS}


def _tokens(path) -> set[str]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return set(data["tokens"] if isinstance(data, dict) else data)


@cache
def _training_sets():
    """What the three models train on: the base training split (the translation models),
    the generated pairs added to it, and a sample of the encoder's own batches."""
    import random

    from core import train

    splits = corpus.stored_splits(train.DATA_SEED)
    extras = train.extra_pairs(train.SPECS["transformer"], splits)
    encoder = train._coref_cases(random.Random(train.SPECS["coref_encoder"].seed), 4000)
    return splits, extras, encoder


def test_every_frame_word_is_in_both_shipped_vocabularies():
    src = _tokens(zoo.ASSETS_DIR / "vocab_src.json")
    tgt = _tokens(zoo.ASSETS_DIR / "vocab_tgt.json")
    cases = cf.frame_cases(0, 2000) + cf.held_out_frame_cases()
    assert {w for c in cases for w in c.tokens} <= src
    assert {w for c in cases for w in c.zh} <= tgt


def test_each_frame_puts_it_on_the_right_noun_and_chinese_repeats_it():
    import random

    rng = random.Random(1)
    cases = [cf.frame_case(rng, f, r) for f in cf.FRAMES for r in ("animal", "object") * 150]
    for c in cases:
        ante, other = c.tokens[c.antecedent], c.tokens[c.other]
        assert c.tokens[c.it] == "it" and c.tokens[-1] == c.predicate
        assert KIND[ante] == "animal" if c.reading == "animal" else KIND[ante] != "animal"
        assert KIND[ante] != "person" and ante != other and other in c.nouns
        assert c.antecedent_zh == ZH[ante]
        assert c.pair().check == ((c.zh.index("因为") + 1, ZH[ante]),)
    # the animal comes second in the relative frame; a person stands by in three frames
    rel = [c for c in cases if c.frame == "object_relative" and c.reading == "animal"]
    assert all(c.antecedent > c.other for c in rel)
    with_person = {c.frame for c in cases if any(KIND[n] == "person" for n in c.nouns)}
    assert with_person == {"person_first", "object_relative", "subject_relative"}
    assert {KIND[c.tokens[c.antecedent]] for c in cases} == {"animal", "food", "drink", "thing"}


def test_the_held_out_test_is_balanced_and_never_trainable():
    held = cf.held_out_frame_cases()
    assert Counter((c.frame, c.reading) for c in held) == {
        (f, r): 50 for f in cf.FRAMES for r in ("animal", "object")
    }
    assert not any(cf.is_trainable(c) for c in held)
    for c in held:
        if c.frame not in cf.HELD_OUT_FRAMES:
            assert set(c.nouns) & set(cf.HELD_OUT_NOUNS) or not cf.is_trainable(c)


_BASE_FRAME = re.compile(r"the (\w+) (ate|drank|likes) the (\w+) because it (was|is) (\w+)")


def test_held_out_frames_and_nouns_never_occur_in_any_training_data():
    splits, extras, encoder = _training_sets()
    generated = [p.src for p in extras] + [c.tokens for c in encoder]
    assert len(extras) == 6000 and len({p.src for p in extras}) == 6000
    for tokens in generated:
        assert not set(tokens) & set(cf.HELD_OUT_NOUNS), tokens
    assert not {c.frame for c in encoder} & set(cf.HELD_OUT_FRAMES)
    assert {p.info[0] for p in extras} == {("frame", f) for f in cf.FRAMES[:3]}
    # the base corpus writes "it" only in its one frame, the animal first: never a
    # relative clause around the animal, never a held-out case
    it_sentences = [" ".join(p.src) for p in splits.train if "it" in p.src]
    assert it_sentences
    for s in it_sentences:
        assert _BASE_FRAME.search(s), s
        assert not re.search(r"the \w+ that the \w+ \w+ \w+ the \w+ because it", s), s
    held = {c.tokens for c in cf.held_out_frame_cases()}
    seen = {p.src for p in splits.train} | set(generated)
    assert not held & seen
    # the generated pairs leave the translation models' test sets alone
    tested = {p.src for p in (*splits.dev, *splits.test)}
    assert not tested & {p.src for p in extras}


def test_the_manifest_names_what_was_held_out():
    manifest = zoo.load_manifest()
    want = cf.held_out_description()
    for name in ("coref_encoder", "gru_attention", "transformer"):
        entry = manifest["models"][name]
        assert entry["held_out"] == want, name
    for name in ("gru_attention", "transformer"):
        assert manifest["models"][name]["extra"] == {"coref_frames": 6000}


def test_an_unknown_frame_is_refused():
    import random

    with pytest.raises(ValueError, match="frame must be one of"):
        cf.frame_case(random.Random(0), "passive")
