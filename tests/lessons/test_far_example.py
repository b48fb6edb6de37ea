"""The lesson's long dependency in one sentence: the alignment offers a long-range sentence
(秋蝉 40 words before "their", chosen by ``core.analysis.longrange.far_row_search``), starts
on the row that writes the noun for "their" and says where its weight goes; path length's
long-range part links there."""

from __future__ import annotations

import json
from urllib.parse import parse_qs

import pytest
import streamlit as st

from core import zoo
from core.analysis import longrange
from core.corpus.lesson import CICADAS
from core.i18n import translate
from tests.conftest import main_text, make_app

needs_zoo = pytest.mark.skipif(not zoo.MANIFEST_PATH.is_file(), reason="no trained zoo")


@pytest.fixture(scope="module")
def far():
    src, tgt = zoo.load_vocabs()
    model = zoo.load_model("gru_attention")
    return longrange.far_row_search(model, src, tgt.tokens, CICADAS.pair_zh[0])


@needs_zoo
def test_the_search_picks_a_far_sentence_whose_row_peaks_on_the_noun(far):
    pair, row = far
    info = dict(pair.info)
    assert info["antecedent"] == CICADAS.pair_zh[0] and info["reading"] == "song"
    assert row.distance == int(info["distance"]) == 40  # the probe's farthest distance
    assert [pair.src[i] for i in row.noun] == ["autumn", "cicadas"]
    assert pair.src[row.their] == "their"
    # the claim the words make: the noun's words hold most of the row, "their" next to none
    assert row.on_noun >= 0.3 and row.on_their < 0.05


@needs_zoo
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_alignment_shows_the_row_of_their_on_the_noun(far, lang):
    pair, row = far
    st.cache_data.clear()
    at = make_app(
        "pages/attention.py", lang=lang, present="1", part="align", s=" ".join(pair.src)
    ).run(timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    assert " ".join(pair.src) in at.selectbox(key="attention_example").options
    assert at.select_slider(key="attention_step").value == row.step + 1
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert len(spec["data"][0]["x"]) == len(pair.src) + 1  # every word and the end mark
    line = translate(
        "attention.align.far",
        lang,
        d=row.distance,
        noun="autumn cicadas",
        zh=CICADAS.pair_zh[0],
        w=f"{row.on_noun:.2f}",
        w_their=f"{row.on_their:.2f}",
    )
    assert line in main_text(at)
    # another step: the words say where the row is
    at.select_slider(key="attention_step").set_value(1).run(timeout=300)
    assert not at.exception
    assert f"{row.step + 1} · {CICADAS.pair_zh[0]}" in main_text(at)


@needs_zoo
def test_the_default_alignment_is_unchanged_by_the_offer(far):
    at = make_app("pages/attention.py", lang="en", part="align").run(timeout=300)
    assert not at.exception
    assert at.select_slider(key="attention_step").value == 1
    text = main_text(at)
    assert "words after" not in text and "Step to" not in text


@needs_zoo
def test_path_length_links_to_the_sentence_in_the_alignment(far):
    pair, _ = far
    at = make_app("pages/path_length.py", lang="en", part="cicadas").run(timeout=300)
    assert not at.exception
    label = translate("path_length.cicadas.link_align", "en", far=40)
    (link,) = [el.proto for el in at.get("page_link") if el.proto.label == label]
    query = parse_qs(link.query_string)
    assert query["part"] == ["align"] and query["model"] == ["gru_attention"]
    assert query["s"] == [" ".join(pair.src)]
