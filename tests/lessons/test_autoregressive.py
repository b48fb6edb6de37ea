"""The autoregressive lesson through AppTest: stepping, sampling replay, override, deep links,
bad input and both languages; each part a fragment with Markdown tables. Uses the shipped
weights (skips until they are trained)."""

from __future__ import annotations

import pytest

from core import zoo
from tests.conftest import ROOT, cjk_share, main_text, make_app, md_tables

PAGE = "pages/autoregressive.py"


def _need(*names: str) -> None:
    try:
        zoo.load_vocabs()
        for name in names:
            zoo.load_model(name)
    except zoo.ZooError as err:
        pytest.skip(f"pretrained weights not available yet: {err}")


def run(**params):
    lang = params.pop("lang", "en")
    at = make_app(PAGE, lang=lang, **params).run(timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    return at


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
    assert record(at) == ["wear", "shoes", "⟨eos⟩"]
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
    assert "⟨bos⟩" in main_text(at) and len(at.get("plotly_chart")) == 1
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


def test_override_changes_the_rest_and_the_statistic_is_shown():
    _need("gru_attention")
    at = run(part="wrong", fpos="1")
    before, after = rows(at)
    assert before != after
    assert ":orange-background" in after  # the forced word is marked
    assert at.query_params["fpos"] == "1" and at.query_params["ftok"]
    chart = at.get("plotly_chart")
    assert len(chart) == 1  # the measured "one wrong step" chart
    box = at.selectbox(key="ar_ftok")
    other = box.options[-1]
    box.select_index(len(box.options) - 1).run()
    assert not at.exception
    assert at.query_params["ftok"] == other.split(" (")[0]
    at.selectbox(key="ar_fpos").select_index(2).run()
    assert at.query_params["fpos"] == "3"
    bad = run(part="wrong", fpos="2", ftok="不是词")
    assert any("不是词" in w.value for w in bad.warning)


SLIP_MIN_EDITS = 2  # as in tests/core/analysis/test_autoregressive.py


def test_wrong_default_is_a_plausible_slip_that_changes_the_rest():
    """The default view proves its example: the forced word is one the model itself gave at
    least ar.SLIP_THRESHOLD, and the later-word edits the page reports are the measured
    ones (>= SLIP_MIN_EDITS); the "mixed evidence" note carries the chart's own numbers."""
    import re

    from core.analysis import autoregressive as ar
    from core.evaluate import max_output_len
    from core.translate import prepare

    _need("gru_attention")
    at = run(part="wrong")
    src, fpos, ftok = (at.query_params[n] for n in ("wsrc", "fpos", "ftok"))
    said = next(m.value for m in at.markdown if "word edits separate" in m.value)
    p, edits = re.search(r"gave “.+” ([\d.]+)% at step \d+\. .*?(\d+) word edits", said).groups()
    assert float(p) / 100 >= ar.SLIP_THRESHOLD and int(edits) >= SLIP_MIN_EDITS
    # recompute from the model, outside the page
    model = zoo.load_model("gru_attention")
    sv, tv = zoo.load_vocabs()
    src_ids = sv.encode(prepare(src, sv), eos=True)
    own = ar.continue_greedy(model, src_ids, [], max_output_len(len(src_ids)))
    pos = int(fpos) - 1
    forced = ar.continue_greedy(
        model, src_ids, [*own[:pos], tv.tokens.index(ftok)], max_output_len(len(src_ids))
    )
    assert ar.later_changes(own, forced, pos)[0] == int(edits)
    before, after = rows(at)
    assert after.count(":red[") == len(ar.later_changes(own, forced, pos)[1]) > 0
    mixed = " ".join(w.value for w in at.warning)
    assert "Mixed evidence" in mixed and "%" in mixed


def test_serial_cost_renders():
    _need("lm_gru")
    cost = run(part="cost")
    assert len(cost.get("plotly_chart")) == 1 and cost.metric[0].value.endswith("ms")


@pytest.mark.parametrize("part", ["lm", "translate", "wrong", "cost"])
def test_every_screen_in_chinese(part):
    _need("lm_gru", "gru_attention")
    at = run(part=part, lang="zh", present="1")
    assert cjk_share(main_text(at)) > 0.6


def test_every_part_is_a_fragment():
    """Each part's ``show`` is a fragment: its controls rerun only that part."""
    for name in ("lm", "translate", "wrong", "cost"):
        text = (ROOT / "lessons/autoregressive" / f"{name}.py").read_text(encoding="utf-8")
        assert "@ui.fragment" in text.split("def show()")[0].rsplit("\n\n", 1)[-1], name


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
