"""The CNN receptive-field page: one part at a time (the formula, the measurement, the
probes), controls, deep links, bad input.

The ``fake_zoo`` fixture stands in for the shipped weights (a randomly initialised
``cnn_s2s`` and a manifest with distance results), so these tests run before training;
with the real weights the page reads the same API.
"""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest
import streamlit as st
import streamlit.testing.v1.local_script_runner as lsr

from core import lexicon
from core.analysis import receptive_field as analysis
from core.i18n import translate
from tests.conftest import (
    ROOT,
    as_a_phone,
    chart_spec,
    element_kind,
    fragment_rerun,
    main_text,
    make_app,
)
from tests.lessons.parts import chart_keys, runs_alone

PAGE = "pages/cnn_receptive_field.py"
PART = "cnn_receptive_field_part"  # the part selector's widget key
# the charts each part draws, and nothing else
PART_CHARTS = {
    "theory": ["cnn_rf_windows"],
    "measured": ["cnn_rf_measured", "cnn_rf_widths"],
    "probes": ["cnn_rf_probes"],
}
# The English sentence of the default view and its pair (cicadas, their).
_EN_WORDS, (EN_A, EN_B), _ = analysis.choose_sentence("en")
EN_N = len(_EN_WORDS)
EN_MEET = analysis.meeting_path(EN_A, EN_B, analysis.DEFAULT_KERNEL)[0][-1]  # followed first
DISTANCES = (5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60)


def _fake_manifest() -> dict:
    models = {}
    for name, kind, layers in (
        ("probe_rnn", "rnn", 1),
        ("probe_lstm", "lstm", 1),
        ("probe_gru", "gru", 1),
        ("probe_cnn2", "cnn", 2),
        ("probe_cnn4", "cnn", 4),
        ("probe_cnn8", "cnn", 8),
        ("probe_attention", "attention", 1),
    ):
        reach = 4 * layers if kind == "cnn" else 40 if kind == "rnn" else 99
        cfg = {"kind": kind, "n_symbols": 21, "n_keys": 10, "layers": layers, "kernel": 5}
        models[name] = {
            "family": "probe",
            "task": "probe",
            "params": 1000,
            "config": cfg,
            "metrics": {"distance": {str(d): 0.99 if d <= reach else 0.1 for d in DISTANCES}},
        }
    models["cnn_s2s"] = {"family": "cnn_seq2seq", "task": "translation", "config": {}}
    return {"models": models}


@pytest.fixture
def fake_zoo(monkeypatch):
    """A random cnn_s2s (6 layers, kernel 3), a small vocabulary and a probe manifest."""
    import torch

    import core.zoo as zoo
    from core.models.cnn_seq2seq import CNNSeq2Seq, CNNSeq2SeqConfig
    from core.vocab import Vocab

    words = set(analysis.english_counterpart()) | set(
        "the cat drank milk because it was hungry".split()
    )
    sv = Vocab.build([sorted(words)])
    tv = Vocab.build([["猫", "喝", "牛奶"]])
    torch.manual_seed(0)
    model = CNNSeq2Seq(CNNSeq2SeqConfig(len(sv), len(tv), emb_dim=16, channels=16)).eval()
    for p in model.parameters():
        p.requires_grad_(False)
    manifest = _fake_manifest()

    def load_model(name, *_a, **_k):
        if name != "cnn_s2s":
            raise zoo.ZooError(f"assets/models/{name}.pt", "missing")
        return model

    monkeypatch.setattr(zoo, "load_model", load_model)
    monkeypatch.setattr(zoo, "load_vocabs", lambda *_a, **_k: (sv, tv))
    monkeypatch.setattr(zoo, "load_manifest", lambda *_a, **_k: manifest)
    st.cache_resource.clear()
    st.cache_data.clear()
    yield manifest
    st.cache_resource.clear()
    st.cache_data.clear()


_chart = chart_spec


def _values(value) -> list[float]:
    """A plotly JSON array: a list, or numpy's bytes as ``{"dtype", "bdata"}``."""
    import base64

    import numpy as np

    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"]).tolist()
    return list(value)


def _chart_keys(at) -> list[str]:
    return chart_keys(at, PART_CHARTS)


def _window_bars(at) -> list[float]:
    fig = _chart(at, "cnn_rf_windows")
    return fig["data"][0]["x"]  # window width per layer


def _text(at) -> str:
    return "\n".join(str(m.value) for m in at.main.markdown) + "\n".join(
        str(c.value) for c in at.main.caption
    )


@pytest.mark.parametrize("part", list(PART_CHARTS))
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_part_runs_alone_with_only_its_charts(fake_zoo, part, lang):
    at = runs_alone(PAGE, PART, part, lang, PART_CHARTS)
    assert not at.main.error
    assert ("Try this" if lang == "en" else "试一试") in main_text(at)
    assert len(at.main.expander) == 1  # "for the curious" (nothing folded on a laptop)


@pytest.mark.parametrize(
    ("lang", "words", "layer"), [("en", "Not yet", "layer 10"), ("zh", "还没连上", "第 13 层")]
)
def test_default_part_is_the_formula_and_the_pair_is_not_yet_linked(fake_zoo, lang, words, layer):
    """Part 1's default proves its takeaway: at the default depth no window holds both words
    of the lesson's pair (no highlighted bar), and the page says so and names the layer that
    would (computed in core: test_default_depth_does_not_yet_link_the_lesson_pair)."""
    at = make_app(PAGE, lang=lang).run(timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    assert at.query_params["part"] == "theory"
    assert _chart_keys(at) == ["cnn_rf_windows"]
    # default: English -> its English version, cicadas/their, 20 words apart -> layer 10;
    # Chinese -> the lesson's sentence, 秋蝉/它们, 26 words apart -> layer 13
    assert at.query_params["sent"] == lang
    assert at.query_params["depth"] == str(analysis.DEFAULT_DEPTH)
    text = _text(at)
    assert words in text and layer in text
    bars = _chart(at, "cnn_rf_windows")["data"][0]
    assert len(set(bars["marker"]["color"])) == 1  # not one bar holds both words
    assert not at.main.error
    # the lead introduces the lesson's long-dependency pair
    assert "秋蝉" in main_text(at) and "它们" in main_text(at)


def test_the_selector_switches_the_part_and_the_url(fake_zoo):
    at = make_app(PAGE, lang="en").run(timeout=120)
    for part in ("measured", "probes", "theory"):
        at.segmented_control(key=PART).set_value(part).run()
        assert not at.exception, [e.value for e in at.exception]
        assert at.query_params["part"] == part
        assert _chart_keys(at) == PART_CHARTS[part]


def test_bad_part_falls_back_with_a_notice(fake_zoo):
    at = make_app(PAGE, lang="en", part="all").run(timeout=120)
    assert not at.exception
    assert any("`all`" in w.value and "part" in w.value for w in at.warning)
    assert at.query_params["part"] == "theory"
    assert _chart_keys(at) == ["cnn_rf_windows"]


def test_depth_and_kernel_and_dilation_change_the_windows(fake_zoo):
    at = make_app(PAGE, lang="en").run(timeout=120)
    widths = _window_bars(at)
    # follows the node where cicadas (6) and their (26) meet: position 16
    assert (EN_A, EN_B, EN_N) == (6, 26, 29)
    assert at.selectbox(key="cnn_rf_pos").value == EN_MEET == 16
    assert len(widths) == 9 and widths[-1] == 17  # 1 + 8 * (3 - 1), inside 29 words
    at.slider(key="cnn_rf_depth").set_value(3).run()
    assert _window_bars(at) == [1, 3, 5, 7] and at.query_params["depth"] == "3"
    at.select_slider(key="cnn_rf_k").set_value(5).run()
    assert _window_bars(at)[-1] == 13 and at.query_params["k"] == "5"  # 1 + 3 * 4
    at.toggle(key="cnn_rf_dil").set_value(True).run()
    assert at.query_params["dil"] == "1"
    assert _window_bars(at)[1:] == [5, 13, 27]  # 1 + 4 * (1, 3, 7) = 29, cut at the last word


def test_deep_link_restores_state(fake_zoo):
    at = make_app(PAGE, lang="zh", sent="zh", depth="13", k="3", a="0", b="26", pos="13")
    at.run(timeout=120)
    assert not at.exception
    assert at.slider(key="cnn_rf_depth").value == 13
    assert at.selectbox(key="cnn_rf_pos").value == 13
    assert "第 13 层" in _text(at)
    widths = _window_bars(at)
    assert widths[-1] == 27  # 1 + 13 * 2, covers 秋蝉 ... 它们
    fig = _chart(at, "cnn_rf_windows")
    assert fig["layout"]["xaxis"]["ticktext"][0] == "秋蝉"


@pytest.mark.parametrize(
    ("k", "dil", "meet"),
    [(None, None, 16), ("4", "0", 13), ("7", "0", 18), ("3", "1", 21)],
)
def test_a_fresh_link_follows_the_pairs_meeting_node(fake_zoo, k, dil, meet):
    """Without ``pos`` the followed position is where cicadas (6) and their (26) meet, for
    the kernel and dilation in the link (read by the words' fragment from the URL)."""
    params = {name: v for name, v in (("k", k), ("dil", dil)) if v is not None}
    at = make_app(PAGE, lang="en", **params).run(timeout=120)
    assert not at.exception
    expected = analysis.meeting_path(EN_A, EN_B, int(k or 3), base=2 if dil == "1" else 1)[0][-1]
    assert expected == meet
    assert at.selectbox(key="cnn_rf_pos").value == meet and at.query_params["pos"] == str(meet)
    assert at.select_slider(key="cnn_rf_k").value == int(k or 3)
    assert "layer" in _text(at) and _window_bars(at)[0] == 1


def test_the_kernel_keeps_the_words_and_moves_the_formula(fake_zoo):
    """A new kernel changes the metrics and the chart; the sentence, the pair and the
    followed position keep their values (the kernel's fragment does not draw them)."""
    at = make_app(PAGE, lang="en").run(timeout=120)
    at.selectbox(key="cnn_rf_a").set_value(4).run()
    at.selectbox(key="cnn_rf_pos").set_value(8).run()
    at.slider(key="cnn_rf_depth").set_value(5).run()
    words = {p: at.query_params[p] for p in ("sent", "a", "b", "pos", "depth")}
    assert words == {"sent": "en", "a": "4", "b": str(EN_B), "pos": "8", "depth": "5"}
    for k in (5, 2, 7):
        at.select_slider(key="cnn_rf_k").set_value(k).run()
        assert not at.exception
        assert {p: at.query_params[p] for p in words} == words and at.query_params["k"] == str(k)
        assert at.segmented_control(key="cnn_rf_sent").value == "en"
        assert (at.selectbox(key="cnn_rf_a").value, at.selectbox(key="cnn_rf_b").value) == (
            4,
            EN_B,
        )
        assert at.selectbox(key="cnn_rf_pos").value == 8
        assert _window_bars(at) == [hi - lo + 1 for lo, hi in analysis.windows(8, 5, k, EN_N)]
        shared = analysis.first_shared_layer(4, EN_B, k, max_layers=16)
        metrics = [m.value for m in at.main.metric]
        assert metrics[0] == f"{analysis.theoretical_field(5, k)} words"
        assert metrics[1] == (f"layer {shared}" if shared is not None else "beyond 16 layers")
        assert metrics[2] == f"{EN_B - 4} words"
        assert (
            f"{k} words per window, 5 layers"
            in _chart(at, "cnn_rf_windows")["layout"]["title"]["text"]
        )


EVERY = {
    "sent": "own",
    "text": "the cat drank the milk because it was hungry",
    "k": "5",
    "dil": "1",
    "depth": "3",
    "pos": "6",
    "a": "1",
    "b": "7",
}


def _state(at) -> dict:
    return {
        "sent": at.segmented_control(key="cnn_rf_sent").value,
        "text": at.text_input(key="cnn_rf_text").value,
        "k": at.select_slider(key="cnn_rf_k").value,
        "dil": at.toggle(key="cnn_rf_dil").value,
        "depth": at.slider(key="cnn_rf_depth").value,
        "pos": at.selectbox(key="cnn_rf_pos").value,
        "a": at.selectbox(key="cnn_rf_a").value,
        "b": at.selectbox(key="cnn_rf_b").value,
    }


def test_a_link_with_every_parameter_reopens_the_same_state(fake_zoo):
    at = make_app(PAGE, lang="en", **EVERY).run(timeout=120)
    assert not at.exception and not at.warning
    assert _state(at) == {**EVERY, "k": 5, "dil": True, "depth": 3, "pos": 6, "a": 1, "b": 7}
    assert {p: at.query_params[p] for p in EVERY} == EVERY  # the link is kept as it was
    fig = _chart(at, "cnn_rf_windows")
    assert fig["data"][0]["x"] == [hi - lo + 1 for lo, hi in analysis.windows(6, 3, 5, 9, base=2)]
    assert "“it”" in fig["layout"]["title"]["text"]


def test_a_session_round_trips_through_its_link(fake_zoo):
    """Every control changed in one session (both fragments), then the link opened fresh:
    the same controls, the same chart, the same metrics."""
    at = make_app(PAGE, lang="en").run(timeout=120)
    at.segmented_control(key="cnn_rf_sent").set_value("own").run()
    at.text_input(key="cnn_rf_text").input(EVERY["text"]).run()
    at.selectbox(key="cnn_rf_a").set_value(1).run()
    at.selectbox(key="cnn_rf_b").set_value(7).run()
    at.selectbox(key="cnn_rf_pos").set_value(6).run()
    at.select_slider(key="cnn_rf_k").set_value(5).run()
    at.toggle(key="cnn_rf_dil").set_value(True).run()
    at.slider(key="cnn_rf_depth").set_value(3).run()
    assert not at.exception
    link = dict(at.query_params)
    assert {p: link[p] for p in EVERY} == EVERY
    again = make_app(PAGE, **link).run(timeout=120)
    assert not again.exception and not again.warning
    assert _state(again) == _state(at)
    assert _chart(again, "cnn_rf_windows") == _chart(at, "cnn_rf_windows")
    assert [m.value for m in again.main.metric] == [m.value for m in at.main.metric]
    assert dict(again.query_params) == link


def _walk(block) -> list:
    """The elements under ``block`` in page order."""
    out = []
    for _, child in sorted(getattr(block, "children", {}).items()):
        out.append(child)
        out += _walk(child)
    return out


def _widget_keys(block) -> list[str]:
    """The keys of the page's widgets under ``block``, in page order (not the part selector)."""
    keys = [getattr(el, "key", None) for el in _walk(block) if el.type != "plotly_chart"]
    return [k for k in keys if k and k.startswith("cnn_rf_") and k != PART]


def test_control_order_and_presenter_folding(fake_zoo):
    """Part 1 is a slide: the chart, then its two knobs right under it (depth first, the
    page's first slider: bench ("slider", 0)), then the sentence, the pair, the position and
    dilation. On the projector those four fold into one "More controls"; the knobs stay in
    sight."""
    at = make_app(PAGE, lang="en").run(timeout=120)
    knobs = ["cnn_rf_depth", "cnn_rf_k"]
    folded = ["cnn_rf_sent", "cnn_rf_a", "cnn_rf_b", "cnn_rf_pos", "cnn_rf_dil"]
    assert _widget_keys(at.main) == knobs + folded
    sliders = [el for el in _walk(at.main) if el.type in ("slider", "select_slider")]
    assert sliders[0].key == "cnn_rf_depth"
    assert len(at.main.expander) == 1  # only "for the curious"
    # the chart comes before every control of the part
    order = [el for el in _walk(at.main) if el.type == "plotly_chart" or getattr(el, "key", "")]
    keys = ["chart" if el.type == "plotly_chart" else el.key for el in order]
    assert keys.index("chart") < keys.index("cnn_rf_depth")

    at = make_app(PAGE, lang="zh", present="1").run(timeout=120)
    assert not at.exception
    predict = translate("poll.predict.title", "zh")  # the shell's block after the part
    more, curious = [e for e in at.main.expander if e.label != predict]
    assert _widget_keys(more) == folded
    assert _widget_keys(at.main) == knobs + folded


def test_bad_params_fall_back_with_a_notice(fake_zoo):
    at = make_app(PAGE, lang="en", depth="99", k="6", sent="klingon", a="-3", dil="yes")
    at.run(timeout=120)
    assert not at.exception
    shown = "\n".join(w.value for w in at.warning)
    for raw in ("99", "klingon", "-3", "yes"):
        assert raw in shown
    assert at.query_params["depth"] == "8" and at.query_params["k"] == "3"


def test_own_sentence_is_drawn_and_measured(fake_zoo):
    at = make_app(PAGE, lang="en", sent="own", text="the cat drank the milk because it was hungry")
    at.run(timeout=120)
    assert not at.exception
    fig = _chart(at, "cnn_rf_windows")
    assert fig["layout"]["xaxis"]["ticktext"][1] == "cat"
    at.selectbox(key="cnn_rf_pos").set_value(1).run()
    at.segmented_control(key=PART).set_value("measured").run()  # same sentence
    assert not at.exception
    assert at.selectbox(key="cnn_rf_pos").value == 1  # the position followed in part 1
    measured = _chart(at, "cnn_rf_measured")
    assert measured["layout"]["xaxis"]["ticktext"][-2:] == ["hungry", lexicon.EOS]
    assert "“cat”" in measured["layout"]["title"]["text"]


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ("🎉🎉 !!! <>", "no words to draw"),
        ("<script>alert(1)</script> zorglub", "does not know these words"),
        ("秋天的北平到处都能听见蝉鸣", "reads English only"),
    ],
)
def test_bad_own_text_gets_a_message(fake_zoo, text, expect):
    at = make_app(PAGE, lang="en", part="measured", sent="own", text=text).run(timeout=120)
    assert not at.exception
    messages = "\n".join(str(m.value) for m in [*at.warning, *at.info])
    assert expect in messages
    assert _chart_keys(at) == PART_CHARTS["measured"]  # the part keeps working
    assert not any("<script>" in str(m.value) for m in at.main.markdown)
    at.segmented_control(key=PART).set_value("theory").run()  # and so does part 1
    assert not at.exception
    assert _chart_keys(at) == PART_CHARTS["theory"]
    assert not any("<script>" in str(m.value) for m in at.main.markdown)


def test_long_own_text_is_cut(fake_zoo):
    at = make_app(PAGE, lang="zh", sent="own", text=" ".join(["cat"] * 70)).run(timeout=120)
    assert not at.exception
    assert any(str(analysis.MAX_TOKENS) in i.value for i in at.info)


def test_switching_sentence_resets_the_pair(fake_zoo):
    at = make_app(PAGE, lang="en", a="3", b="5").run(timeout=120)
    at.segmented_control(key="cnn_rf_sent").set_value("zh").run()
    assert not at.exception
    assert at.query_params["a"] == "0" and at.query_params["b"] == "26"


def test_measured_position_for_the_chinese_sentence(fake_zoo):
    at = make_app(PAGE, lang="zh", part="measured", sent="zh").run(timeout=120)
    sel = at.selectbox(key="cnn_rf_mpos")
    en = analysis.english_counterpart()
    assert sel.value == en.index("their")
    sel.set_value(3).run()
    assert at.query_params["mpos"] == "3"
    fig = _chart(at, "cnn_rf_measured")
    xs = [x for x in fig["data"][1]["x"] if x is not None]
    # outlines of the 6 layers' windows around word 3: from word 0 (clipped) to word 3 + 6
    assert min(xs) == pytest.approx(-0.5) and max(xs) == pytest.approx(3 + 6 + 0.5)


def test_probe_chart_marks_each_field(fake_zoo):
    at = make_app(PAGE, lang="en", part="probes").run(timeout=120)
    fig = _chart(at, "cnn_rf_probes")
    names = ("probe_cnn2", "probe_cnn4", "probe_cnn8")
    # one vocabulary: the lexicon's names and colours
    assert [tr["name"] for tr in fig["data"]] == [lexicon.name(m, "en") for m in names]
    assert [tr["line"]["color"] for tr in fig["data"]] == [lexicon.look(m).color for m in names]
    lines = sorted(s["x0"] for s in fig["layout"]["shapes"] if s.get("x0") == s.get("x1"))
    assert lines == [8, 16, 32]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_probes_default_shows_each_cnn_failing_beyond_its_field(lang):
    """Part 3 with the shipped results: every CNN probe's line is at guessing level (below
    BLIND x chance) at every distance beyond its dashed line, and solves a distance before
    it; the words name the probes that give up even inside their field (computed)."""
    from core import zoo
    from core.probes_data import N_KEYS

    try:
        zoo.load_manifest()
    except zoo.ZooError:
        pytest.skip("no trained probes")
    st.cache_data.clear()
    at = make_app(PAGE, lang=lang, part="probes").run(timeout=120)
    assert not at.exception
    fig = _chart(at, "cnn_rf_probes")
    fields = sorted(s["x0"] for s in fig["layout"]["shapes"] if s.get("x0") == s.get("x1"))
    early = []
    for trace, sees in zip(fig["data"], fields, strict=True):
        xs = [int(x) for x in _values(trace["x"])]
        reach = analysis.probe_reach(xs, _values(trace["y"]), sees + 1)
        assert reach.blind_beyond(1 / N_KEYS, 2.0), trace["name"]
        assert reach.solved is not None and reach.solved <= sees
        if reach.fails_inside(xs):
            early.append(trace["name"])
    text = _text(at)
    for name in early:
        assert name in text
    assert "manifest" not in text.lower() and "probe_" not in text


def test_without_weights_the_formula_still_works(no_zoo):
    at = make_app(PAGE, lang="zh").run(timeout=120)
    assert not at.exception
    assert _chart_keys(at) == ["cnn_rf_windows"] and not at.main.error
    for part in ("measured", "probes"):  # the parts that need the zoo say how to build it
        at = make_app(PAGE, lang="zh", part=part).run(timeout=120)
        assert not at.exception
        assert not at.get("plotly_chart")
        assert any("python -m core.train" in e.value for e in at.main.error)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_measured_words_follow_the_measured_widths(fake_zoo, lang):
    """Part 2 says "narrower" only when the measured top-layer field is narrower than the
    formula's window (the shipped encoder's default is checked in core:
    test_default_measured_field_is_narrower_than_the_formula); the chart names the model by
    its display name and shows the end of the sentence as ⟨eos⟩."""
    at = make_app(PAGE, lang=lang, part="measured").run(timeout=120)
    assert not at.exception
    widths = _chart(at, "cnn_rf_widths")["data"]
    theory, effective = _values(widths[0]["y"]), _values(widths[1]["y"])
    narrower = effective[-1] < theory[-1]
    text = _text(at)
    marker = {
        "en": ("narrower than the theoretical", "uses everything"),
        "zh": ("比理论感受野窄", "用满了"),
    }
    assert (marker[lang][0] in text) == narrower and (marker[lang][1] in text) != narrower
    title = _chart(at, "cnn_rf_measured")["layout"]["title"]["text"]
    assert lexicon.name("cnn_s2s", lang) in title and "cnn_s2s" not in text + title
    assert _chart(at, "cnn_rf_measured")["layout"]["xaxis"]["ticktext"][-1] == lexicon.EOS


def test_on_a_phone_the_pair_label_stays_inside_the_chart(fake_zoo, monkeypatch):
    """Centred on the pair's right line (near the plot's right edge) the label ran past a
    phone's chart: there it ends at the line instead (``ui.on_a_phone`` patched: AppTest
    sends no User-Agent)."""

    wide = _chart(make_app(PAGE, lang="en").run(timeout=120), "cnn_rf_windows")
    as_a_phone(monkeypatch)
    at = make_app(PAGE, lang="en").run(timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    fig = _chart(at, "cnn_rf_windows")
    assert fig["data"] == wide["data"]
    (label,) = fig["layout"]["annotations"]
    assert "xanchor" not in wide["layout"]["annotations"][0]
    assert label["xanchor"] == "right" and label["x"] == wide["layout"]["annotations"][0]["x"]


# the fragments of each part, outer first, and the widgets (keys) each one draws itself
FRAGMENTS = {
    "window_section": {
        "cnn_rf_sent",
        "cnn_rf_text",
        "cnn_rf_a",
        "cnn_rf_b",
        "cnn_rf_pos",
        "cnn_rf_dil",
    },
    "formula_section": {"cnn_rf_k", "cnn_rf_depth"},
    "measured_section": {"cnn_rf_sent", "cnn_rf_text"},
    "measured_view": {"cnn_rf_pos", "cnn_rf_mpos"},
}
INNER = {"window_section": "formula_section", "measured_section": "measured_view"}


def _functions() -> dict[str, ast.FunctionDef]:
    """The module-level functions of the two parts with fragments."""
    out = {}
    for part in ("theory", "measured"):
        source = ROOT / "lessons" / "cnn_receptive_field" / f"{part}.py"
        tree = ast.parse(source.read_text(encoding="utf-8"))
        out.update({n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)})
    return out


def _calls(fn: ast.FunctionDef) -> set[str]:
    return {
        n.func.id if isinstance(n.func, ast.Name) else n.func.attr
        for n in ast.walk(fn)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name | ast.Attribute)
    }


def test_sections_are_fragments():
    """Each part is an outer fragment that calls an inner one (ui.fragment: st.fragment
    behind the fair gate; nested)."""
    functions = _functions()
    for name in FRAGMENTS:
        decorators = [ast.unparse(d) for d in functions[name].decorator_list]
        assert decorators == ["ui.fragment"], (name, decorators)
    for outer, inner in INNER.items():
        assert inner in _calls(functions[outer]), f"{outer} must call {inner}"
        assert outer not in _calls(functions[inner])


# --- what a click sends ----------------------------------------------------------------------
# AppTest reruns the whole script on every interaction; the browser asks the server for a
# rerun of the fragment that holds the widget (RerunData.fragment_id, set by AppSession from
# the widget's delta). These helpers do what the browser does, through the AppTest runner, and
# list the elements the server sends for the click (Streamlit 1.67, pinned in requirements).
def _sent(msgs) -> list[tuple[str, str]]:
    """(element type, widget or chart key, "" if none) of each new element, in send order."""
    out = []
    for msg in msgs:
        if msg.WhichOneof("type") != "delta" or msg.delta.WhichOneof("type") != "new_element":
            continue
        element = msg.delta.new_element
        kind = element.WhichOneof("type")
        ident = getattr(getattr(element, kind), "id", "") or ""
        key = ident.rsplit("-", 1)[-1] if ident.startswith("$$ID") else ""
        out.append((element_kind(element), key))
    return out


@pytest.fixture
def wire(monkeypatch):
    """The messages of every AppTest run, in order (a list of lists of ForwardMsg)."""
    runs: list[list] = []
    parse = lsr.parse_tree_from_messages

    def record(msgs):
        runs.append(list(msgs))
        return parse(msgs)

    monkeypatch.setattr(lsr, "parse_tree_from_messages", record)
    return runs


def _fragment_of(runs: list[list], key: str) -> str:
    """The id of the fragment that last drew the widget ``key``."""
    for msgs in reversed(runs):
        for msg in msgs:
            if msg.WhichOneof("type") != "delta" or not msg.delta.HasField("new_element"):
                continue
            element = msg.delta.new_element
            ident = getattr(getattr(element, element.WhichOneof("type")), "id", "") or ""
            if ident.endswith(f"-{key}"):
                assert msg.delta.fragment_id, f"{key} is not inside a fragment"
                return msg.delta.fragment_id
    raise AssertionError(f"no widget {key}")


def _click(at, runs, widget, value) -> list[tuple[str, str]]:
    """Set ``widget`` to ``value`` and rerun its fragment only, as the browser does; returns
    what the server sent. (AppTest's tree then holds only those elements.)"""
    with fragment_rerun(_fragment_of(runs, widget.key)):
        widget.set_value(value).run()
    assert not at.exception, [e.value for e in at.exception]
    return _sent(runs[-1])


def _widgets(sent) -> set[str]:
    return {key for kind, key in sent if key and kind != "plotly_chart"}


def _charts(sent) -> list[str]:
    return [key for kind, key in sent if kind == "plotly_chart"]


@pytest.mark.parametrize(
    ("key", "kind", "value"),
    [
        ("cnn_rf_k", "select_slider", 5),
        ("cnn_rf_depth", "slider", 3),
    ],
)
def test_a_knob_of_the_formula_resends_only_the_formula(wire, key, kind, value):
    """Kernel and depth (the two knobs under the chart): their two controls, the metrics and
    the chart, nothing of the folded sentence, pair, position or dilation (each widget costs
    ~5 ms in the browser)."""
    at = make_app(PAGE, lang="en").run(timeout=120)
    before = _sent(wire[-1])
    assert {"cnn_rf_sent", "cnn_rf_a", "cnn_rf_b", "cnn_rf_pos", "cnn_rf_dil"} <= _widgets(before)
    sent = _click(at, wire, getattr(at, kind)(key=key), value)
    assert _widgets(sent) == FRAGMENTS["formula_section"]
    assert _charts(sent) == ["cnn_rf_windows"]
    assert [kind for kind, _ in sent].count("metric") == 3
    params = {"k": "3", "dil": "0", "depth": "8"} | {key.removeprefix("cnn_rf_"): str(int(value))}
    assert {p: at.query_params[p] for p in params} == params
    # the chart sent follows the new value
    k, base, depth = int(params["k"]), 1 + int(params["dil"]), int(params["depth"])
    fig = _chart(at, "cnn_rf_windows")
    assert fig["data"][0]["x"] == [
        hi - lo + 1 for lo, hi in analysis.windows(EN_MEET, depth, k, EN_N, base)
    ]
    assert f"{k} words per window, {depth} layers" in fig["layout"]["title"]["text"]
    # the words are untouched (the URL keeps them) and a full run still shows them
    pair = (at.query_params["a"], at.query_params["b"], at.query_params["pos"])
    assert pair == (str(EN_A), str(EN_B), str(EN_MEET))
    at.run()
    assert at.selectbox(key="cnn_rf_pos").value == EN_MEET
    assert at.segmented_control(key="cnn_rf_sent").value == "en"


def test_dilation_reruns_both_fragments(wire):
    """Dilation sits with the folded controls (the outer fragment): a click redraws the
    formula with the doubled windows, and keeps the words."""
    at = make_app(PAGE, lang="en").run(timeout=120)
    sent = _click(at, wire, at.toggle(key="cnn_rf_dil"), True)
    assert _charts(sent) == ["cnn_rf_windows"]
    assert at.query_params["dil"] == "1" and at.query_params["pos"] == str(EN_MEET)
    widths = [hi - lo + 1 for lo, hi in analysis.windows(EN_MEET, 8, 3, EN_N, base=2)]
    assert _chart(at, "cnn_rf_windows")["data"][0]["x"] == widths


def test_the_words_rerun_both_fragments(wire):
    """The position (and so the pair and the sentence, its neighbours) reruns the outer
    fragment, which draws the formula again: the chart follows the new word."""
    at = make_app(PAGE, lang="en").run(timeout=120)
    sent = _click(at, wire, at.selectbox(key="cnn_rf_pos"), 4)
    assert (
        _widgets(sent)
        == FRAGMENTS["window_section"] - {"cnn_rf_text"} | FRAGMENTS["formula_section"]
    )
    assert _charts(sent) == ["cnn_rf_windows"]
    assert f"“{_EN_WORDS[4]}”" in _chart(at, "cnn_rf_windows")["layout"]["title"]["text"]
    assert at.query_params["pos"] == "4"


@pytest.mark.parametrize(
    ("params", "key", "value"),
    [({"sent": "en"}, "cnn_rf_pos", 6), ({"sent": "zh"}, "cnn_rf_mpos", 3)],
)
def test_the_measured_position_resends_only_its_charts(
    fake_zoo,  # noqa: F811
    wire,
    params,
    key,
    value,
):
    """Part 2: the position changes both charts, not the sentence above them."""
    at = make_app(PAGE, lang="en", part="measured", **params).run(timeout=120)
    assert "cnn_rf_sent" in _widgets(_sent(wire[-1]))
    sent = _click(at, wire, at.selectbox(key=key), value)
    assert _widgets(sent) == {key}
    assert _charts(sent) == ["cnn_rf_measured", "cnn_rf_widths"]
    word = analysis.english_counterpart()[value]
    assert f"“{word}”" in _chart(at, "cnn_rf_measured")["layout"]["title"]["text"]
    assert at.query_params[key.removeprefix("cnn_rf_")] == str(value)


def test_position_is_shared_by_the_formula_and_the_measurement(fake_zoo):  # noqa: F811
    """Parts 1 and 2 both show the followed position, bound to one URL parameter."""
    at = make_app(PAGE, lang="en").run(timeout=120)
    en = analysis.english_counterpart()
    assert at.selectbox(key="cnn_rf_pos").value == EN_MEET
    at.selectbox(key="cnn_rf_pos").set_value(4).run()
    assert not at.exception
    assert at.query_params["pos"] == "4"
    at.segmented_control(key=PART).set_value("measured").run()
    assert not at.exception
    assert at.selectbox(key="cnn_rf_pos").value == 4
    assert en[4] in _chart(at, "cnn_rf_measured")["layout"]["title"]["text"]
    at.selectbox(key="cnn_rf_pos").set_value(6).run()
    assert at.query_params["pos"] == "6"
    assert en[6] in _chart(at, "cnn_rf_measured")["layout"]["title"]["text"]
    at.segmented_control(key=PART).set_value("theory").run()
    assert at.selectbox(key="cnn_rf_pos").value == 6


def test_sentence_is_shared_by_the_formula_and_the_measurement(fake_zoo):  # noqa: F811
    at = make_app(PAGE, lang="en").run(timeout=120)
    at.segmented_control(key="cnn_rf_sent").set_value("zh").run()
    assert not at.exception
    assert _chart(at, "cnn_rf_windows")["layout"]["xaxis"]["ticktext"][0] == "秋蝉"
    at.segmented_control(key=PART).set_value("measured").run()
    assert not at.exception
    assert at.segmented_control(key="cnn_rf_sent").value == "zh"
    # the Chinese sentence is measured on its English counterpart, with its own picker
    assert at.selectbox(key="cnn_rf_mpos").value == analysis.english_counterpart().index("their")
    at.segmented_control(key="cnn_rf_sent").set_value("en").run()  # changed in part 2 ...
    assert not at.exception
    assert at.selectbox(key="cnn_rf_pos").value == EN_MEET  # ... its own words, the pair's node
    at.segmented_control(key=PART).set_value("theory").run()
    assert at.query_params["sent"] == "en"
    assert _chart(at, "cnn_rf_windows")["layout"]["xaxis"]["ticktext"][EN_A] == "cicadas"


def test_the_formula_does_not_import_torch():
    """Part 1 (the default) needs only formulas: the page's module-level imports must not
    pull in torch (~1.5 s on a cold server); parts 2 and 3 import what they need."""
    tree = ast.parse((ROOT / PAGE).read_text(encoding="utf-8"))
    lines = [ast.unparse(n) for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    code = "\n".join([*lines, "import sys", "print('torch' in sys.modules)"])
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "False", lines


def test_a_click_in_a_fragment_passes_the_fair_gate(wire, monkeypatch):
    """A fragment's own rerun skips app.py and its frame: ui.fragment takes it through the
    fair gate itself (else a client could rerun a part past every limit)."""
    from serve import admission
    from serve.fairshare import FairGate

    gate = FairGate(1)
    monkeypatch.setattr(admission, "_GATE", gate)
    at = make_app(PAGE, lang="en").run(timeout=120)
    assert gate.granted == 1  # the full run: once, its fragments inside it do not re-enter
    sent = _click(at, wire, at.select_slider(key="cnn_rf_k"), 5)
    assert _widgets(sent) == FRAGMENTS["formula_section"]  # the fragment alone ran
    assert gate.granted == 2 and gate.running() == 0 and not admission.holding()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_lead_and_the_metric_give_the_same_distance(lang):
    """The lead names the lesson's pair in the sentence on screen and its distance, the
    number the "distance between the pair" metric shows (computed, never typed)."""
    at = make_app(PAGE, lang=lang).run(timeout=120)
    assert not at.exception
    gap = at.main.metric[2].value  # "20 words" / "26 个词"
    n = int(gap.split()[0])
    kind = "zh" if lang == "zh" else "en"
    tokens, (a, b), _ = analysis.choose_sentence(kind, "")
    assert n == b - a
    leads = [
        m.value
        for m in at.main.markdown
        if f"“{tokens[b]}”" in m.value and f"“{tokens[a]}”" in m.value and f" {n} " in m.value
    ]
    assert leads, "no text names the pair on screen with its distance"
    lead = leads[0]
    if lang == "en":  # and the lesson's own pair, its distance computed too
        zt, (za, zb), _ = analysis.choose_sentence("zh", "")
        assert f"{zt[zb]} → {zt[za]}: {zb - za} words" in lead
