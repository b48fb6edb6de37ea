"""The frame around every page: language, presenter mode, notices, share, legacy repair."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from core.i18n import translate
from tests.conftest import ROOT, as_a_phone, cjk_share, main_text, make_app
from ui.params import safe_value

HOME = "pages/home.py"


def test_language_defaults_from_browser_locale(no_manifest):
    at = make_app(locale="zh-CN").run()
    assert not at.exception
    assert at.query_params["lang"] == "zh"
    assert at.title[0].value == translate("page.home.title", "zh")
    at = make_app(locale="en-GB").run()
    assert at.query_params["lang"] == "en"


def test_url_language_beats_locale_and_both_params_are_written(no_manifest):
    at = make_app(lang="en", locale="zh-CN").run()
    assert at.title[0].value == translate("page.home.title", "en")
    assert at.query_params["lang"] == "en" and at.query_params["present"] == "0"


def test_bad_shell_params_fall_back_with_a_notice(no_manifest):
    at = make_app(lang="klingon", present="yes", locale="zh-CN").run()
    assert not at.exception
    warnings = [w.value for w in at.warning]
    assert any("klingon" in w and "lang" in w for w in warnings)
    assert any("yes" in w and "present" in w for w in warnings)
    assert at.query_params["lang"] == "zh" and at.query_params["present"] == "0"


def test_hostile_param_values_are_neutralised():
    assert safe_value("`x` [a](http://e.vil)\n<script>") == "'x' [a](http://e.vil)<script>"
    assert len(safe_value("z" * 500)) == 40
    at = make_app(lang="en", task="`<img src=x onerror=alert(1)>`" * 3).run()
    notice = next(w.value for w in at.warning if "task" in w.value)
    # The raw value only ever appears inside a single code span, clipped.
    assert notice.count("`") == 6 and "…" in notice


def test_language_switch_in_sidebar_translates_the_page(no_manifest):
    at = make_app(lang="en").run()
    assert cjk_share(main_text(at)) < 0.1
    at.sidebar.button_group[0].set_value("zh").run()  # the language
    assert not at.exception
    assert at.query_params["lang"] == "zh"
    assert cjk_share(main_text(at)) > 0.6


def test_presenter_toggle_changes_page_and_url(no_manifest):
    # a part with secondary controls (Table 1's d and k; a formula, no model needed)
    at = make_app("pages/path_length.py", lang="en", part="table").run()
    more = translate("shell.more_controls", "en")
    assert more not in [e.label for e in at.expander] and "present" in at.query_params
    at.sidebar.button_group[1].set_value(True).run()  # presenter: on
    assert not at.exception
    assert at.query_params["present"] == "1"
    # secondary controls fold away and the presenter stylesheet is injected
    assert [e.label for e in at.expander].count(more) == 1
    assert any("font-size" in str(el.proto) for el in at.get("html"))


def test_a_phone_keeps_its_layout_from_a_presenter_link(no_manifest, monkeypatch):
    """A student who scans the projector's QR code gets a link with present=1; presenter
    mode (text and charts sized for a 1280-px projector) squeezed the charts of a 390-px
    phone to a few pixels. A phone (``ui.on_a_phone`` patched: AppTest sends no
    User-Agent) keeps its own layout, says so once, and its switch is off and disabled;
    a laptop following the same link is in presenter mode."""

    phone_note = translate("shell.presenter_phone", "zh")
    laptop = make_app("pages/path_length.py", lang="zh", present="1", part="table").run()
    assert laptop.query_params["present"] == "1"
    assert phone_note not in main_text(laptop)

    as_a_phone(monkeypatch)
    at = make_app("pages/path_length.py", lang="zh", present="1", part="table").run()
    assert not at.exception
    assert at.query_params["present"] == "0" and at.query_params["lang"] == "zh"
    assert phone_note in main_text(at)
    switch = at.sidebar.button_group[1]
    assert switch.value is False and switch.proto.disabled
    more = translate("shell.more_controls", "zh")
    assert more not in [e.label for e in at.expander]  # the laptop's layout, not the fold
    at.run()  # the next run: the link now says present=0, no second notice
    assert phone_note not in main_text(at)


def test_share_shows_full_link_and_qr(no_manifest):
    at = make_app(lang="zh", present="1", task="probe")
    at.context = {"url": "http://192.168.1.20:8501/"}
    at.run()
    at.sidebar.button[0].click().run()
    assert not at.exception
    link = at.code[0].value
    assert link.startswith("http://192.168.1.20:8501") and "?" in link
    for part in ("lang=zh", "present=1", "task=probe"):
        assert part in link
    assert len(at.get("image")) == 1


def test_page_run_without_the_frame_repairs_itself(no_manifest):
    """A page file run on its own (what legacy multipage mode does) still gets the frame."""
    at = AppTest.from_file(str(ROOT / HOME), default_timeout=60)
    at.query_params["lang"] = "zh"
    at.run()
    assert not at.exception
    assert at.title[0].value == translate("page.home.title", "zh")
    assert at.sidebar.button_group[0].value == "zh"


def _reader_app():
    import streamlit as st

    from ui import params

    st.session_state["ui_lang_value"] = "en"
    st.write(
        repr(
            (
                params.get_choice("m", ["a", "b"], "a"),
                params.get_int("n", 0, 10, 3),
                params.get_float("x", 0.0, 1.0, 0.5),
                params.get_bool("f", False),
                params.get_text("s", "hi", max_len=5),
            )
        )
    )


def test_param_readers_accept_good_values_and_reject_bad_ones():
    at = AppTest.from_function(_reader_app)
    for k, v in {"m": "b", "n": "7", "x": "0.25", "f": "1", "s": "cat"}.items():
        at.query_params[k] = v
    at.run()
    assert at.markdown[0].value == repr(("b", 7, 0.25, True, "cat")) and not at.warning
    at = AppTest.from_function(_reader_app)
    for k, v in {"m": "z", "n": "11", "x": "nan", "f": "yes", "s": "toolong"}.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception
    assert at.markdown[0].value == repr(("a", 3, 0.5, False, "hi"))
    assert len(at.warning) == 5
