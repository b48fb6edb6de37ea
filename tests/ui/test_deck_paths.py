"""Two ways through the deck, as a visitor meets them: the class path by default, the full
lesson from the sidebar or the link; previous / next, the clicker's links and the slide
count follow the chosen path; a part off the class path steps back onto it."""

from __future__ import annotations

import pytest

from core.i18n import translate
from tests.conftest import make_app
from tests.ui.test_clicker import _links
from ui.nav import deck

PAGE = "pages/autoregressive.py"


def _run(**params):
    at = make_app(PAGE, **params).run(timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_class_path_is_the_default_and_stays_out_of_the_link():
    at = _run(lang="en", present="0", part="lm")
    links = _links(at)
    assert links["deck_next"] == ("autoregressive", "lang=en&present=0&part=wrong")
    assert links["deck_prev"] == ("", "lang=en&present=0")  # home
    assert "path" not in at.query_params
    assert at.segmented_control(key="ui_path").value == "class"


def test_the_full_lesson_from_the_link_is_kept_in_every_deck_link():
    at = _run(lang="en", present="1", part="lm", path="full")
    links = _links(at)
    assert links["deck_next"] == ("autoregressive", "lang=en&present=1&path=full&part=translate")
    assert links["deck_last"] == ("arena", "lang=en&present=1&path=full&part=evidence")
    assert at.query_params["path"] == "full"


def test_the_sidebar_switches_the_path_and_the_link_follows():
    at = _run(lang="zh", present="1", part="lm")
    assert _links(at)["deck_last"] == ("arena", "lang=zh&present=1&part=sentence")
    at.segmented_control(key="ui_path").set_value("full").run(timeout=300)
    assert not at.exception
    assert at.query_params["path"] == "full"
    assert _links(at)["deck_next"] == (
        "autoregressive",
        "lang=zh&present=1&path=full&part=translate",
    )
    at.segmented_control(key="ui_path").set_value("class").run(timeout=300)
    assert "path" not in at.query_params
    assert _links(at)["deck_next"] == ("autoregressive", "lang=zh&present=1&part=wrong")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_sidebar_says_how_long_each_path_is(lang):
    at = _run(lang=lang, present="0", part="lm")
    control = at.segmented_control(key="ui_path")  # AppTest gives the options as shown
    labels = [translate(f"shell.path_{p}", lang, n=len(deck(p))) for p in ("class", "full")]
    assert control.options == labels


def test_the_slide_count_follows_the_path_and_names_a_part_it_passes_over():
    n_class, n_full = len(deck("class")), len(deck("full"))
    at = _run(lang="en", present="1", part="lm")
    assert at.segmented_control(key="autoregressive_part").label == translate(
        "shell.part_of", "en", k=1, n=4, slide=2, total=n_class
    )
    at = _run(lang="en", present="1", part="lm", path="full")
    assert at.segmented_control(key="autoregressive_part").label == translate(
        "shell.part_of", "en", k=1, n=4, slide=2, total=n_full
    )
    at = _run(lang="en", present="1", part="translate")
    assert at.segmented_control(key="autoregressive_part").label == translate(
        "shell.part_off", "en", k=2, n=4, total=n_class
    )
    # off the path, previous and next are the class stops around it
    links = _links(at)
    assert links["deck_prev"] == ("autoregressive", "lang=en&present=1&part=lm")
    assert links["deck_next"] == ("autoregressive", "lang=en&present=1&part=wrong")


def test_a_path_the_app_does_not_know_says_so_and_walks_the_class_path():
    at = _run(lang="en", present="0", part="lm", path="scenic")
    said = [w.value for w in at.warning]
    assert translate("notice.bad_param", "en", name="path", value="scenic", default="class") in said
    assert _links(at)["deck_next"] == ("autoregressive", "lang=en&present=0&part=wrong")
    assert "path" not in at.query_params
