"""RNN gradients (lesson 2.3): in a plain RNN translation model early words fade from C, in
a GRU they do not; through a recurrence the gradient shrinks or grows with every step, gates
keep a road open, clipping stops one bad step.

One part at a time (``?part=``): ``fade``, ``fresh``, ``trained``, ``learn``, ``words``,
``explode``; each lives in ``lessons/rnn_gradients/<part>.py``.
"""

import ui
from lessons.rnn_gradients import explode, fade, fresh, learn, trained, words

ui.begin_page("rnn_gradients")
ui.show_part(
    "rnn_gradients",
    {
        "fade": fade.show,
        "fresh": fresh.show,
        "trained": trained.show,
        "learn": learn.show,
        "words": words.show,
        "explode": explode.show,
    },
)
