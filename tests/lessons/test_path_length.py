"""The path-length page: one part at a time (Table 1, the word-pair paths, the lesson's long
dependency in every translation model, the probes, the three problems), deep links, bad
input."""

from __future__ import annotations

import ast
import base64
import subprocess
import sys

import numpy as np
import pytest
import streamlit as st

from core import lexicon, zoo
from core.analysis import longrange
from core.analysis import path_length as analysis
from core.analysis import receptive_field as rf
from core.i18n import translate
from lessons.path_length import problems
from tests.conftest import ROOT, as_a_phone, main_text, make_app, md_tables
from tests.lessons.parts import chart_keys, runs_alone
from tests.lessons.test_cnn_receptive_field import _chart, fake_zoo  # noqa: F401 (fixture)
from ui.nav import Stop, deck

PAGE = "pages/path_length.py"
PART = "path_length_part"  # the part selector's widget key
# the charts each part draws, and nothing else
PART_CHARTS = {
    "table": ["path_table_chart"],
    "pair": ["path_pair_chart"],
    "cicadas": ["path_cicadas_chart"],
    "probes": ["path_probes_chart"],
    "problems": ["path_problems_chart"],
}


def _chart_keys(at) -> list[str]:
    return chart_keys(at, PART_CHARTS)


def _array(values) -> np.ndarray:
    """A plotly JSON array: a list, or numpy's bytes as {"dtype", "bdata"}."""
    if isinstance(values, dict):
        return np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
    return np.asarray(values)


def _metrics(at) -> list[str]:
    return [str(m.value) for m in at.main.metric]


@pytest.mark.parametrize("part", list(PART_CHARTS))
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_part_runs_alone_with_only_its_charts(fake_zoo, part, lang):  # noqa: F811
    at = runs_alone(PAGE, PART, part, lang, PART_CHARTS)
    assert translate("shell.try", lang) in main_text(at)


def test_default_part_is_table_1(fake_zoo):  # noqa: F811
    at = make_app(PAGE, lang="en").run(timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    assert at.query_params["part"] == "table"
    assert _chart_keys(at) == ["path_table_chart"]
    assert not at.table  # a Markdown table: no pandas, no table bundle
    rows = md_tables(at)[0][1:]
    assert [r[0] for r in rows] == [
        "Self-attention",
        "Recurrent",
        "Convolution",
        "Dilated convolution",
    ]
    # n = 50, k = 3: recurrent 49 hops, convolution 25 layers, dilated ceil(log3 50) = 4
    assert rows[1][3] == "O(n) = 49" and rows[2][3] == "O(n/k) = 25"
    assert rows[3][3] == "O(log_k(n)) = 4" and rows[0][3] == "O(1) = 1"
    assert rows[0][1] == "O(n²·d) = 1,280,000"  # 50² · 512


def test_the_selector_switches_the_part_and_the_url(fake_zoo):  # noqa: F811
    at = make_app(PAGE, lang="en").run(timeout=120)
    for part in ("pair", "probes", "problems", "table"):
        at.segmented_control(key=PART).set_value(part).run()
        assert not at.exception, [e.value for e in at.exception]
        assert at.query_params["part"] == part
        assert _chart_keys(at) == PART_CHARTS[part]


def test_bad_part_falls_back_with_a_notice(fake_zoo):  # noqa: F811
    at = make_app(PAGE, lang="en", part="everything").run(timeout=120)
    assert not at.exception
    assert any("everything" in w.value and "part" in w.value for w in at.warning)
    assert at.query_params["part"] == "table"
    assert _chart_keys(at) == ["path_table_chart"]


def test_a_link_with_another_parts_parameters_opens_the_default_part(fake_zoo):  # noqa: F811
    at = make_app(PAGE, lang="en", sent="zh", a="0", b="26").run(timeout=120)
    assert not at.exception and not at.warning
    assert _chart_keys(at) == ["path_table_chart"]
    at.segmented_control(key=PART).set_value("pair").run()
    assert _metrics(at) == ["1", "26", "13", "3"]  # the link's pair, kept for its part


def test_table_sliders_change_the_numbers_and_the_url(fake_zoo):  # noqa: F811
    at = make_app(PAGE, lang="en").run(timeout=120)
    at.slider(key="path_n").set_value(200).run()
    at.slider(key="path_k").set_value(5).run()
    assert at.query_params["n"] == "200" and at.query_params["k"] == "5"
    assert md_tables(at)[0][3][3] == f"O(n/k) = {analysis.costs(200, 512, 5)['conv']['path']}"
    at.segmented_control(key="path_metric").set_value("complexity").run()
    fig = _chart(at, "path_table_chart")
    assert fig["layout"]["yaxis"]["type"] == "log"
    ys = {tr["name"]: _array(tr["y"]) for tr in fig["data"]}
    assert ys["Self-attention"][0] == pytest.approx(2 * 2 * 512)  # n = 2: n^2 d
    assert ys["Recurrent"][0] == pytest.approx(2 * 512 * 512)  # n d^2
    assert at.query_params["metric"] == "complexity"


def test_pair_steps_for_the_lessons_words(fake_zoo):  # noqa: F811
    at = make_app(PAGE, lang="zh", part="pair").run(timeout=120)
    assert not at.exception
    assert at.query_params["sent"] == "zh"
    # 秋蝉 (0) and 它们 (26), k = 3: 1 step, 26 steps, 13 layers, 3 dilated layers
    assert _metrics(at) == ["1", "26", "13", "3"]
    fig = _chart(at, "path_pair_chart")
    assert fig["layout"]["xaxis"]["ticktext"][0] == "秋蝉"


def test_pair_deep_link_and_change(fake_zoo):  # noqa: F811
    at = make_app(PAGE, lang="en", part="pair", sent="en", a="2", b="6", k="2", n="100", d="64")
    at.run(timeout=120)
    assert not at.exception
    assert at.selectbox(key="path_a").value == 2 and at.slider(key="path_k").value == 2
    # k = 2: 4 layers of one more word each; dilated 1, 2, 4: 2^3 = 8 >= 5 positions
    assert _metrics(at) == ["1", "4", "4", "3"]
    at.selectbox(key="path_b").set_value(3).run()
    assert at.query_params["b"] == "3"
    assert _metrics(at) == ["1", "1", "1", "1"]
    at.selectbox(key="path_b").set_value(2).run()
    assert any("two different words" in i.value for i in at.info)
    # the table's own parameters in the same link wait for their part
    at.segmented_control(key=PART).set_value("table").run()
    assert at.select_slider(key="path_d").value == 64 and at.slider(key="path_n").value == 100
    assert at.slider(key="path_k").value == 2


def test_bad_params_fall_back_with_a_notice(fake_zoo):  # noqa: F811
    at = make_app(PAGE, lang="en", n="0", d="7", k="x", metric="speed")
    at.run(timeout=120)
    assert not at.exception
    assert "speed" in "\n".join(w.value for w in at.warning)
    assert at.query_params["n"] == "50" and at.query_params["d"] == "512"
    assert at.query_params["k"] == "3" and at.query_params["metric"] == "path"
    at = make_app(PAGE, lang="en", part="pair", k="x", a="999").run(timeout=120)
    assert not at.exception
    assert "999" in "\n".join(w.value for w in at.warning)
    cicadas = rf.choose_sentence("en")[1][0]  # the default pair's first word
    assert at.query_params["k"] == "3" and at.query_params["a"] == str(cicadas)


@pytest.mark.parametrize(
    ("text", "expect"),
    [("🎉 ??", "no words to draw"), ("hello", "needs two words")],
)
def test_bad_own_text(fake_zoo, text, expect):  # noqa: F811
    at = make_app(PAGE, lang="en", part="pair", sent="own", text=text).run(timeout=120)
    assert not at.exception
    assert any(expect in w.value for w in at.warning)
    assert _chart_keys(at) == ["path_pair_chart"]  # the part keeps working


def test_own_text_is_plain_and_capped(fake_zoo):  # noqa: F811
    text = "<img src=x onerror=alert(1)> " + "word " * 80
    at = make_app(PAGE, lang="en", part="pair", sent="own", text=text[:300]).run(timeout=120)
    assert not at.exception
    assert any(str(rf.MAX_TOKENS) in i.value for i in at.info)
    assert not any("<img" in str(m.value) for m in at.main.markdown)
    fig = _chart(at, "path_pair_chart")
    assert len(fig["layout"]["xaxis"]["ticktext"]) == rf.MAX_TOKENS


def test_all_probes_on_one_chart(fake_zoo):  # noqa: F811
    at = make_app(PAGE, lang="en", part="probes").run(timeout=120)
    fig = _chart(at, "path_probes_chart")
    names = [tr["name"] for tr in fig["data"]]
    # the one display name of each probe (core.lexicon), in the lesson's order
    assert names == [lexicon.name(m, "en") for m in zoo.PROBE_MODELS]
    assert names[0] == "Plain RNN" and names[-1] == "Self-attention"
    for tr, model in zip(fig["data"], zoo.PROBE_MODELS, strict=True):
        assert tr["line"]["color"] == lexicon.look(model).color
    # LSTM, GRU and self-attention lie on one line (0.99 everywhere in the fake manifest):
    # the chart says so, and their markers take turns so each legend entry is visible
    notes = [a["text"].replace("<br>", " ") for a in fig["layout"]["annotations"]]
    assert any("LSTM, GRU, Self-attention: 100% at every distance" in n for n in notes)
    sizes = [tr["marker"]["size"] for tr in fig["data"] if tr["name"] in ("LSTM", "GRU")]
    assert all(isinstance(x, list) and 0 in x and max(x) > 0 for x in sizes)
    assert sizes[0] != sizes[1]
    caption = "\n".join(c.value for c in at.main.caption)
    # computed from the manifest, best first
    assert "distance, 60: LSTM 99% · GRU 99% · Self-attention 99% · Plain RNN 10%" in caption
    # mixed evidence said on screen, with the numbers, and where the limit shows
    (mixed,) = [w.value for w in at.warning]
    assert "LSTM / GRU" in mixed and "60 steps" in mixed and "99% → 10%" in mixed
    assert "fixed-size state" in mixed


def test_the_three_problems_side_by_side(fake_zoo):  # noqa: F811
    at = make_app(PAGE, lang="en", part="problems").run(timeout=120)
    text = main_text(at)
    for name in ("Alignment.", "Fixed-size state.", "Relation distance.", "Remedy:", "划重点"):
        assert name in text
    fig = _chart(at, "path_problems_chart")
    # the fake manifest has no translators: the alignment and distance pictures remain
    assert [tr["name"] for tr in fig["data"]][0] == "one summary vector: equal shares"
    assert {"Recurrent", "Self-attention"} <= {tr["name"] for tr in fig["data"]}


def test_without_manifest_the_formulas_still_work(no_zoo):
    for part in ("table", "pair"):
        at = make_app(PAGE, lang="en", part=part).run(timeout=120)
        assert not at.exception
        assert _chart_keys(at) == PART_CHARTS[part] and not at.main.error
    at = make_app(PAGE, lang="en", part="probes").run(timeout=120)
    assert not at.exception
    assert not at.get("plotly_chart")
    assert any("manifest.json" in e.value for e in at.main.error)
    at = make_app(PAGE, lang="en", part="problems").run(timeout=120)
    assert not at.exception and _chart_keys(at) == ["path_problems_chart"]


def test_on_a_phone_the_three_problems_stand_one_under_the_other(fake_zoo, monkeypatch):  # noqa: F811
    """A phone (``ui.on_a_phone``, which AppTest cannot send as a User-Agent) gets the three
    panels full width, one under the other, each title above its own panel."""

    wide = _chart(make_app(PAGE, lang="en", part="problems").run(timeout=120), "problems")
    as_a_phone(monkeypatch)
    at = make_app(PAGE, lang="en", part="problems").run(timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    fig = _chart(at, "path_problems_chart")
    assert fig["data"] == wide["data"]
    lay = fig["layout"]
    titles = [a for a in lay["annotations"] if a.get("yanchor") == "bottom"]
    # the fake manifest has no translators: the alignment and distance pictures remain
    assert len(titles) >= 2 and "Relation distance" in titles[-1]["text"]
    axes = ["" if i == 0 else str(i + 1) for i in range(len(titles))]
    assert all(lay[f"xaxis{a}"]["domain"] == [0, 1] for a in axes)
    ys = [lay[f"yaxis{a}"]["domain"] for a in axes]
    assert all(low[1] < up[0] for up, low in zip(ys, ys[1:], strict=False))  # no overlap
    assert [a["y"] for a in titles] == [y[1] for y in ys]  # each title on its panel's top


def test_sections_are_fragments():
    """Each control group reruns only its own section (ui.fragment)."""
    for part, section in (("table", "table_section"), ("pair", "pair_section")):
        text = (ROOT / "lessons" / "path_length" / f"{part}.py").read_text(encoding="utf-8")
        assert "@ui.fragment" in text.split(f"def {section}")[0].rsplit("\n\n", 1)[-1]


def test_k_is_shared_by_the_table_and_the_pair(fake_zoo):  # noqa: F811
    """Parts 1 and 2 both show the kernel k, bound to one URL parameter."""
    at = make_app(PAGE, lang="en", part="pair", sent="en", a="2", b="22").run(timeout=120)
    conv = lambda: [str(m.value) for m in at.main.metric][2]  # noqa: E731
    assert conv() == str(analysis.pair_steps(2, 22, 3)["conv"])
    at.slider(key="path_k").set_value(5).run()
    assert not at.exception
    assert at.query_params["k"] == "5"
    assert conv() == str(analysis.pair_steps(2, 22, 5)["conv"])
    at.segmented_control(key=PART).set_value("table").run()
    assert at.slider(key="path_k").value == 5
    at.slider(key="path_n").set_value(300).run()  # n stays in its section
    at.slider(key="path_k").set_value(4).run()
    assert at.query_params["n"] == "300" and at.query_params["k"] == "4"
    at.segmented_control(key=PART).set_value("pair").run()
    assert at.slider(key="path_k").value == 4 and conv() == str(
        analysis.pair_steps(2, 22, 4)["conv"]
    )
    st.cache_data.clear()


def test_table_1_does_not_import_torch():
    """The default part needs only formulas: the page's module-level imports must not pull
    in torch (~1.5 s on a cold server); the probes part imports what it needs itself."""
    tree = ast.parse((ROOT / PAGE).read_text(encoding="utf-8"))
    lines = [
        ast.unparse(node) for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)
    ]
    code = "\n".join([*lines, "import sys", "print('torch' in sys.modules)"])
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "False", lines


# --- the lesson's long dependency, 秋蝉 … 它们, in every shipped translation model ----------

needs_zoo = pytest.mark.skipif(not zoo.MANIFEST_PATH.is_file(), reason="no trained zoo")


@pytest.fixture(scope="module")
def shipped_longrange() -> longrange.LongRange:
    src, tgt = zoo.load_vocabs()
    models = {m: zoo.load_model(m) for m in zoo.TRANSLATION_MODELS}
    return longrange.resolution(models, src, tgt)


@needs_zoo
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_cicadas_chart_draws_every_translation_model_by_distance(shipped_longrange, lang):
    found = shipped_longrange
    at = make_app(PAGE, lang=lang, present="1", part="cicadas").run(timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    fig = _chart(at, "path_cicadas_chart")
    names = [tr["name"] for tr in fig["data"]]
    assert names == [lexicon.name(m, lang) for m in zoo.TRANSLATION_MODELS]
    for tr, m in zip(fig["data"], zoo.TRANSLATION_MODELS, strict=True):
        assert _array(tr["x"]).tolist() == list(found.distances)
        assert np.allclose(_array(tr["y"]), found.by_distance(m))
        assert tr["line"]["color"] == lexicon.look(m).color
    assert fig["layout"]["title"]["text"].startswith(
        translate("path_length.cicadas.title.both", lang)[:8]
    )
    # the two attention lines lie on one another at 100%: the chart says so
    notes = " ".join(a["text"] for a in fig["layout"]["annotations"])
    assert lexicon.name("gru_attention", lang) in notes and "100%" in notes
    # the caption's numbers are the chart's: who falls from nearest to farthest
    caption = " ".join(c.value for c in at.main.caption)
    gru = found.by_distance("gru_plain_256")
    item = translate(
        "path_length.cicadas.item",
        lang,
        name=lexicon.name("gru_plain_256", lang),
        near=f"{gru[0]:.0%}",
        far=f"{gru[-1]:.0%}",
    )
    assert item in caption
    assert lexicon.name("transformer", lang) in caption.split(item)[-1]
    # the models that fail even near are named as mixed evidence
    (mixed,) = [w.value for w in at.warning]
    assert lexicon.name("gru_plain_32", lang) in mixed


@needs_zoo
def test_the_reading_switch_shows_the_trees(shipped_longrange):
    at = make_app(PAGE, lang="en", part="cicadas").run(timeout=300)
    at.segmented_control(key="path_reading").set_value("shade").run(timeout=300)
    assert not at.exception and at.query_params["reading"] == "shade"
    fig = _chart(at, "path_cicadas_chart")
    assert "their shade" in fig["layout"]["title"]["text"]
    for tr, m in zip(fig["data"], zoo.TRANSLATION_MODELS, strict=True):
        assert np.allclose(_array(tr["y"]), shipped_longrange.by_distance(m, "shade"))


@needs_zoo
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_problems_part_links_back_to_the_measured_distance(shipped_longrange, lang):
    at = make_app(PAGE, lang=lang, present="1", part="problems").run(timeout=300)
    assert not at.exception
    attn, (best, best_far) = shipped_longrange.farthest()
    line = translate(
        "path_length.problems.distance.measured",
        lang,
        slide=deck("class").index(Stop("path_length", "cicadas")) + 1,
        far=shipped_longrange.distances[-1],
        attn=("、" if lang == "zh" else " and ").join(lexicon.name(m, lang) for m in attn),
        attn_acc=problems.share_range(list(attn.values())),
        best=lexicon.name(best, lang),
        best_acc=f"{best_far:.0%}",
    )
    assert line in main_text(at)
    assert len(at.get("plotly_chart")) == 1  # the problems' own chart: not the cicadas' again


def test_a_range_of_shares_is_one_number_when_they_round_alike():
    assert problems.share_range([1.0, 0.999]) == "100%"
    assert problems.share_range([0.97, 1.0]) == "97%–100%"


def test_the_cicadas_part_without_a_zoo_says_what_is_missing(no_zoo):
    at = make_app(PAGE, lang="en", part="cicadas").run(timeout=120)
    assert not at.exception and not at.get("plotly_chart")
    assert any("GRU + attention" in i.value for i in at.info)


@needs_zoo
def test_the_server_warms_the_long_range_chart_and_the_sentence_up():
    import lessons
    from lessons import far_example
    from lessons.path_length import data

    assert data.warm_longrange in lessons.warm_ups() and far_example.warm in lessons.warm_ups()
    assert data.warm_longrange() == len(zoo.TRANSLATION_MODELS)
    assert far_example.warm() == 1
