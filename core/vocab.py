"""Tokenization and vocabularies for the synthetic English→Chinese corpus.

English is split into lower-case word tokens; Chinese arrives already split into words by
the grammar in ``core.corpus``, so only the way back to display text is needed here.
Every ``Vocab`` starts with the same four special tokens, so ids 0..3 mean the same thing
in every model.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

PAD, BOS, EOS, UNK = "<pad>", "<bos>", "<eos>", "<unk>"
SPECIALS: tuple[str, ...] = (PAD, BOS, EOS, UNK)

# A word is a run of letters/digits (any script), optionally joined by inner apostrophes
# ("don't"). Everything else (punctuation, emoji, markup, control characters) separates
# words and is dropped, so any user text tokenizes without raising.
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
# Curly apostrophes from phones and word processors count as the plain one.
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})
# Latin-script tokens ("Transformer", "GPU", "2017") keep a space between them when joined.
_LATIN = re.compile(r"[A-Za-z0-9]")


def tokenize_en(text: str) -> list[str]:
    """Split English text into lower-case word tokens.

    "You should wear shoes." -> ["you", "should", "wear", "shoes"]. Case, punctuation,
    symbols and repeated whitespace are ignored; apostrophes inside words are kept.
    """
    if not isinstance(text, str):
        text = str(text)
    return _WORD.findall(text.translate(_APOSTROPHES).lower())


def _is_latin(token: str) -> bool:
    return bool(token) and all(_LATIN.match(ch) for ch in token)


def detokenize_zh(tokens: Sequence[str]) -> str:
    """Join Chinese word tokens for display.

    Chinese is written without spaces, but two neighbouring Latin-script tokens would run
    together ("Transformer" "GPU"), so a single space is kept between those.
    """
    out: list[str] = []
    prev = ""
    for tok in tokens:
        if out and _is_latin(prev) and _is_latin(tok):
            out.append(" ")
        out.append(tok)
        prev = tok
    return "".join(out)


@dataclass(frozen=True)
class OOV:
    """An out-of-vocabulary word and up to three nearest known words."""

    word: str
    suggestions: tuple[str, ...]


class Vocab:
    """A token <-> id mapping whose first four ids are PAD, BOS, EOS, UNK."""

    def __init__(self, tokens: Sequence[str]) -> None:
        """Specials first, then ``tokens`` in the given order (duplicates and specials skipped)."""
        itos: list[str] = list(SPECIALS)
        stoi: dict[str, int] = {tok: i for i, tok in enumerate(itos)}
        for tok in tokens:
            if tok not in stoi:
                stoi[tok] = len(itos)
                itos.append(tok)
        self._itos = tuple(itos)
        self._stoi = stoi

    @classmethod
    def build(cls, sentences: Iterable[Sequence[str]]) -> Vocab:
        """Vocabulary of every token in ``sentences``, most frequent first, ties by token.

        The explicit sort key makes the ids independent of the sentence order and of the
        Python run, so a saved model and a rebuilt vocabulary always agree.
        """
        counts: Counter[str] = Counter()
        for sent in sentences:
            counts.update(sent)
        ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        return cls([tok for tok, _ in ordered])

    # the ids of PAD, BOS, EOS, UNK: the same in every vocabulary
    pad_id, bos_id, eos_id, unk_id = range(len(SPECIALS))

    def __len__(self) -> int:
        return len(self._itos)

    def __contains__(self, tok: object) -> bool:
        return tok in self._stoi

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Vocab) and self._itos == other._itos

    def __hash__(self) -> int:
        return hash(self._itos)

    def __repr__(self) -> str:
        return f"Vocab({len(self)} tokens)"

    @property
    def tokens(self) -> tuple[str, ...]:
        """All tokens in id order, specials included."""
        return self._itos

    def id(self, tok: str) -> int:
        """Id of ``tok``, or the UNK id."""
        return self._stoi.get(tok, 3)

    def encode(self, tokens: Sequence[str], *, bos: bool = False, eos: bool = False) -> list[int]:
        """Token ids, optionally wrapped in BOS/EOS; unknown tokens map to the UNK id."""
        ids = [self._stoi.get(tok, 3) for tok in tokens]
        if bos:
            ids.insert(0, 1)
        if eos:
            ids.append(2)
        return ids

    def decode(self, ids: Iterable[int], *, strip_special: bool = True) -> list[str]:
        """Tokens for ``ids``.

        With ``strip_special`` PAD and BOS are dropped and decoding stops at the first EOS
        (what a model generates after EOS is meaningless); UNK is kept visible as "<unk>".
        Raises ValueError for an id outside the vocabulary.
        """
        out: list[str] = []
        n = len(self._itos)
        for raw in ids:
            i = int(raw)
            if not 0 <= i < n:
                raise ValueError(
                    f"id {i} is outside this vocabulary of {n} tokens; "
                    "decode with the vocabulary the model was trained with"
                )
            if strip_special:
                if i == 2:
                    break
                if i in (0, 1):
                    continue
            out.append(self._itos[i])
        return out

    def unknown(self, tokens: Sequence[str]) -> list[OOV]:
        """Unknown tokens in first-seen order, each once, with up to 3 close known words."""
        known = self._itos[len(SPECIALS) :]
        seen: set[str] = set()
        out: list[OOV] = []
        for tok in tokens:
            if tok in self._stoi or tok in seen:
                continue
            seen.add(tok)
            # get_close_matches ranks by similarity and breaks ties deterministically.
            near = difflib.get_close_matches(tok, known, n=3, cutoff=0.6)
            out.append(OOV(tok, tuple(near)))
        return out

    def to_json(self) -> list[str]:
        """All tokens in id order (specials included); ``from_json`` inverts it."""
        return list(self._itos)

    @classmethod
    def from_json(cls, data: list[str]) -> Vocab:
        """Rebuild a vocabulary saved with ``to_json``."""
        if not isinstance(data, list) or not all(isinstance(t, str) for t in data):
            raise ValueError("vocabulary JSON must be a list of strings (from Vocab.to_json)")
        if tuple(data[: len(SPECIALS)]) != SPECIALS:
            raise ValueError(f"vocabulary JSON must start with {list(SPECIALS)}; got {data[:4]!r}")
        if len(set(data)) != len(data):
            raise ValueError("vocabulary JSON contains a token twice")
        return cls(data[len(SPECIALS) :])
