"""One validation path for every text box a student can type into.

A public demo link gets anything (other scripts, emoji, thousands of characters, HTML, an
empty box); this module turns any of it into known tokens or one clear message in the
user's language, never raw HTML. The box caps its length (``max_chars``); the text is
tokenized by ``core.vocab.tokenize_en`` and checked by ``core.translate.prepare`` (the core
path, also used by the CLI); an ``InputError`` becomes a message naming each unknown word
(clipped, in a code span) with the nearest known words; an emptied box stays empty.
See :func:`sentence_input` for the typical use.
"""

from __future__ import annotations

import streamlit as st

from core import mdtable
from core.translate import MAX_WORDS, InputError, prepare
from core.vocab import Vocab
from ui import params
from ui.i18n import t

MAX_CHARS = 300  # characters a text box accepts (and the longest text read from a link)
MAX_LISTED = 8  # unknown words named in one message; the rest are counted

_ICONS = {"empty": ":material/edit_note:", "too_long": ":material/straighten:"}


def code(text: object) -> str:
    """User text as a markdown code span: printable, clipped, no backticks (see
    ``ui.params.safe_value``), so it is shown literally and cannot inject markup."""
    return f"`{params.safe_value(text)}`"


def plain(text: object) -> str:
    """Model or corpus words quoted in the page's own font: printable characters only, every
    markdown character escaped. (A code span would make a phone fetch a 90 kB monospace font.)"""
    words = " ".join(str(text).split())  # newlines and runs of spaces: one space
    return mdtable.escape("".join(ch for ch in words if ch.isprintable()))


def input_message(err: InputError) -> str:
    """The message for an ``InputError`` in the session's language (markdown, safe)."""
    if err.reason == "too_long":
        return t("inputs.too_long", limit=err.limit)
    if err.reason != "unknown" or not err.unknown:
        return t("inputs.empty")
    parts = []
    for oov in err.unknown[:MAX_LISTED]:
        if oov.suggestions:
            near = " / ".join(code(s) for s in oov.suggestions)
            parts.append(t("inputs.word_suggest", word=code(oov.word), suggestions=near))
        else:
            parts.append(t("inputs.word_none", word=code(oov.word)))
    words = "; ".join(parts)
    extra = len(err.unknown) - MAX_LISTED
    if extra > 0:
        words += " " + t("inputs.more", n=extra)
    return t("inputs.unknown", words=words)


def show_input_error(err: InputError) -> None:
    """Show ``input_message(err)`` as a page-level error (the page keeps running)."""
    st.error(input_message(err), icon=_ICONS.get(err.reason, ":material/spellcheck:"))


def check(text: str, src_vocab: Vocab) -> list[str] | None:
    """Known tokens of ``text``, or ``None`` after showing why it cannot be used."""
    try:
        return prepare(text, src_vocab)
    except InputError as err:
        show_input_error(err)
        return None


def limits_help(extra: str | None = None, max_chars: int = MAX_CHARS) -> str:
    """Help text of a sentence box: what it accepts and its limits (shown by the ``?``)."""
    text = t("inputs.help", chars=max_chars, words=MAX_WORDS)
    return f"{extra}\n\n{text}" if extra else text


def url_text(param: str, default: str, max_chars: int = MAX_CHARS) -> str:
    """The sentence in the URL parameter ``param``: an explicitly blank value stays blank
    (the user emptied the box), a bad one falls back to ``default`` with a notice."""
    raw = st.query_params.get(param)
    if raw is not None and not raw.strip():
        return ""
    return params.get_text(param, default, max_len=max_chars)


def sentence_input(
    label: str,
    *,
    param: str,
    default: str,
    key: str,
    src_vocab: Vocab,
    max_chars: int = MAX_CHARS,
    area: bool = False,
    help: str | None = None,
    placeholder: str | None = None,
) -> tuple[str, list[str] | None]:
    """A text box tied to the URL parameter ``param``, validated on the core path.

    Returns ``(text, tokens)``; ``tokens`` is ``None`` when the text cannot be used, and
    the reason (empty, too long, unknown words with suggestions) is already on screen::

        text, tokens = ui.inputs.sentence_input(
            t("x.sentence"), param="text", default=DEFAULT, key="x_text", src_vocab=src_vocab
        )
        if tokens is None:
            st.stop()  # or skip the section: the message is already on screen
    """
    text = url_text(param, default, max_chars)
    widget = st.text_area if area else st.text_input
    text = widget(
        label,
        max_chars=max_chars,
        help=limits_help(help, max_chars),
        placeholder=placeholder,
        **params.bound(param, text, key=key),
    )
    params.set_params(**{param: text})
    return text, check(text, src_vocab)
