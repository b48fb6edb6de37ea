"""Held-out evaluation of the model zoo: ``python -m core.evaluate --json``.

Translation models decode greedily on the held-out test split; scores are bucketed by
source length, as in Bahdanau et al. (2015, Figure 2): ``exact`` (the whole output equals
the reference), ``token_acc`` (position-wise agreement over max(len(output),
len(reference))) and ``edit_acc`` (1 − edit distance / max length, which does not punish
one inserted token as harshly as ``token_acc``).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence

import torch

from core import corpus
from core.corpus import lesson
from core.data import BOS_ID, EOS_ID, PAD_ID, encode_pairs, pad
from core.vocab import Vocab

SLICE_SIZE = 100  # the fixed slice of the test split whose metrics a test re-checks


def max_output_len(src_len: int) -> int:
    """Decoding budget: the corpus' Chinese is never much longer than its English."""
    return int(src_len * 1.5) + 10


@torch.inference_mode()
def decode_ids(model, src_rows: Sequence[Sequence[int]], batch_size: int = 128) -> list[list[int]]:
    """Greedy outputs (ids, EOS and padding removed) for each source id list, in input order."""
    order = sorted(range(len(src_rows)), key=lambda i: len(src_rows[i]))
    outputs: list[list[int]] = [[] for _ in src_rows]
    for start in range(0, len(order), batch_size):
        idx = order[start : start + batch_size]
        src = pad([src_rows[i] for i in idx])
        ids, _, _ = model.greedy(src, max_output_len(src.size(1)), BOS_ID, EOS_ID)
        for row, i in zip(ids.tolist(), idx):
            out = []
            for tok in row:
                if tok in (EOS_ID, PAD_ID):
                    break
                out.append(tok)
            outputs[i] = out
    return outputs


def edit_distance(a: Sequence, b: Sequence) -> int:
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def score(outputs: Sequence[Sequence], refs: Sequence[Sequence]) -> dict:
    """Mean exact match, position-wise token accuracy and edit accuracy; n sentences."""
    n = len(refs)
    if n == 0:
        return {"token_acc": 0.0, "exact": 0.0, "edit_acc": 0.0, "n": 0}
    exact = tok = edit = 0.0
    for out, ref in zip(outputs, refs):
        width = max(len(out), len(ref), 1)
        exact += list(out) == list(ref)
        tok += sum(o == r for o, r in zip(out, ref)) / width
        edit += 1 - edit_distance(out, ref) / width
    return {
        "token_acc": round(tok / n, 4),
        "exact": round(exact / n, 4),
        "edit_acc": round(edit / n, 4),
        "n": n,
    }


def translate(
    model, pairs: Sequence[corpus.Pair], src_vocab: Vocab, tgt_vocab: Vocab
) -> list[list[str]]:
    """Greedy translations of the pairs' sources, as Chinese tokens."""
    src, _ = encode_pairs(pairs, src_vocab, tgt_vocab)
    return [tgt_vocab.decode(o) for o in decode_ids(model, src)]


def by_length(pairs: Sequence[corpus.Pair], outputs: Sequence[Sequence[str]]) -> dict:
    """Scores per source-length bucket and over all pairs."""
    result = {}
    for bucket in corpus.BUCKETS:
        idx = [i for i, p in enumerate(pairs) if corpus.length_bucket(len(p.src)) == bucket]
        result[bucket] = score([outputs[i] for i in idx], [pairs[i].tgt for i in idx])
    return {"by_length": result, "all": score(outputs, [p.tgt for p in pairs])}


def check_accuracy(pairs: Sequence[corpus.Pair], outputs: Sequence[Sequence[str]]) -> float:
    """Share of probe pairs whose output has the expected token at every ``check`` index."""
    if not pairs:
        return 0.0
    ok = 0
    for p, out in zip(pairs, outputs):
        ok += all(i < len(out) and out[i] == tok for i, tok in p.check)
    return round(ok / len(pairs), 4)


def translation_metrics(model, splits: corpus.Splits, src_vocab: Vocab, tgt_vocab: Vocab) -> dict:
    """Everything the manifest records for a translation model."""
    test = list(splits.test)
    outputs = translate(model, test, src_vocab, tgt_vocab)
    metrics = by_length(test, outputs)
    metrics["slice"] = score(outputs[:SLICE_SIZE], [p.tgt for p in test[:SLICE_SIZE]])
    for name, pairs in (
        ("coref", corpus.coref_probe()),
        ("sense", corpus.sense_probe()),
        ("longrange", corpus.longrange_probe()),
    ):
        metrics[name] = check_accuracy(pairs, translate(model, pairs, src_vocab, tgt_vocab))
    lesson = list(corpus.LESSON_PAIRS)
    lesson_out = translate(model, lesson, src_vocab, tgt_vocab)
    metrics["lesson_exact"] = score(lesson_out, [p.tgt for p in lesson])["exact"]
    metrics["coref_frames"] = coref_frame_accuracy(model, src_vocab, tgt_vocab)
    return metrics


def noun_after_because(out: Sequence[str]) -> str | None:
    """The token a translation writes right after its first 因为 (None without one)."""
    return out[out.index("因为") + 1] if "因为" in out[:-1] else None


def coref_frame_accuracy(model, src_vocab: Vocab, tgt_vocab: Vocab) -> dict:
    """On the held-out coreference frames (core.corpus.coref_frames: a frame and nouns no
    model trained on): the share of translations whose noun after 因为 is the one "it"
    names, over all cases and per frame."""
    from core.corpus import coref_frames

    cases = coref_frames.held_out_frame_cases()
    outputs = translate(model, [c.pair() for c in cases], src_vocab, tgt_vocab)
    ok = [noun_after_because(o) == c.antecedent_zh for c, o in zip(cases, outputs)]
    by_frame = {}
    for frame in coref_frames.FRAMES:
        hits = [k for k, c in zip(ok, cases) if c.frame == frame]
        by_frame[frame] = round(sum(hits) / len(hits), 4)
    return {"n": len(cases), "right_noun": round(sum(ok) / len(ok), 4), "by_frame": by_frame}


@torch.inference_mode()
def distance_accuracy(probe) -> dict[str, float]:
    """A distance probe's accuracy on fixed held-out sets, per distance."""
    from core import probes_data

    out = {}
    for d in probes_data.EVAL_DISTANCES:
        x, y = probes_data.eval_set(d)
        logits, _ = probe(x)
        out[str(d)] = round(float((logits.argmax(-1) == y).float().mean()), 4)
    return out


def coref_metrics(model, vocab: Vocab) -> dict:
    """The coreference encoder on held-out noun/predicate pairs (core.analysis.coref)."""
    from core.analysis import coref

    return coref.held_out_metrics(model, vocab)


@torch.inference_mode()
def lm_metrics(lm, vocab: Vocab, pairs: Sequence[corpus.Pair]) -> dict:
    """Test perplexity of the language model and its greedy continuation of "you should"."""
    rows = [vocab.encode(p.src, bos=True, eos=True) for p in pairs]
    nll, count = 0.0, 0
    for start in range(0, len(rows), 256):
        ids = pad(rows[start : start + 256])
        logits, _, _ = lm(ids[:, :-1])
        target = ids[:, 1:]
        loss = torch.nn.functional.cross_entropy(
            logits.reshape(-1, logits.size(-1)),
            target.reshape(-1),
            ignore_index=PAD_ID,
            reduction="sum",
        )
        nll += float(loss)
        count += int((target != PAD_ID).sum())
    return {
        "test_ppl": round(math.exp(nll / max(count, 1)), 3),
        "you_should": greedy_continue(lm, vocab, lesson.AUTOREGRESSION_PROMPT.split()),
    }


@torch.inference_mode()
def greedy_continue(lm, vocab: Vocab, prefix: Sequence[str], max_new: int = 12) -> list[str]:
    """Greedy continuation of a word prefix until EOS (EOS shown as "<eos>")."""
    ids = torch.tensor([vocab.encode(prefix, bos=True)])
    out: list[str] = []
    for _ in range(max_new):
        logits, _, _ = lm(ids)
        nxt = int(logits[0, -1].argmax())
        if nxt == EOS_ID:
            out.append("<eos>")
            break
        out.append(vocab.decode([nxt])[0] if vocab.decode([nxt]) else "<unk>")
        ids = torch.cat([ids, torch.tensor([[nxt]])], 1)
    return out


def evaluate_all(names: Sequence[str] | None = None) -> dict:
    """The JSON object printed by ``python -m core.evaluate --json``."""
    from core import zoo

    names = list(names or zoo.SHIPPED_MODELS)
    src_vocab, tgt_vocab = zoo.load_vocabs()
    manifest = zoo.load_manifest()
    splits = corpus.stored_splits(manifest["corpus"]["seed"])  # = build_splits, kept on disk
    result: dict = {
        "models": {},
        "probes": {"coref": {}, "sense": {}, "longrange": {}, "distance": {}},
    }
    for name in names:
        model = zoo.load_model(name)
        if name in zoo.TRANSLATION_MODELS + zoo.EXAMPLE_TRANSLATION_MODELS:
            m = translation_metrics(model, splits, src_vocab, tgt_vocab)
            params = sum(p.numel() for p in model.parameters())
            result["models"][name] = {
                "params": params,
                "by_length": m["by_length"],
                "all": m["all"],
            }
            for probe in ("coref", "sense", "longrange"):
                result["probes"][probe][name] = m[probe]
        elif name in zoo.PROBE_MODELS:
            result["probes"]["distance"][name] = distance_accuracy(model)
        elif name in zoo.LM_MODELS:
            result["lm"] = {name: lm_metrics(model, src_vocab, splits.test)}
        elif name in zoo.ENCODER_MODELS:
            result.setdefault("encoders", {})[name] = coref_metrics(model, src_vocab)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--model", action="append", help="only these models (repeatable)")
    args = parser.parse_args(argv)
    from core.zoo import ZooError

    try:
        result = evaluate_all(args.model)
    except ZooError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        for name, m in result["models"].items():
            row = "  ".join(f"{b}:{v['exact']:.2f}" for b, v in m["by_length"].items())
            print(f"{name:16s} exact by length  {row}")
        for name, accs in result["probes"]["distance"].items():
            print(f"{name:16s} " + " ".join(f"{d}:{a:.2f}" for d, a in accs.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
