"""The lessons: one package per lesson page, one module per part.

``lessons/<slug>/<part>.py`` draws one part (its fragments, controls, titles and notes) with a
``show()`` that ``pages/<slug>.py`` dispatches to; ``data.py`` holds the lesson's cached
computations (``ui.cache.data``); ``common.py`` what several parts share. Figures are built
in ``charts/<slug>.py`` and computations in ``core/analysis/``: a lesson module only
wires widgets, caches and figures together.
"""
