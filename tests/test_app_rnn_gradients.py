"""The RNN-gradients page through AppTest: controls change what it shows, deep links restore
state, bad parameters and bad sentences give a message, a missing zoo leaves the rest working.

A small fake zoo (untrained models of the shipped families, a tiny vocabulary, a manifest
with curves) stands in for the pretrained weights, so these tests do not depend on training.
"""

from __future__ import annotations

import pytest
import streamlit as st

from core import probes_data
from core.i18n import translate
from tests.conftest import make_app

PAGE = "pages/rnn_gradients.py"
PROBES = ("probe_rnn", "probe_lstm", "probe_gru")
ENCODERS = ("gru_plain_32", "gru_plain_128", "gru_plain_256")
TEXT = (
    "the trees are full of autumn cicadas because the bread that a tiger ate is sour "
    "every day so you see their shade"
)


@pytest.fixture
def fake_zoo(monkeypatch):
    import torch

    import core.zoo as zoo
    from core.vocab import Vocab

    src = Vocab.build([TEXT.split(), "i love you".split()])
    tgt = Vocab.build([["我", "爱", "你"]])
    configs = {
        n: {"kind": n.split("_")[1], "n_symbols": probes_data.N_SYMBOLS, "n_keys": 10}
        for n in PROBES
    }
    configs.update(
        {
            n: {"src_vocab": len(src), "tgt_vocab": len(tgt), "emb_dim": 16, "hidden": h}
            for n, h in zip(ENCODERS, (32, 48, 64), strict=True)
        }
    )
    models = {}
    for i, name in enumerate(PROBES):
        acc = {
            str(d): round(max(0.1, 1.0 - i * 0.01 - d / 100 * (i == 0)), 3)
            for d in probes_data.EVAL_DISTANCES
        }
        models[name] = {
            "family": "probe",
            "task": "probe",
            "config": configs[name],
            "steps": 3000,
            "curve": [[s, 2.3 - s / 3000, 0.1 + s / 4000] for s in range(60, 3001, 60)],
            "metrics": {"distance": acc},
        }
    for name in ENCODERS:
        models[name] = {"family": "rnn_seq2seq", "task": "translation", "config": configs[name]}
    manifest = {"models": models}

    def load_model(name, *_a, **_k):
        torch.manual_seed(0)
        model = zoo.build_model(manifest["models"][name]["family"], configs[name]).eval()
        for p in model.parameters():
            p.requires_grad_(False)
        return model

    monkeypatch.setattr(zoo, "load_manifest", lambda *_a, **_k: manifest)
    monkeypatch.setattr(zoo, "load_model", load_model)
    monkeypatch.setattr(zoo, "load_vocabs", lambda *_a, **_k: (src, tgt))
    st.cache_resource.clear()
    st.cache_data.clear()
    yield manifest
    st.cache_resource.clear()  # no fake model may outlive the test
    st.cache_data.clear()


def charts(at) -> list[dict]:
    import json

    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def arr(value) -> list:
    """A plotly JSON array (a list, or a typed array {dtype, bdata}) as a plain list."""
    import base64

    import numpy as np

    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"]).tolist()
    return list(value)


def chart_titles(at) -> list[str]:
    return [c["layout"]["title"]["text"] for c in charts(at)]


def chart(at, words: str) -> dict:
    return next(c for c in charts(at) if words in c["layout"]["title"]["text"])


def test_full_page_with_every_section(fake_zoo):
    at = make_app(PAGE, lang="en").run(timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    titles = chart_titles(at)
    # decay + eigenvalues (one figure), trained, curves, acc, words, explode
    assert len(titles) == 6, titles
    decay = chart(at, "Untrained cells")
    assert decay["layout"]["yaxis"]["type"] == "log"
    assert [tr["name"] for tr in decay["data"]][:3] == ["vanilla RNN (tanh)", "LSTM", "GRU"]
    # the eigenvalue panel beside it: its own square axes and title
    eig = [tr for tr in decay["data"] if tr.get("xaxis") == "x2"]
    assert [tr["name"] for tr in eig] == ["unit circle |λ| = 1", "|λ| = ρ = 0.9", "eigenvalues λ"]
    assert decay["layout"]["yaxis2"]["scaleanchor"] == "x2"
    assert "Eigenvalues of W_hh" in decay["layout"]["annotations"][0]["text"]
    assert len(arr(eig[-1]["x"])) == 64
    assert chart(at, "Trained probes")["layout"]["yaxis"]["type"] == "log"
    words = chart(at, "Influence of each word")
    assert len(words["data"][0]["x"]) == len(TEXT.split()) + 1  # + <eos>
    acc = chart(at, "accuracy against distance")
    assert [tr["name"] for tr in acc["data"]] == list(PROBES)
    caption = "\n".join(c.value for c in at.caption)
    assert "`gru_plain_256`" in caption and "At ρ = 3.0" in caption


def test_radius_slider_changes_curves_bound_and_url(fake_zoo):
    at = make_app(PAGE, lang="en").run(timeout=300)
    before = chart(at, "Untrained cells")
    at.slider(key="rnng_rho").set_value(1.4).run(timeout=300)
    assert not at.exception
    assert at.query_params["rho"] == "1.4"
    after = chart(at, "Untrained cells")
    assert "ρ = 1.4" in after["layout"]["title"]["text"]
    bound = next(tr for tr in after["data"] if tr["name"].startswith("ρ^"))
    assert arr(bound["y"])[10] == pytest.approx(1.4**10)
    ring = next(tr for tr in after["data"] if tr["name"] == "|λ| = ρ = 1.4")
    assert max(arr(ring["x"])) == pytest.approx(1.4)
    ev = next(tr for tr in after["data"] if tr["name"] == "eigenvalues λ")
    assert max(arr(ev["customdata"])) == pytest.approx(1.4)  # spectral radius ρ
    assert arr(before["data"][0]["y"]) != arr(after["data"][0]["y"])
    assert any("≥ 1" in i.value for i in at.info)


def test_quantity_switch_changes_axis(fake_zoo):
    at = make_app(PAGE, lang="en").run(timeout=300)
    at.segmented_control(key="rnng_q").set_value("input").run(timeout=300)
    assert at.query_params["q"] == "input"
    assert "∂L/∂x_t" in chart(at, "Untrained cells")["layout"]["yaxis"]["title"]["text"]
    assert "loss" in chart(at, "Trained probes")["layout"]["yaxis"]["title"]["text"]


def test_deep_link_restores_state(fake_zoo):
    at = make_app(
        PAGE,
        lang="zh",
        rho="0.6",
        q="input",
        T="30",
        drive="1.0",
        seed="5",
        curve="loss",
        model="gru_plain_32",
        big="4.0",
        text="i love you",
    ).run(timeout=300)
    assert not at.exception and not at.warning, [w.value for w in at.warning]
    assert at.slider(key="rnng_rho").value == pytest.approx(0.6)
    assert at.slider(key="rnng_T").value == 30
    assert at.segmented_control(key="rnng_q").value == "input"
    assert at.segmented_control(key="rnng_drive").value == "1.0"
    assert at.number_input(key="rnng_seed").value == 5
    assert at.segmented_control(key="rnng_model").value == "gru_plain_32"
    assert at.select_slider(key="rnng_big").value == 4.0
    decay = chart(at, "未训练的单元")
    assert len(arr(decay["data"][0]["x"])) == 30
    words = chart(at, "每个词对最终状态")
    assert "gru_plain_32" in words["layout"]["title"]["text"]
    assert len(words["data"][0]["x"]) == 4
    assert chart(at, "训练过程")["layout"]["yaxis"]["title"]["text"] == translate(
        "rnn_gradients.learn.curve.loss.axis", "zh"
    )


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("rho", "7"),
        ("rho", "nan"),
        ("q", "grad"),
        ("T", "-3"),
        ("drive", "9"),
        ("big", "x"),
        ("model", "gru_attention"),
        ("curve", "<b>"),
    ],
)
def test_bad_params_fall_back_with_a_notice(fake_zoo, name, value):
    at = make_app(PAGE, lang="en", **{name: value}).run(timeout=300)
    assert not at.exception
    assert any(value in w.value for w in at.warning), [w.value for w in at.warning]


def test_bad_sentences_get_a_message_and_the_page_keeps_working(fake_zoo):
    at = make_app(PAGE, lang="en", text="the zebra ate <script>").run(timeout=300)
    assert not at.exception
    msg = next(w.value for w in at.warning if "zebra" in w.value)
    assert "`zebra`" in msg and "synthetic corpus" in msg
    assert "Influence of each word" not in " ".join(chart_titles(at))
    assert len(chart_titles(at)) == 5  # every other chart still drawn
    at.text_area(key="rnng_text").input("   ").run(timeout=300)
    assert any("Type an English sentence" in w.value for w in at.warning)
    at.text_area(key="rnng_text").input(" ".join(["you"] * 70)).run(timeout=300)
    assert any("70 words" in w.value for w in at.warning)
    at.text_area(key="rnng_text").input("i love you 😀").run(timeout=300)
    assert not at.exception
    # the tokenizer drops symbols it cannot read: the three known words are analysed
    assert len(arr(chart(at, "Influence of each word")["data"][0]["x"])) == 4


def test_encoder_and_scale_controls_change_what_is_shown(fake_zoo):
    at = make_app(PAGE, lang="en").run(timeout=300)
    strip = arr(chart(at, "Influence of each word")["data"][0]["customdata"][0])
    at.segmented_control(key="rnng_model").set_value("gru_plain_32").run(timeout=300)
    assert at.query_params["model"] == "gru_plain_32"
    assert arr(chart(at, "Influence of each word")["data"][0]["customdata"][0]) != strip
    metric = at.metric[0].value
    at.select_slider(key="rnng_big").set_value(1.0).run(timeout=300)
    assert at.query_params["big"] == "1.0"
    assert at.metric[0].value != metric
    assert at.metric[2].value == at.metric[3].value  # below the threshold: clipping is a no-op


def test_missing_zoo_shows_the_error_and_keeps_the_fresh_sections(no_zoo):
    for lang, word in (("en", "Rebuild"), ("zh", "重新生成")):
        at = make_app(PAGE, lang=lang).run(timeout=300)
        assert not at.exception
        assert any("python -m core.train" in e.value and word in e.value for e in at.error)
        assert len(chart_titles(at)) == 2  # fresh decay and eigenvalues, explosion
        assert len(at.metric) == 4  # the exploding step needs no pretrained weights


def test_presenter_mode_stacks_decay_and_eigenvalues_as_two_charts(fake_zoo):
    at = make_app(PAGE, lang="en", present="1").run(timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    titles = chart_titles(at)
    assert len(titles) == 7, titles  # decay and eigenvalues apart, at the presenter's size
    assert chart(at, "Eigenvalues of W_hh")["layout"]["yaxis"]["scaleanchor"] == "x"
    assert "yaxis2" not in chart(at, "Untrained cells")["layout"]
