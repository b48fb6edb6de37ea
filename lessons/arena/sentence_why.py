"""Part "sentence" of the model arena, why each model does what it does: the pages that
explain each model, one line on its behaviour (its size from the manifest), and the row of
links to those pages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

import ui
from ui.nav import PAGES, is_built, page_spec

# The page that explains each model's behaviour (lesson order).
WHY: dict[str, tuple[str, ...]] = {
    "gru_plain_32": ("bottleneck", "rnn_gradients"),
    "gru_plain_128": ("bottleneck", "rnn_gradients"),
    "gru_plain_256": ("bottleneck", "rnn_gradients"),
    "rnn_plain_256": ("rnn_gradients",),
    "gru_attention": ("attention",),
    "cnn_s2s": ("cnn_receptive_field", "attention"),
    "transformer": ("attention",),
}
# The part of a linked page that shows the evidence for these models (other pages open at
# their first part): the trained encoders' word influence, the trained CNN's gradients.
WHY_PART: dict[str, str] = {"rnn_gradients": "fade", "cnn_receptive_field": "measured"}


def why_text(name: str, manifest: Mapping[str, Any]) -> str:
    """One line on why the model ``name`` behaves as it does (its size from the manifest)."""
    t = ui.t
    cfg = ((manifest.get("models") or {}).get(name) or {}).get("config") or {}
    if name.startswith("gru_plain"):
        return t("arena.why.gru_plain", hidden=cfg.get("hidden", "?"))
    if name == "cnn_s2s":
        layers, kernel = cfg.get("enc_layers"), cfg.get("kernel")
        if isinstance(layers, int) and isinstance(kernel, int):
            return t("arena.why.cnn_s2s", layers=layers, rf=1 + layers * (kernel - 1))
        return t("arena.why.cnn_s2s_plain")
    return t(f"arena.why.{name}")


def why_links(
    names: Sequence[str], why: Mapping[str, tuple[str, ...]], why_part: Mapping[str, str]
) -> None:
    """One row of links to the pages that explain the models ``names`` (``why``: model ->
    pages; ``why_part``: the part a page opens at), in lesson order."""
    t = ui.t
    order = [spec.slug for spec in PAGES]
    slugs = sorted({s for n in names for s in why[n]}, key=lambda s: order.index(s))
    with st.container(horizontal=True, gap="medium", vertical_alignment="center"):
        st.caption(t("arena.why.links"))
        for slug in slugs:
            spec = page_spec(slug)
            if spec is not None and is_built(slug):
                extra = {"part": why_part[slug]} if slug in why_part else {}
                ui.page_link(
                    spec.path,
                    label=t(f"page.{slug}.title"),
                    icon=":material/arrow_forward:",
                    query_params={
                        "lang": ui.current_lang(),
                        "present": int(ui.presenter()),
                        **extra,
                    },
                )
            else:
                st.caption(t("arena.why.soon", page=t(f"page.{slug}.title")))
