"""The arena's default grammar sentence, as (length, seed) of ``core.corpus``'s grammar.

The long sentence on which the shipped models show the claim most clearly (every attention
model exact, every plain GRU wrong). The search that found it is a test
(tests/core/analysis/test_arena.py); it fails when retrained weights would choose another
sentence. Kept apart from :mod:`core.analysis.arena` so that the class poll can quote its
length without importing the models (torch) on a page that draws none.
"""

DEFAULT_LENGTH = 30
DEFAULT_SEED = 56
