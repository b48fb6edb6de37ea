"""core.analysis.attention: the plotted weights are the ones the decoder used, rows are
distributions, scores become the model's weights, and the sqrt(d) argument holds."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from charts.common import Titles
from core import corpus, lexicon
from core.analysis import attention as A
from core.models.rnn_seq2seq import RNNSeq2Seq, RNNSeq2SeqConfig
from core.models.transformer import Transformer, TransformerConfig

V = 40
SRC = [5, 9, 7, 11, 6, 8, 2]  # six words + EOS
TOKENS = ["w5", "w9", "w7", "w11", "w6", "w8"]
ITOS = ["<pad>", "<bos>", "<eos>", "<unk>", *[f"t{i}" for i in range(4, V)]]


@pytest.fixture(scope="module")
def gru():
    torch.manual_seed(0)
    cfg = RNNSeq2SeqConfig(
        V, V, emb_dim=16, hidden=32, attention=True, bidirectional=True, attn_dim=16
    )
    return RNNSeq2Seq(cfg).eval()


@pytest.fixture(scope="module")
def transformer():
    torch.manual_seed(1)
    cfg = TransformerConfig(V, V, d_model=32, n_heads=4, d_ff=64, dropout=0.0)
    return Transformer(cfg).eval()


@pytest.fixture(scope="module")
def runs(gru, transformer):
    return {
        "gru": A.run_attention(gru, SRC, TOKENS, ITOS),
        "transformer": A.run_attention(transformer, SRC, TOKENS, ITOS),
    }


def _own_logits(model, out_ids):
    with torch.inference_mode():
        return model(torch.tensor([SRC]), torch.tensor([[1, *out_ids[:-1]]]))[0][0].numpy()


def _gru_own_contexts(model, src_ids, out_ids) -> np.ndarray:
    """Oracle: the context vectors (T, H) the GRU decoder computes itself, step by step,
    with its own attention module on its own states, teacher-forced on ``out_ids``."""
    src = torch.tensor([list(src_ids)])  # (1, S)
    tgt_in = torch.tensor([[1, *list(out_ids)[:-1]]])  # (1, T)
    with torch.inference_mode():
        memory = model.encode(src)
        y_emb = model.tgt_embed(tgt_in)  # (1, T, E)
        state = torch.tanh(model.init_state(memory["context"]))  # (1, H)
        contexts = []
        for i in range(tgt_in.size(1)):
            context, _ = model.attention(state, memory["keys"], memory["hidden"], memory["mask"])
            state = model.cell(torch.cat([y_emb[:, i], context], -1), state)  # (1, H)
            contexts.append(context[0])
    return torch.stack(contexts, 0).numpy()  # (T, H)


def _encoder_states(model, src_ids) -> np.ndarray:
    """Oracle: the encoder annotations (S, H) the GRU decoder attends over."""
    with torch.inference_mode():
        return model.encode(torch.tensor([list(src_ids)]))["hidden"][0].numpy()


@pytest.mark.parametrize("name", ["gru", "transformer"])
def test_run_shapes_labels_and_rows_are_distributions(runs, name):
    run = runs[name]
    L, h, T, S = run.cross.shape
    assert S == len(SRC) and run.source == (*TOKENS, lexicon.EOS)
    assert T == len(run.output) == len(run.out_ids) == run.probs.shape[0]
    assert (L, h) == ((1, 1) if name == "gru" else (2, 4))
    np.testing.assert_allclose(run.cross.sum(-1), 1.0, atol=1e-5)
    assert (run.cross >= 0).all()
    if name == "transformer":
        assert run.enc_self.shape == (2, 4, S, S)
        np.testing.assert_allclose(run.enc_self.sum(-1), 1.0, atol=1e-5)
    assert run.consistent  # teacher-forced on its own output, the model picks the same words


@pytest.mark.parametrize("name", ["gru", "transformer"])
def test_teacher_forced_weights_equal_what_greedy_returned(runs, name):
    run = runs[name]
    shown = run.cross[0, 0] if name == "gru" else run.cross[-1].mean(0)
    np.testing.assert_allclose(shown, run.greedy_cross, atol=1e-5)


def test_context_rebuilt_from_plotted_weights_is_the_gru_decoders_own(gru, runs):
    run = runs["gru"]
    own = _gru_own_contexts(gru, SRC, run.out_ids)  # (T, H) from the model's own module
    rebuilt = run.cross[0, 0] @ _encoder_states(gru, SRC)  # (T, S) @ (S, H)
    assert own.shape == rebuilt.shape == (len(run.out_ids), 32)
    np.testing.assert_allclose(rebuilt, own, atol=1e-5)
    # a plausible-looking but wrong heatmap (uniform weights) does not reproduce it
    uniform = np.full_like(run.cross[0, 0], 1 / len(SRC))
    wrong = uniform @ _encoder_states(gru, SRC)
    assert np.abs(wrong - own).max() > 1e-3


@pytest.mark.parametrize("name", ["gru", "transformer"])
def test_replay_from_plotted_weights_reproduces_the_logits(gru, transformer, runs, name):
    model, run = (gru, runs["gru"]) if name == "gru" else (transformer, runs["transformer"])
    own = _own_logits(model, run.out_ids)
    if name == "gru":
        replay = A.replay_gru_logits(model, SRC, run.out_ids, run.cross[0, 0])
        shuffled = A.replay_gru_logits(model, SRC, run.out_ids, run.cross[0, 0, :, ::-1])
    else:
        replay = A.replay_transformer_logits(model, SRC, run.out_ids, run.cross)
        shuffled = A.replay_transformer_logits(model, SRC, run.out_ids, run.cross[..., ::-1])
    np.testing.assert_allclose(replay, own, atol=1e-4)
    assert np.abs(shuffled - own).max() > 1e-3  # the check can fail
    assert A.logit_gap(model, SRC, run) < 1e-4


def test_padding_gets_no_weight(gru):
    run = A.run_attention(gru, [*SRC, 0, 0], [*TOKENS, "<pad>"], ITOS)
    assert np.allclose(run.cross[..., -2:], 0.0)


def test_transformer_queries_and_keys_give_its_self_attention(transformer, runs):
    run = runs["transformer"]
    for layer in range(2):
        q, k = A.transformer_qk(transformer, SRC, layer)
        assert q.shape == k.shape == (4, len(SRC), 8)
        for head in range(4):
            for word in range(len(SRC)):
                w = A.softmax(A.scores(q[head, word], k[head], "scaled"))
                np.testing.assert_allclose(w, run.enc_self[layer, head, word], atol=1e-5)
    with pytest.raises(ValueError, match="layer"):
        A.transformer_qk(transformer, SRC, 2)


def test_additive_energies_give_the_gru_attention_rows(gru, runs):
    run = runs["gru"]
    for step in range(len(run.out_ids)):
        e = A.additive_energy(gru, SRC, run.out_ids, step)
        np.testing.assert_allclose(A.softmax(e), run.cross[0, 0, step], atol=1e-5)


def test_hand_attention_equals_torch_scaled_dot_product_attention():
    g = torch.Generator().manual_seed(3)
    q, k, v = (torch.randn(5, 16, generator=g) for _ in range(3))
    ref = F.scaled_dot_product_attention(q[None], k[None], v[None])[0].numpy()
    w = np.stack([A.softmax(A.scores(q[i].numpy(), k.numpy(), "scaled")) for i in range(5)])
    np.testing.assert_allclose(w @ v.numpy(), ref, atol=1e-5)  # (T, S) @ (S, d)


def test_score_functions_softmax_temperature_and_entropy():
    q = np.array([1.0, 2.0, 0.0, -1.0])
    keys = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1.0]])
    np.testing.assert_allclose(A.scores(q, keys, "dot"), [1, 2, -1])
    np.testing.assert_allclose(A.scores(q, keys, "scaled"), [0.5, 1, -0.5])
    np.testing.assert_allclose(A.toy_additive(q, keys), np.tanh(q + keys).sum(1))
    s = np.array([1.0, 2.0, 3.0])
    p = A.softmax(s)
    np.testing.assert_allclose(p, np.exp(s) / np.exp(s).sum())
    assert A.entropy_bits(A.softmax(s, 0.05)) < A.entropy_bits(p) < A.entropy_bits(A.softmax(s, 20))
    assert A.entropy_bits(np.ones(8) / 8) == pytest.approx(3.0)
    assert A.entropy_bits(np.array([1.0, 0.0, 0.0])) == 0.0
    assert np.isfinite(A.softmax(np.array([1000.0, 0.0]))).all()
    with pytest.raises(ValueError, match="temperature"):
        A.softmax(s, 0.0)
    with pytest.raises(ValueError, match="share d"):
        A.scores(q, keys[:, :3], "dot")
    with pytest.raises(ValueError, match="kind"):
        A.scores(q, keys, "additive")


def test_unscaled_softmax_saturates_with_d_and_scaling_prevents_it():
    dims = (1, 4, 16, 64, 256)
    c = A.saturation_curve(dims, n_keys=10, trials=300)
    assert np.all(np.diff(c["ent_dot"]) < 0)  # sharper and sharper
    assert c["max_dot"][-1] > 0.9 and c["ent_dot"][-1] < 0.5
    assert np.ptp(c["ent_scaled"]) < 0.25 and c["ent_scaled"].min() > 2.0
    assert c["ent_scaled"].max() <= math.log2(10) + 1e-9
    np.testing.assert_allclose(c["ent_dot"][0], c["ent_scaled"][0])  # d = 1: same scores
    with pytest.raises(ValueError):
        A.saturation_curve(dims, n_keys=1)


def test_select_heads_and_token_step():
    cross = np.random.default_rng(0).random((2, 3, 4, 5))
    np.testing.assert_allclose(A.select_heads(cross, 1, None), cross[1].mean(0))
    np.testing.assert_allclose(A.select_heads(cross, 0, 2), cross[0, 2])
    with pytest.raises(ValueError):
        A.select_heads(cross, 2, None)
    with pytest.raises(ValueError):
        A.select_heads(cross, 0, 3)
    out = ("猫", "喝", "了", "牛奶", "因为", "猫", "饿", "了")
    assert A.token_step(out, "猫", 5) == 5
    assert A.token_step(out, "猫", 3) == 0
    assert A.token_step(out, "狗", 5) is None


def test_examples_and_pairs_are_real_corpus_sentences():
    test = {p.src: p for p in corpus.shared_splits().test}
    lesson = {p.src: p for p in corpus.LESSON_PAIRS}
    # held-out test sentences, the lesson's own, or probe sentences (held out as well)
    for en, zh in A.EXAMPLES:
        p = test.get(tuple(en.split())) or lesson.get(tuple(en.split())) or A.corpus_pair(en)
        assert p is not None, en
        assert p.tgt == tuple(zh.split()), en
    for mp in A.MINIMAL_PAIRS:
        a, b = A.corpus_pair(mp.a), A.corpus_pair(mp.b)
        assert a is not None and b is not None, mp.key
        assert a.check[0][1] != b.check[0][1], "a minimal pair needs two different words"
        assert (mp.source == "lesson") == (a.kind == "lesson")


def test_figure_builders_check_their_input_and_keep_the_tokens():
    from charts import attention as FA

    w = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])
    hover = {"row": "r", "col": "c", "weight": "w", "sum": "s"}
    fig = FA.attention_heatmap(
        w,
        ["猫", "the", "the"],
        ["a", "b"],
        titles=Titles("t", "x", "y"),
        hover=hover,
        highlight_row=1,
    )
    assert [x.replace("\u200b", "") for x in fig.data[0].x] == ["猫", "the", "the"]
    assert fig.layout.shapes[0].y0 == 0.5
    np.testing.assert_allclose(fig.data[0].customdata[:, 0], w.sum(1))
    with pytest.raises(ValueError, match="hover"):
        FA.attention_heatmap(w, "abc", "ab", titles=Titles("t", "", ""), hover={})
    with pytest.raises(ValueError, match="highlight_row"):
        FA.attention_heatmap(
            w, "abc", "ab", titles=Titles("t", "", ""), hover=hover, highlight_row=2
        )
    with pytest.raises(ValueError, match="NaN"):
        FA.attention_lines(np.full((2, 2), np.nan), ["a", "b"], title="t")
    with pytest.raises(ValueError, match="labels"):
        FA.weight_bars(["a"], [0.5, 0.5], titles=Titles("t", "", ""))
    lines = FA.attention_lines(np.eye(3), ["a", "b", "c"], title="t", selected=1)
    lay = lines.layout
    assert list(lay.yaxis.ticktext) == ["a", "<b>b</b>", "c"] == list(lay.yaxis2.ticktext)
    # the words are tick labels left and right of the plot (plotly keeps room for them), not
    # text inside it: "because" on the left once ran into "because" on the right
    assert (lay.yaxis.side, lay.yaxis2.side) == ("left", "right")
    assert lay.yaxis.automargin and lay.yaxis2.automargin
    assert not any(tr.mode == "text" for tr in lines.data)
    bars = FA.weight_bars(["a", "b", "c"], [0.1, 0.5, 0.4], titles=Titles("t", "", ""), highlight=2)
    colors = list(bars.data[0].marker.color)
    assert colors[2] != colors[1] and colors[0] == colors[1]


# --- the worked example of part 4 (editable vectors) -----------------------------------


def test_worked_example_matches_a_hand_computation():
    ex = A.worked_example(A.TOY_QUERY, A.TOY_KEYS, A.TOY_VALUES)
    # q = (1, 1, 0.5, -1); cat = (1, 0.5, 1, -1): 1 + 0.5 + 0.5 + 1 = 3, and so on
    np.testing.assert_allclose(ex.scores["dot"], [3.0, -0.25, -1.5, -0.5])
    np.testing.assert_allclose(ex.scores["scaled"], ex.scores["dot"] / math.sqrt(4))
    # additive with W = U = I, v = 1: cat -> tanh(2) + tanh(1.5) + tanh(1.5) + tanh(-2)
    assert ex.scores["additive"][0] == pytest.approx(2 * math.tanh(1.5))
    e = np.exp([1.5, -0.125, -0.75, -0.25])
    np.testing.assert_allclose(ex.weights["scaled"], e / e.sum())
    assert ex.weights["scaled"][0] == pytest.approx(0.6775, abs=1e-4)
    for kind in A.SCORE_KINDS:
        assert ex.weights[kind].sum() == pytest.approx(1.0)
        assert int(np.argmax(ex.weights[kind])) == 0  # every score function favours "cat"
        np.testing.assert_allclose(ex.context[kind], ex.weights[kind] @ A.TOY_VALUES)
        assert 0.0 < ex.entropy[kind] < ex.max_entropy == pytest.approx(2.0)
    # for d > 1 the unscaled dot product is the same scores times sqrt(d): always sharper
    assert ex.entropy["dot"] < ex.entropy["scaled"]
    np.testing.assert_allclose(ex.context["scaled"], [0.7442, 0.1970], atol=1e-4)


def test_worked_example_temperature_and_the_entropy_extremes():
    q = np.array([1.0, 0.0])
    same = np.ones((4, 2))  # four identical keys: evenly spread, log2(4) = 2 bits
    values = np.arange(8.0).reshape(4, 2)
    ex = A.worked_example(q, same, values)
    for kind in A.SCORE_KINDS:
        np.testing.assert_allclose(ex.weights[kind], 0.25)
        assert ex.entropy[kind] == pytest.approx(2.0)
        np.testing.assert_allclose(ex.context[kind], values.mean(0))
    keys = np.array([[3.0, 0.0], [0.0, 0.0], [-3.0, 0.0]])
    cold = A.worked_example(q, keys, values[:3], temperature=0.1)  # nearly one-hot
    assert cold.weights["dot"][0] > 1 - 1e-9 and cold.entropy["dot"] < 1e-6
    np.testing.assert_allclose(cold.context["dot"], values[0], atol=1e-9)
    warm = A.worked_example(q, keys, values[:3], temperature=5.0)
    assert warm.entropy["dot"] > A.worked_example(q, keys, values[:3]).entropy["dot"]
    with pytest.raises(ValueError, match="one row per key"):
        A.worked_example(q, keys, values)
    with pytest.raises(ValueError, match="finite"):
        A.worked_example(np.array([np.nan, 0.0]), keys, values[:3])


def test_vectors_in_a_link_parse_format_and_clip():
    m, clipped = A.parse_vectors("1,0.5;0,-1; 2 ,3")
    np.testing.assert_allclose(m, [[1, 0.5], [0, -1], [2, 3]])
    assert not clipped
    assert A.format_vectors(m) == "1,0.5;0,-1;2,3"
    assert A.format_vectors(np.array([0.1 + 0.2, -0.0, 1 / 3])) == "0.3,0,0.3333"
    for arr in (A.TOY_QUERY, A.TOY_KEYS, A.TOY_VALUES):
        np.testing.assert_allclose(A.parse_vectors(A.format_vectors(arr))[0], np.atleast_2d(arr))
    m, clipped = A.parse_vectors("50,-99;1,2")
    assert clipped and m.tolist() == [[10, -10], [1, 2]]
    bad = ["", "a,b", "1,2;3", "nan,1", "1e999", "1,,2", "1;" * 7 + "1", ",".join("1" * 9)]
    for text in [*bad, "1" * 2000]:
        with pytest.raises(ValueError):
            A.parse_vectors(text)
    with pytest.raises(ValueError):
        A.parse_vectors("1,2", min_rows=2)


def test_resize_keeps_what_fits_and_fills_with_zeros():
    q, k, v = A.resize_example(A.TOY_QUERY, A.TOY_KEYS, A.TOY_VALUES, n_keys=6, dim=2)
    np.testing.assert_allclose(q, [1, 1])
    assert k.shape == (6, 2) and v.shape == (6, 2)
    np.testing.assert_allclose(k[:4], A.TOY_KEYS[:, :2])
    assert not k[4:].any() and not v[4:].any()
    q, k, v = A.resize_example(q, k, v, n_keys=2, dim=3)
    np.testing.assert_allclose(q, [1, 1, 0])
    np.testing.assert_allclose(k, [[1, 0.5, 0], [-0.5, 0, 0]])
    with pytest.raises(ValueError):
        A.resize_example(q, k, v, n_keys=1, dim=3)
    with pytest.raises(ValueError):
        A.resize_example(q, k, v, n_keys=3, dim=9)


def test_worked_example_figure_and_formulas():
    from charts import attention as FA

    ex = A.worked_example(A.TOY_QUERY, A.TOY_KEYS, A.TOY_VALUES, temperature=0.5)
    words = list(A.TOY_WORDS[:4])
    hover = {"key": "k", "score": "e", "weight": "α"}
    fig = FA.score_kinds_bars(
        words,
        ex.weights,
        ex.scores,
        titles=Titles("t", "x", "y"),
        hover=hover,
        selected="scaled",
        even_label="1/4",
    )
    assert fig.layout.barmode == "group" and [tr.name for tr in fig.data] == list(ex.weights)
    np.testing.assert_allclose(fig.data[1].y, ex.weights["scaled"])
    np.testing.assert_allclose(fig.data[2].customdata, ex.scores["additive"])
    assert fig.data[1].opacity == 1.0 and fig.data[0].opacity < 1.0
    assert "%{customdata:.3f}" in fig.data[0].hovertemplate
    assert fig.layout.shapes[0].y0 == pytest.approx(0.25)
    with pytest.raises(ValueError, match="hover"):
        FA.score_kinds_bars(words, ex.weights, ex.scores, titles=Titles("", "", ""), hover={})
    with pytest.raises(ValueError, match="labels"):
        FA.score_kinds_bars(
            words[:3], ex.weights, ex.scores, titles=Titles("", "", ""), hover=hover
        )
    dot = FA.score_latex("dot", ex.query, ex.keys, ex.scores["dot"], words)
    assert (
        r"e_{\text{cat}} = {1\cdot1} + {1\cdot0.5} + {0.5\cdot1} + {(-1)\cdot(-1)} = \mathbf{3}"
        in dot
    )
    assert r"/ \sqrt{4}" in FA.score_latex("scaled", ex.query, ex.keys, ex.scores["scaled"], words)
    assert r"\tanh(1 + 1)" in FA.score_latex(
        "additive", ex.query, ex.keys, ex.scores["additive"], words
    )
    soft = FA.softmax_latex(ex.scores["dot"], ex.weights["dot"], words, 0.5, 0)
    assert r"e^{3/0.5}" in soft and soft.endswith(rf"\mathbf{{{ex.weights['dot'][0]:.3f}}}")
    huge = FA.softmax_latex(ex.scores["dot"] * 100, ex.weights["dot"], words, 0.1, 0)
    assert "inf" not in huge  # exponentials too big to read are left out, not overflowed
    out = FA.context_latex(ex.weights["dot"], ex.values, words)
    assert out.startswith(r"o = \sum_j \alpha_j v_j") and "[0.998,\\ 0.001]" in out
    assert (
        FA.score_latex("dot", [1.0], [[2.0], [3.0]], [2.0, 3.0], ["a\\b{}", "c$"]).count(
            r"\text{ab}"
        )
        == 1
    )  # labels cannot smuggle TeX commands


def test_model_score_formula_names_each_score_kind():
    from charts import attention as FA

    assert r"v^\top \tanh(W s_{i-1} + U h_j)" in FA.model_score_latex("additive")
    dot, scaled = FA.model_score_latex("dot", 8), FA.model_score_latex("scaled", 8)
    assert r"e_j = q \cdot k_j \\" in dot and "sqrt" not in dot  # score, then softmax
    assert r"\sqrt{d}},\ d = 8" in scaled
    for latex in (dot, scaled):
        assert r"\exp(e_j/\tau)" in latex  # the softmax with its temperature
    with pytest.raises(ValueError, match="needs the size d"):
        FA.model_score_latex("scaled")
    with pytest.raises(ValueError, match="kind"):
        FA.model_score_latex("cosine", 8)


def test_length_series_reads_every_bucket_or_leaves_the_model_out():
    buckets = ("short", "long")
    manifest = {
        "models": {
            "a": {"metrics": {"by_length": {"short": {"exact": 0.9}, "long": {"exact": 0.5}}}},
            "b": {"metrics": {"by_length": {"short": {"exact": 0.8}}}},  # a bucket missing
            "c": {},
        }
    }
    found = A.length_series(manifest, ("c", "b", "a", "missing"), buckets)
    assert found == {"a": [0.9, 0.5]}
    assert A.length_series({}, ("a",), buckets) == {}


# --- the defaults of each part, searched in the models ----------------------------------


def _maps(a_row, b_row, layers=2, heads=2, S=4, word=2):
    """Encoder maps where every view gives ``word`` uniform rows, except layer 1 head 0."""
    a = np.full((layers, heads, S, S), 1.0 / S)
    b = a.copy()
    a[1, 0, word], b[1, 0, word] = a_row, b_row
    return a, b


def test_it_search_picks_the_separating_view_and_names_its_measure():
    # "it" (position 2) means the noun at 0 in A and the one at 1 in B
    a, b = _maps([0.7, 0.1, 0.1, 0.1], [0.1, 0.6, 0.2, 0.1])
    rows = A.it_rows(a, b, word=2, noun_a=0, noun_b=1)
    assert [(r.layer, r.head) for r in rows][:3] == [(0, None), (0, 0), (0, 1)]
    choice = A.choose_it_view(rows)
    assert choice.separates and (choice.shown.layer, choice.shown.head) == (1, 0)
    assert choice.shown.separation == pytest.approx(min(0.7 - 0.1, 0.6 - 0.1))
    assert choice.shown.separation >= A.SEPARATION_MIN
    assert A.choose_it_view(rows) == choice  # deterministic


def test_it_search_says_so_when_no_view_separates():
    # the same row in both sentences: reads both nouns, chooses neither
    a, b = _maps([0.4, 0.4, 0.1, 0.1], [0.4, 0.4, 0.1, 0.1])
    choice = A.choose_it_view(A.it_rows(a, b, word=2, noun_a=0, noun_b=1))
    assert not choice.separates and choice.best.separation < A.SEPARATION_MIN
    # the view shown is where "it" reaches the noun it means most: layer 2, head 1
    assert (choice.shown.layer, choice.shown.head) == (1, 0)
    assert choice.shown.reach == pytest.approx(0.4)
    with pytest.raises(ValueError):
        A.choose_it_view([])


def test_pair_choice_prefers_right_senses_then_the_most_context():
    ev = [
        A.PairEvidence("a", 0, 0.30, senses_ok=False),
        A.PairEvidence("b", 1, 0.12, senses_ok=True),
        A.PairEvidence("c", 0, 0.20, senses_ok=True),
    ]
    assert A.choose_pair(ev).key == "c"


# --- the shipped models: each part's default shows what its takeaway says ----------------

# thresholds behind the claims, named
ALIGN_PEAK_MIN = 0.5  # "a sharp alignment": the mean of each step's largest weight
REACH_MIN = 0.1  # "it reads cat directly": at least this weight on "cat" in one step
CONTEXT_MIN = 0.1  # "transformer reads its neighbours": weight on power / model
DECODER_SAME_WORD = 0.4  # writing 变压器 / Transformer the decoder reads the phrase
LONG_GAP_MIN = 0.5  # attention's lead over the plain GRU on the longest sentences


@pytest.fixture(scope="module")
def shipped():
    from core import zoo

    try:
        src, tgt = zoo.load_vocabs()
        models = {n: zoo.load_model(n) for n in ("gru_attention", "transformer")}
        manifest = zoo.load_manifest()
    except zoo.ZooError:
        pytest.skip("the shipped models are not built")
    return src, tgt, models, manifest


def _shipped_run(shipped, name, english):
    src, tgt, models, _ = shipped
    tokens = english.split()
    return A.run_attention(models[name], src.encode(tokens, eos=True), tokens, tgt.tokens)


def test_align_default_is_a_learned_alignment_with_a_budget_of_one(shipped):
    run = _shipped_run(shipped, "gru_attention", A.EXAMPLES[0][0])  # the page's default
    w = run.cross[0, 0]
    np.testing.assert_allclose(w.sum(1), 1.0, atol=1e-5)  # each step spends a budget of 1
    assert w.max(1).mean() >= ALIGN_PEAK_MIN
    # reordering: 晚上 comes second in Chinese and reads the phrase "in the evening", last in
    # the English (the retrained model splits it between "in" and "evening")
    step = run.output.index("晚上")
    phrase = [i for i, word in enumerate(run.source) if word in ("in", "the", "evening")][-3:]
    assert [run.source[i] for i in phrase] == ["in", "the", "evening"]
    assert int(w[step].argmax()) in phrase and w[step, phrase].sum() >= 0.5


def test_pairs_default_transformer_by_context(shipped):
    src, tgt, models, _ = shipped
    found = A.pairs_search(models["transformer"], src, tgt)
    assert found.senses_ok and found.reads >= CONTEXT_MIN
    pair = next(p for p in A.MINIMAL_PAIRS if p.key == found.key)
    for english, sense in ((pair.a, "变压器"), (pair.b, "Transformer")):
        for name in ("gru_attention", "transformer"):  # both models, as the page offers
            run = _shipped_run(shipped, name, english)
            assert sense in run.words
        # the page's default decoder (GRU + attention) reads the phrase of "transformer"
        # writing it (the word or a neighbour: in "the transformer model" the retrained
        # model's peak is on "the", whose bidirectional state holds the words after it); the
        # page states the peak word it finds (attention.pairs.peak)
        run = _shipped_run(shipped, "gru_attention", english)
        row = run.cross[0, 0, run.output.index(sense)]
        at = run.source.index("transformer")
        phrase = range(max(0, at - 1), at + 2)
        assert int(row.argmax()) in phrase
        assert sum(row[i] for i in phrase) >= DECODER_SAME_WORD


def test_self_default_reads_cat_directly_and_the_page_says_whether_it_separates(shipped):
    src, tgt, models, _ = shipped
    found = A.it_view_search(models["transformer"], src, tgt)
    assert found.shown.a_right >= REACH_MIN  # "it" reads "cat" in one step
    # what the page says follows the measure: separating -> takeaway, else "mixed"
    assert found.separates == (found.best.separation >= A.SEPARATION_MIN)
    assert A.it_view_search(models["transformer"], src, tgt) == found  # deterministic


def test_score_default_turns_scores_into_weights():
    ex = A.worked_example(A.TOY_QUERY, A.TOY_KEYS, A.TOY_VALUES)  # the page's default
    for kind in A.SCORE_KINDS:
        assert ex.weights[kind].sum() == pytest.approx(1.0) and (ex.weights[kind] > 0).all()
        assert int(np.argmax(ex.weights[kind])) == int(np.argmax(ex.scores[kind]))
    curves = A.saturation_curve((32,), A.TOY_KEYS.shape[0])  # the page's default d = 32
    assert curves["max_dot"][0] > 0.8 > 0.6 > curves["max_scaled"][0]


def test_buys_default_attention_holds_on_long_sentences(shipped):
    from core.corpus import BUCKETS

    manifest = shipped[3]
    by = {
        n: manifest["models"][n]["metrics"]["by_length"]
        for n in ("gru_plain_256", "gru_attention", "transformer")
    }
    longest = BUCKETS[-1]
    for name in ("gru_attention", "transformer"):
        assert by[name][longest]["exact"] - by["gru_plain_256"][longest]["exact"] >= LONG_GAP_MIN


def test_loss_fall_compares_the_start_and_the_end_of_the_last_fifth():
    # steps 10..100, loss 1.0 until step 70, then halves linearly to 0.5 at step 100
    curve = [[s, 1.0 if s <= 70 else 1.0 - (s - 70) / 60] for s in range(10, 101, 10)]
    # last fifth starts at step 80: mean loss at steps 70-90 vs steps 80-100
    before = (1.0 + 1 - 10 / 60 + 1 - 20 / 60) / 3
    after = (1 - 10 / 60 + 1 - 20 / 60 + 0.5) / 3
    assert A.loss_fall(curve) == pytest.approx((before - after) / before)
    flat = [[s, 0.3] for s in range(10, 101, 10)]
    assert A.loss_fall(flat) == pytest.approx(0.0)
    with pytest.raises(ValueError, match="need at least"):
        A.loss_fall(curve[:5])
