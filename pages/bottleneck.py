"""The bottleneck (lesson 1.4–1.5, 2.3): a latent state carried from word to word, and a
plain encoder-decoder that passes the whole sentence through one fixed-length vector C, so
long sentences no longer fit.

One part at a time (``lessons/bottleneck/<part>.py``), each one slide: its chart first, its
one main control under it, secondary controls folded on the projector. The parts that read
a sentence draw the sentence box inside their own fragment: a click in a part reruns that
part only.
"""

from __future__ import annotations

import streamlit as st

import ui
from lessons.bottleneck import data, latent, length, probe, read, side, stretch
from lessons.bottleneck.common import intro_more
from ui import models

ui.begin_page("bottleneck")
presenter = ui.presenter()
if not models.require(*data.PLAIN, data.ATTN):
    st.stop()

# the claim says it; on a laptop or phone the intro is one click away, on the projector it
# comes after the part (the slide opens with the part's chart)
if not presenter:
    intro_more()


@ui.fragment
def lesson() -> None:
    """The part selector and the chosen part, rerun together by the part (a click reruns
    this fragment, not the app's frame). The parts' own controls, the sentence included,
    rerun only their part."""
    ui.show_part(
        "bottleneck",
        {
            "latent": latent.show,
            "read": read.show,
            "side": side.show,
            "length": length.show,
            "stretch": stretch.show,
            "probe": probe.show,
        },
    )


lesson()
if presenter:
    intro_more()
