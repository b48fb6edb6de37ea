"""The RNN-gradients page through AppTest: one part at a time (chosen in the URL), controls
change what it shows, deep links restore state, bad parameters and bad sentences give a
message, a missing zoo leaves the rest working.

A small fake zoo (untrained models of the shipped families, a tiny vocabulary, a manifest
with curves) stands in for the pretrained weights, so these tests do not depend on training.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import streamlit as st

from core import probes_data, zoo
from core.i18n import translate
from tests.conftest import (
    Sent,
    as_a_phone,
    fragment_of,
    fragment_rerun,
    make_app,
    record_sent,
    what,
)

PAGE = "pages/rnn_gradients.py"
DECAY = "weight scale"  # words of part 2's decay chart title (trained or untrained gates)
PROBES = ("probe_rnn", "probe_lstm", "probe_gru")
ENCODERS = ("gru_plain_32", "gru_plain_128", "gru_plain_256", "rnn_plain_256")
PARTS = ("fade", "fresh", "trained", "learn", "words", "explode")
# the charts each part draws, by words of their titles (part 2's eigenvalues wait in "for
# the curious", a chart of their own)
CHARTS = {
    "fade": ("How much each word can move C", "Influence on C by distance"),
    "fresh": (DECAY, "Eigenvalues of W_hh"),
    "trained": ("Trained probes",),
    "learn": ("Training of the three probes", "accuracy against distance"),
    "words": ("Influence of each word",),
    "explode": ("One gradient step",),
}
PRESENTER_CHARTS = CHARTS
HEADERS = {
    "fade": "1 · In a plain RNN, early words fade",
    "fresh": "2 · The signal fades",
    "trained": "3 · Inside trained models",
    "learn": "4 · What it does to learning",
    "words": "5 · Which words of your sentence",
    "explode": "6 · Exploding gradients",
}
# one valid value of every parameter of the page (a deep link may carry them all)
ALL_PARAMS = {
    "rho": "0.6",
    "q": "input",
    "T": "30",
    "drive": "1.0",
    "seed": "5",
    "gates": "untrained",
    "curve": "loss",
    "model": "gru_plain_32",
    "lr": "0.03",
    "text": "i love you",
}
TEXT = (
    "the trees are full of autumn cicadas because the bread that a tiger ate is sour "
    "every day so you see their shade"
)


@pytest.fixture
def fake_zoo(monkeypatch):
    import torch

    import core.zoo as zoo
    from core.analysis.influence import WORDS_CANDIDATES
    from core.vocab import Vocab

    src = Vocab.build([TEXT.split(), "i love you".split(), *(c.split() for c in WORDS_CANDIDATES)])
    tgt = Vocab.build([["我", "爱", "你"]])
    configs = {
        n: {"kind": n.split("_")[1], "n_symbols": probes_data.N_SYMBOLS, "n_keys": 10}
        for n in PROBES
    }
    configs.update(
        {
            n: {"src_vocab": len(src), "tgt_vocab": len(tgt), "emb_dim": 16, "hidden": h}
            for n, h in zip(ENCODERS, (32, 48, 64, 64), strict=True)
        }
    )
    configs["rnn_plain_256"]["cell"] = "rnn"  # the plain tanh RNN
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
    manifest = {"models": models, "corpus": {"seed": 1234}}

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


def xs(trace: dict) -> list[float]:
    """A trace's x values: its array, or the ones its ``x0``/``dx`` stand for (a decay line
    over distances 0, 1, 2, … is sent without an x array)."""
    if "x" in trace:
        return arr(trace["x"])
    n = len(arr(trace["y"]))
    return [trace.get("x0", 0) + trace.get("dx", 1) * i for i in range(n)]


def chart_titles(at) -> list[str]:
    return [c["layout"]["title"]["text"] for c in charts(at)]


def chart(at, words: str) -> dict:
    return next(c for c in charts(at) if words in c["layout"]["title"]["text"])


def headers(at) -> list[str]:
    return [h.value for h in at.header]


def shows_only(at, part: str, *, presenter: bool = False) -> None:
    """The page shows ``part`` and no other: its header, its charts, nothing else's."""
    expected = (PRESENTER_CHARTS if presenter else CHARTS)[part]
    titles = chart_titles(at)
    assert len(titles) == len(expected), titles
    for words in expected:
        assert any(words in title for title in titles), (words, titles)
    shown = [name for name, h in HEADERS.items() if any(x.startswith(h) for x in headers(at))]
    assert shown == [part], headers(at)
    assert at.segmented_control(key="rnn_gradients_part").value == part


def takeaways(at) -> list[str]:
    return [s.value for s in at.success]


def tries(at) -> list[str]:
    return [i.value for i in at.info if "Try this" in i.value or "试一试" in i.value]


@pytest.mark.parametrize("present", ["0", "1"])
@pytest.mark.parametrize("part", PARTS)
def test_each_part_renders_alone_as_a_slide(fake_zoo, part, present):
    at = make_app(PAGE, lang="en", present=present, part=part).run(timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert not at.warning, [w.value for w in at.warning]
    shows_only(at, part, presenter=present == "1")
    assert at.query_params["part"] == part
    # one takeaway per part, "try this" where a control invites it, the details folded
    assert len(takeaways(at)) == 1, takeaways(at)
    assert len(tries(at)) == (0 if part in ("trained", "learn") else 1), tries(at)
    assert any(e.label.startswith("For the curious") for e in at.main.expander)


def test_no_code_identifiers_or_commands_in_student_text(fake_zoo):
    import re

    bad = re.compile(r"probe_rnn|probe_lstm|probe_gru|gru_plain_\d+|python -m|\.py\b|manifest")
    for lang in ("en", "zh"):
        for part in PARTS:
            at = make_app(PAGE, lang=lang, part=part).run(timeout=300)
            texts = [
                *(m.value for m in at.markdown),
                *(c.value for c in at.caption),
                *takeaways(at),
                *(i.value for i in at.info),
                *chart_titles(at),
            ]
            for c in charts(at):
                texts += [tr.get("name") or "" for tr in c["data"]]
            hits = [x for x in texts if bad.search(x)]
            assert not hits, (lang, part, hits)


def test_default_part_is_the_first(fake_zoo):
    at = make_app(PAGE, lang="en").run(timeout=300)
    assert not at.exception and not at.warning, [w.value for w in at.warning]
    shows_only(at, "fade")
    assert at.query_params["part"] == "fade"
    from core import lexicon

    words = chart(at, "How much each word can move C")
    assert [tr["name"] for tr in words["data"]] == ["Plain RNN, C = 256", "GRU, C = 256"]
    assert [tr["line"]["color"] for tr in words["data"]] == [
        lexicon.look(m).color for m in ("rnn_plain_256", "gru_plain_256")
    ]
    assert chart(at, "Influence on C by distance")["layout"]["yaxis"]["type"] == "log"
    # the one part that says it: the plain RNN fades, the trained GRU does not
    assert "The trained GRU does not fade" in takeaways(at)[0]
    # no spectral quantities on the first screen: they wait in "for the curious"
    first = " ".join([*(c.value for c in at.caption), *takeaways(at), at.markdown[0].value])
    assert not any(w in first for w in ("spectral", "eigen", "σ₁", "ρ"))


def test_part_2_decay_and_its_eigenvalues_for_the_curious(fake_zoo):
    at = make_app(PAGE, lang="en", part="fresh").run(timeout=300)
    assert not at.exception and not at.warning, [w.value for w in at.warning]
    shows_only(at, "fresh")
    decay = chart(at, DECAY)
    assert decay["layout"]["yaxis"]["type"] == "log"
    # the lexicon's names and colours: the same cell looks the same on every chart
    from core import lexicon

    assert [tr["name"] for tr in decay["data"]][:3] == ["Plain RNN", "LSTM", "GRU"]
    assert [tr["line"]["color"] for tr in decay["data"][:3]] == [
        lexicon.look(p).color for p in PROBES
    ]
    eig = chart(at, "Eigenvalues of W_hh")["data"]
    assert [tr["name"] for tr in eig] == ["unit circle |λ| = 1", "|λ| = ρ = 0.85", "eigenvalues λ"]
    assert len(arr(eig[-1]["x"])) == 64
    assert any("part 3" in c.value for c in at.caption)
    assert not any("σ₁" in c.value for c in at.caption)  # the bound waits for the curious
    curious = next(e for e in at.main.expander if e.label.startswith("For the curious"))
    assert any("σ₁" in m.value for m in curious.markdown)
    assert "vanishing gradients" in " ".join(m.value for m in at.markdown)
    assert "the gradient vanishes" in takeaways(at)[0]


def test_the_trained_words_learn_and_explode_parts_show_their_evidence(fake_zoo):
    at = make_app(PAGE, lang="en", part="trained").run(timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    trained = chart(at, "Trained probes")
    assert trained["layout"]["yaxis"]["type"] == "log"
    assert [tr["name"] for tr in trained["data"]] == ["Plain RNN", "LSTM", "GRU"]
    at = make_app(PAGE, lang="en", part="words").run(timeout=300)
    words = chart(at, "Influence of each word")
    from core.analysis.influence import WORDS_CANDIDATES

    assert at.text_area(key="rnng_text").value in WORDS_CANDIDATES
    assert len(words["data"][0]["x"]) == len(at.text_area(key="rnng_text").value.split()) + 1
    assert words["data"][0]["x"][-1] == "⟨eos⟩"
    assert "Plain RNN, C = 256" in "\n".join(c.value for c in at.caption)
    at = make_app(PAGE, lang="en", part="learn").run(timeout=300)
    acc = chart(at, "accuracy against distance")
    assert [tr["name"] for tr in acc["data"]] == ["Plain RNN", "LSTM", "GRU"]
    at = make_app(PAGE, lang="en", part="explode").run(timeout=300)
    step = chart(at, "One gradient step")
    assert [tr["name"] for tr in step["data"]] == [
        "after one unclipped step",
        "after one clipped step",
    ]
    assert "held-out" in step["layout"]["yaxis"]["title"]["text"]
    assert "learning rate" in "\n".join(c.value for c in at.caption)


def test_part_selector_switches_the_part_and_writes_the_url(fake_zoo):
    at = make_app(PAGE, lang="en").run(timeout=300)
    for part in ("explode", "trained", "words", "learn", "fresh", "fade"):
        at.segmented_control(key="rnn_gradients_part").set_value(part).run(timeout=300)
        assert not at.exception, [e.value for e in at.exception]
        assert at.query_params["part"] == part
        shows_only(at, part)


@pytest.mark.parametrize("value", ["bogus", "<b>x</b>", ""])
def test_invalid_part_falls_back_to_the_first_with_a_notice(fake_zoo, value):
    at = make_app(PAGE, lang="en", part=value).run(timeout=300)
    assert not at.exception
    assert any("`part`" in w.value for w in at.warning), [w.value for w in at.warning]
    shows_only(at, "fade")
    assert at.query_params["part"] == "fade"


def test_link_with_another_parts_parameter_shows_the_default_part(fake_zoo):
    at = make_app(PAGE, lang="en", lr="0.1").run(timeout=300)
    assert not at.exception and not at.warning, [w.value for w in at.warning]
    shows_only(at, "fade")
    at.segmented_control(key="rnn_gradients_part").set_value("explode").run(timeout=300)
    assert at.select_slider(key="rnng_lr").value == 0.1


def test_radius_slider_changes_curves_bound_and_url(fake_zoo):
    at = make_app(PAGE, lang="en", part="fresh").run(timeout=300)
    before = chart(at, DECAY)
    at.slider(key="rnng_rho").set_value(1.4).run(timeout=300)
    assert not at.exception
    assert at.query_params["rho"] == "1.4"
    after = chart(at, DECAY)
    assert "weight scale 1.4" in after["layout"]["title"]["text"]
    bound = next(tr for tr in after["data"] if tr["name"].startswith("guide:"))
    assert arr(bound["y"])[10] == pytest.approx(1.4**10)
    eig = chart(at, "Eigenvalues of W_hh")["data"]
    ring = next(tr for tr in eig if tr["name"] == "|λ| = ρ = 1.4")
    assert max(arr(ring["x"])) == pytest.approx(1.4)
    ev = next(tr for tr in eig if tr["name"] == "eigenvalues λ")
    assert max(arr(ev["customdata"])) == pytest.approx(1.4)  # spectral radius ρ
    assert arr(before["data"][0]["y"]) != arr(after["data"][0]["y"])
    assert any("1 or more" in s for s in takeaways(at))


def test_quantity_switch_changes_axis_in_parts_2_and_3(fake_zoo):
    at = make_app(PAGE, lang="en", part="fresh").run(timeout=300)
    at.segmented_control(key="rnng_q").set_value("input").run(timeout=300)
    assert at.query_params["q"] == "input"
    axis = chart(at, DECAY)["layout"]["yaxis"]["title"]["text"]
    assert "at the word" in axis.replace("<br>", " ")
    at.segmented_control(key="rnn_gradients_part").set_value("trained").run(timeout=300)
    assert at.segmented_control(key="rnng_q").value == "input"
    assert "loss" in chart(at, "Trained probes")["layout"]["yaxis"]["title"]["text"]
    at.segmented_control(key="rnng_q").set_value("state").run(timeout=300)
    assert at.query_params["q"] == "state"
    assert "∂h_T/∂h_t" in chart(at, "Trained probes")["layout"]["yaxis"]["title"]["text"]


@pytest.mark.parametrize("part", PARTS)
def test_deep_link_restores_state(fake_zoo, part):
    at = make_app(PAGE, lang="zh", part=part, **ALL_PARAMS).run(timeout=300)
    assert not at.exception and not at.warning, [w.value for w in at.warning]
    assert at.query_params["part"] == part
    for name, value in ALL_PARAMS.items():  # the other parts' values stay in the link
        assert at.query_params[name] == value, name
    if part == "fresh":
        assert at.slider(key="rnng_rho").value == pytest.approx(0.6)
        assert at.slider(key="rnng_T").value == 30
        assert at.segmented_control(key="rnng_q").value == "input"
        assert at.segmented_control(key="rnng_drive").value == "1.0"
        assert at.number_input(key="rnng_seed").value == 5
        assert at.segmented_control(key="rnng_gates").value == "untrained"
        decay = chart(at, "未训练的单元")
        assert xs(decay["data"][0]) == list(range(30))
    elif part == "trained":
        assert at.segmented_control(key="rnng_q").value == "input"
        assert chart(at, "训练好的探针")["layout"]["yaxis"]["title"]["text"] == translate(
            "rnn_gradients.q.input.axis_trained", "zh"
        )
    elif part == "learn":
        assert at.segmented_control(key="rnng_curve").value == "loss"
        assert chart(at, "训练过程")["layout"]["yaxis"]["title"]["text"] == translate(
            "rnn_gradients.learn.curve.loss.axis", "zh"
        )
    elif part == "fade":
        assert len(chart_titles(at)) == 2 and "普通 RNN（C = 256 维）" in at.caption[0].value
    elif part == "words":
        assert at.segmented_control(key="rnng_model").value == "gru_plain_32"
        words = chart(at, "每个词对最终状态")
        assert "GRU（C = 32 维）" in words["layout"]["title"]["text"]
        assert len(words["data"][0]["x"]) == 4
    else:
        assert at.select_slider(key="rnng_lr").value == 0.03


@pytest.mark.parametrize(
    ("part", "name", "value"),
    [
        ("fresh", "rho", "7"),
        ("fresh", "rho", "nan"),
        ("fresh", "q", "grad"),
        ("trained", "q", "grad"),
        ("fresh", "T", "-3"),
        ("fresh", "drive", "9"),
        ("explode", "lr", "x"),
        ("words", "model", "gru_attention"),
        ("learn", "curve", "<b>"),
    ],
)
def test_bad_params_fall_back_with_a_notice(fake_zoo, part, name, value):
    at = make_app(PAGE, lang="en", part=part, **{name: value}).run(timeout=300)
    assert not at.exception
    assert any(value in w.value for w in at.warning), [w.value for w in at.warning]


def test_bad_sentences_get_a_message_and_the_page_keeps_working(fake_zoo):
    at = make_app(PAGE, lang="en", part="words", text="the zebra ate <script>").run(timeout=300)
    assert not at.exception
    msg = next(w.value for w in at.warning if "zebra" in w.value)
    assert "`zebra`" in msg and "synthetic corpus" in msg
    assert "Influence of each word" not in " ".join(chart_titles(at))
    at.segmented_control(key="rnn_gradients_part").set_value("fresh").run(timeout=300)
    assert not at.exception
    shows_only(at, "fresh")  # the other parts still work
    at.segmented_control(key="rnn_gradients_part").set_value("words").run(timeout=300)
    at.text_area(key="rnng_text").input("   ").run(timeout=300)
    assert any("Type an English sentence" in w.value for w in at.warning)
    at.text_area(key="rnng_text").input(" ".join(["you"] * 70)).run(timeout=300)
    assert any("70 words" in w.value for w in at.warning)
    at.text_area(key="rnng_text").input("i love you 😀").run(timeout=300)
    assert not at.exception
    # the tokenizer drops symbols it cannot read: the three known words are analysed
    assert len(arr(chart(at, "Influence of each word")["data"][0]["x"])) == 4


def test_encoder_and_learning_rate_change_what_is_shown(fake_zoo):
    at = make_app(PAGE, lang="en", part="words").run(timeout=300)
    strip = arr(chart(at, "Influence of each word")["data"][0]["customdata"][0])
    at.segmented_control(key="rnng_model").set_value("gru_plain_32").run(timeout=300)
    assert at.query_params["model"] == "gru_plain_32"
    assert arr(chart(at, "Influence of each word")["data"][0]["customdata"][0]) != strip
    at = make_app(PAGE, lang="en", part="explode").run(timeout=300)
    caption = [c.value for c in at.caption]
    at.select_slider(key="rnng_lr").set_value(0.3).run(timeout=300)
    assert at.query_params["lr"] == "0.3"
    assert [c.value for c in at.caption] != caption
    line = next(s for s in chart(at, "One gradient step")["layout"]["shapes"] if s["x0"] == 0.3)
    assert line["type"] == "line"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_missing_zoo_shows_the_error_and_keeps_the_fresh_part(no_zoo, lang):
    word = {"en": "Rebuild", "zh": "重新生成"}[lang]
    for part in PARTS:
        at = make_app(PAGE, lang=lang, part=part).run(timeout=300)
        assert not at.exception, (part, [e.value for e in at.exception])
        needs_zoo = part != "fresh"
        assert needs_zoo == any(word in e.value for e in at.error), (
            part,
            [e.value for e in at.error],
        )
        assert len(chart_titles(at)) == (2 if part == "fresh" else 0), part


def test_presenter_mode_stacks_decay_and_eigenvalues_as_two_charts(fake_zoo):
    at = make_app(PAGE, lang="en", present="1", part="fresh").run(timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    titles = chart_titles(at)
    assert len(titles) == 2, titles
    assert DECAY in titles[0]  # the decay first: it is the slide's picture
    assert chart(at, "Eigenvalues of W_hh")["layout"]["yaxis"]["scaleanchor"] == "x"
    assert "yaxis2" not in chart(at, DECAY)["layout"]


# --- part 1: the radius and the secondary controls (a click reruns what it changes)

LINK_1 = {"part": "fresh", "rho": "0.6", "T": "30", "drive": "1.0", "seed": "5", "q": "input"}


def part_1_state(at) -> dict:
    """What part 1 shows: its controls, its figures (JSON), its caption and takeaway."""
    return {
        "rho": at.slider(key="rnng_rho").value,
        "T": at.slider(key="rnng_T").value,
        "drive": at.segmented_control(key="rnng_drive").value,
        "seed": at.number_input(key="rnng_seed").value,
        "q": at.segmented_control(key="rnng_q").value,
        "charts": charts(at),
        "caption": [c.value for c in at.caption],
        "takeaway": takeaways(at),
    }


@pytest.mark.parametrize("present", ["0", "1"])
def test_radius_change_keeps_the_secondary_controls_and_the_chart_follows(fake_zoo, present):
    at = make_app(PAGE, lang="en", present=present, **LINK_1).run(timeout=300)
    assert not at.exception and not at.warning, [w.value for w in at.warning]
    before = arr(chart(at, DECAY)["data"][0]["y"])
    at.slider(key="rnng_rho").set_value(1.2).run(timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    assert at.slider(key="rnng_T").value == 30
    assert at.segmented_control(key="rnng_drive").value == "1.0"
    assert at.number_input(key="rnng_seed").value == 5
    assert at.segmented_control(key="rnng_q").value == "input"
    assert {k: at.query_params[k] for k in LINK_1} == {**LINK_1, "rho": "1.2"}
    decay = chart(at, DECAY)
    assert "weight scale 1.2" in decay["layout"]["title"]["text"]
    assert "30 steps" in decay["layout"]["title"]["text"]
    assert "at the word" in decay["layout"]["yaxis"]["title"]["text"].replace("<br>", " ")
    bound = next(tr for tr in decay["data"] if tr["name"].startswith("guide:"))
    assert xs(bound) == list(range(30))
    assert arr(bound["y"]) == pytest.approx([1.2**k for k in range(30)])
    after = arr(decay["data"][0]["y"])
    assert len(after) == 30 and after != before
    ring = next(tr for c in charts(at) for tr in c["data"] if tr["name"] == "|λ| = ρ = 1.2")
    assert max(arr(ring["x"])) == pytest.approx(1.2)
    assert "29 steps back" in "\n".join(c.value for c in at.caption)
    assert any("Weight scale 1.2, 1 or more" in s for s in takeaways(at))
    linked = make_app(PAGE, lang="en", present=present, **{**LINK_1, "rho": "1.2"})
    linked = linked.run(timeout=300)
    assert charts(linked) == charts(at)
    other = make_app(PAGE, lang="en", present=present, **{**LINK_1, "rho": "1.2", "drive": "0.1"})
    assert arr(chart(other.run(timeout=300), DECAY)["data"][0]["y"]) != after


def test_secondary_controls_keep_the_radius(fake_zoo):
    at = make_app(PAGE, lang="en", **LINK_1).run(timeout=300)
    at.slider(key="rnng_rho").set_value(1.3).run(timeout=300)
    at.slider(key="rnng_T").set_value(80).run(timeout=300)
    at.segmented_control(key="rnng_drive").set_value("0.3").run(timeout=300)
    at.number_input(key="rnng_seed").set_value(9).run(timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    assert at.slider(key="rnng_rho").value == pytest.approx(1.3)
    assert at.query_params["rho"] == "1.3"
    assert (at.query_params["T"], at.query_params["drive"], at.query_params["seed"]) == (
        "80",
        "0.3",
        "9",
    )
    decay = chart(at, DECAY)
    assert "weight scale 1.3" in decay["layout"]["title"]["text"]
    assert xs(decay["data"][0]) == list(range(80))


@pytest.mark.parametrize("present", ["0", "1"])
def test_part_1_parameters_round_trip_through_the_url(fake_zoo, present):
    at = make_app(PAGE, lang="zh", present=present, part="fresh").run(timeout=300)
    at.slider(key="rnng_rho").set_value(1.15).run(timeout=300)
    at.slider(key="rnng_T").set_value(45).run(timeout=300)
    at.segmented_control(key="rnng_drive").set_value("0.3").run(timeout=300)
    at.number_input(key="rnng_seed").set_value(7).run(timeout=300)
    at.segmented_control(key="rnng_q").set_value("input").run(timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    link = dict(at.query_params)
    assert {k: link[k] for k in ("rho", "T", "drive", "seed", "q")} == {
        "rho": "1.15",
        "T": "45",
        "drive": "0.3",
        "seed": "7",
        "q": "input",
    }
    shown = part_1_state(at)
    again = make_app(PAGE, **link).run(timeout=300)
    assert not again.exception and not again.warning, [w.value for w in again.warning]
    assert part_1_state(again) == shown
    assert dict(again.query_params) == link


@pytest.mark.parametrize("present", ["0", "1"])
def test_the_chart_comes_first_then_the_radius_then_the_secondary_controls(fake_zoo, present):
    """The slide order: the picture, its one main knob (the radius, the first slider), the
    takeaway, then length, drive and seed (folded into "More controls" on the projector)."""
    at = make_app(PAGE, lang="en", present=present, part="fresh").run(timeout=300)
    assert [s.key for s in at.main.slider] == ["rnng_rho", "rnng_T"]
    keys = ("rnng_rho", "rnng_T", "rnng_drive", "rnng_seed")
    order = [
        "chart" if e.type == "plotly_chart" else getattr(e, "key", None) or e.type
        for e in at.main
        if getattr(e, "key", None) in keys or e.type in ("plotly_chart", "success")
    ]
    assert order == ["chart", "rnng_rho", "success", "chart", *keys[1:]], order  # eig: curious
    expanders = [e.label for e in at.main.expander]
    assert ("More controls" in expanders) == (present == "1")


def test_on_a_phone_the_decay_comes_first_and_full_width(fake_zoo, monkeypatch):
    """A phone (``ui.on_a_phone``: its User-Agent, which AppTest cannot send) gets part 2's
    decay as the slide's picture and the eigenvalues, folded, after it; a presenter-mode
    link (the projector's QR code) opens the same phone layout there."""

    as_a_phone(monkeypatch)
    at = make_app(PAGE, lang="en", part="fresh").run(timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    assert len(charts(at)) == 2
    # on a phone the titles stand above their charts, where they wrap: the decay's first
    above = [m.value for m in at.main.markdown]
    first = next(i for i, m in enumerate(above) if DECAY in m)
    assert first < next(i for i, m in enumerate(above) if "Eigenvalues of" in m)
    at = make_app(PAGE, lang="en", present="1", part="fresh").run(timeout=300)
    assert at.query_params["present"] == "0" and len(charts(at)) == 2


# --- what a click resends: a click on ρ reruns only the radius section (its slider, the
# figure, the caption, the takeaway); the secondary controls rerun the section around it.
# The fragment tests record what a run sends to the browser (every delta carries the id of
# the fragment that drew it) and replay a click as the browser does: a rerun of the widget's
# fragment only, which AppTest does not offer by itself.
SECONDARY = ("rnng_T", "rnng_drive", "rnng_seed")


KEYS = ("rnng_rho", "rnng_q", *SECONDARY, "rnng_fresh", "rnng_decay", "rnng_eig")


@pytest.fixture
def sent(monkeypatch) -> list[Sent]:
    """Every element the runs of the test send, in order (cleared by the test as needed)."""
    return record_sent(monkeypatch, KEYS)


@pytest.mark.parametrize("present", ["0", "1"])
def test_a_radius_click_reruns_only_its_slider_figure_caption_and_takeaway(
    fake_zoo,  # noqa: F811
    sent,
    present,
):
    link = {"part": "fresh", "rho": "0.6", "T": "30", "drive": "1.0", "seed": "5"}
    at = make_app(PAGE, lang="en", present=present, **link).run(timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    inner = fragment_of(sent, "rnng_rho")
    outer = fragment_of(sent, "rnng_T")
    assert inner and outer and inner != outer == fragment_of(sent, "rnng_q")
    assert {fragment_of(sent, k) for k in SECONDARY} == {outer}
    # the slide's order: the radius section (chart, radius) before the secondary controls
    rho = next(s for s in sent if s.key == "rnng_rho")
    section = next(s for s in sent if s.key == "rnng_T")
    assert rho.path < section.path

    sent.clear()
    with fragment_rerun(inner):
        at.slider(key="rnng_rho").set_value(1.2).run(timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    chart = "rnng_decay"
    # sent in the order the code runs (the radius first: the chart needs its value) ...
    sent_now = what(sent)
    assert sent_now[:4] == ["rnng_rho", chart, "markdown", "alert"], sent_now
    assert "rnng_eig" in sent_now  # the eigenvalues (for the curious) follow the radius
    # ... and placed in the slide's order: the chart above the radius
    place = {s.key: s.path for s in sent if s.key}
    assert place[chart] < place["rnng_rho"]
    assert {s.fragment for s in sent} == {inner}
    texts = [s.body for s in sent if s.type in ("markdown", "alert")]
    assert "29 steps back" in texts[0] and "Weight scale 1.2, 1 or more" in texts[1]
    # the secondary controls were not redrawn and kept their values
    for key, value in (("rnng_T", 30), ("rnng_drive", "1.0"), ("rnng_seed", 5)):
        assert at.session_state[key] == value, key
    assert {k: at.query_params[k] for k in link} == {**link, "rho": "1.2"}
    title = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["title"]["text"]
    assert "weight scale 1.2" in title and "30 steps" in title


def test_a_secondary_control_reruns_the_radius_section_with_it(fake_zoo, sent):  # noqa: F811
    at = make_app(PAGE, lang="en", part="fresh", rho="1.3").run(timeout=300)
    outer = fragment_of(sent, "rnng_T")
    sent.clear()
    with fragment_rerun(outer):
        at.slider(key="rnng_T").set_value(40).run(timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    shown = what(sent)
    # the part reruns (its one fragment: the quantity and the secondary controls), the radius
    # section inside it: on screen the chart, then the radius, then the secondary controls
    place = {s.key: s.path for s in sent if s.key}
    assert place["rnng_decay"] < place["rnng_rho"] < place["rnng_T"]
    assert all(k in shown for k in ("rnng_q", *SECONDARY))
    assert at.session_state["rnng_rho"] == pytest.approx(1.3)
    assert at.query_params["rho"] == "1.3" and at.query_params["T"] == "40"
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert "weight scale 1.3" in spec["layout"]["title"]["text"]
    assert len(arr(spec["data"][0]["y"])) == 40


def test_one_part_only_says_the_trained_gru_does_not_fade():
    """The comparison of part 1 is the one place that says it; the bottleneck's gradient part
    and part 5 say something of their own (in both languages)."""
    import re

    pages = ("rnn_gradients", "bottleneck")
    said = {
        "en": re.compile(r"GRU (does not|doesn't) (fade|show vanishing)|gates keep the gradient"),
        "zh": re.compile(r"GRU (没有这种衰减|并没有出现梯度消失)|梯度本身并不衰减"),
    }
    for lang, pattern in said.items():
        keys = []
        for page in pages:
            with open(f"assets/i18n/pages/{page}.{lang}.json", encoding="utf-8") as f:
                keys += [k for k, v in json.load(f).items() if pattern.search(v)]
        assert keys == ["rnn_gradients.fade.takeaway"], (lang, keys)


@pytest.mark.skipif(not zoo.MANIFEST_PATH.is_file(), reason="the shipped zoo is not built")
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("lang", ["en"])
def test_part_1_states_the_numbers_of_the_shipped_models(lang):
    """With the shipped weights, part 1's captions state what the analysis computes, and the
    claims the zoo tests assert hold on what is shown."""
    from core import corpus
    from core.analysis import influence

    st.cache_resource.clear()
    src = zoo.load_vocabs()[0]
    names = ("rnn_plain_256", "gru_plain_256")
    models = {n: zoo.load_model(n) for n in names}
    cmp = influence.compare_fade(models, src)
    pairs = corpus.shared_splits(zoo.load_manifest()["corpus"]["seed"]).test
    rows = [src.encode(p.src, eos=True) for p in influence.long_sentences(pairs, 20, 40)]
    ev = {n: influence.fade_evidence(m, rows) for n, m in models.items()}
    assert ev["rnn_plain_256"].median_fade >= 3.0 and ev["gru_plain_256"].median_fade <= 1.5
    assert cmp.curves["rnn_plain_256"]["verdict"] == "fade"
    assert cmp.curves["gru_plain_256"]["verdict"] == "even"

    at = make_app(PAGE, lang=lang, part="fade").run(timeout=1500)
    assert not at.exception, [e.value for e in at.exception]
    captions = "\n".join(c.value for c in at.caption)
    rnn, gru = cmp.curves["rnn_plain_256"], cmp.curves["gru_plain_256"]
    for number in (rnn["ratio"], gru["ratio"]):
        assert f"{number:.2f}" in captions, (number, captions)
    for name in names:
        assert f"{ev[name].median_fade:.1f} times" in captions
    assert f"at most {float(ev['rnn_plain_256'].curve[30:].max()):.2f}" in captions
    # the lengths where the fade holds: shorter sentences fade less, and the caption says so
    n, lo, hi = influence.FADE_MIDDLE
    mid = [
        src.encode(p.src, eos=True) for p in influence.long_sentences(pairs, n, lo, max_words=hi)
    ]
    middle = influence.fade_evidence(models["rnn_plain_256"], mid)
    assert middle.median_fade < ev["rnn_plain_256"].median_fade
    assert f"of {lo}–{hi} words the plain RNN's factor is {middle.median_fade:.1f}" in captions
    words = chart(at, "How much each word can move C")
    assert [len(arr(tr["y"])) for tr in words["data"]] == [len(cmp.text.split())] * 2
    st.cache_resource.clear()


def test_the_warm_up_fills_the_cache_the_radius_slider_reads(fake_zoo, monkeypatch):
    """serve.warmup computes part 2 at every radius the slider offers (the other controls at
    their defaults): the part then draws any of them without building a cell."""
    from core.analysis import rnn_gradients as analysis
    from lessons.rnn_gradients import data

    assert data.radii()[:3] == [0.5, 0.55, 0.6] and data.radii()[-1] == 1.5
    assert data.RADIUS_DEFAULT in data.radii() and len(data.radii()) == 21
    assert data.warm_fresh() == 21
    built = []
    real = analysis.fresh_cell
    monkeypatch.setattr(analysis, "fresh_cell", lambda *a, **k: built.append(a) or real(*a, **k))
    for rho in ("0.9", "1.35", "0.55"):
        at = make_app(PAGE, lang="en", part="fresh", rho=rho).run(timeout=300)
        title = str(chart(at, DECAY))
        assert not at.exception and f"weight scale {float(rho)}" in title
    assert built == []
    at = make_app(PAGE, lang="en", part="fresh", rho="1.1", T="61").run(timeout=300)
    assert not at.exception and built  # another length: computed on the click


# --- part 2 tells the page's story; parts 3 and 4 read the same distances


def _decay_lines(at) -> dict[str, list[float]]:
    return {tr["name"]: arr(tr["y"]) for tr in chart(at, DECAY)["data"]}


def test_part_2_draws_the_trained_gates_by_default_and_the_untrained_on_request(fake_zoo):
    """By default the LSTM and GRU lines are the trained probes' measurement (part 3's), the
    plain RNN the untrained cell on its guide; "untrained" draws the fresh gated cells."""
    from lessons.rnn_gradients import data

    at = make_app(PAGE, lang="en", part="fresh").run(timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    assert at.segmented_control(key="rnng_gates").value == "trained"
    trained = data.trained_curves({k: zoo.load_model(v) for k, v in data.PROBES.items()})
    d = data.FRESH_DEFAULTS
    fresh = data.fresh_curves(data.RADIUS_DEFAULT, d["length"], 0.1, 0, "state")
    lines = _decay_lines(at)
    assert lines["LSTM"] == pytest.approx(trained["lstm"]["state"][: len(lines["LSTM"])])
    assert lines["GRU"] == pytest.approx(trained["gru"]["state"][: len(lines["GRU"])])
    assert lines["Plain RNN"] == pytest.approx(fresh["rnn"])
    assert "trained LSTM and GRU" in chart(at, DECAY)["layout"]["title"]["text"]
    at.segmented_control(key="rnng_gates").set_value("untrained").run(timeout=300)
    assert at.query_params["gates"] == "untrained"
    lines = _decay_lines(at)
    assert lines["LSTM"] == pytest.approx(fresh["lstm"]) and lines["GRU"] == pytest.approx(
        fresh["gru"]
    )
    assert "Untrained cells" in chart(at, DECAY)["layout"]["title"]["text"]
    # the input gradient: every line relative to its value at the last word
    at.segmented_control(key="rnng_q").set_value("input").run(timeout=300)
    for values in _decay_lines(at).values():
        if len(values) > 1:
            assert values[0] == pytest.approx(1.0)


def test_parts_3_and_4_share_one_distance_axis(fake_zoo):
    from lessons.rnn_gradients.common import PROBE_DISTANCE_AXIS

    axes = []
    for part, words in (("trained", "Trained probes"), ("learn", "accuracy against distance")):
        at = make_app(PAGE, lang="en", part=part).run(timeout=300)
        assert not at.exception, [e.value for e in at.exception]
        x = chart(at, words)["layout"]["xaxis"]
        axes.append((x["range"], x["dtick"]))
        # the sentence that says how a tiny gradient sits beside a good answer, in both
        assert any("A tiny gradient beside a good answer" in c.value for c in at.caption), part
    assert axes[0] == axes[1] == (PROBE_DISTANCE_AXIS["range"], PROBE_DISTANCE_AXIS["dtick"])


@pytest.mark.skipif(not zoo.MANIFEST_PATH.is_file(), reason="the shipped zoo is not built")
def test_part_2s_default_is_what_the_search_picks_on_the_shipped_probes():
    """The defaults of part 2 are the search's pick on the shipped probes: the plain RNN on
    its guide ρ^k, the trained gates at least 100 times above it; at that weight scale the
    untrained gates do not show the headline (fresh gates fade too)."""
    from core.analysis import rnn_gradients as analysis
    from lessons.rnn_gradients import data

    trained = data.trained_curves({k: zoo.load_model(v) for k, v in data.PROBES.items()})
    d = data.FRESH_DEFAULTS
    assert data.headline_search(trained) == (d["gates"], data.RADIUS_DEFAULT, d["drive"])
    radius, drive = data.RADIUS_DEFAULT, float(d["drive"])
    fresh = data.fresh_curves(radius, d["length"], drive, d["seed"], "state")
    guide = radius ** np.arange(d["length"], dtype=float)
    for gates, holds in (("trained", True), ("untrained", False)):
        lines = data.part2_lines(fresh, trained, gates, "state")
        gated = {k: v for k, v in lines.items() if k != "rnn"}
        assert analysis.headline_holds(lines["rnn"], guide, gated) == holds, gates


@pytest.mark.skipif(not zoo.MANIFEST_PATH.is_file(), reason="the shipped zoo is not built")
@pytest.mark.timeout(1800)
def test_the_plain_rnn_learned_the_far_link_while_its_gradient_still_reached():
    """What parts 3 and 4 say together: the plain RNN probe retrained with its spec (the
    shipped weights, bit for bit) and measured every 100 steps. It first answers twice
    chance at the distance the parts read while its signal there is at least 1000 times
    the finished model's; the finished model's signal there is tiny (< 1e-6) beside a good
    answer (>= 3 times chance)."""
    import torch

    from core import train
    from core.analysis import rnn_gradients as analysis
    from lessons.rnn_gradients.common import FAR

    spec = train.SPECS["probe_rnn"]
    torch.manual_seed(spec.seed)
    model = zoo.build_model(spec.family, train.full_config(spec, None, None))
    batches = train._probe_batches(spec.batch_size, spec.seed)
    step = train.optimizer_step(
        model, train.probe_loss, steps=spec.steps, lr=spec.lr, warmup=spec.warmup, clip=spec.clip
    )
    x, y = probes_data.eval_set(FAR)
    xg, yg, _ = probes_data.make_batch(torch.Generator().manual_seed(7), 32)  # part 3's
    chance = 1 / probes_data.N_KEYS
    history = []
    model.train()
    for s in range(1, spec.steps + 1):
        step(next(batches))
        if s % 100 == 0:
            model.eval()
            with torch.no_grad():
                acc = float((model(x)[0].argmax(-1) == y).float().mean())
            grad = float(analysis.probe_decay(model, xg, yg, n_state=8)["state"][FAR])
            history.append((s, acc, grad))
            model.train()
    shipped = zoo.load_model("probe_rnn").state_dict()
    assert all(torch.equal(shipped[k], model.state_dict()[k]) for k in shipped)
    final_acc, final_grad = history[-1][1:]
    assert final_grad < 1e-6 and final_acc >= 3 * chance, history[-1]
    first = next(h for h in history if h[1] >= 2 * chance)
    assert first[2] >= 1000 * final_grad, (first, history[-1])
