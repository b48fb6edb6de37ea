"""ui.inputs: the one validation path for text boxes (empty, too long, unknown, hostile)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from core.translate import MAX_WORDS, InputError, prepare
from core.vocab import OOV, Vocab
from tests.conftest import ROOT
from ui import inputs

HOSTILE = ("<img src=x onerror=alert(1)>", "<script>alert(1)</script>")


def _app() -> None:  # runs inside AppTest: imports are local on purpose
    import streamlit as st

    from core.vocab import Vocab
    from ui import inputs

    vocab = Vocab(["the", "cat", "drank", "milk", "because", "it", "was", "hungry"])
    text, tokens = inputs.sentence_input(
        "sentence", param="text", default="the cat drank the milk", key="t", src_vocab=vocab
    )
    st.session_state["out_tokens"] = tokens


def run(**query: str) -> AppTest:
    at = AppTest.from_function(_app, default_timeout=30)
    for k, v in query.items():
        at.query_params[k] = v
    return at.run()


def errors(at: AppTest) -> list[str]:
    return [str(e.value) for e in at.error]


def test_default_sentence_is_read_and_shown():
    at = run()
    assert not at.exception
    assert at.session_state["out_tokens"] == ["the", "cat", "drank", "the", "milk"]
    assert at.text_input[0].max_chars == 300
    assert "300" in at.text_input[0].help and str(MAX_WORDS) in at.text_input[0].help


def test_unknown_words_are_named_with_suggestions():
    at = run(text="the catt drank the mlik")
    assert at.session_state["out_tokens"] is None
    (msg,) = errors(at)
    assert "`catt`" in msg and "`cat`" in msg
    assert "`mlik`" in msg and "`milk`" in msg


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_text_is_named_literally_inside_code_spans(hostile):
    at = run(text=hostile)
    assert not at.exception
    (msg,) = errors(at)
    # only the words survive tokenization; markup never reaches the message
    assert "<" not in msg and ">" not in msg
    assert "`alert`" in msg


def test_emptied_box_is_explained_not_refilled():
    at = run(text="   ")
    assert at.text_input[0].value == ""
    assert at.session_state["out_tokens"] is None
    (msg,) = errors(at)
    assert "Type an English sentence" in msg


def test_symbols_and_emoji_only_count_as_empty():
    at = run(text="😀 !!! ??? <> ``` \u202e")
    (msg,) = errors(at)
    assert "Type an English sentence" in msg


def test_typing_in_the_box_updates_the_url_and_the_message():
    at = run()
    at.text_input[0].input("the cat drank wine").run()
    assert at.query_params["text"] in ("the cat drank wine", ["the cat drank wine"])
    (msg,) = errors(at)
    assert "`wine`" in msg


def test_too_long_in_the_url_falls_back_with_notice():
    at = run(text="the cat " * 400)
    assert not at.exception
    assert at.warning, "a bad link gets a notice"
    assert at.session_state["out_tokens"] == ["the", "cat", "drank", "the", "milk"]


def test_too_many_words_says_the_limit():
    words = " ".join(["cat"] * (MAX_WORDS + 1))
    at = run(text=words)
    (msg,) = errors(at)
    assert str(MAX_WORDS) in msg


def test_message_in_chinese():
    from core.i18n import translate

    err = InputError("unknown", [OOV("xyz", ("cat",))])
    assert "xyz" in translate("inputs.unknown", "zh", words="`xyz`")
    assert err.unknown[0].word == "xyz"


def test_many_unknown_words_are_listed_up_to_a_cap():
    vocab = Vocab(["cat"])
    with pytest.raises(InputError) as info:
        prepare(" ".join(f"w{i}" for i in range(30)), vocab)
    from ui.inputs import MAX_LISTED, input_message

    msg = input_message(info.value)
    assert msg.count("`w") == MAX_LISTED
    assert str(30 - MAX_LISTED) in msg


# --- every page, statically: capped boxes, no raw HTML ---------------------------------------

SOURCES = sorted(
    [
        *(ROOT / "pages").glob("*.py"),
        *(ROOT / "ui").glob("*.py"),
        *(ROOT / "poll").glob("*.py"),
        *(ROOT / "lessons").rglob("*.py"),
    ]
)


def _calls(path):
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            yield name, node


@pytest.mark.parametrize("path", SOURCES, ids=[str(p.relative_to(ROOT)) for p in SOURCES])
def test_every_text_box_caps_its_length(path):
    for name, call in _calls(path):
        if name in ("text_input", "text_area", "chat_input"):
            keywords = {k.arg for k in call.keywords}
            assert "max_chars" in keywords, f"{path.name}:{call.lineno}: {name} without max_chars"


# Files allowed to call st.html, and why that is safe:
# - ui/style.py: a constant stylesheet, no text at all;
# - poll/views.py: the browser id, which matches poll.store.BROWSER_ID ([A-Za-z0-9_-]) before
#   it is used, and a constant script (tests/poll/test_browser_id.py);
# - ui/clicker.py: a constant marker and a constant script (tests/ui/test_clicker.py);
HTML_ALLOWED = {
    "ui/style.py",
    "poll/views.py",
    "ui/clicker.py",
}
# Files allowed to call ui.markup.escaped_html (drawn without DOMPurify), and why that is safe:
# - lessons/arena/sentence.py: the result cards, the confidence grid and the numbers table,
#   built only from html.escape'd text (tests/core/analysis/test_arena.py checks the escaping).
ESCAPED_HTML_ALLOWED = {"lessons/arena/sentence.py"}
# The only components (st.components.v2.component): the chart and the escaped html.
COMPONENTS_ALLOWED = {"ui/plot.py", "ui/markup.py"}


@pytest.mark.parametrize("path", SOURCES, ids=[str(p.relative_to(ROOT)) for p in SOURCES])
def test_no_user_text_can_reach_raw_html(path):
    import ast

    for name, call in _calls(path):
        for k in call.keywords:
            if k.arg == "unsafe_allow_html":
                assert isinstance(k.value, ast.Constant) and not k.value.value, (
                    f"{path.name}:{call.lineno}: unsafe_allow_html"
                )
        where = path.relative_to(ROOT).as_posix()
        if name == "html":  # st.html: only where every piece of text is escaped
            assert where in HTML_ALLOWED, f"{where}:{call.lineno}: st.html"
        if name == "escaped_html":  # no DOMPurify in the page: only text escaped on the server
            assert where in ESCAPED_HTML_ALLOWED | {"ui/markup.py"}, f"{where}:{call.lineno}"
        if name == "component":
            assert where in COMPONENTS_ALLOWED, f"{where}:{call.lineno}: a component"
        assert name not in ("iframe", "declare_component"), f"{path.name}:{call.lineno}"


@pytest.mark.parametrize(
    "raw, shown",
    [
        ("the cat drank the milk", "the cat drank the milk"),
        ("猫 喝 了 牛奶", "猫 喝 了 牛奶"),
        (
            "<b>x</b> **y** `z` [a](b) :red[c] $d$",
            r"\<b\>x\</b\> \*\*y\*\* \`z\` \[a\]\(b\) \:red\[c\] \$d\$",
        ),
        ("a\u200bb\x07c\nd", "abc d"),
    ],
)
def test_plain_quotes_words_literally_without_a_code_span(raw, shown):
    """Model and corpus words are shown in the page's font: every markdown character escaped,
    control characters dropped, newlines one space; never a backtick (it would load a font)."""
    assert inputs.plain(raw) == shown
