"""The attention page through AppTest, on a tiny untrained zoo (so the tests do not wait for,
or depend on, the shipped weights): controls change what it shows, deep links restore
the state, bad links and bad sentences give a clear message."""

from __future__ import annotations

import base64
import functools
import importlib
import json
import pkgutil

import numpy as np
import pytest
import streamlit as st
import torch

import core.zoo as zoo
import lessons.attention
import ui
from core import corpus, lexicon
from core.analysis import attention as analysis
from core.analysis import coref
from core.i18n import translate
from core.vocab import Vocab
from tests.conftest import as_a_phone, main_text, make_app
from ui.nav import Stop, deck, page_parts

PAGE = "pages/attention.py"
CONFIGS = {
    "gru_plain_32": ("rnn_seq2seq", {"hidden": 16, "emb_dim": 8}),
    "gru_plain_128": ("rnn_seq2seq", {"hidden": 16, "emb_dim": 8}),
    "gru_plain_256": ("rnn_seq2seq", {"hidden": 16, "emb_dim": 8}),
    "rnn_plain_256": ("rnn_seq2seq", {"hidden": 16, "emb_dim": 8, "cell": "rnn"}),
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
    for mp in analysis.MINIMAL_PAIRS:
        pairs += [analysis.corpus_pair(mp.a), analysis.corpus_pair(mp.b)]
    english = [p.src for p in pairs] + [en.split() for en, _ in analysis.EXAMPLES]
    src_v = Vocab.build(english + [c.tokens for c in corpus.lesson_coref_cases()])
    tgt_v = Vocab.build([p.tgt for p in pairs] + [zh.split() for _, zh in analysis.EXAMPLES])
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
            "steps": 1000 if name == "cnn_s2s" else 3000 + 500 * i,
            "curve": [[20 * (j + 1), 2.0 - 0.1 * j, 0.5] for j in range(10)],
        }
    torch.manual_seed(len(CONFIGS))
    coref_cfg = {"vocab": len(src_v), "d_model": 16, "heads": (2, 1), "d_ff": 32}
    models["coref_encoder"] = zoo.build_model("coref_encoder", coref_cfg).eval()
    entries["coref_encoder"] = {"family": "coref_encoder", "config": coref_cfg, "sha256": "c" * 64}
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


def _keys(at) -> list[str]:
    """The page's own keys of the charts shown, in order."""
    return [c.proto.id.rsplit("-", 1)[-1] for c in at.get("plotly_chart")]


def _row_bars(fig) -> tuple[np.ndarray, np.ndarray]:
    """The alignment figure's heatmap (T, S) and its bars (S,)."""
    heat, bars = fig["data"]
    assert (heat["type"], bars["type"]) == ("heatmap", "bar")
    return _array(heat["z"]), _array(bars["y"])


def test_alignment_default_two_charts_with_real_tokens(tiny_zoo):
    at = _run()
    # the heatmap and the step's row are one figure; the entropy of every step the other
    assert _keys(at) == ["attention_align", "attention_align_focus"]
    fig = _figs(at)[0]
    heat = fig["data"][0]
    assert heat["x"][:3] == ["the", "teacher", "fed"] and heat["x"][-1] == lexicon.EOS
    assert fig["data"][1]["x"] == heat["x"]  # each bar under its column
    z, bars = _row_bars(fig)
    np.testing.assert_allclose(z.sum(1), 1.0, atol=1e-4)  # distributions
    np.testing.assert_allclose(bars, z[0])  # step 1 by default
    assert "row sum" in heat["hovertemplate"]
    assert "Step 1: the weights used to write" in fig["layout"]["annotations"][0]["text"]
    assert "reproduces the model's own output" in main_text(at)  # the replay check passed
    assert at.query_params["part"] == "align" and at.query_params["s"].startswith("the teacher")


def test_on_a_phone_every_source_word_is_labelled_and_no_tool_bar_covers_them(
    tiny_zoo, monkeypatch
):
    """On a phone (``ui.on_a_phone`` patched: AppTest cannot send a User-Agent) the map's
    ~150-px-wide plot would get every second English word from plotly at the laptop's
    label size; the labels shrink until plotly labels every word (its rule: round(1.2 x
    size) px per word), and plotly's tool bar, which a screen without hover shows all the
    time over the words on top, is off. A laptop keeps both."""
    laptop = _run()
    config = json.loads(laptop.get("plotly_chart")[0].proto.config or "{}")
    assert config.get("displayModeBar") is not False
    laptop_size = _figs(laptop)[0]["layout"]["xaxis"]["tickfont"]["size"]

    as_a_phone(monkeypatch)
    phone = _run()
    for el in phone.get("plotly_chart"):
        assert json.loads(el.proto.config)["displayModeBar"] is False
    fig = _figs(phone)[0]
    words = len(fig["data"][0]["x"])
    size = fig["layout"]["xaxis"]["tickfont"]["size"]
    assert 9 <= size < laptop_size
    m = fig["layout"]["margin"]
    plot = 360 - m["l"] - m["r"]  # charts.PHONE_WIDTH, less the margins set for it
    assert round(1.2 * size) * words <= plot


def test_step_moves_the_frame_and_the_bars_in_one_chart(tiny_zoo):
    at = _run()
    at.select_slider(key="attention_step").set_value(2).run()
    assert not at.exception and at.query_params["step"] == "2"
    assert _keys(at) == ["attention_align", "attention_align_focus"]
    fig = _figs(at)[0]
    z, bars = _row_bars(fig)
    np.testing.assert_allclose(bars, z[1])  # the bars are the framed row
    assert not np.allclose(bars, z[0])
    shape = fig["layout"]["shapes"][0]
    assert shape["y0"] == pytest.approx(0.5) and shape["y1"] == pytest.approx(1.5)
    assert "Step 2:" in fig["layout"]["annotations"][0]["text"]
    top = int(np.argmax(z[1]))
    assert f"({z[1][top]:.2f})" in main_text(at)  # the row's caption follows the step
    at.toggle(key="attention_v").set_value(True).run()
    assert _figs(at)[0]["data"][0]["texttemplate"] == "%{text}"  # the values toggle


@pytest.fixture
def redrawn(monkeypatch):
    """What a click on each control redraws: every chart drawn inside the fragment the
    control sits in (a fragment reruns the fragments it calls too); a control outside any
    fragment reruns the whole page. Returns ``f(at) -> {control key: [chart keys]}`` for
    the run just made."""
    stack: list[str] = []
    charts: list[tuple[str, tuple[str, ...]]] = []
    controls: dict[str, tuple[str, ...]] = {}
    real_fragment, real_chart = st.fragment, ui.chart
    real_bound, real_editor = ui.params.bound, st.data_editor

    def fragment(func=None, **kwargs):
        def wrap(f):
            @functools.wraps(f)
            def inner(*a, **k):
                stack.append(f.__name__)
                try:
                    return f(*a, **k)
                finally:
                    stack.pop()

            return real_fragment(inner, **kwargs)

        return wrap(func) if func is not None else wrap

    def chart(fig, *, key=None, **kwargs):
        charts.append((key, tuple(stack)))
        real_chart(fig, key=key, **kwargs)

    def bound(name, value, *, key):
        controls[key] = tuple(stack)
        return real_bound(name, value, key=key)

    def data_editor(*a, key=None, **k):
        controls[key] = tuple(stack)
        return real_editor(*a, key=key, **k)

    monkeypatch.setattr(st, "fragment", fragment)
    monkeypatch.setattr(ui, "chart", chart)
    monkeypatch.setattr(ui.params, "bound", bound)
    monkeypatch.setattr(st, "data_editor", data_editor)
    # the parts' fragments are made when their module is imported: a part's own module and
    # its sections' (lessons/attention/<part>_<section>.py)
    parts = [
        importlib.import_module(f"lessons.attention.{m.name}")
        for m in pkgutil.iter_modules(lessons.attention.__path__)
        if m.name.split("_")[0] in page_parts("attention")
    ]
    for module in parts:
        importlib.reload(module)

    def run(**params) -> dict[str, list[str]]:
        charts.clear()
        controls.clear()
        _run(**params)
        return {
            control: [c for c, where in charts if not inner or inner[-1] in where]
            for control, inner in controls.items()
        }

    yield run
    monkeypatch.setattr(st, "fragment", real_fragment)
    for module in parts:
        importlib.reload(module)


ALIGN = ["attention_align", "attention_align_focus"]
PAIRS = ["attention_pair_rows", "attention_pair_enc"]
SELF = ["attention_self_heatmap", "attention_self_lines"]
SCORE = [
    "attention_toy_weights",
    "attention_score_coref",
    "attention_score_model",
    "attention_score_sqrt",
]


@pytest.mark.parametrize(
    ("params", "expect"),
    [
        (
            dict(part="align"),
            {
                "attention_part": ALIGN,  # outside every fragment: the whole page
                "attention_s": ALIGN,
                "attention_model": ALIGN,
                "attention_step": ["attention_align"],  # heatmap and row: one chart
                "attention_v": ["attention_align"],
            },
        ),
        (
            dict(part="align", model="transformer"),
            {"attention_layer": ALIGN, "attention_head": ALIGN, "attention_step": ALIGN[:1]},
        ),
        (
            dict(part="pairs"),
            {
                "attention_pair": PAIRS,
                "attention_model": ["attention_pair_rows"],  # A, B and A - B: one chart
                "attention_elayer": ["attention_pair_enc"],  # A and B: one chart
            },
        ),
        (
            dict(part="pairs", model="transformer"),
            {"attention_layer": PAIRS[:1], "attention_head": PAIRS[:1]},
        ),
        (
            dict(part="self"),
            {
                "attention_s": SELF,
                "attention_layer": SELF,
                "attention_word": SELF,
                "attention_ch": ["attention_self_coref", *SELF],  # the part: both sections
            },
        ),
        (
            dict(part="score"),
            {
                "attention_score": SCORE,
                "attention_temp": SCORE,
                # the worked example's chart is the part's picture, above its controls and
                # editors: an edit reruns the part (the model's charts come from the cache)
                "attention_toy_qk_0": SCORE,
                "attention_toy_v_0": SCORE,
                "attention_s": SCORE[2:],  # scores and softmax: one chart, and 4c's n
                "attention_word": SCORE[2:],
                "attention_cs": ["attention_score_coref"],  # the real scores of "it"
                "attention_d": ["attention_score_sqrt"],
            },
        ),
        (dict(part="score", score="additive"), {"attention_step": SCORE[2:]}),
        (dict(part="buys"), {"attention_s": []}),  # the curves do not depend on the sentence
    ],
)
def test_each_control_redraws_only_the_charts_it_changes(
    tiny_zoo, redrawn, monkeypatch, params, expect
):
    # untrained models seldom write a pair's deciding word: take its first step instead
    monkeypatch.setattr(analysis, "token_step", lambda output, word, idx: 0)
    found = redrawn(**params)
    assert {k: found.get(k) for k in expect} == expect


def test_transformer_layer_and_head_change_the_heatmap(tiny_zoo):
    at = _run(model="transformer", present="0")
    avg = _array(_figs(at)[0]["data"][0]["z"])
    _seg(at, "attention_head").set_value("1").run()
    assert not at.exception and at.query_params["head"] == "1"
    assert not np.allclose(_array(_figs(at)[0]["data"][0]["z"]), avg)
    at.select_slider(key="attention_layer").set_value(1).run()
    assert at.query_params["layer"] == "1" and "layer 1" in main_text(at)


def test_deep_link_restores_every_control(tiny_zoo):
    s = analysis.EXAMPLES[1][0]
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
    assert len(at.get("plotly_chart")) == 2


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
    pair = next(p for p in analysis.MINIMAL_PAIRS if p.key == at.query_params["pair"])
    assert pair.b in main_text(at)


def test_own_sentence_from_the_text_box(tiny_zoo):
    at = _run()
    at.text_input(key="attention_s").set_value("the cat drank the milk").run()
    assert not at.exception and at.query_params["s"] == "the cat drank the milk"
    x = [w.replace("\u200b", "") for w in _figs(at)[0]["data"][0]["x"]]  # repeats made unique
    assert x == ["the", "cat", "drank", "the", "milk", lexicon.EOS]
    assert at.selectbox(key="attention_example").value == "__own__"
    at.selectbox(key="attention_example").set_value(analysis.EXAMPLES[4][0]).run()
    assert at.query_params["s"] == analysis.EXAMPLES[4][0]


def test_minimal_pairs_switch(tiny_zoo):
    at = _run(part="pairs", pair="bank")
    text = main_text(at)
    assert "i like the bank and the river was wide" in text
    _seg(at, "attention_pair").set_value("it_probe").run()
    assert not at.exception and at.query_params["pair"] == "it_probe"
    assert "the dog drank the coffee because it was sweet" in main_text(at)


def _chart(at, key: str) -> dict:
    return _figs(at)[_keys(at).index(key)]


def test_pair_rows_and_their_difference_are_one_figure(tiny_zoo, monkeypatch):
    monkeypatch.setattr(analysis, "token_step", lambda output, word, idx: 1)
    at = _run(part="pairs", pair="it_probe")
    fig = _chart(at, "attention_pair_rows")
    a, b, diff = (_array(tr["y"]) for tr in fig["data"])
    assert [tr["type"] for tr in fig["data"]] == ["bar"] * 3
    np.testing.assert_allclose(diff, a - b)
    np.testing.assert_allclose([a.sum(), b.sum()], 1.0, atol=1e-4)
    pair = next(p for p in analysis.MINIMAL_PAIRS if p.key == "it_probe")
    assert fig["data"][0]["x"][:3] == pair.a.split()[:3]
    titles = [x["text"] for x in fig["layout"]["annotations"]]
    assert "A: weights at step 2" in titles[0] and "B: weights at step 2" in titles[1]
    assert "A minus B" in titles[2]
    enc = _chart(at, "attention_pair_enc")
    assert [tr["type"] for tr in enc["data"]] == ["bar", "bar"]
    assert "takes from each word" in enc["layout"]["annotations"][0]["text"]
    # a sentence whose deciding word was not written: B's row alone, no difference
    a_word = analysis.corpus_pair(pair.a).check[0][1]

    def step(output, word, idx):
        return None if word == a_word else 1

    monkeypatch.setattr(analysis, "token_step", step)
    at = _run(part="pairs", pair="it_probe")
    assert f"did not write “{a_word}”" in main_text(at)
    fig = _chart(at, "attention_pair_rows")
    assert len(fig["data"]) == 1 and "B: weights" in fig["layout"]["annotations"][0]["text"]
    assert "different lengths" not in main_text(at)  # the warning says why, not lengths


def test_scores_and_their_softmax_are_one_figure(tiny_zoo):
    at = _run(part="score", temp="0.5")
    fig = _chart(at, "attention_score_model")
    scores, weights, used = fig["data"]
    assert (scores["type"], weights["type"], used["type"]) == ("bar", "bar", "scatter")
    e, w = _array(scores["y"]), _array(weights["y"])
    np.testing.assert_allclose(w, np.exp(e / 0.5) / np.exp(e / 0.5).sum(), rtol=1e-5)
    assert (weights["xaxis"], used["xaxis"], fig["layout"]["xaxis2"]["matches"]) == (
        "x2",
        "x2",
        "x",
    )
    assert "temperature 0.5" in fig["layout"]["annotations"][0]["text"]
    assert "its score for every key" in fig["layout"]["title"]["text"]


def _coref():
    """The coreference encoder and the source vocabulary the page uses."""
    return zoo.load_model("coref_encoder"), zoo.load_vocabs()[0]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_self_default_is_the_lessons_pair_in_the_tested_head(tiny_zoo, lang):
    at = _run(part="self", lang=lang)
    assert at.segmented_control(key="attention_ch").value == f"{coref.LAYER + 1}.{coref.HEAD + 1}"
    pair = coref.lesson_pair(*_coref())
    held = coref.held_out_metrics(*_coref())
    hungry, sweet = corpus.lesson_coref_cases()
    fig = _figs(at)[0]  # the first chart: "it" in the hungry and in the sweet sentence
    bars = [_array(tr["y"]) for tr in fig["data"] if tr["type"] == "bar"]
    np.testing.assert_allclose(bars[0], pair["hungry"].weights, atol=1e-6)
    np.testing.assert_allclose(bars[1], pair["sweet"].weights, atol=1e-6)
    takeaway = " ".join(el.value for el in at.success)
    assert f"{pair['hungry'].weights[hungry.antecedent]:.2f}" in takeaway
    assert f"{pair['sweet'].weights[sweet.antecedent]:.2f}" in takeaway
    text = main_text(at)
    assert f"{held['resolved']:.0%}" in text and str(held["held_out_n"]) in text
    assert f"{pair['hungry'].weights[hungry.other]:.2f}" in text  # the wrong noun's weight too
    assert not any(w.icon == ":material/balance:" for w in at.warning)  # no "mixed" box
    assert not at.info  # no "Try this" that sends students after a head that does not exist


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_self_says_what_the_models_were_trained_on_and_kept_from(lang):
    from core.corpus import coref_frames

    models = zoo.load_manifest()["models"]
    text = main_text(_run(part="self", lang=lang))
    for noun in coref_frames.HELD_OUT_NOUNS:  # the nouns kept out, named on the page
        assert noun in text
    for name in ("transformer", "gru_attention"):  # the translators, on the same sentences
        got = models[name]["metrics"]["coref_frames"]
        assert f"{got['right_noun']:.1%}" in text and lexicon.name(name, lang) in text
    held = models["coref_encoder"]["metrics"]
    assert f"{held['named_acc']:.0%}" in text and str(held["held_out_n"]) in text


def test_self_head_picker_moves_the_bars(tiny_zoo):
    at = _run(part="self", ch="1.2")
    fig = _figs(at)[0]
    model, vocab = _coref()
    _, _, layers = coref.encode_cases(model, vocab, corpus.lesson_coref_cases())
    row = layers[0]["attn"][0, 1, 6].numpy()  # layer 1, head 2, from "it"
    np.testing.assert_allclose(_array(fig["data"][0]["y"]), row, atol=1e-6)


def test_self_explorer_selects_it_and_follows_the_word(tiny_zoo):
    at = _run(part="self", lang="zh")
    assert at.selectbox(key="attention_word").value == 7  # "it" in the lesson sentence
    figs = _figs(at)
    assert figs[1]["data"][0]["type"] == "heatmap" and len(figs) == 3
    assert at.query_params["q"] == analysis.EXAMPLES[2][0]  # its own sentence, not the alignment's
    at.selectbox(key="attention_word").set_value(2).run()
    assert at.query_params["w"] == "2"
    assert "<b>cat</b>" in json.dumps(_figs(at)[2], ensure_ascii=False)


@pytest.mark.parametrize("cs", ["hungry", "sweet"])
def test_score_shows_the_real_scores_of_it_in_the_lessons_sentence(tiny_zoo, cs):
    at = _run(part="score", cs=cs)
    sw = coref.lesson_pair(*_coref())[cs]
    fig = _chart(at, "attention_score_coref")
    (scores,) = (_array(tr["y"]) for tr in fig["data"] if tr["type"] == "bar")
    np.testing.assert_allclose(scores, sw.scores, atol=1e-5)
    # their softmax is the weights the model used: part 3's picture, linked back to
    np.testing.assert_allclose(analysis.softmax(scores), sw.weights, atol=1e-5)
    self_slide = deck("class").index(Stop("attention", "self")) + 1
    assert translate("attention.score.coref.seen", "en", slide=self_slide) in main_text(at)
    top = int(np.argmax(sw.scores))
    assert f"{sw.tokens[top]} {sw.scores[top]:.2f}" in main_text(at)
    assert "hand-picked" in main_text(at)  # the toy's numbers say what they are


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_score_starts_from_the_alignment_and_folds_the_arithmetic(tiny_zoo, lang):
    at = _run(part="score", lang=lang, present="1")
    # one sentence names the alignment's parts anew, with the alignment's slide number
    align_slide = deck("class").index(Stop("attention", "align")) + 1
    bridge = translate("attention.score.bridge", lang, slide=align_slide)
    said = [m.value for m in at.markdown]
    lead = said.index(translate("attention.part.score.lead", lang))
    assert said[lead + 1] == bridge  # right under the lead, above the picture
    links = [el.proto for el in at.get("page_link")]
    assert any(link.query_string == "part=align" for link in links), links
    # the steps by hand (formulas, tables, editors) are for the curious; the slide keeps
    # the picture
    folds = [e for e in at.expander if e.label == translate("shell.curious", lang)]
    toy = folds[0]
    assert len(toy.get("latex")) == 3 and len(toy.get("data_editor")) == 2
    assert sum(len(f.get("latex")) for f in folds) == len(at.latex)  # no formula on the slide


def test_score_kind_temperature_and_d(tiny_zoo):
    at = _run(part="score", head="avg")  # a link from an averaged view: no complaint
    assert not at.warning and at.query_params["head"] == "0"
    assert at.metric[2].value == "1.000"  # weights sum to 1
    sharp = float(at.metric[0].value)
    at.slider(key="attention_temp").set_value(0.2).run()
    assert float(at.metric[0].value) < sharp and at.query_params["temp"] == "0.2"
    assert "same" not in at.query_params
    _seg(at, "attention_score").set_value("additive").run()
    assert not at.exception and any("v^\\top" in x.value for x in at.latex)
    at.select_slider(key="attention_d").set_value(512).run()
    assert at.query_params["d"] == "512" and "d = 512" in main_text(at)


# --- part 4, "Work it out by hand": editable vectors kept in the URL ---------------------

DEFAULT_TK = "1,0.5,1,-1;-0.5,0,0.5,0;0,-0.5,0,1;0,0.5,-1,0.5"


def _weights(at):
    """The worked example's weight table (rows: keys, sum, entropy; columns: score kinds)."""
    return at.table[1].value


def _edit(at, key, rows):
    """Seed cell edits of a data editor (AppTest cannot type into its canvas)."""
    at.session_state[key] = {"edited_rows": rows, "added_rows": [], "deleted_rows": []}
    return at.run()


@pytest.mark.parametrize(("lang", "present"), [("en", "0"), ("zh", "0"), ("zh", "1")])
def test_worked_example_renders_every_step(tiny_zoo, lang, present):
    at = _run(part="score", lang=lang, present=present)
    header = (
        "Work it out by hand (hand-picked numbers)" if lang == "en" else "亲手算一遍（手选的数字）"
    )
    assert header in [h.value for h in at.subheader]
    assert len(at.data_editor) == 2
    assert list(at.data_editor[0].value.index) == [
        "q · it",
        "k · cat",
        "k · drank",
        "k · milk",
        "k · hungry",
    ]
    scores = at.table[0].value
    assert list(scores.iloc[:, 0]) == ["3.000", "-0.250", "-1.500", "-0.500"]  # q·k by hand
    assert list(scores.iloc[:, 1]) == ["1.500", "-0.125", "-0.750", "-0.250"]  # ÷ √4
    w = _weights(at)
    assert list(w.iloc[4]) == ["1.000"] * 3  # the sum row
    assert w.iloc[0, 1] == "0.677"  # scaled weight of cat: e^1.5 / Σ e^e_k
    latex = " ".join(x.value for x in at.latex)
    assert r"\sqrt{4}" in latex and r"\alpha_{\text{cat}}" in latex
    assert r"\mathbf{[0.744,\ 0.197]}" in latex  # o = Σ α_j v_j with the scaled weights
    bars = _figs(at)[0]
    assert [tr["type"] for tr in bars["data"]] == ["bar"] * 3
    assert ("temperature 1" if lang == "en" else "温度 1") in bars["layout"]["title"]["text"]
    assert at.query_params["tk"] == DEFAULT_TK and at.query_params["tq"] == "1,1,0.5,-1"
    assert at.query_params["tv"] == "1,0;0.5,0.5;0,1;0,0.5"
    assert not at.warning and not at.error


def test_editing_a_key_moves_the_weights_and_the_link(tiny_zoo):
    at = _run(part="score")
    before = _weights(at)
    # make the key of "milk" (row 3 of the first table) equal to the query
    _edit(at, "attention_toy_qk_0", {3: {"1": 1.0, "2": 1.0, "3": 0.5, "4": -1.0}})
    assert not at.exception
    after = _weights(at)
    assert after.iloc[2, 1] != before.iloc[2, 1]
    assert float(after.iloc[2, 0]) > float(after.iloc[0, 0])  # milk now beats cat (3.25 > 3)
    assert list(after.iloc[4]) == ["1.000"] * 3
    assert at.query_params["tk"] == "1,0.5,1,-1;-0.5,0,0.5,0;1,1,0.5,-1;0,0.5,-1,0.5"
    assert any(r"\alpha_{\text{milk}}" in x.value for x in at.latex)
    # the edit survives other controls, and the temperature reaches the toy too
    sharp = float(_weights(at).iloc[5, 1])
    at.slider(key="attention_temp").set_value(3.0).run()
    assert not at.exception and float(_weights(at).iloc[5, 1]) > sharp
    assert at.query_params["tk"].split(";")[2] == "1,1,0.5,-1"
    weights, output = _weights(at), at.table[2].value
    _edit(at, "attention_toy_v_0", {0: {"2": 4.0}})  # a value changes the output only
    assert at.query_params["tv"].startswith("1,4;") and _weights(at).equals(weights)
    assert not at.table[2].value.equals(output)


def test_an_empty_cell_is_named_and_the_last_numbers_stay(tiny_zoo):
    at = _run(part="score", lang="zh")
    _edit(at, "attention_toy_qk_0", {1: {"2": None}})
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert "空的" in errors and "`k · cat` [2]" in errors
    assert at.query_params["tk"] == DEFAULT_TK
    assert list(_weights(at).iloc[4]) == ["1.000"] * 3


def test_a_link_reopens_the_vectors(tiny_zoo):
    at = _run(part="score", tq="2,0", tk="1,0;0,1;-1,0", tv="1;2;3", score="dot")
    assert not at.warning
    assert at.select_slider(key="attention_toy_n").value == 3
    assert at.select_slider(key="attention_toy_d").value == 2
    np.testing.assert_allclose(
        at.data_editor[0].value.to_numpy(), [[2, 0], [1, 0], [0, 1], [-1, 0]]
    )
    assert list(at.table[0].value.iloc[:, 0]) == ["2.000", "0.000", "-2.000"]
    p = np.exp([2.0, 0.0, -2.0]) / np.exp([2.0, 0.0, -2.0]).sum()
    assert list(_weights(at).iloc[:3, 0]) == [f"{x:.3f}" for x in p]
    out = at.table[2].value
    assert out.iloc[0, 0] == f"{p @ [1, 2, 3]:.3f}"  # dot row: Σ α_j v_j
    assert (at.query_params["tq"], at.query_params["tk"], at.query_params["tv"]) == (
        "2,0",
        "1,0;0,1;-1,0",
        "1;2;3",
    )


def test_size_controls_and_reset(tiny_zoo):
    at = _run(part="score")
    at.select_slider(key="attention_toy_n").set_value(5).run()
    assert not at.exception and at.query_params["tk"].endswith(";0,0,0,0")
    assert list(at.data_editor[0].value.index)[-1] == "k · because"
    at.select_slider(key="attention_toy_d").set_value(2).run()
    assert at.query_params["tq"] == "1,1" and len(at.table[0].value) == 5
    at.button(key="attention_toy_reset").click().run()
    assert (
        at.query_params["tk"] == DEFAULT_TK and at.select_slider(key="attention_toy_n").value == 4
    )


@pytest.mark.parametrize(
    "tk",
    [
        "<img src=x onerror=alert(1)>",
        "1,2;3",  # ragged
        "nan,1,1,1;1,1,1,1",
        "1e999,0,0,0;0,1,0,0",
        "1,1,1,1",  # one key only
        ";".join(["1,1,1,1"] * 7),  # too many keys
        "",
        "a" * 3000,
    ],
)
def test_garbage_vectors_fall_back_to_the_example(tiny_zoo, tk):
    at = _run(part="score", tk=tk)
    assert any("`tk`" in w.value for w in at.warning)
    assert at.query_params["tk"] == DEFAULT_TK and len(at.data_editor) == 2


def test_vectors_that_do_not_fit_or_are_too_big(tiny_zoo):
    at = _run(part="score", tq="1,2")  # d = 2 against the example's keys of length 4
    assert "do not fit together" in " ".join(w.value for w in at.warning)
    assert at.query_params["tq"] == "1,1,0.5,-1"
    at = _run(part="score", tq="1,0", tk="50,0;0,-99", tv="1;2")
    assert "limited" in " ".join(w.value for w in at.warning)
    assert at.query_params["tk"] == "10,0;0,-10"


def test_what_attention_buys_lists_every_model_and_the_curves(tiny_zoo):
    at = _run(part="buys")
    df = at.table[0].value
    assert list(df["model"]) == [lexicon.name(m, "en") for m in zoo.TRANSLATION_MODELS]
    fig = _figs(at)[0]
    shown = ("gru_plain_256", "gru_attention", "cnn_s2s", "transformer")
    assert [tr["name"] for tr in fig["data"]] == [lexicon.name(m, "en") for m in shown]
    # one vocabulary: each model's colour is the lexicon's
    assert [tr["line"]["color"] for tr in fig["data"]] == [lexicon.look(m).color for m in shown]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_what_attention_buys_explains_the_cnn_from_the_manifest(tiny_zoo, lang):
    at = _run(part="buys", lang=lang)
    text = main_text(at)
    models = tiny_zoo["models"]
    cnn = models["cnn_s2s"]
    first, last = (
        cnn["metrics"]["by_length"][corpus.BUCKETS[0]],
        cnn["metrics"]["by_length"][corpus.BUCKETS[-1]],
    )
    assert f"{first['exact']:.0%}" in text and f"{last['exact']:.0%}" in text
    assert f"{cnn['steps']:,}" in text
    for name in ("gru_attention", "transformer"):
        assert f"{models[name]['steps']:,}" in text
    assert f"{analysis.loss_fall(cnn['curve']):.0%}" in text
    cfg = zoo.build_model("cnn_seq2seq", cnn["config"]).cfg  # the tiny zoo's: 2 and 1 layers
    enc, dec = (1 + n * (cfg.kernel - 1) for n in (cfg.enc_layers, cfg.dec_layers))
    said = {
        "en": (f"only {enc} neighbouring", f"last {dec} words"),
        "zh": (f"相邻的 {enc} 个词", f"刚写下的 {dec} 个词"),
    }
    assert all(s in text for s in said[lang]), said[lang]
    assert "stays high" not in text


def test_missing_zoo_names_the_file(no_manifest):
    st.cache_resource.clear()
    st.cache_data.clear()
    at = _run(lang="zh")
    assert any("manifest.json" in e.value for e in at.error)
    st.cache_data.clear()


def test_out_of_range_word_or_step_in_a_link_gets_a_notice(tiny_zoo):
    at = _run(part="self", w="99")
    assert any("`99`" in w.value for w in at.warning)
    assert at.selectbox(key="attention_word").value == 7  # the default, "it"
    assert at.query_params["w"] == "7"
    at = _run(step="99")
    assert any("`99`" in w.value for w in at.warning)
    assert at.select_slider(key="attention_step").value == 1


def test_a_word_chosen_for_a_longer_sentence_moves_quietly_to_the_last(tiny_zoo):
    at = _run(part="self")
    n = len(at.selectbox(key="attention_word").options)
    at.selectbox(key="attention_word").set_value(n).run()
    assert at.query_params["w"] == str(n)
    at.text_input(key="attention_s").set_value("the cat drank").run()
    notices = [w for w in at.warning if w.icon != ":material/balance:"]  # not "mixed"
    assert not at.exception and not notices
    assert at.selectbox(key="attention_word").value == 4  # "<eos>", the last of four
    assert at.query_params["w"] == "4"
