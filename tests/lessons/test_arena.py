"""The model arena page through AppTest.

Most tests run on a small *untrained* zoo written to a temporary folder (``dev_zoo`` in
``tests/conftest.py``: random weights, real architectures, a vocabulary from the grammar),
so they do not depend on the training run;
one test checks the page against the shipped zoo when it is there.
"""

from __future__ import annotations

import json
import re
import threading

import pandas as pd
import pytest
import streamlit as st

import core.zoo as zoo
from core import corpus, lexicon
from core.i18n import translate
from tests.conftest import fragment_of, make_app, record_sent, rerun_alone, what

ARENA = "pages/arena.py"


def _table(at) -> pd.DataFrame:
    """The numbers table (an HTML table whose first header is "Model" / "模型"), parsed back
    into a frame: parameters and latency as numbers."""
    import html as html_

    body = next(
        h.proto.body
        for h in at.get("html")
        if "<th" in h.proto.body and ">Model</th>" in h.proto.body
    )
    header = [html_.unescape(x) for x in re.findall(r"<th[^>]*>([^<]*)</th>", body)]
    rows = [
        [html_.unescape(c) for c in re.findall(r"<td[^>]*>([^<]*)</td>", tr)]
        for tr in re.findall(r"<tr>(.*?)</tr>", body)[1:]
    ]
    df = pd.DataFrame(rows, columns=header)
    df["Parameters"] = df["Parameters"].str.replace(",", "").astype(int)
    df["ms"] = df["ms"].astype(float)
    return df


def _names(lang: str = "en") -> list[str]:
    return [lexicon.name(m, lang) for m in zoo.TRANSLATION_MODELS]


def _bars(at) -> dict:
    """The sentence part's bar chart: {display name: (value, label)}."""
    fig = next(
        json.loads(c.proto.spec) for c in at.get("plotly_chart") if "arena_bars" in c.proto.id
    )
    (trace,) = fig["data"]
    return {y: (x, t) for y, x, t in zip(trace["y"], trace["x"], trace["text"])}


def _charts(at) -> int:
    """The held-out charts (the evidence part's); the sentence part's bars do not count."""
    return sum("arena_bars" not in c.proto.id for c in at.get("plotly_chart"))


def _conf(at) -> list[str] | None:
    """The rows (model names) of the confidence grid (a coloured HTML table: models x output
    positions), or None when it is not shown."""
    grids = [
        h.proto.body
        for h in at.get("html")
        if "<table" in h.proto.body
        and "<th" in h.proto.body
        and "</th></tr></thead>" in h.proto.body
        and ">Model</th>" not in h.proto.body
        and ">模型</th>" not in h.proto.body
    ]
    if not grids:
        return None
    return re.findall(r'<tr><th class="l">([^<]*)</th>', grids[0])


def test_lesson_sentence_every_model_scored(dev_zoo):
    at = make_app(ARENA, lang="en", input="lesson").run()
    assert not at.exception, [e.value for e in at.exception]
    df = _table(at)
    assert list(df["Model"]) == _names()  # display names from core.lexicon
    assert (df["ms"] > 0).all()
    assert list(df["Parameters"]) == [
        dev_zoo["models"][n]["params"] for n in zoo.TRANSLATION_MODELS
    ]
    ref = "猫喝了牛奶因为猫饿了"
    assert any(ref in m.value for m in at.markdown)
    assert _charts(at) == 0  # the held-out charts are the other part's
    assert list(_bars(at)) == _names()  # the slide: one bar per model
    assert _conf(at) == _names()  # the confidence grid
    assert at.query_params["input"] == "lesson" and at.query_params["lesson"] == "5"
    assert at.query_params["part"] == "sentence"


def test_default_is_a_grammar_sentence(dev_zoo):
    at = make_app(ARENA, lang="en").run()
    assert not at.exception
    assert at.query_params["input"] == "grammar"
    from core.analysis import arena as A

    assert at.query_params["len"] == str(A.DEFAULT_LENGTH)
    assert at.query_params["seed"] == str(A.DEFAULT_SEED)
    assert len(_table(at)) == len(zoo.TRANSLATION_MODELS)


def test_lesson_choice_changes_sentence_and_url(dev_zoo):
    at = make_app(ARENA, lang="en", input="lesson").run()
    at.selectbox(key="arena_lesson").set_value(1).run()
    assert not at.exception
    assert at.query_params["lesson"] == "1"
    assert any("你好吗" in m.value for m in at.markdown)


def test_grammar_sentence_reproduced_from_seed_and_length(dev_zoo):
    at = make_app(ARENA, lang="en", input="grammar", seed="42", len="12").run()
    assert not at.exception, [e.value for e in at.exception]
    from core.analysis.arena import grammar_pair

    pair = grammar_pair(42, 12)
    text = "\n".join(m.value for m in at.markdown)
    assert " ".join(pair.src) in text
    assert at.slider(key="arena_len").value == 12 and at.number_input(key="arena_seed").value == 42
    at.button[[b.label for b in at.button].index("Draw another")].click().run()
    assert at.query_params["seed"] != "42" and at.query_params["len"] == "12"


def test_typed_lesson_sentence_finds_its_reference(dev_zoo):
    at = make_app(ARENA, lang="en", input="typed", text="How are you?").run()
    assert not at.exception
    assert any("你好吗" in m.value for m in at.markdown)
    assert not at.info or all("no reference" not in i.value for i in at.info)


def test_typed_new_sentence_has_no_reference(dev_zoo):
    at = make_app(ARENA, lang="en", input="typed", text="i love the cat").run()
    assert not at.exception
    assert any("no reference" in i.value for i in at.info)
    assert set(_table(at)["Exact"]) == {"—"}


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("the catt drank the milk", "catt"),
        ("🙂 !!! ???", "Type an English sentence"),
        ("", "Type an English sentence"),
        ("<script>alert(1)</script>", "`script`"),
        (" ".join(["you"] * 70), "more than 60 words"),
    ],
)
def test_bad_text_gives_a_message_and_page_keeps_working(dev_zoo, text, needle):
    at = make_app(ARENA, lang="en", input="typed").run()
    at.text_input(key="arena_text").input(text).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(needle in e.value for e in at.error), [e.value for e in at.error]
    assert not _conf(at) and not any(m.value.startswith("| Model |") for m in at.markdown)
    at.text_input(key="arena_text").input("where are you").run()
    assert not at.error and len(_table(at)) == len(zoo.TRANSLATION_MODELS)


def test_unknown_word_message_in_chinese_names_the_word(dev_zoo):
    at = make_app(ARENA, lang="zh", input="typed", text="i lovv you").run()
    msg = at.error[0].value
    assert "lovv" in msg and "模型不认识" in msg and "`love`" in msg


def test_predict_then_reveal_one_model_at_a_time(dev_zoo):
    at = make_app(ARENA, lang="en", mode="predict").run()
    assert not at.exception
    df = _table(at)
    assert set(df["Exact"]) == {"?"}
    assert {label for _, label in _bars(at).values()} == {"?"}  # no bar gives it away
    assert _charts(at) == 0  # held-out charts would give the answer away
    assert _conf(at) is None
    reveal = [b for b in at.button if b.label == "Reveal next model"][0]
    reveal.click().run()
    assert at.query_params["reveal"] == "1"
    outs = list(_table(at)["Exact"])
    assert outs[0] != "?" and outs[1:] == ["?"] * (len(zoo.TRANSLATION_MODELS) - 1)
    assert _charts(at) == 0 and len(_conf(at)) == 1  # the revealed model's confidence
    # the evidence part keeps the held-out charts back until every model is revealed
    at.segmented_control(key="arena_part").set_value("evidence").run()
    assert not at.exception and at.query_params["part"] == "evidence"
    assert at.query_params["mode"] == "predict" and at.query_params["reveal"] == "1"
    assert _charts(at) == 0
    assert any("give the answer away" in i.value for i in at.info)
    at.button(key="arena_to_sentence").click().run()
    assert at.query_params["part"] == "sentence"
    for _ in range(len(zoo.TRANSLATION_MODELS) - 1):
        [b for b in at.button if b.label == "Reveal next model"][0].click().run()
    assert "?" not in list(_table(at)["Exact"])
    at.segmented_control(key="arena_part").set_value("evidence").run()
    assert _charts(at) == 2 and not any("give the answer away" in i.value for i in at.info)


def test_reveal_deep_link_and_bad_values(dev_zoo):
    n = len(zoo.TRANSLATION_MODELS)
    at = make_app(ARENA, lang="en", mode="predict", reveal=str(n)).run()
    assert "?" not in list(_table(at)["Exact"]) and len(_conf(at)) == n
    at = make_app(ARENA, lang="en", part="evidence", mode="predict", reveal=str(n)).run()
    assert _charts(at) == 2
    at = make_app(ARENA, lang="en", part="evidence", mode="predict", reveal="5").run()
    assert _charts(at) == 0 and any("give the answer away" in i.value for i in at.info)
    at = make_app(
        ARENA, lang="en", input="lesson", mode="oops", reveal="99", lesson="x", view="zz"
    ).run()
    assert not at.exception
    warned = "\n".join(w.value for w in at.warning)
    for bad in ("oops", "99", "zz"):
        assert bad in warned
    assert at.query_params["mode"] == "show" and at.query_params["lesson"] == "5"


def test_view_switch_changes_the_marks(dev_zoo):
    at = make_app(ARENA, lang="en", view="position").run()
    assert any("position" in c.value.lower() and "strict" in c.value.lower() for c in at.caption)
    at.segmented_control(key="arena_view").set_value("edit").run()
    assert at.query_params["view"] == "edit"
    assert any("best alignment" in c.value for c in at.caption)


def test_metric_choice_changes_chart(dev_zoo):
    at = make_app(ARENA, lang="en", part="evidence", metric="edit_acc").run()
    fig = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert "Edit-distance accuracy" in fig["layout"]["title"]["text"]
    assert fig["data"][0]["y"] == [0.95] * len(corpus.BUCKETS)


def test_charts_show_manifest_numbers(dev_zoo):
    at = make_app(ARENA, lang="zh", part="evidence").run()
    length, dist = (json.loads(c.proto.spec) for c in at.get("plotly_chart"))
    for trace in length["data"]:
        by = dev_zoo["models"][trace["meta"]]["metrics"]["by_length"]
        assert trace["y"] == [by[b]["exact"] for b in corpus.BUCKETS]
    assert {tr["meta"] for tr in dist["data"]} == set(zoo.PROBE_MODELS)
    # the mixed evidence names the longest distance the chart measured, never a typed one
    steps = int(max(dist["data"][0]["x"]))
    said = translate("arena.dist.mixed", "zh", steps=steps)
    assert said in [w.value for w in at.main.warning]


def test_partial_zoo_shows_the_rest(dev_zoo, monkeypatch):
    real = zoo.load_model

    def some_missing(name, models_dir=None):
        if name == "transformer":
            raise zoo.ZooError("assets/models/transformer.pt", "missing")
        return real(name)

    monkeypatch.setattr(zoo, "load_model", some_missing)
    st.cache_resource.clear()
    at = make_app(ARENA, lang="en").run()
    assert not at.exception
    assert any("Transformer" in w.value for w in at.warning)
    assert "Transformer" not in list(_table(at)["Model"])


def test_missing_zoo_names_file_and_command(no_manifest):
    st.cache_resource.clear()
    st.cache_data.clear()
    at = make_app(ARENA, lang="zh").run()
    assert not at.exception
    assert at.title[0].value == translate("page.arena.title", "zh")
    assert any("python -m core.train --all" in e.value for e in at.error)


@pytest.mark.skipif(
    not zoo.MANIFEST_PATH.is_file(),
    reason="the shipped zoo is not built (python -m core.train --all)",
)
def test_shipped_zoo_chart_matches_manifest():
    st.cache_resource.clear()
    st.cache_data.clear()
    manifest = zoo.load_manifest()
    at = make_app(ARENA, lang="en", part="evidence").run(timeout=180)
    assert not at.exception, [e.value for e in at.exception]
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    length = next(c for c in charts if "length" in c["layout"]["title"]["text"])
    for trace in length["data"]:
        by = manifest["models"][trace["meta"]]["metrics"]["by_length"]
        assert trace["y"] == [by[b]["exact"] for b in corpus.BUCKETS]
    at = make_app(ARENA, lang="en").run(timeout=180)
    assert not at.exception, [e.value for e in at.exception]
    df = _table(at)
    for name, params in zip(zoo.TRANSLATION_MODELS, df["Parameters"]):
        assert params == manifest["models"][name]["params"]


def test_latency_timed_once_then_median_on_measure_again(dev_zoo):
    at = make_app(ARENA, lang="en", input="lesson").run()
    assert any("the translation shown here timed once" in c.value for c in at.caption)
    at.button(key="arena_remeasure").click().run()
    assert not at.exception
    assert any("median of 5 runs" in c.value for c in at.caption)
    assert (_table(at)["ms"] > 0).all()


def test_csv_is_the_tables_text():
    import csv
    import io

    from core.analysis.arena import table_csv  # the page's CSV download

    header = ["Model", "Exact"]
    rows = [["GRU, C = 32", "猫 (饿) [了]"]]
    data = table_csv(header, rows).decode("utf-8-sig")
    assert list(csv.reader(io.StringIO(data))) == [header, rows[0]]


def _cards(at, lang: str = "en") -> str:
    """The six result cards (one HTML element)."""
    first = lexicon.name("gru_plain_32", lang)
    return next(h.proto.body for h in at.get("html") if f"<b>{first}</b>" in h.proto.body)


def test_cards_show_every_model_its_size_and_the_page_that_explains_it(dev_zoo):
    at = make_app(ARENA, lang="en", input="lesson").run()
    cards = _cards(at)
    for name in zoo.TRANSLATION_MODELS:
        params = dev_zoo["models"][name]["params"]
        shown = lexicon.name(name, "en")
        assert f"<b>{shown}</b>" in cards and f"{params:,} parameters" in cards
        assert lexicon.look(name).color in cards  # the model's one colour
    assert cards.count("reference words") == len(zoo.TRANSLATION_MODELS)
    assert "→ The bottleneck · RNN gradients" in cards and "→ Attention" in cards
    why = ["The bottleneck", "CNN receptive field", "RNN gradients", "Attention"]
    links: dict[str, str] = {}  # the why-links: the first link of each page title in the body
    for e in at.get("page_link"):
        if e.proto.label in why and "present=" in e.proto.query_string:
            links.setdefault(e.proto.label, e.proto.query_string)
    assert sorted(links) == sorted(why)
    # the RNN and CNN links open the part with the trained models' evidence
    assert "part=measured" in links["CNN receptive field"]
    assert "part=fade" in links["RNN gradients"]
    assert "Why: a plain tanh RNN has no gates" in cards
    assert all("lang=en" in q for q in links.values())
    at = make_app(ARENA, lang="zh", mode="predict").run()
    assert _cards(at, "zh").count("<b>？ 尚未揭晓") == len(zoo.TRANSLATION_MODELS)


# --- one part at a time: "sentence" (1–2) and "evidence" (3) ------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("part", "charts"), [("sentence", 0), ("evidence", 2)])
def test_each_part_renders_alone_with_only_its_own_charts(dev_zoo, part, charts, lang):
    at = make_app(ARENA, lang=lang, part=part).run()
    assert not at.exception, [e.value for e in at.exception]
    assert _charts(at) == charts
    assert at.query_params["part"] == part
    headers = [h.value for h in at.header]
    # the sentence part's header counts the models it shows (all of them here)
    assert headers[-1] == translate(f"arena.{part}.header", lang, n=len(zoo.TRANSLATION_MODELS))
    has_table = any(
        ">Model</th>" in h.proto.body or ">模型</th>" in h.proto.body for h in at.get("html")
    )
    if part == "sentence":
        assert has_table and _conf(at) is not None and len(_bars(at)) == len(zoo.TRANSLATION_MODELS)
    else:
        assert not has_table and _conf(at) is None
        assert "arena_input" not in [c.key for c in at.segmented_control]
        assert any("GRU" in m.value and "%" in m.value for m in at.markdown)  # the lead's numbers
        assert at.warning  # mixed evidence said on screen (gated RNNs hold a fact)
    # the takeaway and the "try this" of every part, in the one style
    assert (
        translate(f"arena.{part}.takeaway", lang, cnn="x").split("{")[0][:12] in at.success[0].value
    )
    assert at.info[-1].value.endswith(translate(f"arena.{part}.try", lang))


def test_part_selector_switches_and_writes_the_url(dev_zoo):
    n = str(len(zoo.TRANSLATION_MODELS))
    at = make_app(ARENA, lang="en", input="lesson", mode="predict", reveal=n).run()
    assert at.segmented_control(key="arena_part").value == "sentence"
    at.segmented_control(key="arena_part").set_value("evidence").run()
    assert not at.exception and at.query_params["part"] == "evidence"
    assert _charts(at) == 2 and _conf(at) is None
    # the sentence part's state stays in the URL and comes back with it
    at.segmented_control(key="arena_part").set_value("sentence").run()
    assert at.query_params["part"] == "sentence" and at.query_params["input"] == "lesson"
    assert at.query_params["lesson"] == "5" and _charts(at) == 0
    assert any("猫喝了牛奶因为猫饿了" in m.value for m in at.markdown)


def test_evidence_keeps_the_sentence_in_the_url(dev_zoo):
    at = make_app(ARENA, lang="en", input="grammar", seed="42", len="12", view="position").run()
    at.segmented_control(key="arena_part").set_value("evidence").run()
    assert not at.exception
    assert _charts(at) == 2
    for name, value in (("part", "evidence"), ("seed", "42"), ("len", "12"), ("view", "position")):
        assert at.query_params[name] == value


def test_invalid_part_falls_back_with_a_notice(dev_zoo):
    at = make_app(ARENA, lang="en", part="<b>charts</b>").run()
    assert not at.exception
    assert any("<b>charts</b>" in w.value for w in at.warning)
    assert at.query_params["part"] == "sentence" and _charts(at) == 0
    assert len(_table(at)) == len(zoo.TRANSLATION_MODELS)
    # a link with a parameter of the other part simply shows the default part
    at = make_app(ARENA, lang="en", metric="edit_acc").run()
    assert not at.exception and not at.warning and at.query_params["part"] == "sentence"


def test_why_links_name_real_parts_of_linked_pages():
    from lessons.arena.sentence_why import WHY, WHY_PART
    from ui.nav import page_parts

    linked = {slug for slugs in WHY.values() for slug in slugs}
    assert WHY_PART and set(WHY_PART) <= linked
    for slug, part in WHY_PART.items():
        assert part in page_parts(slug), (slug, part)


def test_distance_caption_says_where_each_cnn_reaches_chance():
    """The caption's distances are the chart's: for each CNN probe of the shipped zoo, the
    first sampled distance past its solved ones (>= 95 %) where it is under twice chance."""
    manifest = json.loads(zoo.MANIFEST_PATH.read_text(encoding="utf-8"))
    at = make_app(ARENA, lang="en", part="evidence").run(timeout=180)
    text = " ".join(c.value for c in at.caption)
    cnns = [m for m in zoo.PROBE_MODELS if "cnn" in m]
    assert cnns
    for name in cnns:
        dist = manifest["models"][name]["metrics"]["distance"]
        ds = sorted(int(d) for d in dist)
        accs = [dist[str(d)] for d in ds]
        solved = max((i for i, a in enumerate(accs) if a >= 0.95), default=-1)
        lost = next(d for d, a in zip(ds[solved + 1 :], accs[solved + 1 :]) if a < 0.2)
        assert f"{lexicon.name(name, 'en')} from d = {lost} " in text, (name, lost, text)
    assert "guessing" not in text and "just past its receptive field" not in text


def test_the_warm_up_fills_the_cache_the_length_slider_reads(dev_zoo, monkeypatch):
    """serve.warmup warms the default seed's sentences: the part, at a warmed length, finds
    the whole sentence in the cache (no model runs, nothing is scored again); at another
    length it runs every model."""
    from core.analysis import arena as analysis
    from lessons.arena import common, data
    from serve import warmup

    available = data.loadable(common.MODELS)
    assert available == tuple(zoo.TRANSLATION_MODELS)  # the dev zoo has every model
    assert data.warm(available, lengths=range(12, 14)) == 2
    calls = []
    real = data.translate

    def counted(*a):
        # the page's own calls: the app's warm-up thread, started by an earlier test's run
        # in this process, may be translating the default seed's lengths meanwhile
        if threading.current_thread().name != warmup.THREAD_NAME:
            calls.append(a[0])
        return real(*a)

    monkeypatch.setattr(data, "translate", counted)
    seed = str(analysis.DEFAULT_SEED)
    for length in ("12", "13"):
        at = make_app(ARENA, lang="en", input="grammar", seed=seed, len=length).run()
        assert not at.exception, [e.value for e in at.exception]
        assert len(_bars(at)) == len(available) and calls == []
    at = make_app(ARENA, lang="en", input="grammar", seed=seed, len="14").run()
    assert not at.exception and sorted(set(calls)) == sorted(available)


def test_a_length_click_redraws_the_sentence_not_the_secondary_controls(dev_zoo, monkeypatch):
    """The length slider (the benchmark's control) reruns the fragment nested in the part's:
    the slider, the bars, the cards and the tables, each in the place it had; the input
    choice, the seed, the predict mode and the view are not sent again and keep their values."""
    keys = ("arena_len", "arena_bars", "arena_input", "arena_seed", "arena_mode", "arena_view")
    sent = record_sent(monkeypatch, keys)
    at = make_app(ARENA, lang="en", seed="7").run(timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    inner, outer = fragment_of(sent, "arena_len"), fragment_of(sent, "arena_input")
    assert inner and outer and inner != outer
    first = {s.key: s.path for s in sent if s.key}
    # the bars above the slider above the secondary controls (input, seed, mode, view)
    assert first["arena_bars"] < first["arena_len"] < first["arena_input"] < first["arena_seed"]
    assert first["arena_seed"] < first["arena_mode"] < first["arena_view"]
    now = rerun_alone(at, sent, inner, lambda: at.slider(key="arena_len").set_value(7))
    assert {"arena_len", "arena_bars"} <= set(now), now
    assert not {"arena_input", "arena_seed", "arena_mode", "arena_view"} & set(now), now
    assert at.query_params["len"] == "7" and at.query_params["seed"] == "7"
    assert len(_bars(at)) == len(_names())  # every model on the new sentence
    assert at.session_state["arena_seed"] == 7  # the seed kept its value


def test_a_typed_sentence_mended_after_an_error_draws_every_model(dev_zoo, monkeypatch):
    """A sentence the models cannot read leaves the chart and the words empty; mending it
    in the box (a rerun of the sentence's own fragment) draws them in their places."""
    sent = record_sent(monkeypatch, ("arena_text", "arena_bars"))
    at = make_app(ARENA, lang="en", input="typed", text="the zzyzx cat").run(timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    assert "zzyzx" in " ".join(str(e.value) for e in [*at.error, *at.warning])
    assert "arena_bars" not in what(sent)
    inner = fragment_of(sent, "arena_text")
    mended = "the cat drank the milk"
    rerun_alone(at, sent, inner, lambda: at.text_input(key="arena_text").input(mended))
    assert len(_bars(at)) == len(_names())
