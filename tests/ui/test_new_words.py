"""A part's new words (``ui.slide.new_words``) are shown once, by its first slide: a nested
fragment's own rerun neither repeats nor loses them, the fragment that shows them shows them
again when it reruns."""

from __future__ import annotations

from core import glossary
from core.i18n import translate
from tests.conftest import fragment_of, make_app, record_sent, rerun_alone


def _gloss(name: str) -> str:
    return glossary.concepts()[name].gloss["en"]


def _sent_glosses(log, gloss: str) -> int:
    return sum(gloss in s.body for s in log)


def test_a_nested_fragments_rerun_leaves_the_words_to_the_part(monkeypatch):
    # CNN part 1: the part's fragment makes the slide, a nested one draws the formula
    gloss = _gloss("receptive_field")
    sent = record_sent(monkeypatch, ("cnn_rf_depth",))
    at = make_app("pages/cnn_receptive_field.py", lang="en", part="theory").run(timeout=300)
    assert not at.exception
    assert _sent_glosses(sent, gloss) == 1
    shown = "\n".join(str(c.value) for c in at.main.caption)
    assert shown.count(gloss) == 1 and translate("shell.new_words", "en") in shown
    inner = fragment_of(sent, "cnn_rf_depth")
    now = rerun_alone(at, sent, inner, lambda: at.slider(key="cnn_rf_depth").set_value(3))
    assert "cnn_rf_depth" in now and _sent_glosses(sent, gloss) == 0


def test_the_fragment_that_shows_the_words_shows_them_at_each_run(monkeypatch):
    # attention part 1: the slide is the nested step view's, so its rerun redraws the words
    gloss = _gloss("attention_weight")
    sent = record_sent(monkeypatch, ("attention_v",))
    at = make_app("pages/attention.py", lang="en", part="align").run(timeout=300)
    assert not at.exception and _sent_glosses(sent, gloss) == 1
    step_view = fragment_of(sent, "attention_v")
    rerun_alone(at, sent, step_view, lambda: at.toggle(key="attention_v").set_value(True))
    assert _sent_glosses(sent, gloss) == 1


def test_a_part_that_introduces_nothing_shows_no_new_words():
    at = make_app("pages/attention.py", lang="en", part="pairs").run(timeout=300)
    assert not at.exception
    assert translate("shell.new_words", "en") not in "\n".join(
        str(c.value) for c in at.main.caption
    )
