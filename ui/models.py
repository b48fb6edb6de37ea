"""Cached access to the pretrained zoo, shared by every page.

Models are read-only and shared by all sessions (``st.cache_resource``); pages must run
them under ``torch.inference_mode()`` (or with gradients only on their own input
tensors: the parameters are frozen) and never call ``.train()`` on them.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from core import zoo
from ui.i18n import t


@st.cache_resource(show_spinner=False)
def get_model(name: str):
    """The pretrained model ``name`` in eval mode (raises ``zoo.ZooError``)."""
    return zoo.load_model(name)


@st.cache_resource(show_spinner=False)
def get_vocabs():
    """(source English vocabulary, target Chinese vocabulary) (raises ``zoo.ZooError``)."""
    return zoo.load_vocabs()


@st.cache_data(show_spinner=False)
def get_manifest() -> dict[str, Any]:
    """The manifest: configs, parameter counts, metrics and curves (raises ``zoo.ZooError``)."""
    return zoo.load_manifest()


def show_zoo_error(err: zoo.ZooError) -> None:
    """A page-level message, in the user's language, naming the file and the rebuild command."""
    known = {"missing", "corrupt", "checksum"}
    key = f"zoo.{err.reason}" if err.reason in known else "zoo.other"
    st.error(
        t(key, file=err.filename, command=err.command, detail=err.detail, reason=err.reason),
        icon=":material/inventory_2:",
    )


def require(*names: str, vocabs: bool = True) -> bool:
    """Load the vocabularies (unless ``vocabs=False``: the distance probes read no words)
    and the named models; on failure show the message and return False, so a page can
    ``st.stop()`` (or skip one section) while the other pages keep working."""
    try:
        if vocabs:
            get_vocabs()
        for name in names:
            get_model(name)
    except zoo.ZooError as err:
        show_zoo_error(err)
        return False
    return True
