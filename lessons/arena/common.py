"""What both parts of the model arena share: the zoo check the page opens with, the models'
display names, the segmented controls kept in the URL, the predict mode, and each part's
header and closing words."""

from __future__ import annotations

from typing import Any

import streamlit as st

import core.zoo as zoo
import ui
from core.analysis import arena as analysis
from core.vocab import Vocab
from lessons import controls
from lessons.arena import data
from ui import models
from ui.params import get_choice

MODELS = data.MODELS
MODES = ("show", "predict")


def names() -> dict[str, str]:
    """Every translation model's and probe's display name, in the visitor's language."""
    return {m: ui.model_name(m) for m in MODELS + zoo.PROBE_MODELS}


def choice(param: str, options: tuple[str, ...], default: str, key: str, label: str, **kw) -> str:
    """A segmented control over ``options`` in the URL as ``param``; its label is the
    catalogue's ``label`` and its options ``<label>.<option>``."""
    value = get_choice(param, options, default=default)
    return controls.segmented(
        ui.t(label), options, value, param=param, key=key, format_func=ui.labeler(label + "."), **kw
    )


def open_part(name: str) -> None:
    st.query_params["part"] = name


def header(key: str, **fmt: object) -> None:
    """The part's header (the catalogue's ``key``; ``fmt`` fills its placeholders). The
    sentence part is one block and the evidence part starts with an element at the same place:
    switching parts replaces the long sentence part at once, so the browser lands at the
    evidence's header instead of keeping a scroll position near the bottom."""
    st.header(ui.t(key, **fmt))


def closing(takeaway: str, try_this: str, manifest: dict[str, Any]) -> None:
    """The part's takeaway (the catalogue's key ``takeaway``, filled with the held-out numbers
    of the longest bucket) and "try this" (the key ``try_this``)."""
    claim = analysis.length_claim(analysis.exact_by_length(manifest, MODELS)) or {"cnn": "?"}
    ui.takeaway(ui.t(takeaway, **claim))
    ui.try_this(ui.t(try_this))


def open_zoo() -> tuple[list[str], dict[str, Any], Vocab]:
    """The translation models that are on disk (the others named in a warning), the
    manifest and the source vocabulary. Stops the page with the rebuild command when no
    model (or no vocabulary) is there."""
    try:
        src_vocab, _ = models.get_vocabs()
    except zoo.ZooError as err:
        models.show_zoo_error(err)
        st.stop()
    available = list(data.loadable(MODELS))
    missing = [name for name in MODELS if name not in available]
    if not available:
        models.require(*MODELS)  # names the first missing file and the rebuild command
        st.stop()
    if missing:
        st.warning(
            ui.t(
                "arena.missing",
                models=", ".join(map(ui.model_name, missing)),
                command=zoo.REBUILD_COMMAND,
            ),
            icon=":material/inventory_2:",
        )
    try:
        manifest = models.get_manifest()
    except zoo.ZooError:
        manifest = {"models": {}}
    return available, manifest, src_vocab
