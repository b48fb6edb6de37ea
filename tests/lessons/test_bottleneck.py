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
from charts.bottleneck import chip
from core import corpus, lexicon
from core.analysis import bottleneck as bn
from core.i18n import translate
from tests.conftest import dev_zoo_loaded, make_app

PAGE = "pages/bottleneck.py"
PARTS = ("latent", "read", "side", "length", "stretch", "probe")
LM = "lm_gru"
# the charts each part draws (and no other part), on the development zoo
PART_CHARTS = {
    "latent": ["bn_latent"],
    "read": ["bn_states"],  # h_t and, under it, the strip of C: one figure
    "side": [],
    "length": ["bn_length"],
    "stretch": ["bn_stretch"],
    "probe": ["bn_probe"],
}
# the parts that use one plain model: each draws the model switch at its own top
PLAIN_PARTS = ("read", "side", "stretch")
# the parts that read the sentence: each draws the sentence box (and only they do)
SENTENCE_PARTS = ("read", "side")
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


def _chart_keys(at) -> list[str]:
    """The page's own keys of the charts shown (``bn_states``...), in order."""
    return [c.proto.id.rsplit("-", 1)[-1] for c in at.get("plotly_chart")]


def _titles(at) -> list[str]:
    return [c["layout"]["title"]["text"] for c in _charts(at)]


def _metric(at, label_key: str, lang: str = "en") -> str:
    label = translate(label_key, lang)
    return next(m.value for m in at.metric if m.label == label)


def _switches(at) -> list[str]:
    """The keys of the segmented controls of the main area, in order."""
    return [c.key for c in at.main.get("button_group")]


# --- the shipped zoo (first: the dev_zoo fixture then patches the zoo for the module) ---


def _shipped_ready() -> bool:
    try:
        manifest = zoo.load_manifest()
    except zoo.ZooError:
        return False
    return all(n in manifest["models"] for n in (*FOCUS, LM))


def _name(model: str, lang: str = "en") -> str:
    return translate(f"model.{model}.name", lang)


shipped = pytest.mark.skipif(
    not _shipped_ready(), reason="the shipped plain/attention/language models are not built yet"
)


@shipped
def test_shipped_zoo_length_chart_matches_the_manifest():
    st.cache_resource.clear()
    st.cache_data.clear()
    at = _run(lang="en", part="length")
    manifest = zoo.load_manifest()
    chart = _charts(at)[_chart_keys(at).index("bn_length")]
    ys = {tr["name"]: tr["y"] for tr in chart["data"]}
    colors = {tr["name"]: tr["line"]["color"] for tr in chart["data"]}
    for name in FOCUS:
        by_length = manifest["models"][name]["metrics"]["by_length"]
        assert ys[_name(name)] == pytest.approx([by_length[b]["exact"] for b in corpus.BUCKETS])
    # one vocabulary: display names and the lexicon's colours, the transformer's included
    for name in (*FOCUS, "cnn_s2s", "transformer"):
        assert colors[_name(name)] == lexicon.look(name).color
    # the claim of the part: attention stays high on long sentences, plain models fall
    assert ys[_name("gru_attention")][-1] > max(ys[_name(n)][-1] for n in FOCUS[:3]) + 0.3
    st.cache_resource.clear()
    st.cache_data.clear()


@shipped
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_shipped_default_view_is_the_latent_state_and_proves_its_takeaway(lang):
    """Part 1 (the default): the language model's state after "should" guesses "wear" and
    after "wear" guesses "shoes", each above 50 % -- what the takeaway says."""
    st.cache_resource.clear()
    st.cache_data.clear()
    at = _run(lang=lang)
    assert at.segmented_control(key="bottleneck_part").value == "latent"
    assert _chart_keys(at) == ["bn_latent"]
    heat, bars = _charts(at)[0]["data"]
    assert heat["z"]["shape"].endswith(", 5")  # one column per word read, BOS first
    # the newcomer's guide says the chart's own numbers: its columns and its rows
    rows, cols = (int(x) for x in heat["z"]["shape"].split(","))
    guide = translate("bottleneck.latent.guide", lang, n=cols, size=rows)
    assert guide in [m.value for m in at.markdown]
    guesses = bars["text"]
    assert guesses[2].startswith("→ wear ") and guesses[3].startswith("→ shoes ")
    MIN_PROB = 0.5
    probs = bars["y"] if isinstance(bars["y"], list) else None
    if probs is not None:
        assert probs[2] > MIN_PROB and probs[3] > MIN_PROB
    assert _name(LM, lang) in _titles(at)[0]
    said = translate(
        "bottleneck.latent.takeaway", lang, prompt="you should", next1="wear", next2="shoes"
    )
    assert said in [s.value for s in at.success]
    # no sentence box on a part that does not read it
    with pytest.raises(KeyError):
        at.text_input(key="bn_text")
    st.cache_resource.clear()
    st.cache_data.clear()


# --- one part at a time ------------------------------------------------------------------------


def test_default_view_is_part_one_and_writes_no_other_state(dev_zoo):
    at = _run(lang="en")
    assert at.segmented_control(key="bottleneck_part").value == "latent"
    qp = at.query_params
    assert qp["part"] == "latent"
    # the other parts' state is neither computed nor written
    assert not {"metric", "len", "seed", "log", "plain", "text"} & set(qp)
    # the development zoo has a (untrained) language model too: part 1 draws its states
    assert not at.exception and not at.error and at.get("plotly_chart")


@pytest.mark.parametrize("part", PARTS)
def test_every_part_renders_alone_with_only_its_charts(dev_zoo, part):
    at = _run(lang="en", part=part)
    assert at.query_params["part"] == part
    assert _chart_keys(at) == PART_CHARTS[part]
    assert [h.value for h in at.header] == [translate(f"bottleneck.{part}.header", "en")]
    # the sentence box only on the parts that read the sentence; the plain model's switch
    # only on the parts that use one; each under the chart (the slide layout)
    if part in SENTENCE_PARTS:
        assert at.text_input(key="bn_text").value == " ".join(_example(32).src)
    else:
        with pytest.raises(KeyError):
            at.text_input(key="bn_text")
    own = {"length": ["bn_metric"]}.get(part, [])
    if part in PLAIN_PARTS:
        assert _switches(at) == ["bottleneck_part", "bn_plain", *own]
        assert at.segmented_control(key="bn_plain").value == "gru_plain_256"
    else:
        assert _switches(at) == ["bottleneck_part", *own]
    if part != "latent":  # (the development zoo has no language model)
        # (read's takeaway quotes its example lengths: test_read_takeaway_names_the_example_lengths)
        values = {"short": bn.EXAMPLE_LENGTHS[0], "long": bn.EXAMPLE_LENGTHS[-1]}
        said = translate(f"bottleneck.{part}.takeaway", "en", **values)
        assert said in [s.value for s in at.success]
        assert any(translate(f"bottleneck.{part}.try", "en") in i.value for i in at.info)


def test_each_part_writes_its_own_state_when_shown(dev_zoo):
    # each part writes its own defaults to the URL when it is shown
    expected = {
        "read": {"plain": "gru_plain_256", "text": " ".join(_example(32).src)},
        "length": {"metric": "exact"},
        "stretch": {"len": "40", "seed": "0"},
    }
    for part, values in expected.items():
        qp = _run(lang="en", part=part).query_params
        assert {k: qp[k] for k in values} == values, part


def test_the_part_selector_switches_part_and_url(dev_zoo):
    at = _run(lang="en")
    for part in ("length", "side", "probe", "read"):
        at.segmented_control(key="bottleneck_part").set_value(part).run()
        assert not at.exception, part
        assert at.query_params["part"] == part
        assert _chart_keys(at) == PART_CHARTS[part], part
    # the labels are short and numbered, in both languages
    for lang in ("en", "zh"):
        at = _run(lang=lang)
        labels = [at.segmented_control(key="bottleneck_part").format_func(p) for p in PARTS]
        assert [label.split(" · ")[0] for label in labels] == [
            str(i) for i in range(1, len(PARTS) + 1)
        ]
        assert all(len(label) <= 20 for label in labels), labels


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_intro_is_folded_and_after_the_part_on_the_projector(dev_zoo, lang):
    intro = translate("bottleneck.intro", lang)
    label = translate("bottleneck.intro_more", lang)
    for present in ("0", "1"):
        at = _run(lang=lang, present=present, part="length")  # it has a "curious" fold
        predict = translate("poll.predict.title", lang)  # the shell's block after the part
        expanders = [e for e in at.main.expander if e.label != predict]
        folds = [e.label for e in expanders]
        assert label in folds and len(folds) == 2
        fold = expanders[folds.index(label)]
        assert [m.value for m in fold.markdown] == [intro]
        # on the projector nothing but the part's lead comes before the chart: the intro
        # fold comes after the part
        assert folds.index(label) == (1 if present == "1" else 0)
        # part 2 draws C without its strip on the projector (one big heatmap)
        at = _run(lang=lang, present=present, part="read")
        assert len(_charts(at)[0]["data"]) == (1 if present == "1" else 2)
    assert not at.header  # the highlighted part button names the part on the projector


def test_probes_start_only_when_their_part_is_shown(dev_zoo, monkeypatch):
    from serve import jobs

    started: list[str] = []
    real = jobs.in_thread

    def spy(name, fn, *args):
        started.append(name)
        return real(name, fn, *args)

    monkeypatch.setattr(jobs, "in_thread", spy)
    st.cache_resource.clear()  # forget a probe job of an earlier test
    for part in ("latent", "read", "side", "length", "stretch"):
        _run(lang="en", part=part)
    assert started == []
    at = _run(lang="en", part="probe")
    assert started == ["bottleneck-probes"]
    assert _chart_keys(at) == ["bn_probe"]


def test_invalid_part_falls_back_with_a_notice(dev_zoo):
    at = _run(lang="en", part="<b>nope</b>")
    assert "nope" in " ".join(w.value for w in at.warning)
    assert at.query_params["part"] == "latent"
    assert _chart_keys(at) == PART_CHARTS["latent"]


def test_a_parameter_of_another_part_shows_the_default_part(dev_zoo):
    at = _run(lang="en", len="12", metric="edit_acc")
    assert not at.warning
    assert at.query_params["part"] == "latent"
    # the values stay in the link and are used as soon as their part is opened
    at.segmented_control(key="bottleneck_part").set_value("stretch").run()
    assert at.slider(key="bn_len").value == 12
    assert any("12-word" in title for title in _titles(at))


# --- the controls of each part ----------------------------------------------------------------


def test_plain_model_choice_changes_c_and_url(dev_zoo):
    at = _run(lang="en", part="read")
    at.segmented_control(key="bn_plain").set_value("gru_plain_32").run()
    assert not at.exception
    assert at.query_params["plain"] == "gru_plain_32"
    assert _metric(at, "bottleneck.read.c_size") == "32"
    assert any(_name("gru_plain_32") in title for title in _titles(at))


@pytest.mark.parametrize("present", ["0", "1"])
def test_the_states_plot_keeps_its_place_when_the_model_changes(dev_zoo, present):
    """Each plain model's heatmap gets the same margins (its dimension labels padded to the
    widest model's): the browser redraws it in place instead of measuring every label anew."""
    at = _run(lang="en", part="read", present=present)
    margins = {}
    for name in ("gru_plain_32", "gru_plain_128", "gru_plain_256"):
        at.segmented_control(key="bn_plain").set_value(name).run()
        assert not at.exception
        fig = _charts(at)[0]
        rows = fig["data"][0]["z"]["shape"].split(",")[0]  # this model's dimensions
        assert int(rows) == int(name.rsplit("_", 1)[1])
        margins[name] = fig["layout"]["margin"]
    assert len({json.dumps(m, sort_keys=True) for m in margins.values()}) == 1, margins


def test_a_model_change_keeps_the_sentence_and_the_part_and_redraws_part_two(dev_zoo):
    at = _run(lang="en", part="read")
    at.button(key="bn_ex_16").click().run()
    sentence = " ".join(_example(16).src)
    before = _charts(at)[0]
    assert _name("gru_plain_256") in before["layout"]["title"]["text"]
    for name, size in (("gru_plain_128", 128), ("gru_plain_32", 32)):
        at.segmented_control(key="bn_plain").set_value(name).run()
        assert not at.exception and not at.warning
        # the sentence and the part are kept, in the widgets and in the link
        assert at.text_input(key="bn_text").value == sentence
        assert at.segmented_control(key="bottleneck_part").value == "read"
        qp = at.query_params
        assert (qp["text"], qp["part"], qp["plain"]) == (sentence, "read", name)
        # part 2 is drawn again, for the new model: its title, C's size, h_t's rows
        assert _chart_keys(at) == ["bn_states"]
        heat, strip = _charts(at)[0]["data"]
        assert _name(name) in _titles(at)[0] and "16 words" in _titles(at)[0]
        assert _metric(at, "bottleneck.read.c_size") == str(size)
        assert _metric(at, "bottleneck.read.words") == "16"
        assert _metric(at, "bottleneck.read.states") == f"17 × {size}"
        assert heat["z"]["shape"] == f"{size}, 17" and strip["z"]["shape"] == f"1, {size}"
        assert at.header[0].value == translate("bottleneck.read.header", "en")


@pytest.mark.parametrize("part", ("side", "stretch"))
def test_the_model_switch_of_the_other_parts_changes_their_model(dev_zoo, part):
    at = _run(lang="en", part=part)
    at.segmented_control(key="bn_plain").set_value("gru_plain_32").run()
    assert not at.exception
    assert at.segmented_control(key="bottleneck_part").value == part
    assert at.query_params["plain"] == "gru_plain_32"
    if part in SENTENCE_PARTS:
        assert at.text_input(key="bn_text").value == " ".join(_example(32).src)
    if part == "side":
        assert any(m.value.endswith(_name("gru_plain_32")) for m in at.markdown)
        assert not any(_name("gru_plain_256") in m.value for m in at.markdown)
    elif part == "stretch":
        names = {tr["name"] for tr in _charts(at)[0]["data"]}
        assert names == {_name("gru_plain_32"), _name("gru_attention")}
    else:
        assert _name("gru_plain_32") in _titles(at)[0]


@pytest.mark.parametrize("part", ("latent", "length", "probe"))
def test_parts_without_the_plain_model_show_no_switch(dev_zoo, part):
    at = _run(lang="en", part=part)
    with pytest.raises(KeyError):
        at.segmented_control(key="bn_plain")
    assert "bn_plain" not in _switches(at)
    assert translate("bottleneck.plain.label", "en") not in [
        c.label for c in at.main.get("button_group")
    ]
    # nor does it write a model to the link; a model already in it stays for the other parts
    assert "plain" not in at.query_params
    at = _run(lang="en", part=part, plain="gru_plain_32")
    assert at.query_params["plain"] == "gru_plain_32"
    at.segmented_control(key="bottleneck_part").set_value("read").run()
    assert at.segmented_control(key="bn_plain").value == "gru_plain_32"
    assert _metric(at, "bottleneck.read.c_size") == "32"


def test_plain_round_trips_through_the_url(dev_zoo):
    # the link sets the switch; the switch writes the link; the written link reopens it
    for name in ("gru_plain_32", "gru_plain_128", "gru_plain_256"):
        at = _run(lang="en", part="read", plain=name)
        assert at.segmented_control(key="bn_plain").value == name
        assert at.query_params["plain"] == name
    at.segmented_control(key="bn_plain").set_value("gru_plain_128").run()
    at.segmented_control(key="bottleneck_part").set_value("side").run()
    at.text_input(key="bn_text").input(LESSON).run()
    link = {k: v for k, v in at.query_params.items() if k not in ("lang", "present")}
    assert link == {"part": "side", "plain": "gru_plain_128", "text": LESSON}
    again = _run(lang="zh", **link)
    assert not again.warning
    assert again.segmented_control(key="bn_plain").value == "gru_plain_128"
    assert again.segmented_control(key="bottleneck_part").value == "side"
    assert again.text_input(key="bn_text").value == LESSON
    assert any(m.value.endswith(_name("gru_plain_128", "zh")) for m in again.markdown)


def test_the_controls_of_a_part_rerun_that_part_only(dev_zoo, monkeypatch):
    """Which fragment draws each control: a widget reruns the fragment it is drawn in, so the
    sentence sits in the part's own fragment, the part selector in the lesson's, and in a
    part that reads the sentence the model switch in a fragment
    nested in the part's: a switch does not send the sentence box again (the browser test
    checks what a click really sends)."""
    import functools
    import sys

    stack: list[str] = []
    drawn: dict[str, tuple[str, ...]] = {}
    real_fragment = st.fragment

    def spy_fragment(func=None, **kwargs):
        def wrap(f):
            # a part's fragment by its module (lessons.bottleneck.read), the page's by name
            name = f.__module__ if f.__module__.startswith("lessons.") else f.__name__

            @functools.wraps(f)
            def inner(*args, **kw):
                stack.append(name)
                try:
                    return f(*args, **kw)
                finally:
                    stack.pop()

            return real_fragment(inner, **kwargs)

        return wrap(func) if func is not None else wrap

    def spy_widget(real):
        def widget(*args, **kwargs):
            drawn[kwargs.get("key")] = tuple(stack)
            return real(*args, **kwargs)

        return widget

    monkeypatch.setattr(st, "fragment", spy_fragment)
    # the part modules decorate their fragments when imported: import them again, spied
    for name in [m for m in sys.modules if m.startswith("lessons.bottleneck")]:
        monkeypatch.delitem(sys.modules, name)
    for name in ("segmented_control", "text_input", "button", "slider", "toggle"):
        monkeypatch.setattr(st, name, spy_widget(getattr(st, name)))
    expected = {part: f"lessons.bottleneck.{part}" for part in ("read", "side", "stretch")}
    switch = "lessons.bottleneck.common"  # the model switch's own fragment (model_view)
    for part, fragment in expected.items():
        drawn.clear()
        _run(lang="en", part=part)
        reads = part in SENTENCE_PARTS
        assert drawn["bn_plain"] == ("lesson", fragment, *([switch] if reads else [])), part
        assert drawn["bottleneck_part"] == ("lesson",), part
        for key in ("bn_text", "bn_ex_8", "bn_ex_44"):
            assert (drawn.get(key) == ("lesson", fragment)) == reads, (part, key)


def test_example_button_and_typed_sentence(dev_zoo):
    at = _run(lang="en", part="read")
    at.button(key="bn_ex_8").click().run()
    assert at.text_input(key="bn_text").value == " ".join(_example(8).src)
    assert at.query_params["text"] == " ".join(_example(8).src)
    assert _metric(at, "bottleneck.read.words") == "8"
    # part 2 shows the example's reference, as token chips
    at.segmented_control(key="bottleneck_part").set_value("side").run()
    ref = _example(8).tgt
    assert any(m.value.startswith("Reference:") and chip(ref[0]) in m.value for m in at.markdown)
    at.text_input(key="bn_text").input(LESSON).run()
    assert not at.exception and at.query_params["text"] == LESSON
    # a lesson sentence: the grammar's reference translation is known
    assert any("猫" in m.value and m.value.startswith("Reference:") for m in at.markdown)
    at.text_input(key="bn_text").input("the cat sleeps at home now").run()
    assert translate("bottleneck.side.no_reference", "en") in [c.value for c in at.caption]


def test_default_example_has_its_reference_in_part_two(dev_zoo):
    at = _run(lang="en", part="side")
    ref = _example(32).tgt
    assert any(m.value.startswith("Reference:") and chip(ref[0]) in m.value for m in at.markdown)


def test_stretch_slider_and_new_batch(dev_zoo):
    at = _run(lang="en", part="stretch")
    at.slider(key="bn_len").set_value(12).run()
    assert at.query_params["len"] == "12"
    assert any("12-word" in title for title in _titles(at))
    assert not _sentences(at).markdown  # closed: the sentences are not even drawn
    at.session_state["bn_sents"] = True  # open it
    at.run()
    before = [m.value for m in _sentences(at).markdown]
    assert len(before) == 8  # one block per sentence: source, reference, two outputs
    # each block's first line: "**i.** " then the 12-word source, as body text
    sources = [v.split("  \n")[0].split("** ", 1)[1] for v in before if v.startswith("**")]
    assert len(sources) == 8 and all(len(src.split()) == 12 for src in sources)
    at.button(key="bn_new").click().run()
    assert at.query_params["seed"] == "1"
    assert [m.value for m in _sentences(at).markdown] != before
    # the curves stop where fewer than STRETCH_MIN_N of the 8 references are that long
    refs = [p.tgt for p in bn.stretch_pairs(12, 1)]
    for trace in _charts(at)[0]["data"]:
        ys = trace["y"] if isinstance(trace["y"], list) else None
        if ys is None:
            continue
        for p, y in enumerate(ys, 1):
            live = sum(len(r) >= p for r in refs)
            assert (y is None) == (live < bn.STRETCH_MIN_N), (p, live, y)


def _sentences(at):
    label = translate("bottleneck.stretch.sentences", "en")
    return next(e for e in at.expander if e.label == label)


def test_metric_switch_changes_the_length_chart(dev_zoo):
    at = _run(lang="en", part="length")
    at.segmented_control(key="bn_metric").set_value("edit_acc").run()
    assert at.query_params["metric"] == "edit_acc"
    chart = _charts(at)[_chart_keys(at).index("bn_length")]
    ys = {tr["name"]: tr["y"] for tr in chart["data"]}
    for name in (*FOCUS, "cnn_s2s", "transformer"):
        expected = [
            dev_zoo["models"][name]["metrics"]["by_length"][b]["edit_acc"] for b in corpus.BUCKETS
        ]
        assert ys[_name(name)] == pytest.approx(expected)


# --- deep links and bad input ------------------------------------------------------------------

DEEP = {
    "plain": "gru_plain_128",
    "text": LESSON,
    "len": "20",
    "seed": "5",
    "metric": "token_acc",
}


def test_deep_link_restores_the_view(dev_zoo):
    # the sentence on every part, the plain model and each part's own control in its part
    for part in PARTS:
        at = _run(lang="zh", part=part, **DEEP)
        assert not at.warning, part
        assert at.segmented_control(key="bottleneck_part").value == part
        if part in PLAIN_PARTS:
            assert at.segmented_control(key="bn_plain").value == "gru_plain_128"
        if part in SENTENCE_PARTS:
            assert at.text_input(key="bn_text").value == LESSON
        if part == "read":
            assert _metric(at, "bottleneck.read.c_size", "zh") == "128"
        elif part == "length":
            assert at.segmented_control(key="bn_metric").value == "token_acc"
        elif part == "stretch":
            assert at.slider(key="bn_len").value == 20
            assert any("20 词" in title for title in _titles(at))
        # every value of the link is kept, whichever part shows
        assert {k: at.query_params[k] for k in DEEP} == DEEP


BAD = {"plain": "gru_plain_999", "len": "500", "seed": "x", "metric": "bleu"}


@pytest.mark.parametrize(
    ("part", "shown", "fixed"),
    [
        ("read", ("gru_plain_999",), {"plain": "gru_plain_256"}),
        (
            "stretch",
            ("gru_plain_999", "500"),
            {"plain": "gru_plain_256", "len": "40", "seed": "0"},
        ),
        # part 3 has no plain model: it neither reads nor rewrites it (the next part does)
        ("length", ("bleu",), {"plain": "gru_plain_999", "metric": "exact"}),
    ],
)
def test_bad_params_fall_back_with_notices(dev_zoo, part, shown, fixed):
    at = make_app(PAGE, lang="en", part=part, **BAD).run(timeout=180)
    assert not at.exception
    warnings = " ".join(w.value for w in at.warning)
    for bad in shown:
        assert bad in warnings
    qp = at.query_params
    assert {k: qp[k] for k in fixed} == fixed
    assert _chart_keys(at) == PART_CHARTS[part]
    if part not in PLAIN_PARTS:
        assert "gru_plain_999" not in warnings
        at.segmented_control(key="bottleneck_part").set_value("read").run()
        assert "gru_plain_999" in " ".join(w.value for w in at.warning)
        assert at.query_params["plain"] == "gru_plain_256"


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
    at = _run(lang=lang, part="read")
    at.text_input(key="bn_text").input(text).run()
    assert not at.exception
    message = " ".join(e.value for e in at.error)
    for part in expect:
        assert part in message
    assert "<script>" not in message
    # part 2 needs the sentence: it says so, and draws nothing
    assert translate("bottleneck.need_sentence", lang) in [i.value for i in at.info]
    assert not _charts(at)


@pytest.mark.parametrize("part", PARTS)
def test_parts_without_the_sentence_keep_working_on_a_bad_sentence(dev_zoo, part):
    at = _run(lang="en", part=part, text="the kat drank the milk")
    needs = part in SENTENCE_PARTS
    # the message is under the sentence box, which only the parts that read it show
    assert ("kat" in " ".join(e.value for e in at.error)) == needs
    assert (translate("bottleneck.need_sentence", "en") in [i.value for i in at.info]) == needs
    # length, stretch, probe: the parts without the sentence still draw their chart
    assert _chart_keys(at) == ([] if needs else PART_CHARTS[part])


def test_empty_sentence(dev_zoo):
    at = _run(lang="en", part="read")
    at.text_input(key="bn_text").input("   ").run()
    assert not at.exception and not at.warning
    assert translate("bottleneck.input.empty", "en") in [e.value for e in at.error]
    at = _run(lang="zh", part="side", text="")  # a link with an empty sentence: the same
    assert translate("bottleneck.input.empty", "zh") in [e.value for e in at.error]


def test_missing_manifest_names_file_and_command(no_manifest):
    st.cache_resource.clear()
    st.cache_data.clear()
    for lang, word in (("en", "Rebuild"), ("zh", "重新生成")):
        for part in ("read", "probe"):
            at = make_app(PAGE, lang=lang, part=part).run(timeout=120)
            assert not at.exception
            msg = " ".join(e.value for e in at.error)
            assert "manifest.json" in msg and "python -m core.train --all" in msg and word in msg
            assert not at.get("plotly_chart")
    st.cache_resource.clear()
    st.cache_data.clear()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_length_bucket_sizes_are_the_manifests(dev_zoo, lang):
    """The "for the curious" fold states the test sentences per bucket the training run
    recorded, not a typed count."""
    at = _run(lang=lang, part="length")
    counts = bn.bucket_counts(dev_zoo, "gru_attention")
    key = (
        "bottleneck.length.curious" if len(set(counts)) == 1 else "bottleneck.length.curious_uneven"
    )
    said = translate(key, lang, n=sum(counts), per=min(counts))
    assert said in [m.value for e in at.main.expander for m in e.markdown]
    assert str(min(counts)) in said and str(sum(counts)) in said


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_read_takeaway_names_the_example_lengths(dev_zoo, lang):
    """ "C holds as many numbers for 8 words as for 44": the example buttons' lengths."""
    at = _run(lang=lang, part="read")
    short, long = bn.EXAMPLE_LENGTHS[0], bn.EXAMPLE_LENGTHS[-1]
    said = translate("bottleneck.read.takeaway", lang, short=short, long=long)
    assert said in [s.value for s in at.success] and f"{long}" in said
