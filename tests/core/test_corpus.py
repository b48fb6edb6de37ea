"""Tests for core.corpus: the grammar's phenomena, determinism, splits and probes."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from core import corpus
from core.corpus import (
    BUCKETS,
    LESSON_PAIRS,
    Pair,
    build_splits,
    clauses,
    coref_probe,
    generate,
    length_bucket,
    longrange_probe,
    phenomena,
    phrases,
    sample_pair,
    sense_probe,
)


def toks(s: str) -> tuple[str, ...]:
    return tuple(s.split())


def verb(base: str) -> corpus.Verb:
    return next(v for v in corpus.VERBS if v.base == base)


def pron(en: str, role: str = "subj") -> phrases._P:
    for subj, obj, zh, agr in corpus.PRONOUNS:
        if en == (subj if role == "subj" else obj):
            return phrases._p(en, zh, agr)
    raise KeyError(en)


def np(en: str) -> phrases._P:
    """'rice' / 'the cat' / 'a boy' as the grammar would build it."""
    words = en.split()
    noun = next(n for n in corpus.NOUNS if n.en == words[-1])
    agr = "3p" if noun.plural else "3s"
    if len(words) == 1:
        return phrases._p(en, noun.zh, agr)
    if words[0] == "the":
        return phrases._p(en, noun.zh, agr)
    return phrases._p(en, f"一 {noun.cls} {noun.zh}", agr)


def place(en: str) -> phrases._P:
    return phrases._p(en, dict(corpus.PLACES)[en]) if en else phrases._EMPTY


def time(en: str) -> phrases._P:
    return phrases._p(en, {t[0]: t[1] for t in corpus.TIMES}[en]) if en else phrases._EMPTY


def declare(subj, v, tense, obj=None, where="", when=""):
    return clauses._declare(subj, verb(v), tense, obj, place(where), time(when))


def ask(q, subj, v, tense, obj=None, where="", when=""):
    return clauses._ask(q, subj, verb(v), tense, obj, place(where), time(when))


# Chinese antecedent -> its English head word, where the distance is measured from.
LONG_HEAD = {zh: en.split()[-1] for en, zh in corpus.LONG_SINGERS + corpus.LONG_TREES}


def long_distance(src, antecedent: str) -> int:
    """Source distance from the antecedent's mention in the opening clause to "their"."""
    words = list(src)
    return words.index("their") - words.index(LONG_HEAD[antecedent])


def pair(p: phrases._P) -> tuple[str, str]:
    return " ".join(p.en), " ".join(p.zh)


@pytest.fixture(scope="module")
def sample() -> list[Pair]:
    return generate(6000, seed=11)


@pytest.fixture(scope="module")
def small_splits() -> corpus.Splits:
    return build_splits(seed=5, n_train=4000, n_dev=250, n_test=500)


def lookup(pairs: list[Pair]) -> dict[tuple[str, ...], tuple[str, ...]]:
    return {p.src: p.tgt for p in pairs}


# --- the lesson -------------------------------------------------------------------------

LESSON = [
    ("you should wear shoes", "你 应该 穿 鞋"),
    ("how are you", "你 好 吗"),
    ("where are you", "你 在 哪里"),
    ("i love you", "我 爱 你"),
    ("a boy is eating the banana", "一 个 男孩 在 吃 香蕉"),
    ("the cat drank the milk because it was hungry", "猫 喝 了 牛奶 因为 猫 饿 了"),
    ("the cat drank the milk because it was sweet", "猫 喝 了 牛奶 因为 牛奶 很 甜"),
]


def test_lesson_pairs_exact() -> None:
    assert [(p.src, p.tgt) for p in LESSON_PAIRS] == [(toks(e), toks(z)) for e, z in LESSON]
    assert {p.kind for p in LESSON_PAIRS} == {"lesson"}
    for p in LESSON_PAIRS:
        for i, tok in p.check:
            assert p.tgt[i] == tok


def test_grammar_agrees_with_lesson_when_it_makes_a_lesson_sentence() -> None:
    # The generator produces some lesson sentences on its own; they must translate the same.
    lesson = {p.src: p.tgt for p in LESSON_PAIRS}
    pairs = generate(20000, seed=3, min_len=3, max_len=9)
    hits = [p for p in pairs if p.src in lesson]
    assert hits, "expected the grammar to produce at least one lesson sentence"
    for p in hits:
        assert p.tgt == lesson[p.src]


# --- constructions, with the examples --------------------------------------------


def test_reordering_time_and_place_before_verb(sample: list[Pair]) -> None:
    places = {tuple(en.split()): tuple(zh.split()) for en, zh in corpus.PLACES}
    times = {tuple(en.split()): tuple(zh.split()) for en, zh, _ in corpus.TIMES}
    found = 0
    for p in sample:
        if p.kind != "reorder" or p.src[-1] in ("is", "are", "was", "were"):
            continue
        for n in (1, 2, 3):
            zh = times.get(p.src[-n:])
            if zh and p.src[-n - 1] not in ("am", "is", "are", "was", "were"):
                # English ends with the time; Chinese has it right after a short subject
                found += 1
                at = next(i for i in range(len(p.tgt)) if p.tgt[i : i + len(zh)] == zh)
                assert at + len(zh) < len(p.tgt)
        for n in (2, 3):
            zh = places.get(p.src[-n:])
            if zh and p.tgt[-len(zh) :] != zh:
                found += 1  # a place at the end in English, before the verb in Chinese
    assert found > 50
    assert pair(declare(pron("i"), "eat", "pres", np("rice"), "at home", "every day")) == (
        "i eat rice at home every day",
        "我 每天 在 家 吃 米饭",
    )
    assert pair(
        declare(np("the boy"), "eat", "past", np("the banana"), "at school", "yesterday")
    ) == (
        "the boy ate the banana at school yesterday",
        "男孩 昨天 在 学校 吃 了 香蕉",
    )
    assert pair(declare(pron("we"), "drink", "fut", np("tea"), "in the park", "tomorrow")) == (
        "we will drink tea in the park tomorrow",
        "我们 明天 会 在 公园 喝 茶",
    )
    assert pair(declare(pron("she"), "sleep", "past", None, "", "last night")) == (
        "she slept last night",
        "她 昨天 晚上 睡觉 了",
    )


def test_tenses() -> None:
    assert pair(declare(pron("i"), "eat", "past", np("rice"))) == ("i ate rice", "我 吃 了 米饭")
    assert pair(declare(pron("he"), "eat", "prog", np("rice"))) == (
        "he is eating rice",
        "他 在 吃 米饭",
    )
    # progressive 在 merges with a place phrase
    assert pair(declare(pron("i"), "eat", "prog", np("rice"), "at home")) == (
        "i am eating rice at home",
        "我 在 家 吃 米饭",
    )
    assert pair(declare(pron("she"), "eat", "fut", np("rice"))) == (
        "she will eat rice",
        "她 会 吃 米饭",
    )
    assert pair(declare(pron("he"), "eat", "pres", np("rice"))) == ("he eats rice", "他 吃 米饭")
    assert pair(declare(pron("we"), "cry", "past")) == ("we cried", "我们 哭 了")
    assert pair(declare(pron("i"), "like", "past", np("tea"))) == ("i liked tea", "我 喜欢 茶")
    assert pair(declare(np("a boy"), "eat", "prog", np("the banana"))) == (
        "a boy is eating the banana",
        "一 个 男孩 在 吃 香蕉",
    )
    assert pair(declare(pron("i"), "love", "pres", pron("you", "obj"))) == (
        "i love you",
        "我 爱 你",
    )


def test_clauses_have_requested_length_and_adjuncts() -> None:
    rng = random.Random(0)
    time_words = {en.split()[-1] for en, _, _ in corpus.TIMES}
    place_words = {en.split()[-1] for en, _ in corpus.PLACES}
    for n in range(2, 9):  # without relative clauses (depth 0) a clause has <= 8 tokens
        for _ in range(10):
            c = clauses._clause(rng, n, adjunct="none")
            assert c is not None and len(c.en) == n
            assert not time_words & set(c.en)
    for n in range(3, 15):
        for _ in range(10):
            c = clauses._clause(rng, n, adjunct="need")
            assert c is not None and len(c.en) == n
            assert (time_words | place_words) & set(c.en)
    for n in range(5, 29):
        c = next(
            c for c in (clauses._clause(rng, n, depth=2, need_rel=True) for _ in range(5)) if c
        )
        assert len(c.en) == n and {"that", "who"} & set(c.en)


def test_relative_clauses_move_before_noun() -> None:
    rng = random.Random(2)
    nps = {}
    for _ in range(40000):
        n = rng.choice((5, 6))
        kind = rng.choice(("animal", "person", "food"))
        if n in phrases._np_lengths(kind, "obj", 1, True):
            p = phrases._np(rng, kind, "obj", 1, n, True)
            nps[p.en] = p.zh
    assert nps[toks("the cat that i saw")] == toks("我 看见 的 猫")
    assert nps[toks("the boy who eats rice")] == toks("吃 米饭 的 男孩")
    assert nps[toks("the boy who ate rice")] == toks("吃 了 米饭 的 男孩")
    assert nps[toks("the rice that the boy ate")] == toks("男孩 吃 的 米饭")


def test_relative_sentences_nest_and_are_long(sample: list[Pair]) -> None:
    rel = [p for p in sample if p.kind == "relative"]
    assert rel and all("的" in p.tgt for p in rel)
    assert all({"that", "who"} & set(p.src) for p in rel)
    # nesting: two relative pronouns inside one clause
    assert any(sum(t in ("that", "who") for t in p.src) >= 2 for p in rel)


def test_questions(sample: list[Pair]) -> None:
    you, he = pron("you"), pron("he")
    assert pair(ask("yn", you, "like", "pres", np("tea"))) == ("do you like tea", "你 喜欢 茶 吗")
    assert pair(ask("what", you, "eat", "pres")) == ("what do you eat", "你 吃 什么")
    assert pair(ask("why", he, "cry", "past")) == ("why did he cry", "他 为什么 哭 了")
    assert pair(ask("where", np("the cat"), "sleep", "pres")) == (
        "where does the cat sleep",
        "猫 在 哪里 睡觉",
    )
    assert pair(ask("yn", he, "eat", "past", np("rice"), "at home", "yesterday")) == (
        "did he eat rice at home yesterday",
        "他 昨天 在 家 吃 了 米饭 吗",
    )
    rng = random.Random(4)
    seen = {}
    for _ in range(20000):
        q = clauses._question(rng, 3)
        if q is not None:
            seen[q.en] = q.zh
    assert seen[toks("where is he")] == toks("他 在 哪里")
    assert seen[toks("how are you")] == toks("你 好 吗")
    assert seen[toks("where are you")] == toks("你 在 哪里")
    for n in range(3, 25):
        q = next(q for q in (clauses._question(rng, n, depth=2) for _ in range(5)) if q)
        assert len(q.en) == n
    qs = [p for p in sample if p.kind == "question"]
    assert qs
    for p in qs:  # every question ends with 吗 or contains a question word
        assert p.tgt[-1] == "吗" or {"哪里", "什么", "为什么"} & set(p.tgt)


def test_short_sentences(sample: list[Pair]) -> None:
    table = dict(corpus.SHORT)
    assert table["hello"] == "你好" and table["thanks"] == "谢谢" and table["yes"] == "是 的"
    ones = [p for p in sample if len(p.src) == 1]
    assert ones and all(p.kind == "short" for p in ones)


def test_connectives_join_clauses(sample: list[Pair]) -> None:
    zh = dict(corpus.CONNECTIVES)
    for p in sample:
        if p.kind != "compound":
            continue
        en_conn = [zh[t] for t in p.src if t in zh]
        zh_conn = [t for t in p.tgt if t in zh.values()]
        assert en_conn == zh_conn  # same connectives, same order
    assert any(p.kind == "compound" for p in sample)


def test_coref_examples_and_rule(sample: list[Pair]) -> None:
    coref = [p for p in sample if p.kind == "coref"]
    assert coref
    for p in coref:
        ((i, ante),) = p.check
        assert p.tgt[i] == ante
        info = dict(p.info)
        pron_at = next(
            i + 1 for i, t in enumerate(p.src[:-1]) if t == "because" and p.src[i + 1] == "it"
        )
        pred = p.src[pron_at + 2]
        states = {en for en, _ in corpus.STATE_PREDS}
        assert (info["reading"] == "subject") == (pred in states)
        # the antecedent is the subject or object noun of the clause before "because"
        subj, obj = p.src[pron_at - 5], p.src[pron_at - 2]
        noun_zh = {n.en: n.zh for n in corpus.NOUNS}
        assert ante == noun_zh[subj if info["reading"] == "subject" else obj]


def test_coref_probe_balanced_and_checked() -> None:
    probe = coref_probe()
    assert len(probe) == 200 and len({p.src for p in probe}) == 200
    assert {p.kind for p in probe} == {"coref"}
    readings = Counter(dict(p.info)["reading"] for p in probe)
    assert readings == {"subject": 100, "object": 100}
    for p in probe:
        ((i, ante),) = p.check
        assert p.tgt[i] == ante and p.tgt[i - 1] == "因为"
        assert "it" in p.src  # animals only: the pronoun really is ambiguous
        subj_zh, obj_zh = p.tgt[0], p.tgt[p.tgt.index("因为") - 1]
        assert ante == (subj_zh if dict(p.info)["reading"] == "subject" else obj_zh)
    assert not {p.src for p in probe} & {p.src for p in LESSON_PAIRS}
    # the same subject/object pair appears with both readings somewhere (it is the predicate)
    by_nouns = {}
    for p in probe:
        by_nouns.setdefault((p.tgt[0], p.src[4]), set()).add(dict(p.info)["reading"])
    assert any(len(r) == 2 for r in by_nouns.values())


def test_sense_examples() -> None:
    rng = random.Random(6)
    for _ in range(200):
        p = phenomena._sense(rng, "power", "after")
        assert "transformer" in p.en and "变压器" in p.zh and "Transformer" not in p.zh
        # context after the word
        assert p.en.index("transformer") < len(p.en) - 3
    p = phenomena._sense(rng, "model", "internal")
    assert "Transformer" in p.zh
    for sense, zh in (("money", "银行"), ("river", "河岸")):
        for where in ("before", "after"):
            q = phenomena._sense(rng, sense, where)
            assert q.zh[q.check[0][0]] == zh
            contexts = [tuple(en.split()) for en, _ in corpus.SENSE_CONTEXT[sense]]
            if where == "after":  # the deciding clause comes after the ambiguous word
                assert any(q.en[-len(c) :] == c for c in contexts)
                assert q.en.index("bank") < len(q.en) - 4
            else:
                assert any(q.en[: len(c)] == c for c in contexts)


def test_sense_probe_balanced_and_context_after_sometimes() -> None:
    probe = sense_probe()
    assert len(probe) == 200 and len({p.src for p in probe}) == 200
    senses = Counter(dict(p.info)["sense"] for p in probe)
    assert senses == {"变压器": 50, "Transformer": 50, "银行": 50, "河岸": 50}
    for p in probe:
        ((i, tok),) = p.check
        assert p.tgt[i] == tok == dict(p.info)["sense"]
        word = dict(p.info)["word"]
        assert word in p.src or ("river" in p.src and word == "bank")
        # exactly one sense of the word in the translation
        others = {"变压器", "Transformer", "银行", "河岸"} - {tok}
        assert not others & set(p.tgt)
    where = Counter(dict(p.info)["context"] for p in probe)
    assert where["after"] >= 40 and where["before"] >= 40


def test_sense_words_only_with_context(sample: list[Pair]) -> None:
    for p in sample:
        if {"transformer", "bank"} & set(p.src):
            assert p.kind == "sense"
        if p.kind == "sense":
            assert len(p.check) == 1


SINGERS = {zh for _, zh in corpus.LONG_SINGERS}
TREES = {zh for _, zh in corpus.LONG_TREES}
SINGER_HEADS = {en.split()[-1] for en, _ in corpus.LONG_SINGERS}
TREE_HEADS = {en.split()[-1] for en, _ in corpus.LONG_TREES}


@pytest.mark.parametrize("distance", [4, 5, 6, 10, 23, 40, 48])
def test_longrange_distance_is_as_requested(distance: int) -> None:
    rng = random.Random(distance)
    for reading in ("song", "shade"):
        for _ in range(5):
            p = phenomena._longrange(rng, distance, reading)
            ((i, ante),) = p.check
            assert p.zh[i] == ante
            assert ante in (SINGERS if reading == "song" else TREES)
            assert long_distance(p.en, ante) == distance
            # both candidates are mentioned in the opening clause, "their" only at the end
            singers = [i for i, w in enumerate(p.en) if w in SINGER_HEADS]
            trees = [i for i, w in enumerate(p.en) if w in TREE_HEADS]
            assert len(singers) == 1 and len(trees) == 1 and max(singers + trees) < 10
            assert p.en.count("their") == 1
            assert p.en[p.en.index("their") + 1] == reading


def test_longrange_antecedent_is_the_distant_noun() -> None:
    # the predicate says singer or tree; only the distant mention says which one
    rng = random.Random(3)
    antecedents = Counter(phenomena._longrange(rng, 20, "song").check[0][1] for _ in range(200))
    assert set(antecedents) == SINGERS and antecedents["秋蝉"] > 50
    p = phenomena._longrange(rng, 12, "shade")
    tree_en = next(en for en, zh in corpus.LONG_TREES if zh == p.check[0][1])
    assert tree_en in p.en


def test_longrange_too_short_raises() -> None:
    with pytest.raises(ValueError):
        phenomena._longrange(random.Random(0), 3, "song")
    with pytest.raises(ValueError):
        phenomena._longrange(random.Random(0), 10, "smell")


def test_longrange_probe() -> None:
    probe = longrange_probe()
    assert len(probe) == 5 * 40 and len({p.src for p in probe}) == len(probe)
    cells = Counter((dict(p.info)["distance"], dict(p.info)["reading"]) for p in probe)
    assert set(cells.values()) == {20} and len(cells) == 10
    for p in probe:
        info = dict(p.info)
        assert long_distance(p.src, info["antecedent"]) == int(info["distance"])
        ((i, tok),) = p.check
        assert p.tgt[i] == tok == info["antecedent"]
        assert ("song" in p.src) == (tok in SINGERS) and ("shade" in p.src) == (tok in TREES)
    assert max(int(dict(p.info)["distance"]) for p in probe) >= 40
    custom = longrange_probe(seed=1, distances=(44,), n_per=4)
    assert [dict(p.info)["distance"] for p in custom] == ["44"] * 4


def test_longrange_in_ordinary_corpus(sample: list[Pair]) -> None:
    lr = [p for p in sample if p.kind == "longrange"]
    assert len(lr) > 50
    dists = [int(dict(p.info)["distance"]) for p in lr]
    assert max(dists) >= 30 and min(dists) <= 10
    for p in lr:
        assert long_distance(p.src, dict(p.info)["antecedent"]) == int(dict(p.info)["distance"])


# --- lengths, determinism, function property ------------------------------------------------


def test_sample_pair_exact_length() -> None:
    rng = random.Random(12)
    for n in list(range(1, 61)) + [80]:
        for _ in range(3):
            assert len(sample_pair(rng, n).src) == n
    with pytest.raises(ValueError):
        sample_pair(rng, 0)


def test_length_bucket() -> None:
    assert [length_bucket(n) for n in (1, 10, 11, 20, 21, 30, 31, 40, 41, 55, 99)] == [
        "1-10", "1-10", "11-20", "11-20", "21-30", "21-30", "31-40", "31-40", "41+", "41+", "41+"
    ]  # fmt: skip
    assert BUCKETS == ("1-10", "11-20", "21-30", "31-40", "41+")


def test_generate_is_deterministic_and_seed_dependent() -> None:
    a = generate(500, seed=42)
    b = generate(500, seed=42)
    c = generate(500, seed=43)
    assert a == b
    assert [p.src for p in a] != [p.src for p in c]
    assert generate(200, seed=1, min_len=30, max_len=30) == generate(
        200, seed=1, min_len=30, max_len=30
    )


def test_generate_length_range_and_kinds(sample: list[Pair]) -> None:
    lengths = [len(p.src) for p in sample]
    assert min(lengths) == 1 and max(lengths) == 55
    kinds = Counter(p.kind for p in sample)
    for kind in ("simple", "reorder", "relative", "question", "coref", "sense", "longrange"):
        assert kinds[kind] > 0, kind
    assert kinds["compound"] > 0 and kinds["short"] > 0
    buckets = Counter(length_bucket(n) for n in lengths)
    assert min(buckets.values()) > 0.12 * len(sample)


def test_translation_is_a_function_of_the_source() -> None:
    pairs = generate(8000, seed=99) + generate(12000, seed=100, max_len=12)
    pairs += coref_probe() + sense_probe() + longrange_probe() + list(LESSON_PAIRS)
    seen: dict[tuple[str, ...], tuple[str, ...]] = {}
    for p in pairs:
        assert seen.setdefault(p.src, p.tgt) == p.tgt, " ".join(p.src)
    assert len(seen) > 15000


def test_tokens_are_clean(sample: list[Pair]) -> None:
    for p in sample:
        assert all(t and t == t.lower() and t.isascii() and " " not in t for t in p.src)
        assert all(t and " " not in t for t in p.tgt)


def test_vocabulary_sizes(sample: list[Pair]) -> None:
    en = {t for p in sample for t in p.src}
    zh = {t for p in sample for t in p.tgt}
    assert 250 <= len(en) <= 450
    assert 200 <= len(zh) <= 450


def test_pronouns_it_and_their_only_in_their_constructions(sample: list[Pair]) -> None:
    for p in sample:
        if "it" in p.src:
            assert p.kind == "coref"
        if "their" in p.src:
            assert p.kind == "longrange"


# --- splits -----------------------------------------------------------------------------


def test_splits_disjoint_and_clean(small_splits: corpus.Splits) -> None:
    tr = {p.src for p in small_splits.train}
    dv = {p.src for p in small_splits.dev}
    te = {p.src for p in small_splits.test}
    assert not tr & dv and not tr & te and not dv & te
    lesson = {p.src for p in LESSON_PAIRS}
    assert not lesson & (dv | te)
    probes = {p.src for p in coref_probe() + sense_probe() + longrange_probe()}
    assert not probes & (tr | dv | te)
    assert len(dv) == len(small_splits.dev) and len(te) == len(small_splits.test)


def test_splits_sizes_and_buckets(small_splits: corpus.Splits) -> None:
    assert len(small_splits.train) == 4000
    assert len(small_splits.dev) == 250 and len(small_splits.test) == 500
    test_b = Counter(length_bucket(len(p.src)) for p in small_splits.test)
    assert test_b == {b: 100 for b in BUCKETS}
    dev_b = Counter(length_bucket(len(p.src)) for p in small_splits.dev)
    assert dev_b == {b: 50 for b in BUCKETS}
    train_b = Counter(length_bucket(len(p.src)) for p in small_splits.train)
    assert min(train_b.values()) > 0.15 * 4000
    assert max(len(p.src) for p in small_splits.train) >= 50


def test_train_contains_lesson_copies_and_should_is_rare(small_splits: corpus.Splits) -> None:
    counts = Counter(p.src for p in small_splits.train if p.kind == "lesson")
    assert set(counts) == {p.src for p in LESSON_PAIRS}
    assert set(counts.values()) == {corpus.LESSON_COPIES}
    # a next-word model sees "you should" only in the lesson sentence
    after_should = Counter(
        p.src[i + 1] for p in small_splits.train for i, t in enumerate(p.src[:-1]) if t == "should"
    )
    assert after_should == {"wear": corpus.LESSON_COPIES}


def test_build_splits_deterministic() -> None:
    a = build_splits(seed=3, n_train=600, n_dev=50, n_test=100)
    b = build_splits(seed=3, n_train=600, n_dev=50, n_test=100)
    c = build_splits(seed=4, n_train=600, n_dev=50, n_test=100)
    assert a == b
    assert a.test != c.test


# ---- the splits on disk (core.corpus.splits.stored_splits) ----------------------------
SMALL = {"n_train": 600, "n_dev": 50, "n_test": 100}


def test_stored_splits_are_the_built_splits_and_are_read_back(tmp_path, monkeypatch) -> None:
    from core.corpus import splits

    monkeypatch.setenv(splits.CACHE_ENV, str(tmp_path))
    first = splits.stored_splits(seed=3, **SMALL)
    assert first == splits.build_splits(seed=3, **SMALL)
    files = list(tmp_path.iterdir())
    assert len(files) == 1 and files[0].name.startswith("splits-3-")

    def no_build(*_a, **_k):
        raise AssertionError("built again instead of read from the cache folder")

    monkeypatch.setattr(splits, "build_splits", no_build)
    assert splits.stored_splits(seed=3, **SMALL) == first
    # another seed or other sizes are another corpus: never read from this file
    with pytest.raises(AssertionError, match="built again"):
        splits.stored_splits(seed=4, **SMALL)
    with pytest.raises(AssertionError, match="built again"):
        splits.stored_splits(seed=3, n_train=601, n_dev=50, n_test=100)


def test_a_damaged_or_unwritable_cache_is_rebuilt(tmp_path, monkeypatch) -> None:
    import core.corpus as corpus

    monkeypatch.setenv(corpus.CACHE_ENV, str(tmp_path))
    good = corpus.stored_splits(seed=3, **SMALL)
    (path,) = tmp_path.iterdir()
    path.write_bytes(b"not gzip at all")
    assert corpus.stored_splits(seed=3, **SMALL) == good  # rebuilt, and stored again
    assert corpus.stored_splits(seed=3, **SMALL) == good
    blocked = tmp_path / "file"
    blocked.write_text("a file where the folder should be")
    monkeypatch.setenv(corpus.CACHE_ENV, str(blocked / "cache"))
    assert corpus.stored_splits(seed=3, **SMALL) == good  # cannot store: still built
