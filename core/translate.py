"""Translate one English sentence with a pretrained model:
``python -m core.translate --model gru_attention "the cat drank the milk because it was hungry"``.

Prints ``{"source": [...], "output": [...], "text": "..."}``. Unknown words exit with
code 2 and a message naming them and the nearest known words.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from core.corpus.lesson import HOW_ARE_YOU
from core.data import BOS_ID, EOS_ID, PAD_ID
from core.evaluate import max_output_len
from core.vocab import OOV, Vocab, detokenize_zh, tokenize_en

MAX_WORDS = 60  # longer inputs are refused: the models never saw more than ~55 words


@dataclass(frozen=True)
class Translation:
    source: tuple[str, ...]  # the English tokens, EOS excluded
    output: tuple[str, ...]  # the Chinese tokens, EOS excluded
    probs: tuple[float, ...]  # the probability of each chosen output token
    attention: tuple[tuple[float, ...], ...]  # (output, source + EOS) cross-attention weights

    @property
    def text(self) -> str:
        return detokenize_zh(self.output)


class InputError(ValueError):
    """The sentence cannot be translated: ``reason`` is "empty", "too_long" or "unknown"."""

    def __init__(self, reason: str, unknown: Sequence[OOV] = (), limit: int = MAX_WORDS):
        self.reason, self.unknown, self.limit = reason, tuple(unknown), limit
        if reason == "unknown":
            words = ", ".join(
                f"{o.word!r} (did you mean {' / '.join(o.suggestions)}?)"
                if o.suggestions
                else repr(o.word)
                for o in unknown
            )
            msg = f"unknown words: {words}"
        elif reason == "too_long":
            msg = f"the sentence has more than {limit} words"
        else:
            msg = "the sentence is empty"
        super().__init__(msg)


def prepare(text: str, src_vocab: Vocab) -> list[str]:
    """Tokenize and check a sentence; raise ``InputError`` if it cannot be translated."""
    tokens = tokenize_en(text)
    if not tokens:
        raise InputError("empty")
    if len(tokens) > MAX_WORDS:
        raise InputError("too_long")
    unknown = src_vocab.unknown(tokens)
    if unknown:
        raise InputError("unknown", unknown)
    return tokens


@torch.inference_mode()
def translate_tokens(
    model, tokens: Sequence[str], src_vocab: Vocab, tgt_vocab: Vocab
) -> Translation:
    """Greedy translation of known English tokens, with per-step probabilities and attention."""
    src = torch.tensor([src_vocab.encode(tokens, eos=True)])  # (1, S)
    ids, probs, attn = model.greedy(src, max_output_len(src.size(1)), BOS_ID, EOS_ID)
    out_ids = []
    for tok in ids[0].tolist():
        if tok in (EOS_ID, PAD_ID):
            break
        out_ids.append(tok)
    n = len(out_ids)
    return Translation(
        source=tuple(tokens),
        output=tuple(tgt_vocab.decode(out_ids, strip_special=False)),
        # one .tolist() each: walking 0-d tensors cost ~0.9 ms a translation
        probs=tuple(round(p, 4) for p in probs[0, :n].tolist()),
        attention=tuple(tuple(round(a, 4) for a in row) for row in attn[0, :n].tolist()),
    )


def main(argv: Sequence[str] | None = None) -> int:
    from core import zoo

    parser = argparse.ArgumentParser(description="Translate one English sentence.")
    parser.add_argument("sentence", help=f"English text, e.g. '{HOW_ARE_YOU.en}'")
    parser.add_argument("--model", default="gru_attention", choices=zoo.TRANSLATION_MODELS)
    args = parser.parse_args(argv)
    try:
        src_vocab, tgt_vocab = zoo.load_vocabs()
        model = zoo.load_model(args.model)
        tokens = prepare(args.sentence, src_vocab)
    except zoo.ZooError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    result = translate_tokens(model, tokens, src_vocab, tgt_vocab)
    print(
        json.dumps(
            {"source": list(result.source), "output": list(result.output), "text": result.text},
            ensure_ascii=False,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
