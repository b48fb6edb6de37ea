"""core.analysis.bottleneck: properties and known results."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from core import corpus
from core.analysis import bottleneck as bn
from core.models.rnn_seq2seq import RNNSeq2Seq, RNNSeq2SeqConfig


def _model(bidirectional: bool, hidden: int = 16) -> RNNSeq2Seq:
    torch.manual_seed(0)
    cfg = RNNSeq2SeqConfig(
        src_vocab=30,
        tgt_vocab=20,
        emb_dim=8,
        hidden=hidden,
        attention=bidirectional,
        bidirectional=bidirectional,
        attn_dim=8,
    )
    return RNNSeq2Seq(cfg).eval()


# --- encoder states -------------------------------------------------------------------------


def test_unidirectional_context_is_the_last_state():
    hidden, context = bn.encoder_states(_model(False), [5, 6, 7, 8, 2])
    assert hidden.shape == (5, 16) and context.shape == (16,)
    np.testing.assert_allclose(context, hidden[-1], atol=1e-6)


def test_bidirectional_context_joins_last_forward_and_first_backward():
    hidden, context = bn.encoder_states(_model(True), [5, 6, 7, 8, 2])
    half = 8
    np.testing.assert_allclose(context[:half], hidden[-1, :half], atol=1e-6)
    np.testing.assert_allclose(context[half:], hidden[0, half:], atol=1e-6)


def test_batched_contexts_ignore_padding():
    model = _model(False)
    rows = [[5, 6, 2], [7, 8, 9, 10, 11, 2], [4, 2]]
    batch = bn.contexts(model, rows, batch_size=2)
    assert batch.shape == (3, 16)
    for row, c in zip(rows, batch):
        np.testing.assert_allclose(c, bn.encoder_states(model, row)[1], atol=1e-5)


def test_encoder_states_rejects_empty_input():
    with pytest.raises(ValueError, match="empty"):
        bn.encoder_states(_model(False), [])


# --- sentences and scoring -------------------------------------------------------------------


def test_sample_sentences_is_seeded_distinct_and_in_range():
    a = bn.sample_sentences(3, 20, 12, 15)
    assert a == bn.sample_sentences(3, 20, 12, 15)
    assert a != bn.sample_sentences(4, 20, 12, 15)
    assert all(12 <= len(p.src) <= 15 for p in a)
    assert len({p.src for p in a}) == 20
    with pytest.raises(ValueError):
        bn.sample_sentences(3, 5, 10, 2)


def test_reference_for_knows_the_examples_and_the_lesson_pairs_only():
    example = bn.example_pair(8)
    examples = [(example.src, example.tgt)]
    assert bn.reference_for(list(example.src), examples) == example.tgt
    assert bn.reference_for(example.src) is None  # not an example here, nor a lesson pair
    lesson = corpus.LESSON_PAIRS[0]
    assert bn.reference_for(lesson.src) == lesson.tgt
    assert bn.reference_for(lesson.src, examples) == lesson.tgt
    # a typed sentence of known words but not one of the pairs: no reference
    assert bn.reference_for((*lesson.src, *lesson.src), examples) is None
    assert bn.reference_for((), examples) is None


def test_error_marks_align_instead_of_shifting():
    ref = list("我爱你们")
    assert bn.error_marks(ref, ref) == [False] * 4
    # one inserted token is the only error, not everything after it
    assert bn.error_marks(list("我很爱你们"), ref) == [False, True, False, False, False]
    assert bn.error_marks(list("他爱你们"), ref) == [True, False, False, False]
    assert bn.error_marks([], ref) == []
    assert bn.error_marks(list("好"), []) == [True]


def test_correct_prefix_and_on_track():
    assert bn.correct_prefix("abcd", "abxd") == 2
    assert bn.correct_prefix("ab", "abc") == 2
    outs = ["abc", "abd", "a"]
    refs = ["abc", "abc", "ab"]
    got = bn.on_track(outs, refs, 4)
    np.testing.assert_allclose(got[:3], [1.0, 2 / 3, 1 / 2])
    assert math.isnan(got[3])  # no reference has 4 tokens
    with pytest.raises(ValueError):
        bn.on_track(outs, refs[:2], 3)


def test_on_track_stops_before_the_sample_is_too_small():
    # eight references of 3..10 tokens: position p has 11 - p of them (8 at p <= 3)
    refs = [["x"] * n for n in range(3, 11)]
    outs = [r[:-1] + ["y"] for r in refs]  # each wrong at its last token only
    full = bn.on_track(outs, refs, 10)
    assert full[-1] == 0.0 and full[-2] == 0.5  # a "dip" made of one or two sentences
    cut = bn.on_track(outs, refs, 10, min_n=bn.STRETCH_MIN_N)
    live = np.array([sum(len(r) >= p for r in refs) for p in range(1, 11)])
    assert np.all(np.isnan(cut[live < bn.STRETCH_MIN_N]))
    np.testing.assert_allclose(cut[live >= bn.STRETCH_MIN_N], full[live >= bn.STRETCH_MIN_N])
    assert bn.STRETCH_MIN_N == bn.STRETCH_BATCH // 2  # half the batch, named in the caption
    with pytest.raises(ValueError, match="min_n"):
        bn.on_track(outs, refs, 10, min_n=0)


# --- length curves from the manifest --------------------------------------------------------


def _manifest() -> dict:
    by_length = {
        b: {"exact": 1 - i / 10, "token_acc": 0.5, "edit_acc": 0.6, "n": 100 + i}
        for i, b in enumerate(corpus.BUCKETS)
    }
    return {
        "models": {
            "gru_plain_32": {"metrics": {"by_length": by_length}},
            "gru_attention": {"metrics": {"by_length": by_length, "all": {}}},
            "cnn_s2s": {"metrics": {}},  # not evaluated yet
        }
    }


def test_length_curves_reads_the_metric_in_bucket_order():
    curves = bn.length_curves(_manifest(), ("gru_plain_32", "gru_attention", "cnn_s2s", "x"))
    assert list(curves) == ["gru_plain_32", "gru_attention"]
    assert curves["gru_plain_32"] == [1.0, 0.9, 0.8, 0.7, 0.6]
    edit = bn.length_curves(_manifest(), ("gru_attention",), "edit_acc")
    assert edit["gru_attention"] == [0.6] * len(corpus.BUCKETS)
    assert bn.bucket_counts(_manifest(), "gru_attention") == [100, 101, 102, 103, 104]
    assert bn.bucket_counts(_manifest(), "cnn_s2s") == [0] * len(corpus.BUCKETS)
    with pytest.raises(ValueError, match="unknown metric"):
        bn.length_curves(_manifest(), ("gru_attention",), "bleu")


# --- linear probes ----------------------------------------------------------------------------


def test_linear_probe_reads_what_is_linearly_there_and_nothing_else():
    rng = np.random.default_rng(0)
    n, d, k = 1500, 32, 12
    labels = rng.integers(0, k, size=(n, 2))
    codes = rng.normal(size=(k, d))
    x = 2 * codes[labels[:, 0]] + rng.normal(size=(n, d))  # only column 0 is encoded
    acc, chance, lam = bn.linear_probe(x[:1000], labels[:1000], x[1000:], labels[1000:])
    assert acc.shape == chance.shape == (2,)
    assert acc[0] > 0.95
    assert abs(acc[1] - 1 / k) < 0.06  # the random column stays near chance
    values, counts = np.unique(labels[:1000, 1], return_counts=True)
    expected = float((labels[1000:, 1] == values[counts.argmax()]).mean())
    assert chance[1] == pytest.approx(expected)
    assert lam > 0


def test_linear_probe_checks_shapes():
    with pytest.raises(ValueError):
        bn.linear_probe(np.zeros((10, 3)), np.zeros((10, 1)), np.zeros((5, 4)), np.zeros((5, 1)))


def test_probe_positions_shapes_and_short_sentences():
    model = _model(False)
    rng = np.random.default_rng(1)
    rows = [list(rng.integers(4, 30, size=6)) + [2] for _ in range(120)]
    result = bn.probe_positions(model, rows[:100], rows[100:], 4)
    assert list(result.positions) == [1, 2, 3, 4]
    assert result.accuracy.shape == result.chance.shape == (4,)
    assert (result.n_train, result.n_test) == (100, 20)
    assert np.all((0 <= result.accuracy) & (result.accuracy <= 1))
    with pytest.raises(ValueError, match="fewer than"):
        bn.probe_positions(model, rows[:100], [[5, 2]], 4)


def test_probe_finds_the_last_word_in_a_plain_encoder_state():
    """Known result: the state after the last word keeps that word best (a random GRU too)."""
    model = _model(False, hidden=32)
    rng = np.random.default_rng(2)
    rows = [list(rng.integers(4, 12, size=8)) + [2] for _ in range(900)]
    result = bn.probe_positions(model, rows[:700], rows[700:], 8)
    assert result.accuracy[-1] > result.accuracy[0]
    assert result.accuracy[-1] > result.chance[-1] + 0.3


def test_probe_models_in_threads_equals_one_model_at_a_time():
    rng = np.random.default_rng(3)
    rows = [list(rng.integers(4, 30, size=6)) + [2] for _ in range(160)]
    models = {"small": _model(False, hidden=8), "big": _model(True, hidden=16)}
    together = bn.probe_models(models, rows[:120], rows[120:], 5, workers=2)
    assert list(together) == ["small", "big"]  # the caller's order, whatever ran first
    for name, model in models.items():
        alone = bn.probe_positions(model, rows[:120], rows[120:], 5)
        np.testing.assert_array_equal(together[name].accuracy, alone.accuracy)
        np.testing.assert_array_equal(together[name].chance, alone.chance)
        assert together[name].ridge == alone.ridge
    with pytest.raises(ValueError, match="empty"):
        bn.probe_models({}, rows[:120], rows[120:], 5)


def test_kept_positions_and_ranges():
    result = bn.ProbeResult(
        positions=np.arange(1, 7),
        accuracy=np.array([0.9, 0.5, 0.2, 0.2, 0.31, 0.6]),
        chance=np.array([0.5, 0.1, 0.2, 0.15, 0.2, 0.1]),
        ridge=1.0,
        n_train=10,
        n_test=5,
    )
    assert bn.kept_positions(result) == [1, 2, 5, 6]
    assert bn.ranges_text([1, 2, 5, 6]) == "1–2, 5–6"
    assert bn.ranges_text([7, 1, 2, 3, 9, 10]) == "1–3, 7, 9–10"
    assert bn.ranges_text([]) == ""


def test_early_late_ratio():
    # six words and EOS: first third (2 words) over last third (2 words), EOS ignored
    assert bn.early_late_ratio(np.array([1, 1, 5, 5, 2, 2, 100.0])) == pytest.approx(0.5)
    assert math.isnan(bn.early_late_ratio(np.array([1.0, 2.0, 3.0])))


# --- the shipped zoo: every default view proves its part's takeaway --------------------------

PLAIN = ("gru_plain_32", "gru_plain_128", "gru_plain_256")
ATTN = "gru_attention"


def _shipped() -> bool:
    from core import zoo

    try:
        models = zoo.load_manifest()["models"]
    except zoo.ZooError:
        return False
    return all(n in models for n in (*PLAIN, ATTN))


shipped = pytest.mark.skipif(not _shipped(), reason="the shipped zoo is not built")


@pytest.fixture(scope="module")
def zoo_models():
    from core import zoo

    src, tgt = zoo.load_vocabs()
    return src, tgt, {n: zoo.load_model(n) for n in (*PLAIN, ATTN)}


@shipped
def test_default_example_side_by_side_plain_fails_attention_right(zoo_models):
    """Part "side": on the default example the plain model (C = 256) is clearly wrong and
    attention exactly right."""
    from core.evaluate import decode_ids

    src, tgt, models = zoo_models
    pair = bn.example_pair(bn.DEFAULT_EXAMPLE)
    ids = src.encode(pair.src, eos=True)
    wrong = {
        n: sum(bn.error_marks(tgt.decode(decode_ids(models[n], [ids])[0]), pair.tgt))
        for n in ("gru_plain_256", ATTN)
    }
    MIN_PLAIN_ERRORS = 5  # a fifth of the 27 reference tokens
    assert wrong["gru_plain_256"] >= MIN_PLAIN_ERRORS and wrong[ATTN] == 0, wrong


@shipped
def test_default_example_gradient_verdict_is_even_for_every_plain_model(zoo_models):
    """Part "grad": its takeaway says the early words of the long default sentence still
    move C about as much as the late ones (verdict "even": ratio within 0.67-1.5)."""
    from core.analysis.influence import context_influence, verdict

    src, _, models = zoo_models
    ids = src.encode(bn.example_pair(bn.DEFAULT_EXAMPLE).src, eos=True)
    for n in PLAIN:
        ratio = bn.early_late_ratio(context_influence(models[n], ids))
        assert verdict(ratio) == "even", (n, ratio)


@shipped
def test_default_stretch_batch_plain_fails_early_attention_stays_right(zoo_models):
    """Part "stretch" at its defaults (40 words, batch 0): the plain model goes wrong within
    the first ten output tokens of at least 7 of 8 sentences; attention is exactly right on
    at least 6 of 8 and its curve (cut at STRETCH_MIN_N sentences) never drops below 0.75."""
    from core.evaluate import decode_ids

    src, tgt, models = zoo_models
    pairs = bn.stretch_pairs(bn.STRETCH_LEN, 0)
    rows = [src.encode(p.src, eos=True) for p in pairs]
    refs = [p.tgt for p in pairs]
    max_pos = max(map(len, refs))
    outs = {
        n: [tgt.decode(o) for o in decode_ids(models[n], rows)] for n in ("gru_plain_256", ATTN)
    }
    plain = bn.on_track(outs["gru_plain_256"], refs, max_pos, bn.STRETCH_MIN_N)
    attn = bn.on_track(outs[ATTN], refs, max_pos, bn.STRETCH_MIN_N)
    assert plain[9] <= 1 / 8
    assert sum(list(o) == list(r) for o, r in zip(outs[ATTN], refs)) >= 6
    assert np.nanmin(attn) >= 0.75


@shipped
def test_length_chart_plain_models_fall_bigger_c_postpones_attention_stays():
    """Part "length": every plain model is below 0.05 exact match on the longest bucket,
    attention above 0.9; on the shortest bucket the order is C = 32 < 128 < 256."""
    from core import zoo

    curves = bn.length_curves(zoo.load_manifest(), (*PLAIN, ATTN), "exact")
    assert all(curves[n][-1] <= 0.05 for n in PLAIN)
    assert min(curves[ATTN]) >= 0.9
    assert curves["gru_plain_32"][0] < curves["gru_plain_128"][0] < curves["gru_plain_256"][0]


@shipped
def test_probes_keep_the_ends_and_lose_the_middle(zoo_models):
    """Part "probe": for every plain model the first and the last position are read back
    from C above chance (10-point margin), no position of the middle (8-20) is."""
    src, _, models = zoo_models
    length = 25  # the page's probes: 600 training sentences, 300 held out
    results = bn.probe_on_grammar({n: models[n] for n in PLAIN}, src, 600, 300, length)
    for n, r in results.items():
        kept = set(bn.kept_positions(r))
        assert {1, length} <= kept and not kept & set(range(8, 21)), (n, sorted(kept))
