"""Model-level properties: shapes, attention that is a distribution, masking, the
receptive-field formula, and a tiny model that learns in seconds."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from core import zoo
from core.models.probes import ProbeConfig
from core.models.transformer import scaled_dot_product_attention

V = 40
BOS, EOS = 1, 2

FAMILIES = {
    "rnn_plain": ("rnn_seq2seq", {"src_vocab": V, "tgt_vocab": V, "hidden": 32, "emb_dim": 16}),
    "rnn_tanh": (
        "rnn_seq2seq",
        {"src_vocab": V, "tgt_vocab": V, "hidden": 32, "emb_dim": 16, "cell": "rnn"},
    ),
    "rnn_attention": (
        "rnn_seq2seq",
        {
            "src_vocab": V,
            "tgt_vocab": V,
            "hidden": 32,
            "emb_dim": 16,
            "attention": True,
            "bidirectional": True,
        },
    ),
    "cnn": (
        "cnn_seq2seq",
        {
            "src_vocab": V,
            "tgt_vocab": V,
            "emb_dim": 16,
            "channels": 24,
            "enc_layers": 3,
            "dec_layers": 2,
        },
    ),
    "transformer": (
        "transformer",
        {"src_vocab": V, "tgt_vocab": V, "d_model": 32, "n_heads": 4, "d_ff": 64},
    ),
}


def _batch():
    g = torch.Generator().manual_seed(0)
    src = torch.randint(4, V, (3, 7), generator=g)
    src[1, 5:] = 0  # padding
    src[2, 2:] = 0
    tgt = torch.randint(4, V, (3, 6), generator=g)
    tgt[:, 0] = BOS
    return src, tgt


def _model(key):
    torch.manual_seed(0)
    family, cfg = FAMILIES[key]
    return zoo.build_model(family, cfg).eval()


@pytest.mark.parametrize("key", sorted(FAMILIES))
def test_shapes_and_attention_is_a_distribution(key):
    src, tgt = _batch()
    model = _model(key)
    with torch.no_grad():
        logits, attn = model(src, tgt)
    assert logits.shape == (3, 6, V)
    if key in ("rnn_plain", "rnn_tanh"):
        assert attn == {}
        return
    cross = attn["cross"]
    assert cross.shape == (3, 6, 7)
    assert torch.allclose(cross.sum(-1), torch.ones(3, 6), atol=1e-5)
    # padding positions get exactly zero weight
    assert float(cross[1, :, 5:].abs().max()) == 0.0
    assert float(cross[2, :, 2:].abs().max()) == 0.0


@pytest.mark.parametrize("key", sorted(FAMILIES))
def test_greedy_decoding_shapes(key):
    src, _ = _batch()
    ids, probs, cross = _model(key).greedy(src, max_len=5, bos_id=BOS, eos_id=EOS)
    assert ids.shape[0] == 3 and 1 <= ids.shape[1] <= 5
    assert probs.shape == ids.shape
    assert ((probs > 0) & (probs <= 1)).all()
    assert cross.shape == (3, ids.shape[1], 7)


def test_transformer_returns_every_attention_map():
    src, tgt = _batch()
    model = _model("transformer")
    with torch.no_grad():
        _, attn = model(src, tgt)
    assert len(attn["enc_self"]) == 2 and attn["enc_self"][0].shape == (3, 4, 7, 7)
    assert len(attn["dec_self"]) == 2 and attn["dec_self"][0].shape == (3, 4, 6, 6)
    assert len(attn["cross_layers"]) == 2 and attn["cross_layers"][1].shape == (3, 4, 6, 7)
    # decoder self-attention is causal: nothing above the diagonal
    upper = torch.triu(torch.ones(6, 6, dtype=torch.bool), 1)
    assert float(attn["dec_self"][0][..., upper].abs().max()) == 0.0
    # encoder self-attention rows sum to one and ignore padding
    w = attn["enc_self"][1]
    assert torch.allclose(w.sum(-1), torch.ones_like(w.sum(-1)), atol=1e-5)
    assert float(w[2, :, :, 2:].abs().max()) == 0.0


def test_hand_written_attention_equals_torch_sdpa():
    g = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(2, 4, 5, 8, generator=g) for _ in range(3))
    mask = torch.rand(2, 1, 5, 5, generator=g) > 0.3
    mask[..., 0] = True  # no fully masked row
    ours, weights = scaled_dot_product_attention(q, k, v, mask)
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    assert torch.allclose(ours, ref, atol=1e-5)
    assert torch.allclose(weights.sum(-1), torch.ones(2, 4, 5), atol=1e-5)


@pytest.mark.parametrize("layers,kernel", [(1, 3), (2, 5), (4, 5), (3, 2)])
def test_cnn_probe_sees_exactly_its_theoretical_receptive_field(layers, kernel):
    cfg = ProbeConfig(kind="cnn", n_symbols=12, n_keys=4, hidden=8, layers=layers, kernel=kernel)
    torch.manual_seed(0)
    probe = zoo.build_model("probe", cfg.__dict__)
    x = torch.randint(0, 12, (1, 30))
    emb = probe.embed(x).detach().requires_grad_(True)
    logits, _ = probe(x, embedded=emb)
    logits.sum().backward()
    touched = emb.grad[0].abs().sum(-1) > 0  # (L,)
    first_seen = int(touched.nonzero().min())
    assert 30 - first_seen == cfg.receptive_field == 1 + layers * (kernel - 1)


def test_rnn_probe_and_attention_probe_see_everything():
    for kind in ("rnn", "gru", "lstm", "attention"):
        torch.manual_seed(0)
        probe = zoo.build_model("probe", {"kind": kind, "n_symbols": 12, "n_keys": 4, "hidden": 8})
        x = torch.randint(0, 12, (1, 40))
        emb = probe.embed(x).detach().requires_grad_(True)
        probe(x, embedded=emb)[0].sum().backward()
        assert bool((emb.grad[0].abs().sum(-1) > 0).all()), kind


def test_unknown_family_and_probe_kind_say_what_to_do():
    with pytest.raises(ValueError, match="known"):
        zoo.build_model("lstm_magic", {})
    with pytest.raises(ValueError, match="rnn, lstm, gru, cnn or attention"):
        zoo.build_model("probe", {"kind": "mlp", "n_symbols": 4, "n_keys": 2})


def test_a_tiny_attention_model_learns_to_reverse_in_seconds():
    """End to end through the shared training loop: reverse 4-symbol sequences."""
    from core.train import train_loop, translation_loss

    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    cfg = {
        "src_vocab": 12,
        "tgt_vocab": 12,
        "hidden": 48,
        "emb_dim": 16,
        "attention": True,
        "bidirectional": True,
    }
    model = zoo.build_model("rnn_seq2seq", cfg)

    def batches():
        while True:
            src = torch.randint(4, 12, (32, 4), generator=g)
            tgt = torch.cat([torch.full((32, 1), BOS), src.flip(1), torch.full((32, 1), EOS)], 1)
            yield src, tgt

    curve = train_loop(model, batches(), translation_loss, steps=300, lr=1e-2, warmup=20)
    assert curve[-1][2] > 0.95, curve[-5:]
    src = torch.randint(4, 12, (64, 4), generator=g)
    ids, _, _ = model.greedy(src, 5, BOS, EOS)
    assert (ids[:, :4] == src.flip(1)).all(1).float().mean() > 0.9


# --- fast greedy decoding == the straightforward algorithm ---------------------------------


@torch.no_grad()
def reference_greedy(model, src, max_len: int, eos: int = EOS):
    """The plain algorithm every model's ``greedy`` must reproduce: at each step run the
    whole model, teacher-forced, on the prefix so far and append the most probable token
    (PAD once a row has produced EOS). Returns ids (B,L), probabilities (B,L), attention
    (B,L,S), like ``greedy``."""
    B = src.size(0)
    prefix = torch.full((B, 1), BOS, dtype=torch.long)
    done = torch.zeros(B, dtype=torch.bool)
    probs = []
    for _ in range(max_len):
        logits, attn = model(src, prefix)  # (B, t, V)
        best_p, y = F.softmax(logits[:, -1], -1).max(-1)
        y = torch.where(done, torch.zeros_like(y), y)
        prefix = torch.cat([prefix, y[:, None]], 1)
        probs.append(best_p)
        done = done | (y == eos)
        if bool(done.all()):
            break
    ids = prefix[:, 1:]
    cross = attn.get("cross", torch.zeros(B, ids.size(1), src.size(1)))  # plain GRU: zeros
    return ids, torch.stack(probs, 1), cross


def assert_same_greedy(model, src, max_len: int, eos: int = EOS):
    ids, probs, cross = model.greedy(src, max_len, BOS, eos)
    ref_ids, ref_probs, ref_cross = reference_greedy(model, src, max_len, eos)
    assert torch.equal(ids, ref_ids)
    assert torch.allclose(probs, ref_probs, atol=1e-5, rtol=0)
    assert cross.shape == ref_cross.shape
    assert torch.allclose(cross, ref_cross, atol=1e-5, rtol=0)


@pytest.mark.parametrize("key", sorted(FAMILIES))
def test_fast_greedy_equals_rerunning_the_prefix_on_a_tiny_random_model(key):
    src, _ = _batch()  # three rows, two of them padded
    model = _model(key)
    assert_same_greedy(model, src, max_len=12)
    assert_same_greedy(model, src, max_len=12, eos=-1)  # never stops early: the whole budget
    # a token the random model does pick, used as EOS: rows finish at different steps
    first = model.greedy(src, 12, BOS, -1)[0][:, 3]
    assert_same_greedy(model, src, max_len=12, eos=int(first[0]))
    for row in src:  # each row alone, batch of one
        assert_same_greedy(model, row[row != 0][None], max_len=12)


@pytest.mark.parametrize("key,pad_boost", [("cnn", 0.5), ("transformer", 1.0)])
def test_fast_greedy_equals_rerunning_the_prefix_when_the_model_writes_pad(key, pad_boost):
    """A model may pick PAD mid-sentence; the next steps read it as input, and the
    Transformer must then mask it as ``decode`` does (its incremental mask is built as
    tokens arrive). The PAD logit is raised until PAD is chosen at some steps, not all."""
    src, _ = _batch()
    model = _model(key)
    with torch.no_grad():
        model.out.bias[0] += pad_boost
    ids = model.greedy(src, 12, BOS, -1)[0]
    assert bool((ids == 0).any()) and bool((ids != 0).any()), ids  # PAD among other tokens
    assert_same_greedy(model, src, max_len=12, eos=-1)
    for row in src:  # batch of one: no other row keeps the loop going
        assert_same_greedy(model, row[row != 0][None], max_len=12, eos=-1)


SHIPPED = ("gru_plain_256", "rnn_plain_256", "gru_attention", "cnn_s2s", "transformer")


@pytest.fixture(scope="module")
def shipped_sentences():
    """Source ids (EOS included) of grammar sentences of 1, 10, 30 and 50 words."""
    import random

    from core.corpus import sample_pair

    src_vocab, _ = zoo.load_vocabs()
    rng = random.Random(2026)
    return [src_vocab.encode(sample_pair(rng, length=n).src, eos=True) for n in (1, 10, 30, 50)]


@pytest.mark.parametrize("name", SHIPPED)
def test_fast_greedy_equals_rerunning_the_prefix_on_the_shipped_weights(name, shipped_sentences):
    from core.data import pad
    from core.evaluate import max_output_len

    model = zoo.load_model(name)
    with torch.inference_mode():
        for row in shipped_sentences:
            src = torch.tensor([row])
            assert_same_greedy(model, src, max_output_len(src.size(1)))
        src = pad(shipped_sentences)  # one padded batch: rows finish at different steps
        assert_same_greedy(model, src, max_output_len(src.size(1)))
