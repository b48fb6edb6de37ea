"""Figures of the attention page, on ``charts.base`` (template, palette, presenter scale):
one module per part of the lesson (``lessons/attention``), or per group of parts that draw
the same figure.

- :mod:`~charts.attention.heatmap`: the attention heatmap (self; the top of align's figure)
- :mod:`~charts.attention.bars`: bars of weights, one chart or stacked panels (align, pairs,
  score, self)
- :mod:`~charts.attention.align`: the heatmap with the step's row framed and as bars
- :mod:`~charts.attention.self`: self-attention as lines between the words (BertViz)
- :mod:`~charts.attention.score`: the score functions side by side, saturation against d
- :mod:`~charts.attention.buys`: accuracy per source length, one line per model
- :mod:`~charts.attention.formulas`: the worked example in formulas (KaTeX strings)
- :mod:`~charts.attention.common`: what they share (input checks, axes, fonts)

Builders take arrays and token lists, check them, and raise ``ValueError`` saying how to
fix the call. Every hover label text is passed in by the page, so it is translated.
"""

from charts.attention.align import alignment_figure
from charts.attention.bars import BarPanel, bar_panels, weight_bars
from charts.attention.buys import bucket_lines
from charts.attention.formulas import context_latex, model_score_latex, score_latex, softmax_latex
from charts.attention.heatmap import attention_heatmap
from charts.attention.score import saturation_figure, score_kinds_bars
from charts.attention.self import attention_lines

__all__ = [
    "BarPanel",
    "alignment_figure",
    "attention_heatmap",
    "attention_lines",
    "bar_panels",
    "bucket_lines",
    "context_latex",
    "model_score_latex",
    "saturation_figure",
    "score_kinds_bars",
    "score_latex",
    "softmax_latex",
    "weight_bars",
]
