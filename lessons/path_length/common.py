"""What the path-length parts share: the layer types' names and looks, the kernel slider
(URL ``k``, shown by the table and by the pair part, so a value set in one holds in the
other), and the part's header and closing words."""

from __future__ import annotations

import streamlit as st

import ui
from charts import path_length as figures
from core.analysis import path_length as analysis

P = "path_length."
K_MAX = 9


def arch_names() -> dict[str, str]:
    """{layer type: its name in the visitor's language}."""
    return {a: ui.t(P + f"arch.{a}") for a in analysis.ARCHITECTURES}


def arch_looks() -> dict[str, object]:
    """Series name -> look: each layer type drawn like the probe that embodies it."""
    return {ui.t(P + f"arch.{a}"): figures.arch_look(a) for a in analysis.ARCHITECTURES}


def kernel_slider(k: int) -> int:
    """The convolution kernel k (URL ``k``), shown by the table and by the pair part."""
    return st.slider(ui.t(P + "k"), 2, K_MAX, **ui.params.bound("k", k, key="path_k"))


def header(name: str) -> None:
    """The part's short header, on a laptop or phone; on the projector the part selector
    already names the part, and the slide needs the room for its chart."""
    if not ui.presenter():
        st.header(ui.t(P + f"{name}.header"))


def close_part(name: str) -> None:
    """The part's takeaway and what to try (one style on every page)."""
    ui.takeaway(ui.t(P + f"{name}.takeaway"))
    ui.try_this(ui.t(P + f"{name}.try"))
