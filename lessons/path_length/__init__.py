"""Path length (lesson 2.1, 2.4): how many steps the signal takes between two words decides
what a model can learn about them.

Parts: ``table`` (Table 1 of Vaswani et al. 2017 against n), ``pair`` (the path between two
words of a sentence in each architecture, counted), ``probes`` (every distance probe on one
chart, measured), ``problems`` (the lesson's three problems and the remedies that lead to
attention).
"""
