"""core.analysis.path_length: Table 1 of Vaswani et al. as numbers, and word-pair paths."""

from __future__ import annotations

import math

import pytest

from core import zoo
from core.analysis import path_length as pl
from core.analysis import receptive_field as rf
from core.i18n import translate


@pytest.mark.parametrize("n", [2, 3, 10, 50, 100, 1000])
@pytest.mark.parametrize("k", [2, 3, 5])
def test_table_one_counts(n, k):
    d = 64
    c = pl.costs(n, d, k)
    assert c["self_attention"] == {"complexity": n * n * d, "sequential": 1, "path": 1}
    assert c["recurrent"] == {"complexity": n * d * d, "sequential": n, "path": n - 1}
    assert c["conv"]["complexity"] == c["conv_dilated"]["complexity"] == k * n * d * d
    assert c["conv"]["sequential"] == c["conv_dilated"]["sequential"] == 1
    assert c["conv"]["path"] == math.ceil((n - 1) / (k - 1))  # O(n/k)
    # O(log_k n): L dilated layers (dilation x k) see exactly k^L positions
    layers = c["conv_dilated"]["path"]
    assert k**layers >= n and (layers == 1 or k ** (layers - 1) < n)


def test_self_attention_is_cheaper_than_recurrence_exactly_while_n_below_d():
    d = 128
    for n in (2, 64, 127, 128, 129, 1000):
        c = pl.costs(n, d, 3)
        cheaper = c["self_attention"]["complexity"] < c["recurrent"]["complexity"]
        assert cheaper == (n < d)


def test_curves_have_one_value_per_n_and_grow_as_the_paper_says():
    ns = [2, 4, 8, 16, 32, 64, 128]
    cur = pl.curves(ns, 32, 3)
    assert set(cur) == set(pl.METRICS)
    for metric in pl.METRICS:
        for arch in pl.ARCHITECTURES:
            assert cur[metric][arch].shape == (len(ns),)
    assert set(cur["path"]["self_attention"]) == {1}
    assert list(cur["path"]["recurrent"]) == [n - 1 for n in ns]
    # convolution paths grow linearly in n, dilated ones logarithmically
    assert cur["path"]["conv"][-1] > 10 * cur["path"]["conv_dilated"][-1]
    assert all(cur["path"]["conv_dilated"][i] <= cur["path"]["conv"][i] for i in range(len(ns)))


def test_bad_sizes_are_refused():
    with pytest.raises(ValueError, match="n must"):
        pl.costs(1, 8, 3)
    with pytest.raises(ValueError, match="kernel"):
        pl.costs(10, 8, 1)
    with pytest.raises(ValueError, match="d must"):
        pl.costs(10, 0, 3)


def test_pair_steps_for_the_lessons_words():
    words = rf.LESSON_WORDS_ZH
    a, b = words.index("秋蝉"), words.index("它们")
    steps = pl.pair_steps(a, b, 3)
    assert steps == {"self_attention": 1, "recurrent": 26, "conv": 13, "conv_dilated": 3}
    assert pl.pair_steps(b, a, 3) == steps  # order does not matter
    assert pl.pair_steps(4, 4, 3) == dict.fromkeys(pl.ARCHITECTURES, 0)
    assert pl.pair_steps(4, 5, 3) == dict.fromkeys(pl.ARCHITECTURES, 1)


@pytest.mark.parametrize("k", [2, 3, 4, 7])
@pytest.mark.parametrize(("i", "j"), [(0, 26), (9, 2), (5, 6), (0, 59)])
def test_pair_paths_connect_the_two_words_in_the_counted_steps(k, i, j):
    steps = pl.pair_steps(i, j, k)
    paths = pl.pair_paths(i, j, k)
    lo, hi = sorted((i, j))
    assert set(paths) == set(pl.ARCHITECTURES)
    for arch, lines in paths.items():
        starts = sorted(line[0] for line in lines)
        assert starts == [(lo, 0), (hi, 0)]  # each word's path starts at the word
        assert lines[0][-1] == lines[1][-1]  # and both end at one shared state
        top = lines[0][-1][1]
        if arch == "recurrent":
            assert len(lines[0]) - 2 == steps[arch]  # state-to-state hops
        else:
            assert top == steps[arch]  # layers climbed
    # the recurrent path visits every state in between
    assert [p for p, _ in paths["recurrent"][0][1:]] == list(range(lo, hi + 1))


# --- every part's default view proves its takeaway (computed) -----------------------------------

FAR_APART = 20  # the default pair is "far apart": at least this many words between them
MUCH_LONGER = 10  # a recurrent path "much longer" than self-attention's: at least 10x


def test_table_default_shows_one_hop_against_n_hops():
    """Part 1 (n = 50, k = 3, the path metric): the numbers its takeaway states."""
    c = pl.costs(50, 512, 3)
    assert c["self_attention"]["path"] == 1
    assert c["recurrent"]["path"] == 49 and c["conv"]["path"] == 25
    assert c["recurrent"]["path"] >= MUCH_LONGER * c["self_attention"]["path"]
    # self-attention's path does not grow with n; the recurrent one does
    curves = pl.curves([2, 50, 2048], 512, 3)["path"]
    assert list(curves["self_attention"]) == [1, 1, 1]
    assert list(curves["recurrent"]) == [1, 49, 2047]
    text = translate("path_length.table.takeaway", "en")
    assert "1 hop" in text and "25 layers" in text and "49 steps" in text


@pytest.mark.parametrize("kind", ["zh", "en"])
def test_pair_default_is_far_apart_and_one_hop_for_attention(kind):
    """Part 2: the default pair (the lesson's words) is far apart; attention 1 hop."""
    tokens, (a, b), _ = rf.choose_sentence(kind, "")
    steps = pl.pair_steps(a, b, 3)
    assert abs(b - a) >= FAR_APART
    assert steps["self_attention"] == 1 and steps["recurrent"] == abs(b - a)
    assert steps["recurrent"] >= MUCH_LONGER * steps["self_attention"]
    assert steps["conv"] > steps["conv_dilated"] > steps["self_attention"]
    if kind == "zh":
        assert (tokens[a], tokens[b]) == ("秋蝉", "它们") and steps["conv"] == 13


STATE_LOST = 0.05  # "none beyond 30 words": the plain GRU's exact match on long sentences
STATE_KEPT = 0.95  # "stays exactly right": the attention GRU on every length bucket


@pytest.mark.skipif(not zoo.MANIFEST_PATH.is_file(), reason="no trained models")
def test_problems_default_pictures_show_their_problems():
    """Part 4: equal shares; the fixed-size GRU loses long sentences, attention keeps them;
    hops grow with distance except for self-attention."""
    shares = pl.equal_shares(len(pl.ALIGN_SOURCE))
    assert len(set(shares)) == 1 and sum(shares) == pytest.approx(1.0)
    buckets, by_length = pl.length_evidence(zoo.load_manifest())
    plain, attn = (by_length[m] for m in pl.STATE_MODELS)
    assert len(buckets) >= 4 and plain[0] >= 0.8
    assert max(plain[-2:]) <= STATE_LOST  # 31-40 and 41+ words
    assert min(attn) >= STATE_KEPT
    hops = pl.hops_by_distance([1, 60])
    assert hops["self_attention"] == [1, 1] and hops["recurrent"] == [1, 60]
    assert hops["conv"][-1] == 30


def test_length_evidence_leaves_out_models_without_it():
    manifest = {"models": {"a": {"metrics": {"by_length": {"1-10": {"exact": 0.5}}}}, "b": {}}}
    assert pl.length_evidence(manifest, ("a", "b", "c")) == (["1-10"], {"a": [0.5]})
    with pytest.raises(ValueError, match="at least 1"):
        pl.equal_shares(0)
