"""Autoregressive generation (lesson 1.2–1.3, 1.6): one token at a time, each fed back in.

Four parts, one idea each (``lessons/autoregressive/<part>.py``): step through a language
model; the same for translation with the attention row of each step; force one plausible
wrong word ("一步错步步错", and how often the model recovers); the serial cost of writing.
(Counting n-grams is on the compression page.)
"""

from __future__ import annotations

import ui
from lessons.autoregressive import cost, lm, translate, wrong

ui.begin_page("autoregressive")
ui.show_part(
    "autoregressive",
    {"lm": lm.show, "translate": translate.show, "wrong": wrong.show, "cost": cost.show},
)
