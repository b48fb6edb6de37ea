"""Train it yourself: a GRU with only C and a GRU with attention learn from nothing while the
room watches. One part, ``race``: the teacher's Start and Cancel, the live curves every
visitor reads from the store, the end's translations and words. The server's training
process and the run's store in ``common``; the second race on the same stop, a
self-attention head learning what "it" means, in ``it_race``.
"""
