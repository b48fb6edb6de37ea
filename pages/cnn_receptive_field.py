"""CNN receptive field (lesson 2.2): a convolution sees its neighbours; depth widens the view.

One part at a time (``?part=``): ``theory`` (the formula), ``measured`` (the trained CNN
encoder's gradients), ``probes`` (the CNN distance probes). Each part lives in
``lessons/cnn_receptive_field/<part>.py``.
"""

import ui
from lessons.cnn_receptive_field import measured, probes, theory

ui.begin_page("cnn_receptive_field")
ui.show_part(
    "cnn_receptive_field",
    {"theory": theory.show, "measured": measured.show, "probes": probes.show},
)
