"""Every registered page through AppTest: both languages x presenter mode off/on."""

from __future__ import annotations

import re

import pytest

from core.i18n import translate
from tests.conftest import cjk_share, main_text, make_app
from ui.nav import PAGES
from ui.style import PRESENTER_CSS

COMBOS = [(lang, present) for lang in ("en", "zh") for present in ("0", "1")]
# Lines that quote a model's Chinese output as body text, not the page's own words: left out
# of the English page's share of Chinese (the output's text in place of ``{text}``).
MODEL_OUTPUT = ("attention.output",)


def _own_words(text: str, lang: str) -> str:
    """``text`` without the lines that quote a model's output, and (in English) without the
    corpus or model words the page quotes between curly quotes (``ui.inputs.plain``)."""
    if lang == "en":
        text = re.sub("\u201c[^\u201d]*\u201d", "", text)
    heads = [translate(k, lang).split("{text}")[0] for k in MODEL_OUTPUT]
    heads = [re.escape(h).replace(re.escape("{model}"), ".*?") for h in heads]
    quoted = re.compile("^(" + "|".join(heads) + ").*$", re.M)
    return quoted.sub("", text)


@pytest.mark.parametrize("spec", PAGES, ids=[p.slug for p in PAGES])
@pytest.mark.parametrize(("lang", "present"), COMBOS, ids=[f"{a}-p{b}" for a, b in COMBOS])
def test_page_runs_clean(spec, lang, present):
    at = make_app(spec.path, lang=lang, present=present).run(timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == translate(f"page.{spec.slug}.title", lang)
    assert at.query_params["lang"] == lang and at.query_params["present"] == present
    share = cjk_share(_own_words(main_text(at), lang))
    if lang == "zh":
        assert share > 0.6, f"page text is not mostly Chinese ({share:.2f})"
    else:
        assert share < 0.05, f"English page shows Chinese ({share:.2f})"
    # presenter mode folds secondary controls away and injects the presenter stylesheet
    styled = any(PRESENTER_CSS.strip() in el.proto.body for el in at.get("html"))
    assert styled == (present == "1")


@pytest.mark.parametrize("spec", PAGES, ids=[p.slug for p in PAGES])
def test_page_survives_garbage_params(spec):
    at = make_app(spec.path, lang="en", junk="1", task="", model="../../etc", step="-1e309")
    at.run(timeout=120)
    assert not at.exception, [e.value for e in at.exception]
