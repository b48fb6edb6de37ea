"""Does one slip carry? Force one wrong token, let the model go on, count what changes.

For each grammatical sentence the model first writes its own greedy output. Then, at one
step, its second choice is forced in place of its first, and it continues greedily; the
later tokens are compared with its own (:func:`core.analysis.autoregressive.later_changes`:
word edits between the two continuations). Translation models continue from the source;
the language model from the sentence's first words. Everything is greedy and seeded.

Shapes: B batch, S source length, L output length, V vocabulary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from core import corpus
from core.analysis.autoregressive import (
    _batched_continue,
    later_changes,
    lm_generate,
    strip_eos,
)
from core.analysis.sensible import sensible
from core.data import BOS_ID, EOS_ID, PAD_ID, pad
from core.evaluate import decode_ids, max_output_len

UNK_ID = 3
DERAIL_SHARE = 0.5  # a slip "derails" when at least half of the later tokens change


def grammatical(pairs: Sequence[corpus.Pair], lo: int = 6, hi: int = 14) -> list[corpus.Pair]:
    """Declarative corpus sentences of ``lo``..``hi`` words (questions left out: the grammar
    glues some after "so" / "but", which reads as ungrammatical English)."""
    return [p for p in pairs if p.kind != "question" and lo <= len(p.src) <= hi]


@dataclass(frozen=True)
class SlipStudy:
    """One forced slip per sentence at output step ``pos``, and what it did to the rest."""

    model: str
    pos: int  # 0-based output step of the forced token
    edits: np.ndarray  # (N,) word edits between the forced and the own continuation
    rest: np.ndarray  # (N,) length of the model's own continuation after ``pos`` (EOS incl.)
    rows: tuple[int, ...]  # indices of the sentences measured (long enough for ``pos``)

    @property
    def changed_share(self) -> np.ndarray:
        """(N,) edits over the longer of the two continuations."""
        return self.edits / np.maximum(self.rest, 1)

    def summary(self) -> dict:
        """n, share recovered (0 later changes), share derailed (>= half changed), mean and
        median edits, and the histogram {edits: count}."""
        e = self.edits
        hist = {int(k): int(v) for k, v in zip(*np.unique(e, return_counts=True))}
        return {
            "model": self.model,
            "pos": self.pos,
            "n": int(len(e)),
            "recovered": round(float((e == 0).mean()), 4) if len(e) else 0.0,
            "derailed": round(float((self.changed_share >= DERAIL_SHARE).mean()), 4)
            if len(e)
            else 0.0,
            "mean_edits": round(float(e.mean()), 3) if len(e) else 0.0,
            "median_edits": float(np.median(e)) if len(e) else 0.0,
            "histogram": hist,
        }


def _second_choice(logits: torch.Tensor, first: torch.Tensor) -> torch.Tensor:
    """The most probable id other than ``first`` and the special tokens: logits (B,V)."""
    logits = logits.clone()
    logits[torch.arange(len(first)), first] = float("-inf")
    for special in (PAD_ID, BOS_ID, EOS_ID, UNK_ID):
        logits[:, special] = float("-inf")
    return logits.argmax(-1)  # (B,)


@torch.inference_mode()
def translation_slips(model, name: str, src_rows: Sequence[Sequence[int]], pos: int) -> SlipStudy:
    """Force the second choice at output step ``pos`` of each source (ids ending with EOS)."""
    own = [[*o, EOS_ID] for o in decode_ids(model, src_rows)]  # EOS-terminated outputs
    rows = [i for i, o in enumerate(own) if len(o) > pos + 1]
    if not rows:
        raise ValueError(f"no output is longer than {pos + 1} tokens; choose an earlier pos")
    src = pad([src_rows[i] for i in rows])  # (B, S)
    prefix = torch.tensor([own[i][:pos] for i in rows], dtype=torch.long).view(len(rows), pos)
    tgt_in = torch.cat([torch.full((len(rows), 1), BOS_ID), prefix], 1)  # (B, pos+1)
    logits, _ = model(src, tgt_in)  # (B, pos+1, V)
    first = torch.tensor([own[i][pos] for i in rows])
    wrong = _second_choice(logits[:, -1], first)  # (B,)
    forced_prefix = torch.cat([prefix, wrong[:, None]], 1)  # (B, pos+1)
    max_len = max(len(own[i]) for i in rows) + max_output_len(0)
    out = _batched_continue(model, src, forced_prefix, max_len).tolist()  # (B, L)
    edits, rest = [], []
    for row, i in zip(out, rows):
        forced = [*strip_eos(row), EOS_ID] if EOS_ID in row else strip_eos(row)
        edits.append(later_changes(own[i], forced, pos)[0])
        rest.append(max(len(own[i]) - pos - 1, len(forced) - pos - 1))
    return SlipStudy(name, pos, np.array(edits), np.array(rest), tuple(rows))


@torch.inference_mode()
def _lm_greedy(lm, prefix: torch.Tensor, max_new: int) -> torch.Tensor:
    """Greedy continuation of prefixes (B,t) (BOS first) → (B,max_new) ids, PAD after EOS."""
    logits, _, state = lm(prefix)  # (B, t, V)
    nxt = logits[:, -1].argmax(-1)  # (B,)
    done = torch.zeros_like(nxt, dtype=torch.bool)
    out = []
    for _ in range(max_new):
        nxt = torch.where(done, torch.full_like(nxt, PAD_ID), nxt)
        out.append(nxt)
        done = done | (nxt == EOS_ID)
        if bool(done.all()):
            break
        logits, _, state = lm(nxt[:, None], state)  # (B, 1, V)
        nxt = logits[:, -1].argmax(-1)
    return torch.stack(out, 1)


def _with_eos(row: Sequence[int]) -> list[int]:
    return [*strip_eos(row), EOS_ID] if EOS_ID in row else strip_eos(row)


@torch.inference_mode()
def lm_slips(
    lm, name: str, rows: Sequence[Sequence[int]], pos: int, prompt: int = 2, max_new: int = 20
) -> SlipStudy:
    """The language model reads each sentence's first ``prompt`` words (ids without BOS),
    writes on greedily; its second choice is forced at step ``pos`` of what it writes."""
    keep = [i for i, r in enumerate(rows) if len(r) >= prompt]
    prompts = torch.tensor([[BOS_ID, *rows[i][:prompt]] for i in keep])  # (B, prompt+1)
    own = [_with_eos(r) for r in _lm_greedy(lm, prompts, max_new).tolist()]
    idx = [k for k, o in enumerate(own) if len(o) > pos + 1]
    if not idx:
        raise ValueError(f"no continuation is longer than {pos + 1} tokens")
    head = torch.tensor([own[k][:pos] for k in idx], dtype=torch.long).view(len(idx), pos)
    prefix = torch.cat([prompts[idx], head], 1)  # (B, prompt+1+pos)
    logits, _, _ = lm(prefix)
    wrong = _second_choice(logits[:, -1], torch.tensor([own[k][pos] for k in idx]))
    cont = _lm_greedy(lm, torch.cat([prefix, wrong[:, None]], 1), max_new).tolist()
    edits, rest = [], []
    for k, c, w in zip(idx, cont, wrong.tolist()):
        forced = _with_eos([*own[k][:pos], w, *c])
        edits.append(later_changes(own[k], forced, pos)[0])
        rest.append(max(len(own[k]) - pos - 1, len(forced) - pos - 1))
    return SlipStudy(name, pos, np.array(edits), np.array(rest), tuple(keep[k] for k in idx))


def sample_sentences(pairs: Sequence[corpus.Pair], n: int, seed: int = 0) -> list[corpus.Pair]:
    """``n`` seeded grammatical sentences of 6-14 words (:func:`grammatical`)."""
    import random

    pool = grammatical(pairs)
    return random.Random(seed).sample(pool, min(n, len(pool)))


def slip_table(
    translation: dict, lms: dict, src_vocab, pairs: Sequence[corpus.Pair], pos: int = 1
) -> list[dict]:
    """:meth:`SlipStudy.summary` per model on the same sentences ``pairs``: translation
    models ({name: model}) from each source, language models from its first two words."""
    src = [src_vocab.encode(p.src, eos=True) for p in pairs]
    rows = [src_vocab.encode(p.src) for p in pairs]
    out = [translation_slips(m, name, src, pos).summary() for name, m in translation.items()]
    return out + [lm_slips(m, name, rows, pos).summary() for name, m in lms.items()]


@dataclass(frozen=True)
class DefaultSlip:
    """The default example of "one wrong step": a slip that visibly derails the rest."""

    text: str  # the English sentence (grammatical, translated right by the model)
    pos: int  # 0-based output step of the forced word
    word: str  # the forced Chinese word
    prob: float  # the probability the model itself gave it there
    edits: int  # word edits between the continuation after it and the model's own
    rest: int  # words of the model's own continuation after ``pos`` (EOS left out)
    own: tuple[str, ...]  # the model's own output (the reference)
    forced: tuple[str, ...]  # the output with the forced word

    @property
    def changed_share(self) -> float:
        return self.edits / max(self.rest, 1)


def derailing_slip(
    model, src_vocab, tgt_vocab, pairs: Sequence[corpus.Pair], lo: int = 6, hi: int = 12
) -> DefaultSlip | None:
    """:func:`core.analysis.autoregressive.find_slip` over the grammatical sentences of
    ``lo``..``hi`` words among ``pairs``: the plausible slip (model probability >= 5 %)
    after which most words change, in a sentence the model otherwise translates exactly and
    a person would say (:func:`core.analysis.sensible.sensible`)."""
    from core.analysis.autoregressive import find_slip

    pool = [p for p in grammatical(pairs, lo, hi) if sensible(p.src)]
    if not pool:
        raise ValueError(f"no grammatical sentence of {lo}-{hi} words among the pairs")
    found = find_slip(
        model,
        [src_vocab.encode(p.src, eos=True) for p in pool],
        [tgt_vocab.encode(p.tgt) for p in pool],
    )
    if found is None:
        return None
    return DefaultSlip(
        text=" ".join(pool[found.index].src),
        pos=found.pos,
        word=tgt_vocab.tokens[found.token],
        prob=found.prob,
        edits=found.edits,
        rest=len(strip_eos(found.own)) - found.pos - 1,
        own=tuple(tgt_vocab.decode(found.own)),
        forced=tuple(tgt_vocab.decode(found.forced)),
    )


# --- the language model's slip: the lesson's "you should wear shoes" ---------------------------


@dataclass(frozen=True)
class LMSlip:
    """The language model writing on from a prompt, with and without one forced word.

    Ids are the written words after the prompt (EOS included when reached)."""

    own: tuple[int, ...]  # what the model writes by itself
    forced: tuple[int, ...]  # the same with ``word`` at ``pos``, then greedy again
    pos: int  # 0-based position of the forced word among the written words
    word: int  # the forced id
    word_prob: float  # the probability the model itself gave ``word`` at ``pos``
    edits: int  # word edits between the two continuations after ``pos``
    new: tuple[int, ...]  # positions (in ``forced``) of the later words that are new
    next_own: float  # P(the model's own next word after ``pos``), on its own course
    next_forced: float  # P(that same word) right after the forced one
    considered: tuple[int, ...] = ()  # the other words it gave most at ``pos``, most first

    @property
    def later(self) -> int:
        """Words after ``pos`` in the longer of the two continuations (EOS counted)."""
        return max(len(self.own), len(self.forced)) - self.pos - 1

    @property
    def changed_share(self) -> float:
        """Edits over :attr:`later`: how far free generation drifted from its own course."""
        return self.edits / max(self.later, 1)


_ALL = 1 << 20  # k_show beyond any vocabulary: a step keeps every word's probability


def _prob(steps: Sequence, token: int) -> float:
    """P(``token``) at the first of ``steps`` (:class:`core.analysis.autoregressive.Step`),
    0 when it is not among the step's top ids."""
    top = dict(zip(steps[0].top_ids, steps[0].top_probs))
    return float(top.get(token, 0.0))


@torch.inference_mode()
def lm_slip(
    lm, prompt: Sequence[int], pos: int, word: int, max_new: int = 12, k_show: int = 8
) -> LMSlip:
    """Force ``word`` at written position ``pos`` after ``prompt`` (ids without BOS) and let
    the language model write on greedily (:func:`core.analysis.autoregressive.lm_generate`,
    which reads the whole sequence at every step); compare with what it writes by itself."""
    own_steps = lm_generate(lm, prompt, max_new=max_new, k_show=0)
    own = tuple(s.chosen for s in own_steps)
    if not 0 <= pos < len(strip_eos(own)):
        raise ValueError(f"the model writes {len(strip_eos(own))} words; pick pos below that")
    head = [*prompt, *own[:pos]]
    at = lm_generate(lm, head, max_new=1, k_show=_ALL)[0]  # the distribution at ``pos``
    probs = dict(zip(at.top_ids, at.top_probs))
    rest = lm_generate(lm, [*head, word], max_new=max(max_new - pos - 1, 1), k_show=_ALL)
    forced = (*own[:pos], word, *(s.chosen for s in rest))
    edits, new = later_changes(own, forced, pos)
    follow = own[pos + 1] if pos + 1 < len(own) else EOS_ID
    after_own = lm_generate(lm, [*head, own[pos]], max_new=1, k_show=_ALL)
    return LMSlip(
        own=own,
        forced=forced,
        pos=pos,
        word=word,
        word_prob=float(probs.get(word, 0.0)),
        edits=edits,
        new=new,
        next_own=_prob(after_own, follow),
        next_forced=_prob(rest, follow),
        considered=tuple(
            i for i in at.top_ids[:k_show] if i != own[pos] and i not in (PAD_ID, BOS_ID, UNK_ID)
        ),
    )
