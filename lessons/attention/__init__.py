"""Attention (lesson 3.1–3.2): alignment, context decides meaning, self-attention, and how a
score becomes a weight.

Every heatmap shows the weights the model used for the output shown: the models run
teacher-forced on their own greedy output, and a replay from the plotted weights alone
reproduces the model's logits (the check is in the "curious" fold). One module per part
(``align``, ``pairs``, ``self``, ``score``, ``buys``; the score part's sections beside it,
``score_*``), its caches in ``data``, the controls several parts share in ``common``.
"""
