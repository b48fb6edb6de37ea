"""Attention weights a decoder really used, and how a score becomes a weight.

``run``: the greedy translation, every attention map behind it and the replays that prove
the plotted weights are the model's own (plus the scores inside a model); ``score``: lesson
3.2 in numpy (score functions, softmax, temperature, sqrt(d), a worked example by hand);
``examples``: the page's sentences and minimal pairs, and the search for its clearest
honest default; ``training``: what attention buys, read from the training manifest.
Every public name is here too: ``from core.analysis import attention``.
"""

from core.analysis.attention.examples import *  # noqa: F403
from core.analysis.attention.run import *  # noqa: F403
from core.analysis.attention.score import *  # noqa: F403
from core.analysis.attention.training import *  # noqa: F403
