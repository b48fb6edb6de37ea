"""The attention page through AppTest, on a tiny untrained zoo (so the tests do not wait for,
or depend on, the shipped weights): controls change what it shows, deep links restore
the state, bad links and bad sentences give a clear message."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
import streamlit as st
import torch

import core.zoo as zoo
from core import corpus
from core.analysis import attention as A
from core.vocab import Vocab
from tests.conftest import main_text, make_app

PAGE = "pages/attention.py"
CONFIGS = {
    "gru_plain_32": ("rnn_seq2seq", {"hidden": 16, "emb_dim": 8}),
    "gru_plain_128": ("rnn_seq2seq", {"hidden": 16, "emb_dim": 8}),
    "gru_plain_256": ("rnn_seq2seq", {"hidden": 16, "emb_dim": 8}),
    "gru_attention": (
        "rnn_seq2seq",
        {"hidden": 16, "emb_dim": 8, "attention": True, "bidirectional": True, "attn_dim": 8},
    ),
    "cnn_s2s": ("cnn_seq2seq", {"emb_dim": 8, "channels": 16, "enc_layers": 2, "dec_layers": 1}),
    "transformer": ("transformer", {"d_model": 16, "n_heads": 2, "d_ff": 32, "dropout": 0.0}),
}


@pytest.fixture
def tiny_zoo(monkeypatch):
    """Untrained small models over a vocabulary of the page's sentences."""
    pairs = [*corpus.LESSON_PAIRS]
    for mp in A.MINIMAL_PAIRS:
        pairs += [A.corpus_pair(mp.a), A.corpus_pair(mp.b)]
    src_v = Vocab.build([p.src for p in pairs] + [en.split() for en, _ in A.EXAMPLES])
    tgt_v = Vocab.build([p.tgt for p in pairs] + [zh.split() for _, zh in A.EXAMPLES])
    models, entries = {}, {}
    for i, (name, (family, cfg)) in enumerate(CONFIGS.items()):
        torch.manual_seed(i)
        full = {"src_vocab": len(src_v), "tgt_vocab": len(tgt_v), **cfg}
        models[name] = zoo.build_model(family, full).eval()
        by_length = {
            b: {"exact": (0.9 if "attention" in name else 0.5) / (j + 1)}
            for j, b in enumerate(corpus.BUCKETS)
        }
        entries[name] = {
            "family": family,
            "config": full,
            "sha256": f"{i:064d}",
            "metrics": {"by_length": by_length},
        }
    manifest = {"models": entries}
    monkeypatch.setattr(zoo, "load_model", lambda name, *a, **k: models[name])
    monkeypatch.setattr(zoo, "load_vocabs", lambda *a, **k: (src_v, tgt_v))
    monkeypatch.setattr(zoo, "load_manifest", lambda *a, **k: manifest)
    st.cache_resource.clear()
    st.cache_data.clear()
    yield manifest
    st.cache_resource.clear()  # never leave tiny models in the cache for other tests
    st.cache_data.clear()


def _run(**params):
    lang = params.pop("lang", "en")
    at = make_app(PAGE, lang=lang, **params)
    at.default_timeout = 240  # reruns too: the class machine may be busy training
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _array(value):
    """Plotly JSON stores numpy arrays as base64 ``{"dtype", "bdata", "shape"}``."""
    if isinstance(value, dict) and "bdata" in value:
        arr = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = [int(x) for x in str(value.get("shape", arr.size)).split(",")]
        return arr.reshape(shape)
    return np.asarray(value)


def _figs(at):
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def _titles(at):
    return [f["layout"]["title"]["text"] for f in _figs(at)]


def _seg(at, key):
    return at.segmented_control(key=key)


def test_alignment_default_three_charts_with_real_tokens(tiny_zoo):
    at = _run()
    figs = _figs(at)
    assert len(figs) == 3
    heat = figs[0]["data"][0]
    assert heat["type"] == "heatmap"
    assert heat["x"][:3] == ["the", "teacher", "fed"] and heat["x"][-1] == "<eos>"
    np.testing.assert_allclose(_array(heat["z"]).sum(1), 1.0, atol=1e-4)  # distributions
    assert "row sum" in heat["hovertemplate"]
    assert "reproduces the model's own output" in main_text(at)  # the replay check passed
    assert at.query_params["part"] == "align" and at.query_params["s"].startswith("the teacher")


def test_step_moves_the_highlighted_row_and_the_url(tiny_zoo):
    at = _run()
    before = _titles(at)[1]
    at.select_slider(key="attention_step").set_value(2).run()
    assert not at.exception
    assert _titles(at)[1] != before and at.query_params["step"] == "2"
    shape = _figs(at)[0]["layout"]["shapes"][0]
    assert shape["y0"] == pytest.approx(0.5) and shape["y1"] == pytest.approx(1.5)


def test_transformer_layer_and_head_change_the_heatmap(tiny_zoo):
    at = _run(model="transformer", present="0")
    avg = _array(_figs(at)[0]["data"][0]["z"])
    _seg(at, "attention_head").set_value("1").run()
    assert not at.exception and at.query_params["head"] == "1"
    assert not np.allclose(_array(_figs(at)[0]["data"][0]["z"]), avg)
    at.select_slider(key="attention_layer").set_value(1).run()
    assert at.query_params["layer"] == "1" and "layer 1" in main_text(at)


def test_deep_link_restores_every_control(tiny_zoo):
    s = A.EXAMPLES[1][0]
    at = _run(part="align", model="transformer", layer="1", head="0", step="3", s=s)
    assert _seg(at, "attention_model").value == "transformer"
    assert at.select_slider(key="attention_layer").value == 1
    assert _seg(at, "attention_head").value == "0"
    assert at.select_slider(key="attention_step").value == 3
    assert at.text_input(key="attention_s").value == s
    assert at.selectbox(key="attention_example").value == s


def test_bad_link_values_fall_back_with_a_notice(tiny_zoo):
    at = _run(part="nope", model="gpt", step="x", temp="99")
    warnings = " ".join(w.value for w in at.warning)
    for raw in ("nope", "gpt", "`x`"):
        assert raw in warnings
    assert at.query_params["part"] == "align" and at.query_params["model"] == "gru_attention"
    assert len(at.get("plotly_chart")) == 3


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ("the cat drank the zzzmilk", "zzzmilk"),
        ("the catt drank the milk", "cat"),  # a suggestion
        ("<b>hello</b> 😀", "hello"),
        ("😀 !!!", "English sentence first"),
        ("the cat " * 40, "more than 60 words"),
    ],
)
def test_bad_sentences_are_explained_and_the_page_keeps_working(tiny_zoo, text, expect):
    at = _run(s=text[:300])
    errors = " ".join(e.value for e in at.error)
    assert expect in errors
    assert not at.get("plotly_chart")
    _seg(at, "attention_part").set_value("pairs").run()  # the rest of the page still works
    assert not at.exception and not at.error
    assert "the cat drank the milk because it was sweet" in main_text(at)


def test_own_sentence_from_the_text_box(tiny_zoo):
    at = _run()
    at.text_input(key="attention_s").set_value("the cat drank the milk").run()
    assert not at.exception and at.query_params["s"] == "the cat drank the milk"
    x = [w.replace("\u200b", "") for w in _figs(at)[0]["data"][0]["x"]]  # repeats made unique
    assert x == ["the", "cat", "drank", "the", "milk", "<eos>"]
    assert at.selectbox(key="attention_example").value == "__own__"
    at.selectbox(key="attention_example").set_value(A.EXAMPLES[4][0]).run()
    assert at.query_params["s"] == A.EXAMPLES[4][0]


def test_minimal_pairs_switch(tiny_zoo):
    at = _run(part="pairs", pair="bank")
    text = main_text(at)
    assert "i like the bank and the river was wide" in text
    _seg(at, "attention_pair").set_value("it_probe").run()
    assert not at.exception and at.query_params["pair"] == "it_probe"
    assert "the dog drank the coffee because it was sweet" in main_text(at)


def test_self_attention_selects_it_and_follows_the_word(tiny_zoo):
    at = _run(part="self", lang="zh")
    assert at.selectbox(key="attention_word").value == 7  # "it" in the lesson sentence
    figs = _figs(at)
    assert figs[0]["data"][0]["type"] == "heatmap" and len(figs) == 2
    assert at.query_params["q"] == A.EXAMPLES[2][0]  # its own sentence, not the alignment's
    at.selectbox(key="attention_word").set_value(2).run()
    assert at.query_params["w"] == "2"
    assert "<b>cat</b>" in json.dumps(_figs(at)[1], ensure_ascii=False)


def test_score_kind_temperature_and_d(tiny_zoo):
    at = _run(part="score", head="avg")  # a link from an averaged view: no complaint
    assert not at.warning and at.query_params["head"] == "0"
    assert at.metric[2].value == "1.000"  # weights sum to 1
    sharp = float(at.metric[0].value)
    at.slider(key="attention_temp").set_value(0.2).run()
    assert float(at.metric[0].value) < sharp and at.query_params["temp"] == "0.2"
    assert "same" not in at.query_params
    _seg(at, "attention_score").set_value("additive").run()
    assert not at.exception and "v^\\top" in at.latex[0].value
    at.select_slider(key="attention_d").set_value(512).run()
    assert at.query_params["d"] == "512" and "d = 512" in main_text(at)


def test_what_attention_buys_lists_every_model_and_the_curves(tiny_zoo):
    at = _run(part="buys")
    df = at.table[0].value
    assert list(df["model"]) == list(zoo.TRANSLATION_MODELS)
    fig = _figs(at)[0]
    assert {tr["name"] for tr in fig["data"]} == {"gru_plain_256", "gru_attention", "transformer"}


def test_missing_zoo_names_the_file(no_manifest):
    st.cache_resource.clear()
    st.cache_data.clear()
    at = _run(lang="zh")
    assert any("manifest.json" in e.value for e in at.error)
    st.cache_data.clear()
