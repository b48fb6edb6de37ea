"""The lesson's example sentences: written once (``core.corpus.lesson``), readable by the
models, quoted from there, and called "the lesson's sentence" only where they are.

A catalogue text that names a sentence as the lesson's ("the lesson's sentence", "From the
lesson", 课文里的句子, 课文例句, …) is registered in ``LABELS`` with what it names; the test
takes that sentence from the code that shows it and checks that it is the lesson's,
word for word. A text that names an English version the models can read, or a sentence
modelled on the lesson's, must say so in its own words."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from core import corpus
from core.analysis import influence
from core.analysis import receptive_field as rf
from core.analysis.attention import examples
from core.corpus import lesson
from core.i18n import LANGS, load_catalogue
from poll import questions as pq

ROOT = Path(__file__).resolve().parents[2]
ORIGINALS = {lesson.normalise(s.original) for s in lesson.SENTENCES}

# --- the module ------------------------------------------------------------------------------


def test_each_sentence_once_with_one_rendering_per_language():
    assert len({s.original for s in lesson.SENTENCES}) == len(lesson.SENTENCES)
    assert len({s.en for s in lesson.SENTENCES}) == len(lesson.SENTENCES)
    for s in lesson.SENTENCES:
        assert s.lang in LANGS and s.section
        assert s.en == s.en.lower() and re.fullmatch(r"[a-z]+( [a-z]+)*", s.en), s.en
        own = s.en if s.lang == "en" else s.zh
        # the rendering in the original's language is the original itself, word for word
        assert lesson.normalise(own) == lesson.normalise(s.original), s.original
        # an English rendering of a Chinese original is never the lesson's own words
        assert s.faithful == (s.lang == "en"), s.original
        assert all(not word or word in s.en_words for word in s.pair), s.original
        assert all(not word or word in s.zh_words for word in s.pair_zh), s.original


def test_every_english_rendering_is_in_the_models_vocabulary():
    vocab = set(json.loads((ROOT / "assets/models/vocab_src.json").read_text(encoding="utf-8")))
    for s in lesson.SENTENCES:
        assert set(s.en_words) <= vocab, (s.en, set(s.en_words) - vocab)


def test_the_cicadas_version_keeps_the_lessons_pair_far_apart():
    """The English version links cicadas … their across the trees and the houses, as the
    lesson's 它们 could mean 树 or 屋子 (and does not: 秋蝉, 26 words back)."""
    s = lesson.CICADAS
    words, zh = s.en_words, s.zh_words
    assert words.count("their") == 1 and words.count("cicadas") == 1
    a, b = words.index(s.pair[0]), words.index(s.pair[1])
    assert b - a >= 20  # far beyond the default CNN stack's reach (layer 10 at kernel 3)
    assert {"trees", "houses"} <= set(words[a:b])
    assert zh.index(s.pair_zh[1]) - zh.index(s.pair_zh[0]) == 26
    assert {"树", "屋子"} <= set(zh)


def test_the_corpus_and_the_pages_read_the_module():
    assert [(p.src, p.tgt) for p in corpus.LESSON_PAIRS] == [
        (s.en_words, s.zh_words) for s in lesson.TRANSLATION_PAIRS
    ]
    assert rf.LESSON_WORDS_ZH == lesson.CICADAS.zh_words
    assert rf.english_counterpart() == lesson.CICADAS.en_words
    assert rf.choose_sentence("en")[0] == lesson.CICADAS.en_words
    assert [c.tokens for c in corpus.lesson_coref_cases()] == [
        lesson.CAT_HUNGRY.en_words,
        lesson.CAT_SWEET.en_words,
    ]
    assert pq.LM_PROMPT == tuple(lesson.AUTOREGRESSION_PROMPT.split())
    assert lesson.WEAR_SHOES.en.startswith(lesson.AUTOREGRESSION_PROMPT + " ")


# --- "the lesson's sentence" only where it is -------------------------------------------------

LABEL = {
    "en": re.compile(
        r"lesson's (own |two )?(sentences?|chinese|examples?)\b|\blesson sentences?\b"
        r"|\(lesson\)|from the lesson|one of the lesson's\b",
        re.IGNORECASE,
    ),
    "zh": re.compile(
        r"课(文|程|上)(里|中)?的?(两句话|句子|例句|原句|中文原句|中文例句)|课(文|程)例句|（课文）"
    ),
}
VERSION = {"en": "English version", "zh": "英文版本"}  # and "the models can read" / 模型读得懂
CAN_READ = {"en": "the models can read", "zh": "模型读得懂"}
MODELLED = {"en": "like the lesson's", "zh": "仿照课文"}


def _cicadas_zh() -> list[str]:
    """The lesson's Chinese sentence as the CNN and path pages draw it, and their fallback
    for a sentence of one's own with nothing to draw."""
    return ["".join(rf.choose_sentence("zh")[0]), "".join(rf.choose_sentence("own", "!")[0])]


def _translation_pairs() -> list[str]:
    return [" ".join(p.src) for p in corpus.LESSON_PAIRS]


def _it_pair() -> list[str]:
    lessons_own = [mp for mp in examples.MINIMAL_PAIRS if mp.source == "lesson"]
    cases = [" ".join(c.tokens) for c in corpus.lesson_coref_cases()]
    return [s for mp in lessons_own for s in (mp.a, mp.b)] + cases


def _lm_sentence() -> list[str]:
    return [dict(pq.BY_ID["lm_next"].quotes)["sentence"]]


# What each text that names the lesson's sentence shows. "version": an English version the
# models can read (the CNN page's measurement); "modelled": sentences written after the
# lesson's (the RNN page's searched default).
LABELS: dict[str, tuple[Callable[[], list[str]] | str, ...]] = {
    "arena.input.source.lesson": (_translation_pairs,),
    "arena.input.lesson": (_translation_pairs,),
    "arena.input.text_help": (_translation_pairs,),
    "arena.input.no_reference": (_translation_pairs,),
    "arena.sentence.how": (_translation_pairs,),
    "attention.pair.it_lesson": (_it_pair,),
    "attention.pairs.source.lesson": (_it_pair,),
    "attention.self.search": (_it_pair,),
    "attention.self.tr_note": (_it_pair,),
    "attention.score.coref.header": (_it_pair,),
    "cnn_receptive_field.sentence.zh": (_cicadas_zh,),
    "cnn_receptive_field.own_empty": (_cicadas_zh,),
    "cnn_receptive_field.theory.lead_lesson": (_cicadas_zh,),
    "cnn_receptive_field.measured.try": (_cicadas_zh, "version"),
    "cnn_receptive_field.measured.own_zh": ("version",),
    "cnn_receptive_field.measured.own_long": ("version",),
    "cnn_receptive_field.measured.counterpart": ("version",),
    "cnn_receptive_field.sentence.en": ("version",),
    "path_length.sentence.en": ("version",),
    "path_length.cicadas.curious": ("version",),
    "path_length.sentence.zh": (_cicadas_zh,),
    "path_length.own_empty": (_cicadas_zh,),
    "path_length.own_short": (_cicadas_zh,),
    "poll.q.lm_next.why": (_lm_sentence,),
    "rnn_gradients.fade.chart": ("modelled",),
}


def _catalogue_texts() -> list[tuple[str, str, str]]:
    return [(lang, k, v) for lang in LANGS for k, v in load_catalogue(lang).items()]


def test_every_text_that_names_the_lessons_sentence_is_registered():
    named = {
        (lang, key)
        for lang, key, text in _catalogue_texts()
        if LABEL[lang].search(text) or (CAN_READ[lang] in text and VERSION[lang] in text)
    }
    missing = sorted(key for _, key in named if key not in LABELS)
    assert not missing, (
        f"these texts call a sentence the lesson's: register what they show in LABELS: {missing}"
    )
    stale = sorted(k for k in LABELS if not any(k == key for _, key in named))
    assert not stale, f"registered but naming no lesson sentence: {stale}"


@pytest.mark.parametrize("key", sorted(LABELS))
def test_a_text_that_names_the_lessons_sentence_shows_it(key):
    for what in LABELS[key]:
        if callable(what):
            shown = what()
            assert shown, key
            for sentence in shown:
                assert lesson.normalise(sentence) in ORIGINALS, (
                    f"{key} calls “{sentence}” the lesson's, but the lesson does not say it"
                )
        elif what == "version":
            # the page measures the one English version, and the text says what it is
            assert rf.english_counterpart() == lesson.CICADAS.en_words
            assert not lesson.CICADAS.faithful
            for lang in LANGS:
                text = load_catalogue(lang)[key]
                assert CAN_READ[lang] in text and VERSION[lang] in text, (lang, key, text)
        else:
            assert what == "modelled", what
            for candidate in influence.WORDS_CANDIDATES:
                assert lesson.normalise(candidate) not in ORIGINALS, candidate
            for lang in LANGS:
                text = load_catalogue(lang)[key]
                assert MODELLED[lang] in text, (lang, key, text)


# --- one English rendering, quoted from the module --------------------------------------------

CODE_DIRS = ("core", "charts", "serve", "ui", "poll", "lessons", "pages")


def _string_literals() -> list[tuple[str, str]]:
    """(file, literal) of every string constant in the app's code, docstrings left out
    (they may describe a sentence; what a page shows is a literal)."""
    out = []
    files = [p for d in CODE_DIRS for p in (ROOT / d).rglob("*.py")] + [ROOT / "app.py"]
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        out += [
            (str(path.relative_to(ROOT)), node.value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
        ]
    return out


HOME = "core/corpus/lesson.py"


def _words(text: str) -> str:
    """English as words: lower case, punctuation dropped, one space between words (so a list
    of a sentence's words in quotes, “I”“love”“you”, is not the sentence)."""
    return " " + " ".join(re.sub(r"[^\w\s]", "", text.lower()).split()) + " "


def test_no_sentence_of_the_lesson_is_written_outside_its_module():
    """Neither code nor catalogue spells a lesson sentence (an English rendering of three
    words or more, a Chinese one of three words or more, or the original): they read it
    from ``core.corpus.lesson``."""
    english = [s.en for s in lesson.SENTENCES if len(s.en_words) >= 3]
    chinese = [s.zh_text for s in lesson.SENTENCES if len(s.zh_words) >= 3]
    chinese += [s.original for s in lesson.SENTENCES if s.lang == "zh"]
    texts = [(f, v) for f, v in _string_literals() if f != HOME]
    texts += [(f"{lang} catalogue: {key}", v) for lang, key, v in _catalogue_texts()]
    found = [
        (where, sentence)
        for where, text in texts
        for sentence in english
        if _words(sentence) in _words(text)
    ] + [
        (where, sentence)
        for where, text in texts
        for sentence in chinese
        if lesson.normalise(sentence) in lesson.normalise(text)
    ]
    assert not found, found


def test_no_second_english_version_of_the_cicadas_sentence():
    """The only English sentences about the autumn cicadas outside the module are the
    corpus's own (a held-out test sentence of the attention page, the RNN page's sentences
    written after the lesson's), none of them the lesson's, none called the lesson's
    (``LABELS``: "modelled")."""
    allowed = {*influence.WORDS_CANDIDATES, examples.EXAMPLES[6][0]}
    test_split = {p.src for p in corpus.shared_splits().test}
    assert tuple(examples.EXAMPLES[6][0].split()) in test_split
    cicadas = [
        (f, v) for f, v in _string_literals() if f != HOME and "cicadas" in v and len(v.split()) > 3
    ]
    assert cicadas  # the scan sees the known ones
    others = [(f, v) for f, v in cicadas if v not in allowed]
    assert not others, others
    assert lesson.CICADAS.en not in allowed
