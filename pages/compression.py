"""Compressing the past (lesson 1.6): the Markov window, and architectures as priors.

Two parts (``lessons/compression/<part>.py``): ``markov``, an n-gram model reads the last
n−1 words only, against the neural language model; ``priors``, an MLP needs one weight per
(position, unit), CNN, RNN and attention share weights by assuming more.
"""

from __future__ import annotations

import ui
from lessons.compression import markov, priors

ui.begin_page("compression")
ui.show_part("compression", {"markov": markov.show, "priors": priors.show})
