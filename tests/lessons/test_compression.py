"""The compression page (lesson 1.6) through AppTest: both parts in both languages and
presenter mode, the controls change what is shown, the default views show their takeaways,
bad URL values fall back with a notice. The Markov part counts the synthetic corpus once
per test session (cached) and needs the shipped language model (skips until trained)."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from core import zoo
from tests.conftest import (
    chart_spec,
    cjk_share,
    fragment_of,
    main_text,
    md_tables,
    record_sent,
    rerun_alone,
    run_page,
)

PAGE = "pages/compression.py"
DEFAULT_ORDER = 4  # the page's default n-gram order
UNSEEN_MIN = 0.10  # at the default n, at least this share of held-out n-grams is unseen
FILLED_MAX = 1e-4  # ... and the training text fills at most this share of the Vⁿ table
MLP_FACTOR_MIN = 10.0  # at the default context, the MLP layer's weights over any other's


def _need_lm() -> None:
    try:
        zoo.load_vocabs()
        zoo.load_model("lm_gru")
    except zoo.ZooError as err:
        pytest.skip(f"pretrained weights not available yet: {err}")


def run(**params):
    return run_page(PAGE, timeout=600, **params)


chart = chart_spec


def chart_keys(at) -> list[str]:
    return [el.proto.id for el in at.get("plotly_chart")]


def trace(fig: dict, name_part: str) -> dict:
    return next(tr for tr in fig["data"] if name_part in tr.get("name", ""))


def array(values) -> list[float]:
    """A plotly JSON array: a list, or numpy's bytes as {"dtype", "bdata"}."""
    if isinstance(values, dict):
        return np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"]).tolist()
    return list(values)


# --- part 1: the Markov window --------------------------------------------------------------
def test_markov_default_shows_the_table_explode_and_the_window_fail():
    _need_lm()
    at = run(part="markov")
    keys = chart_keys(at)
    assert "cmp_growth" in keys[0] and "cmp_unseen" in keys[1]  # the main chart first
    i = DEFAULT_ORDER - 1
    growth = chart(at, "cmp_growth")
    possible = array(trace(growth, "possible")["y"])
    seen = array(trace(growth, "distinct")["y"])
    assert seen[i] / possible[i] < FILLED_MAX
    assert all(a < b for a, b in zip(possible, possible[1:]))  # Vⁿ grows
    unseen = array(chart(at, "cmp_unseen")["data"][0]["y"])
    assert unseen[i] > UNSEEN_MIN
    assert all(a <= b for a, b in zip(unseen, unseen[1:]))  # and so does the unseen share
    # every order in one colour (the growth chart marks n); the caption gives n's share
    colors = chart(at, "cmp_unseen")["data"][0]["marker"]["color"]
    assert isinstance(colors, str) or len(set(colors)) == 1, colors
    assert f"At n = {DEFAULT_ORDER}, {unseen[i]:.0%} of the n-gram occurrences" in main_text(at)
    # the searched default prompt: the count table cannot use its whole window
    text = main_text(at)
    assert "never occur together in training" in text
    counted, neural = md_tables(at)[:2]
    first_context = counted[1][0].split()
    assert len(first_context) < DEFAULT_ORDER - 1
    assert len(neural) > 1  # the neural model continues the same prompt
    assert at.select_slider(key="cmp_n").value == DEFAULT_ORDER
    assert "⟨eos⟩" in text or "<eos>" not in text


def test_markov_order_changes_the_marked_n_and_the_continuation():
    _need_lm()
    at = run(part="markov", prefix="the old man in the park", n="2")
    assert at.select_slider(key="cmp_n").value == 2
    two = md_tables(at)[0]
    assert all(len(row[0].split()) <= 1 for row in two[1:])  # context: one word at most
    assert "n = 2" in json.dumps(chart(at, "cmp_growth")["layout"]["annotations"])
    unseen_at_2 = chart(at, "cmp_unseen")
    at.select_slider(key="cmp_n").set_value(5).run(timeout=600)
    assert not at.exception and at.query_params["n"] == "5"
    five = md_tables(at)[0]
    assert max(len(row[0].split()) for row in five[1:]) > 1
    assert "n = 5" in json.dumps(chart(at, "cmp_growth")["layout"]["annotations"])
    assert two != five
    # the unseen chart is the same for every n (a click on n leaves it as it is)
    assert chart(at, "cmp_unseen") == unseen_at_2


def test_an_order_click_redraws_what_n_changes_not_the_prompt(monkeypatch):
    """The order n (the benchmark's control) reruns the fragment nested in the part's: the
    slider, the growth chart, the unseen chart (the same figure) and the comparison, each in
    the place it had; the prompt's box is not sent again."""
    _need_lm()
    keys = ("cmp_n", "cmp_growth", "cmp_unseen", "cmp_prefix")
    sent = record_sent(monkeypatch, keys)
    at = run(part="markov")
    inner, outer = fragment_of(sent, "cmp_n"), fragment_of(sent, "cmp_prefix")
    assert inner and outer and inner != outer
    first = {s.key: s.path for s in sent if s.key}
    # the growth chart above the slider above the prompt's box, the unseen chart under it
    assert first["cmp_growth"] < first["cmp_n"] < first["cmp_prefix"] < first["cmp_unseen"]
    unseen = chart(at, "cmp_unseen")
    set_n = lambda: at.select_slider(key="cmp_n").set_value(3)  # noqa: E731
    now = rerun_alone(at, sent, inner, set_n, timeout=600)
    assert {"cmp_n", "cmp_growth", "cmp_unseen"} <= set(now), now
    assert "cmp_prefix" not in now, now
    assert chart(at, "cmp_unseen") == unseen
    assert at.query_params["n"] == "3" and "n = 3" in main_text(at)


def test_markov_bad_prompt_and_bad_order_fall_back_with_a_notice():
    _need_lm()
    at = run(part="markov", n="9", prefix="the zzyzx cat")
    assert any("9" in w.value for w in at.warning)  # the order fell back
    assert at.select_slider(key="cmp_n").value == DEFAULT_ORDER
    assert any("zzyzx" in e.value for e in at.error)  # the unknown word is named
    assert len(at.get("plotly_chart")) == 2  # the charts still show


# --- part 2: priors on an MLP ---------------------------------------------------------------
def test_priors_default_shows_the_mlp_far_bigger_and_links_each_prior():
    at = run(part="priors")
    assert "cmp_weights" in chart_keys(at)[0]
    fig = chart(at, "cmp_weights")
    x = array(fig["data"][0]["x"])
    i = x.index(64)
    by_name = {tr["name"]: array(tr["y"]) for tr in fig["data"]}
    mlp = by_name["MLP (fully connected)"][i]
    others = [y[i] for name, y in by_name.items() if not name.startswith("MLP")]
    assert len(others) == 3 and mlp > MLP_FACTOR_MIN * max(others)
    table = md_tables(at)[0]
    assert [row[0] for row in table[1:]] == [
        "MLP (fully connected)",
        "CNN layer",
        "RNN cell",
        "self-attention",
    ]
    check = md_tables(at)[1]
    assert all(row[2] == row[3] for row in check[1:])  # formula == PyTorch
    links = {link.proto.page for link in at.get("page_link")}
    assert any("cnn_receptive_field" in p for p in links)
    assert any("rnn_gradients" in p for p in links)
    assert any("attention" in p for p in links)


def test_priors_controls_change_the_counts():
    at = run(part="priors")
    before = md_tables(at)[0]
    at.slider(key="cmp_ctx").set_value(3).run()
    assert not at.exception and at.query_params["ctx"] == "3"
    after = md_tables(at)[0]
    assert after[1][2] != before[1][2]  # the MLP row changed
    assert after[2][2] == before[2][2]  # the CNN layer did not (it does not depend on n)
    assert "not the biggest" in main_text(at)
    at.slider(key="cmp_k").set_value(7).run()
    assert md_tables(at)[0][2][2] != before[2][2]  # now the CNN layer did
    at.select_slider(key="cmp_d").set_value(64).run()
    assert "d = h = 64" in json.dumps(chart(at, "cmp_weights")["layout"]["title"])


def test_priors_bad_params_fall_back_with_a_notice():
    at = run(part="priors", ctx="0", d="7", k="x")
    assert len(at.warning) == 3
    assert at.slider(key="cmp_ctx").value == 64 and at.slider(key="cmp_k").value == 3


def test_unknown_part_falls_back_to_the_first_with_a_notice():
    _need_lm()
    at = run(part="nope")
    assert any("nope" in w.value for w in at.warning)
    assert at.query_params["part"] == "markov" and "cmp_growth" in chart_keys(at)[0]


# --- every part, both languages, presenter on and off ---------------------------------------
@pytest.mark.parametrize("present", ["0", "1"])
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("part", ["markov", "priors"])
def test_every_part_in_both_languages_and_presenter(part, lang, present):
    if part == "markov":
        _need_lm()
    at = run(part=part, lang=lang, present=present)
    assert at.get("plotly_chart")
    assert at.success  # the takeaway
    assert at.main.expander  # the "for the curious" fold
    text = main_text(at)
    if lang == "zh":
        assert cjk_share(text) > 0.6
    else:
        assert cjk_share(text) < 0.05
    for bad in ("python -m", "core/", ".py", "manifest", "lm_gru"):
        assert bad not in text, bad
