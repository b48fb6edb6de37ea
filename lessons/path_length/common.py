"""What the path-length parts share: the layer types' names and looks, the kernel slider
(URL ``k``, shown by the table and by the pair part, so a value set in one holds in the
other), and the part's header."""

from __future__ import annotations

import streamlit as st

import ui
from charts import path_length as figures
from core.analysis import path_length as analysis

K_MAX = 9


def arch_names() -> dict[str, str]:
    """{layer type: its name in the visitor's language}."""
    return {a: ui.t(f"path_length.arch.{a}") for a in analysis.ARCHITECTURES}


def arch_looks() -> dict[str, object]:
    """Series name -> look: each layer type drawn like the probe that embodies it."""
    return {ui.t(f"path_length.arch.{a}"): figures.arch_look(a) for a in analysis.ARCHITECTURES}


def kernel_slider(k: int) -> int:
    """The convolution kernel k (URL ``k``), shown by the table and by the pair part."""
    return st.slider(ui.t("path_length.k"), 2, K_MAX, **ui.params.bound("k", k, key="path_k"))


def header(key: str) -> None:
    """The part's short header (the catalogue's ``key``), on a laptop or phone; on the
    projector the part selector already names the part, and the slide needs the room for its
    chart."""
    if not ui.presenter():
        st.header(ui.t(key))
