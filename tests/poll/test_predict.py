"""Predict, then check: a visitor alone picks an answer to a part's poll question, checks it,
and sees the models' answer (as poll.questions computes it), its evidence, and whether
the pick was right; nothing reaches the poll store; a missing model is said, not raised."""

from __future__ import annotations

import pytest

import poll.views
from core import zoo
from core.i18n import translate
from poll import questions as pq
from poll import store as ps
from tests.conftest import make_app

# (question, page, part, language): four pages, both languages, formulas and a shipped model
CASES = (
    ("cnn_layers", "cnn_receptive_field", "theory", "en"),
    ("path_longest", "path_length", "table", "zh"),
    ("rnn_fade", "rnn_gradients", "fresh", "en"),
    ("attention_cat", "attention", "align", "zh"),
)


@pytest.fixture
def no_store(monkeypatch):
    """Any use of the poll store fails the test: the visitor alone stores nothing."""

    def refuse(*_a, **_k):
        raise AssertionError("Predict, then check used the poll store")

    monkeypatch.setattr(poll.views, "store", refuse)
    monkeypatch.setattr(ps.PollStore, "__init__", refuse)
    for name in ("open", "vote", "tally", "get", "set_state", "restart", "my_vote"):
        monkeypatch.setattr(ps.PollStore, name, refuse)


def _page(qid: str, slug: str, part: str, lang: str, present: str = "0"):
    at = make_app(f"pages/{slug}.py", lang=lang, present=present, part=part)
    at.run(timeout=180)
    assert not at.exception, [e.message for e in at.exception]
    return at


def _key(qid: str, what: str) -> str:
    q = pq.BY_ID[qid]
    return f"{q.slug}_predict_{q.id}_{what}"


def _check(at, qid: str, pick: int):
    at.radio(key=_key(qid, "pick")).set_value(pick).run(timeout=180)
    at.button(key=_key(qid, "check")).click().run(timeout=180)
    assert not at.exception, [e.message for e in at.exception]
    return at


@pytest.mark.parametrize("qid, slug, part, lang", CASES, ids=[c[0] for c in CASES])
def test_a_right_and_a_wrong_pick_get_the_models_answer(no_store, qid, slug, part, lang):
    q = pq.BY_ID[qid]
    sol = q.solve()  # what the models say, computed here by the core alone
    names = q.answer_labels(lambda key: translate(key, lang))
    answer = translate("poll.answer", lang, answer=names[sol.correct])

    at = _page(qid, slug, part, lang)
    radio = at.radio(key=_key(qid, "pick"))
    assert radio.label == translate("poll.predict.pick", lang)
    assert list(radio.options) == names and radio.value is None
    assert at.button(key=_key(qid, "check")).disabled  # nothing picked yet
    text = q.text(lambda key, **quotes: translate(key, lang, **quotes))
    assert text in [m.value for m in at.main.markdown]
    assert answer not in [s.value for s in at.success]  # not before "Check"
    charts = len(at.get("plotly_chart"))

    _check(at, qid, sol.correct)
    shown = [s.value for s in at.success]
    assert answer in shown
    assert translate("poll.predict.right", lang, pick=names[sol.correct]) in shown
    why = translate(f"poll.q.{qid}.why", lang, **dict(q.quotes), **sol.values)
    assert why in [m.value for m in at.markdown]
    assert len(at.get("plotly_chart")) == charts + 1  # the evidence chart

    wrong = (sol.correct + 1) % len(names)
    at.radio(key=_key(qid, "pick")).set_value(wrong).run(timeout=180)
    assert answer not in [s.value for s in at.success]  # a new pick hides the last check
    _check(at, qid, wrong)
    assert answer in [s.value for s in at.success]
    wrong_text = translate("poll.predict.wrong", lang, pick=names[wrong])
    assert wrong_text in [w.value for w in at.warning]
    assert translate("poll.predict.right", lang, pick=names[wrong]) not in [
        s.value for s in at.success
    ]


def _in_order(node, out: list | None = None) -> list:
    """Every element of the main area, in screen order."""
    out = [] if out is None else out
    for child in getattr(node, "children", {}).values():
        out.append(child)
        _in_order(child, out)
    return out


def test_it_comes_after_the_parts_chart_and_takeaway():
    at = _page("path_longest", "path_length", "table", "en")
    order = _in_order(at.main)
    title = f"**{translate('poll.predict.title', 'en')}**"
    block = next(i for i, el in enumerate(order) if getattr(el, "value", None) == title)
    last_chart = max(i for i, el in enumerate(order) if el.type == "plotly_chart")
    takeaway = max(i for i, el in enumerate(order) if el.type == "success")
    assert last_chart < takeaway < block


def test_on_the_projector_it_is_folded_after_ask_the_class(no_store):
    at = _page("cnn_layers", "cnn_receptive_field", "theory", "zh", present="1")
    title = translate("poll.predict.title", "zh")
    order = _in_order(at.main)
    folds = [i for i, el in enumerate(order) if el.type == "expander" and el.label == title]
    assert len(folds) == 1
    ask = translate("poll.ask_button", "zh")
    assert any(el.type == "page_link" and el.label == ask for el in order[: folds[0]])
    assert order[folds[0]].radio(key=_key("cnn_layers", "pick")) is not None


def test_a_part_without_a_question_offers_none(no_store):
    assert pq.for_part("cnn_receptive_field", "measured") == []
    at = _page("", "cnn_receptive_field", "measured", "en")
    assert not [r for r in at.radio if r.key and "_predict_" in r.key]


def test_a_missing_model_is_said_in_the_visitors_language(no_store, monkeypatch):
    """The probes of the far-recall question gone: the page says so, in Chinese."""

    def missing(name: str, distance: int) -> float:
        raise zoo.ZooError(f"assets/models/{name}.pt", "missing")

    monkeypatch.setattr(pq, "probe_accuracy", missing)
    poll.views.solution.clear()
    try:
        at = _page("probe_far", "path_length", "probes", "zh")
        _check(at, "probe_far", 0)
        assert translate("poll.predict.missing", "zh") in [w.value for w in at.warning]
        assert not [s for s in at.success if s.value.startswith("模型给出的答案")]
    finally:
        poll.views.solution.clear()
