"""Attention (lesson 3.1–3.2): alignment, context decides meaning, self-attention, and how a
score becomes a weight. Each part is a module of ``lessons/attention``."""

from __future__ import annotations

import streamlit as st

import ui
from lessons.attention import align, buys, common, pairs, score, self
from ui import models

ui.begin_page("attention")

if not models.require(*common.ATTN_MODELS):
    st.stop()
ui.show_part(
    "attention",
    {
        "align": align.show,
        "pairs": pairs.show,
        "self": self.show,
        "score": score.show,
        "buys": buys.show,
    },
)
