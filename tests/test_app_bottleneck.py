"""The bottleneck page through AppTest.

Most tests run on a small *untrained* zoo written to a temporary folder (``dev_zoo`` in
``tests/conftest.py``: random weights, the real architectures and sizes, a vocabulary from
the grammar), so they do not depend on the training run;
one test checks the page against the shipped zoo when it is there.
"""

from __future__ import annotations

import json

import pytest
import streamlit as st

import core.zoo as zoo
from core import corpus
from core.analysis import bottleneck as bn
from core.i18n import translate
from tests.conftest import dev_zoo_loaded, make_app

PAGE = "pages/bottleneck.py"
FOCUS = ("gru_plain_32", "gru_plain_128", "gru_plain_256", "gru_attention")
LESSON = "the cat drank the milk because it was hungry"


def _example(n: int) -> corpus.Pair:
    # the page's example sentences: EXAMPLE_SEED (2015) + length
    return bn.sample_sentences(2015 + n, 1, n, n)[0]


@pytest.fixture(scope="module")
def dev_zoo(dev_zoo_dir):
    """The untrained zoo of ``tests.conftest`` for this module; caches are kept between the
    tests of the module (the probes take a few seconds) and cleared before and after."""
    with dev_zoo_loaded(dev_zoo_dir) as manifest:
        yield manifest


def _run(**params):
    at = make_app(PAGE, **params).run(timeout=180)
    assert not at.exception, [e.value for e in at.exception]
    return at


def _charts(at) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def _titles(at) -> list[str]:
    return [c["layout"]["title"]["text"] for c in _charts(at)]


def _metric(at, label_key: str, lang: str = "en") -> str:
    label = translate(label_key, lang)
    return next(m.value for m in at.metric if m.label == label)


# --- the shipped zoo (first: the dev_zoo fixture then patches the zoo for the module) ---


def _shipped_ready() -> bool:
    try:
        manifest = zoo.load_manifest()
    except zoo.ZooError:
        return False
    return all(n in manifest["models"] for n in FOCUS)


@pytest.mark.skipif(
    not _shipped_ready(), reason="the shipped plain/attention models are not built yet"
)
def test_shipped_zoo_length_chart_matches_the_manifest():
    st.cache_resource.clear()
    st.cache_data.clear()
    at = _run(lang="en")
    manifest = zoo.load_manifest()
    chart = next(c for c in _charts(at) if "Figure 2" in c["layout"]["title"]["text"])
    ys = {tr["name"]: tr["y"] for tr in chart["data"]}
    for name in FOCUS:
        by_length = manifest["models"][name]["metrics"]["by_length"]
        assert ys[name] == pytest.approx([by_length[b]["exact"] for b in corpus.BUCKETS])
    # the claim of the page: attention stays high on long sentences, plain models fall
    assert ys["gru_attention"][-1] > max(ys[n][-1] for n in FOCUS[:3]) + 0.3
    st.cache_resource.clear()
    st.cache_data.clear()


# --- default view and controls ------------------------------------------------------------


def test_default_view_has_every_part_and_writes_its_state(dev_zoo):
    at = _run(lang="en")
    assert len(_charts(at)) == 6  # states, C strip, length, stretch, probe, gradient
    qp = at.query_params
    assert qp["plain"] == "gru_plain_256" and qp["metric"] == "exact"
    assert qp["len"] == "40" and qp["seed"] == "0"
    assert qp["text"] == " ".join(_example(32).src)
    assert _metric(at, "bottleneck.read.c_size") == "256"
    assert _metric(at, "bottleneck.read.words") == "32"
    # the example sentence has a reference: it is shown, as token chips
    ref = _example(32).tgt
    assert any(m.value.startswith("Reference:") and f"`{ref[0]}`" in m.value for m in at.markdown)


def test_plain_model_choice_changes_c_and_url(dev_zoo):
    at = _run(lang="en")
    at.segmented_control(key="bn_plain").set_value("gru_plain_32").run()
    assert not at.exception
    assert at.query_params["plain"] == "gru_plain_32"
    assert _metric(at, "bottleneck.read.c_size") == "32"
    assert any("gru_plain_32" in title for title in _titles(at))


def test_example_button_and_typed_sentence(dev_zoo):
    at = _run(lang="en")
    at.button(key="bn_ex_8").click().run()
    assert at.text_input(key="bn_text").value == " ".join(_example(8).src)
    assert at.query_params["text"] == " ".join(_example(8).src)
    assert _metric(at, "bottleneck.read.words") == "8"
    at.text_input(key="bn_text").input(LESSON).run()
    assert not at.exception and at.query_params["text"] == LESSON
    # a lesson sentence: the grammar's reference translation is known
    assert any("`猫`" in m.value and m.value.startswith("Reference:") for m in at.markdown)
    at.text_input(key="bn_text").input("the cat sleeps at home now").run()
    assert translate("bottleneck.side.no_reference", "en") in [c.value for c in at.caption]


def test_stretch_slider_and_new_batch(dev_zoo):
    at = _run(lang="en")
    at.slider(key="bn_len").set_value(12).run()
    assert at.query_params["len"] == "12"
    assert any("12-word" in title for title in _titles(at))
    assert not at.expander[0].markdown  # closed: the sentences are not even drawn
    at.session_state["bn_sents"] = True  # open it
    at.run()
    before = [m.value for m in at.expander[0].markdown]
    assert len(before) == 8  # one block per sentence: source, reference, two outputs
    assert all(len(v.split("`")[1].split()) == 12 for v in before if v.startswith("**"))
    at.button(key="bn_new").click().run()
    assert at.query_params["seed"] == "1"
    assert [m.value for m in at.expander[0].markdown] != before


def test_metric_switch_changes_the_length_chart(dev_zoo):
    at = _run(lang="en")
    at.segmented_control(key="bn_metric").set_value("edit_acc").run()
    assert at.query_params["metric"] == "edit_acc"
    chart = next(c for c in _charts(at) if "Figure 2" in c["layout"]["title"]["text"])
    ys = {tr["name"]: tr["y"] for tr in chart["data"]}
    for name in (*FOCUS, "cnn_s2s", "transformer"):
        expected = [
            dev_zoo["models"][name]["metrics"]["by_length"][b]["edit_acc"] for b in corpus.BUCKETS
        ]
        assert ys[name] == pytest.approx(expected)


def test_log_toggle(dev_zoo):
    at = _run(lang="en")
    at.toggle(key="bn_log").set_value(True).run()
    assert at.query_params["log"] == "1"
    grad = next(c for c in _charts(at) if "∂C" in c["layout"]["title"]["text"])
    assert grad["layout"]["yaxis"]["type"] == "log"


# --- deep links and bad input ------------------------------------------------------------------


def test_deep_link_restores_the_view(dev_zoo):
    at = _run(
        lang="zh",
        plain="gru_plain_128",
        text=LESSON,
        len="20",
        seed="5",
        metric="token_acc",
        log="1",
    )
    assert not at.warning
    assert at.segmented_control(key="bn_plain").value == "gru_plain_128"
    assert at.segmented_control(key="bn_metric").value == "token_acc"
    assert at.text_input(key="bn_text").value == LESSON
    assert at.slider(key="bn_len").value == 20
    assert at.toggle(key="bn_log").value is True
    assert _metric(at, "bottleneck.read.c_size", "zh") == "128"
    assert any("20 词" in title for title in _titles(at))


def test_bad_params_fall_back_with_notices(dev_zoo):
    at = make_app(
        PAGE, lang="en", plain="gru_plain_999", len="500", seed="x", metric="bleu", log="2"
    ).run(timeout=180)
    assert not at.exception
    warnings = " ".join(w.value for w in at.warning)
    for bad in ("gru_plain_999", "500", "bleu"):
        assert bad in warnings
    qp = at.query_params
    assert (qp["plain"], qp["len"], qp["seed"], qp["metric"], qp["log"]) == (
        "gru_plain_256",
        "40",
        "0",
        "exact",
        "0",
    )


@pytest.mark.parametrize(
    ("lang", "text", "expect"),
    [
        ("en", "the kat drank the milk", ["kat", "hat"]),
        ("zh", "the kat drank the milk", ["kat", "hat", "不认识"]),
        ("en", "<script>alert(1)</script> 🐱", ["script", "alert"]),
        ("en", "word " * 70, ["more than 60 words"]),
    ],
)
def test_bad_sentences_get_a_clear_message_and_the_page_keeps_working(dev_zoo, lang, text, expect):
    at = _run(lang=lang)
    at.text_input(key="bn_text").input(text).run()
    assert not at.exception
    message = " ".join(e.value for e in at.error)
    for part in expect:
        assert part in message
    assert "<script>" not in message
    assert len(_charts(at)) == 3  # length, stretch, probe: the parts without the sentence


def test_empty_sentence(dev_zoo):
    at = _run(lang="en")
    at.text_input(key="bn_text").input("   ").run()
    assert not at.exception and not at.warning
    assert translate("bottleneck.input.empty", "en") in [e.value for e in at.error]
    at = _run(lang="zh", text="")  # a link with an empty sentence: the same message
    assert translate("bottleneck.input.empty", "zh") in [e.value for e in at.error]


def test_missing_manifest_names_file_and_command(no_manifest):
    st.cache_resource.clear()
    st.cache_data.clear()
    for lang, word in (("en", "Rebuild"), ("zh", "重新生成")):
        at = make_app(PAGE, lang=lang).run(timeout=120)
        assert not at.exception
        msg = " ".join(e.value for e in at.error)
        assert "manifest.json" in msg and "python -m core.train --all" in msg and word in msg
        assert not at.get("plotly_chart")
    st.cache_resource.clear()
    st.cache_data.clear()
