"""Model arena (lessons 1–3, the whole argument): the same sentence through every translation
model. Part ``sentence``: one long sentence, every model's output scored against the
reference; part ``evidence``: the held-out evidence behind the verdict (accuracy against
length, memory against distance). One module per part (the sentence part's sections beside
it, ``sentence_*``), the caches in ``data``, the zoo check and the controls both parts share
in ``common``.
"""
