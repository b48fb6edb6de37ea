"""RNN gradients (lesson 2.3): through a recurrence the gradient shrinks or grows with every
step of distance, so far words stop shaping what a vanilla RNN learns; gates keep a road
open, clipping stops one bad step.

One part at a time (``?part=``): ``fresh``, ``trained``, ``learn``, ``words``, ``explode``;
each lives in ``lessons/rnn_gradients/<part>.py``.
"""

import ui
from lessons.rnn_gradients import explode, fresh, learn, trained, words

ui.begin_page("rnn_gradients")
ui.show_part(
    "rnn_gradients",
    {
        "fresh": fresh.show,
        "trained": trained.show,
        "learn": learn.show,
        "words": words.show,
        "explode": explode.show,
    },
)
