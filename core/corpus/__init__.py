"""A small, seeded grammar of English→Chinese sentence pairs (a synthetic corpus).

The constructions are the lesson's phenomena: word order, relative clauses, questions,
coreference that Chinese resolves by repeating the antecedent, word senses decided by
context, and a long-range "秋蝉 … 它们" dependency whose distance is a parameter; clauses
joined by and / but / because / so reach any source length. ``words`` holds the word
tables; ``phrases``, ``clauses`` and ``phenomena`` build the parts of a sentence and
``grammar`` the sentences; ``splits`` the splits and probe sets, ``coref`` the coreference
set of the self-attention encoder; the same seed gives the same corpus on every machine.
"""

from core.corpus.coref import *  # noqa: F403
from core.corpus.grammar import *  # noqa: F403
from core.corpus.splits import *  # noqa: F403
from core.corpus.words import *  # noqa: F403
