"""The autoregressive lesson through AppTest: stepping, sampling replay, override, deep links,
bad input and both languages; each part a fragment with Markdown tables. Uses the shipped
weights (skips until they are trained)."""

from __future__ import annotations

import json

import pytest

from core import zoo
from core.analysis.sensible import sensible
from tests.conftest import (
    ROOT,
    cjk_share,
    fragment_of,
    main_text,
    md_tables,
    record_sent,
    rerun_alone,
    run_page,
)

PAGE = "pages/autoregressive.py"


def _need(*names: str) -> None:
    try:
        zoo.load_vocabs()
        for name in names:
            zoo.load_model(name)
    except zoo.ZooError as err:
        pytest.skip(f"pretrained weights not available yet: {err}")


def run(**params):
    return run_page(PAGE, timeout=300, **params)


def _ys(values):
    """A plotly JSON array: a list, or numpy's bytes as {"dtype", "bdata"}."""
    if isinstance(values, dict):
        import base64

        import numpy as np

        return np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"]).tolist()
    return values


def headline(at) -> str:
    """The big "Step i of n · sentence" line."""
    return next(m.value for m in at.markdown if m.value.startswith("### "))


def record(at) -> list[str]:
    """The chosen words in the record table of the language-model screen."""
    return [row[2] for row in md_tables(at)[0][1:]]


def test_lm_steps_forward_back_and_play():
    _need("lm_gru")
    at = run()
    assert at.query_params["part"] == "lm" and at.query_params["prefix"] == "you should"
    assert "Step 1 of 3" in headline(at) and "wear" in headline(at)
    assert len(at.get("plotly_chart")) == 1
    at.button(key="ar_step_next").click().run()
    assert "Step 2 of 3" in headline(at) and "shoes" in headline(at)
    assert at.query_params["step"] == "2" and record(at) == ["wear", "shoes"]
    at.button(key="ar_step_back").click().run()
    assert "Step 1 of 3" in headline(at) and at.query_params["step"] == "1"
    at.button(key="ar_step_play").click().run(timeout=120)
    assert not at.exception
    assert "Step 3 of 3" in headline(at) and at.query_params["step"] == "3"
    assert record(at) == ["wear", "shoes", "(end)"]
    assert at.button(key="ar_step_next").disabled


def test_sampling_replays_with_its_seed_and_the_link_restores_it():
    _need("lm_gru")
    link = dict(prefix="the", mode="sample", temp="2.5", topk="0", seed="42", step="12")
    first = run(**link)
    again = run(**link)
    assert record(first) == record(again)  # same seed, same words
    assert first.segmented_control(key="ar_mode").value == "sample"
    assert (
        first.slider(key="ar_temp").value == 2.5 and first.number_input(key="ar_seed").value == 42
    )
    other = run(**{**link, "seed": "7"})
    assert record(other) != record(first)
    # changing the seed in the page writes it to the URL
    first.number_input(key="ar_seed").set_value(7).run()
    assert first.query_params["seed"] == "7" and record(first) == record(other)


def test_changing_the_prompt_restarts_and_bad_words_are_named():
    _need("lm_gru")
    at = run(step="2")
    at.text_input(key="ar_prefix").input("the old man").run()
    assert not at.exception and at.query_params["prefix"] == "the old man"
    assert "Step 1 of" in headline(at) and "old man" in headline(at)
    at = run(prefix="you shuold <b>wear</b> 😀")
    err = at.error[0].value
    assert "shuold" in err and "should" in err and not at.get("plotly_chart")
    zh = run(prefix="you shuold", lang="zh")
    assert "shuold" in zh.error[0].value and "不认识" in zh.error[0].value


def test_empty_prompt_starts_from_bos():
    _need("lm_gru")
    at = run(prefix="")
    assert "(start)" in headline(at) and len(at.get("plotly_chart")) == 1
    assert record(at)[0] != ""


def test_bad_link_values_fall_back_with_a_notice():
    _need("lm_gru")
    at = run(part="nope", mode="beam", temp="99", step="x", seed="-3")
    shown = " ".join(w.value for w in at.warning)
    for bad in ("nope", "beam", "99", "-3"):
        assert bad in shown
    assert at.query_params["part"] == "lm" and at.query_params["mode"] == "greedy"
    assert "Step 1 of 3" in headline(at)


def test_translation_steps_with_attention():
    _need("gru_attention", "transformer")
    at = run(part="translate")
    assert at.query_params["model"] == "gru_attention"
    assert len(at.get("plotly_chart")) == 2  # next-word bars and the attention row
    first = headline(at)
    at.button(key="ar_tstep_next").click().run()
    assert at.query_params["tstep"] == "2" and headline(at) != first
    at.segmented_control(key="ar_model").set_value("transformer").run()
    assert not at.exception and at.query_params["model"] == "transformer"
    assert len(at.get("plotly_chart")) == 2
    bad = run(part="translate", src="the cat drnk the milk")
    assert "drnk" in bad.error[0].value and "drank" in bad.error[0].value
    empty = run(part="translate", src="")
    assert empty.error and not empty.get("plotly_chart")


def rows(at) -> list[str]:
    """The two big sentence lines of "one wrong step": the model's own, then the forced one."""
    return [m.value for m in at.markdown if m.value.startswith("### ")]


STUDY = ("lm_gru", "rnn_plain_256", "gru_plain_256", "cnn_s2s", "transformer", "gru_attention")


def test_override_changes_the_rest_and_the_distribution_is_shown():
    _need(*STUDY)
    at = run(part="wrong", fpos="1")
    before, after = rows(at)
    assert before != after
    assert ":orange-background" in after  # the forced word is marked
    assert at.query_params["fpos"] == "1" and at.query_params["ftok"]
    assert at.query_params["wmodel"] == "gru_plain_256"
    chart = at.get("plotly_chart")
    assert len(chart) == 1  # the forced-slip distribution, one line per model
    box = at.selectbox(key="ar_ftok")
    other = box.options[-1]
    box.select_index(len(box.options) - 1).run()
    assert not at.exception
    assert at.query_params["ftok"] == other.split(" (")[0]
    at.selectbox(key="ar_fpos").select_index(2).run()
    assert at.query_params["fpos"] == "3"
    at.segmented_control(key="ar_wmodel").set_value("gru_attention").run()
    assert not at.exception and at.query_params["wmodel"] == "gru_attention"
    assert len(rows(at)) == 2 and len(at.get("plotly_chart")) == 1
    bad = run(part="wrong", fpos="2", ftok="不是词")
    assert any("不是词" in w.value for w in bad.warning)


def test_wrong_default_is_the_searched_slip_that_derails_the_plain_gru():
    """The default view is the tested search's example, recomputed here from the model:
    the plain GRU's sentence, step and forced word, the edits the page reports (at least
    half of the later words: it visibly derails), and the red words."""
    import re

    from core import corpus
    from core.analysis import autoregressive as ar
    from core.analysis import slips
    from core.evaluate import max_output_len
    from lessons.autoregressive import data

    _need(*STUDY)
    model = zoo.load_model("gru_plain_256")
    sv, tv = zoo.load_vocabs()
    test = corpus.shared_splits(zoo.load_manifest()["corpus"]["seed"]).test
    slip = slips.derailing_slip(model, sv, tv, test, *data.SLIP_LENGTHS)
    assert slip is not None and slip.edits >= slip.rest / 2
    assert sensible(slip.text.split())  # a sentence a person would say
    at = run(part="wrong")
    assert at.query_params["wsrc"] == slip.text and at.query_params["ftok"] == slip.word
    assert at.query_params["fpos"] == str(slip.pos + 1)
    said = next(m.value for m in at.markdown if "word edits away" in m.value)
    word, p, pos, edits, later = re.search(
        r"gave “(.+)” ([\d.]+)% at step (\d+)\. .*?(\d+) word edits .*? the (\d+) words", said
    ).groups()
    assert (word, int(pos), int(edits), int(later)) == (
        slip.word,
        slip.pos + 1,
        slip.edits,
        slip.rest,
    )
    assert float(p) == pytest.approx(100 * slip.prob, abs=0.05)
    before, after = rows(at)
    src_ids = sv.encode(slip.text.split(), eos=True)
    own = ar.continue_greedy(model, src_ids, [], max_output_len(len(src_ids)))
    assert tv.decode(own)[: len(slip.own)] == list(slip.own)
    token = tv.tokens.index(slip.word)
    forced = ar.continue_greedy(
        model, src_ids, [*own[: slip.pos], token], max_output_len(len(src_ids))
    )
    assert after.count(":red[") == len(ar.later_changes(own, forced, slip.pos)[1]) > 0


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_wrong_offers_the_language_model_on_the_lessons_you_should(lang):
    """With the language model picked, the part shows the lesson's "you should": its own
    "wear shoes", then "buy" forced in place of "wear" and the words it writes on by itself,
    with the drift said in numbers recomputed here; another word can be forced."""
    from core.analysis import slips
    from core.corpus import lesson
    from core.i18n import translate
    from lessons.autoregressive import data

    _need(*STUDY)
    sv, _ = zoo.load_vocabs()
    prompt = lesson.AUTOREGRESSION_PROMPT.split()
    r = slips.lm_slip(
        zoo.load_model("lm_gru"), sv.encode(prompt), 0, sv.encode([data.LM_FORCED])[0]
    )
    at = run(part="wrong", wmodel="lm_gru", lang=lang)
    assert not at.exception
    before, after = rows(at)
    assert " ".join(lesson.WEAR_SHOES.en_words) in before.replace("*", "")
    assert f":orange-background[**{data.LM_FORCED}**]" in after
    assert after.count(":red[") == len(r.new) > 0
    assert at.query_params["lmword"] == data.LM_FORCED
    said = translate(
        "autoregressive.wrong.lm_changed",
        lang,
        model=translate("model.lm_gru.name", lang),
        token=data.LM_FORCED,
        own="wear",
        p=f"{r.word_prob:.2%}",
        changed=r.edits,
        later=r.later,
        share=f"{r.changed_share:.0%}",
        follow="shoes",
        p_own=f"{r.next_own:.0%}",
        p_forced=f"{r.next_forced:.0%}",
    )
    assert said in [m.value for m in at.markdown]
    assert len(at.get("plotly_chart")) == 1  # the study's chart stays beside it
    box = at.selectbox(key="ar_lmword")
    other = box.options[1]
    box.select(other).run()
    assert not at.exception and at.query_params["lmword"] == other
    assert f":orange-background[**{other}**]" in rows(at)[1]


def test_wrong_states_the_studys_numbers_per_model():
    """The "mixed evidence" box states the study's own numbers (recomputed here with
    slip_table on the page's sample), and the chart draws one line per model in its look."""
    from core import corpus, lexicon
    from core.analysis import slips
    from lessons.autoregressive import data

    _need(*STUDY)
    sv, _ = zoo.load_vocabs()
    test = corpus.shared_splits(zoo.load_manifest()["corpus"]["seed"]).test
    pairs = slips.sample_sentences(test, data.SLIP_SAMPLE, seed=0)
    table = {
        r["model"]: r
        for r in slips.slip_table(
            {n: zoo.load_model(n) for n in data.SLIP_TRANSLATORS},
            {n: zoo.load_model(n) for n in data.SLIP_LMS},
            sv,
            pairs,
            pos=data.SLIP_POS,
        )
    }
    # the claim the words make holds on the page's sample
    assert table["lm_gru"]["derailed"] >= 0.5
    assert table["gru_attention"]["recovered"] >= table["gru_plain_256"]["recovered"] + 0.2
    assert table["gru_plain_256"]["derailed"] > table["gru_attention"]["derailed"]
    at = run(part="wrong")
    mixed = " ".join(w.value for w in at.warning)
    assert "can carry" in mixed
    for shown in (
        f"after {table['lm_gru']['derailed']:.0%} of the slips",
        f"own words after {table['gru_plain_256']['recovered']:.0%}",
        f"came back after {table['gru_attention']['recovered']:.0%}",
    ):
        assert shown in mixed, shown
    traces = json.loads(at.get("plotly_chart")[0].proto.spec)["data"]
    assert [tr["line"]["color"] for tr in traces] == [lexicon.look(m).color for m in STUDY]
    assert [tr["marker"]["symbol"] for tr in traces] == [lexicon.look(m).marker for m in STUDY]
    # the plain GRU's line starts at its share of slips with no later change: "recovered"
    y = traces[STUDY.index("gru_plain_256")]["y"]
    if isinstance(y, dict):  # plotly's typed array
        import base64

        import numpy as np

        y = np.frombuffer(base64.b64decode(y["bdata"]), dtype=y["dtype"])
    assert y[0] == pytest.approx(table["gru_plain_256"]["recovered"], abs=1e-3)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_serial_cost_shows_counted_steps_first_and_milliseconds_second(lang):
    """The serial cost in steps that wait for one another (counted: n to write n words, n for
    the GRU to read them inside its one call, as many as the Transformer has layers for it to
    read them) comes first; the milliseconds second, a Transformer reading line beside the
    GRU's, with words that expect noise and say the lesson's "hard to parallelise"; the
    takeaway claims nothing about the milliseconds that a busy machine can break."""
    from core.i18n import translate
    from core.lexicon import family_look
    from lessons.autoregressive.cost import TIMING_LENGTHS

    _need("lm_gru", "transformer")
    layers = len(zoo.load_model("transformer").enc_layers)
    cost = run(part="cost", lang=lang)
    charts = [json.loads(c.proto.spec) for c in cost.get("plotly_chart")]
    assert len(charts) == 2
    steps, ms = charts
    transformer = translate("model.transformer.name", lang)
    parallel = translate("autoregressive.cost.read_parallel", lang, model=transformer)
    for chart in charts:  # three lines each: GRU write, GRU read, Transformer read
        names = [tr["name"] for tr in chart["data"]]
        assert len(names) == 3 and names[2] == parallel
        assert chart["data"][2]["line"]["color"] == family_look("self_attention").color
    write, read, par = (list(_ys(steps["data"][i]["y"])) for i in range(3))
    assert write == list(TIMING_LENGTHS) and read == list(TIMING_LENGTHS)
    assert par == [layers] * len(TIMING_LENGTHS)
    assert all(v > 0 for tr in ms["data"] for v in _ys(tr["y"]))
    assert (
        "ms" in ms["layout"]["yaxis"]["title"]["text"]
        or "毫秒" in ms["layout"]["yaxis"]["title"]["text"]
    )
    n = TIMING_LENGTHS[-1]
    assert [m.value for m in cost.metric[:3]] == [str(n), str(n), str(layers)]
    assert cost.metric[3].value.endswith("ms")
    takeaway = cost.success[0].value
    assert translate("autoregressive.cost.takeaway", lang, parallel=transformer) == takeaway
    assert ("hard to parallelise" if lang == "en" else "难以并行") in takeaway
    for claim in ("roughly doubles", "does not move", "大约翻倍", "不会动", "翻一倍"):
        assert claim not in takeaway
    noise = [c.value for c in cost.caption if str(n) in c.value]
    assert noise, "the milliseconds' caption (with its numbers) is missing"
    assert transformer in noise[0]  # the two reading lines compared by a measured ratio
    gru = translate("model.lm_gru.name", lang)
    same = translate("autoregressive.cost.same_line", lang, model=gru)
    assert same in [c.value for c in cost.caption]  # the GRU's two equal lines, said in words
    dashes = [tr["line"].get("dash") for tr in steps["data"]]
    assert len(set(dashes)) == 3  # each line its own dash: the equal ones stay visible


@pytest.mark.parametrize("part", ["lm", "translate", "wrong", "cost"])
def test_every_screen_in_chinese(part):
    _need(*STUDY)
    at = run(part=part, lang="zh", present="1")
    assert cjk_share(main_text(at)) > 0.6


def test_every_part_is_a_fragment():
    """Each part's ``show`` is a fragment: its controls rerun only that part."""
    for name in ("lm", "translate", "wrong", "cost"):
        text = (ROOT / "lessons/autoregressive" / f"{name}.py").read_text(encoding="utf-8")
        assert "@ui.fragment" in text.split("def show()")[0].rsplit("\n\n", 1)[-1], name


def test_a_mode_click_redraws_the_run_not_the_prompt(monkeypatch):
    """Greedy / sampling (the benchmark's control) reruns the fragment nested in the part's:
    its controls, the stepper, the chart and the record, placed in the slide's order; the
    prompt's box, the takeaway and "try this" are not sent again."""
    _need("lm_gru")
    keys = ("ar_prefix", "ar_mode", "ar_temp", "ar_step_next", "ar_lm_chart")
    sent = record_sent(monkeypatch, keys)
    at = run(part="lm")
    inner, outer = fragment_of(sent, "ar_mode"), fragment_of(sent, "ar_prefix")
    assert inner and outer and inner != outer
    first = {s.key: s.path for s in sent if s.key}
    # the chart above the stepper above the prompt's box, then the sampling controls
    assert first["ar_lm_chart"] < first["ar_step_next"] < first["ar_prefix"] < first["ar_mode"]
    now = rerun_alone(
        at, sent, inner, lambda: at.segmented_control(key="ar_mode").set_value("sample")
    )
    assert {"ar_mode", "ar_temp", "ar_step_next", "ar_lm_chart"} <= set(now), now
    assert "ar_prefix" not in now and "alert" not in now, now
    assert at.query_params["mode"] == "sample" and at.query_params["prefix"] == "you should"
    assert not at.slider(key="ar_temp").disabled  # sampling: its temperature is on


def test_mode_change_keeps_the_link_and_the_record_in_step():
    _need("lm_gru")
    at = run()
    assert not at.table  # Markdown tables only: no pandas on the server, no table bundle
    greedy = record(at)
    at.segmented_control(key="ar_mode").set_value("sample").run()
    assert not at.exception
    assert at.query_params["mode"] == "sample"
    assert not at.slider(key="ar_temp").disabled
    header = md_tables(at)[0][0]
    assert header == ["Step", "The model read", "and chose", "Probability"]
    at.segmented_control(key="ar_mode").set_value("greedy").run()
    assert at.query_params["mode"] == "greedy" and record(at) == greedy
