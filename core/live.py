"""A live race: a GRU encoder-decoder with only C against a GRU with attention, from scratch.

Both models have the same hidden size (so nearly the same parameter count), start from the
same seed, see the same batches in the same order and take their optimiser steps in turn
(``core.train.optimizer_step``, the zoo's loop body), so their curves grow together. Every
``log_every`` steps a progress record holds both training losses; every ``eval_every`` steps
also both models' token and edit accuracy on a fixed held-out set split by source length.
Step budgets, not time: a seed gives the same curves on any machine (time is only shown).
``python -m core.live`` runs the default race and prints the records.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import Any

MODELS = ("plain", "attention")  # the two racers, in the order they step


@dataclass(frozen=True)
class RaceConfig:
    hidden: int = 64  # size of C, of the encoder and of the decoder state, both models
    emb_dim: int = 64  # word embedding size, both sides
    attn_dim: int = 32  # additive attention's hidden layer (the attention model only)
    max_len: int = 30  # longest source sentence trained and tested on: the class's knob
    steps: int = 1200  # optimiser steps per model (the budget: chosen by search())
    batch_size: int = 32
    lr: float = 5e-3  # peak Adam learning rate, linear warm-up then decay to lr/10
    warmup: int = 30
    seed: int = 0  # initialisation (both models) and batch order
    log_every: int = 5  # a loss point every this many steps
    eval_every: int = 50  # held-out accuracy every this many steps (and at the end)
    eval_per_bucket: int = 24  # held-out sentences per length bucket


def buckets(max_len: int) -> list[str]:
    """The corpus' length buckets that hold sentences of at most ``max_len`` words."""
    from core import corpus

    n = sum(1 for lo in range(1, max_len + 1, 10))
    return list(corpus.BUCKETS[: min(n, len(corpus.BUCKETS))])


def load_data():
    """(splits, source vocabulary, target vocabulary): the zoo's corpus, from the disk cache."""
    from core import corpus
    from core.vocab import Vocab

    splits = corpus.stored_splits()
    train = splits.train
    return splits, Vocab.build(p.src for p in train), Vocab.build(p.tgt for p in train)


def race_data(cfg: RaceConfig, data=None) -> dict[str, Any]:
    """Training ids, the held-out sentences per bucket and the long sentence to translate."""
    from core import corpus
    from core.data import encode_pairs

    splits, src_vocab, tgt_vocab = data if data is not None else load_data()
    train = [p for p in splits.train if len(p.src) <= cfg.max_len]
    src, tgt = encode_pairs(train, src_vocab, tgt_vocab)
    held: dict[str, list] = {b: [] for b in buckets(cfg.max_len)}
    for p in splits.dev:
        b = corpus.length_bucket(len(p.src))
        if len(p.src) <= cfg.max_len and b in held and len(held[b]) < cfg.eval_per_bucket:
            held[b].append(p)
    # the long sentence both translate at the end: the test split's first of max_len words
    # (or the longest below it), never among the training or the accuracy sentences
    longest = max(len(p.src) for p in splits.test if len(p.src) <= cfg.max_len)
    long_pair = next(p for p in splits.test if len(p.src) == longest)
    return {
        "src": src,
        "tgt": tgt,
        "held": held,
        "long": long_pair,
        "vocabs": (src_vocab, tgt_vocab),
    }


def build_models(cfg: RaceConfig, src_vocab: int, tgt_vocab: int) -> dict[str, Any]:
    """The two racers, each initialised from ``cfg.seed``: unidirectional GRUs of one size."""
    import torch

    from core.models.rnn_seq2seq import RNNSeq2Seq, RNNSeq2SeqConfig

    models = {}
    for name in MODELS:
        torch.manual_seed(cfg.seed)
        models[name] = RNNSeq2Seq(
            RNNSeq2SeqConfig(
                src_vocab=src_vocab,
                tgt_vocab=tgt_vocab,
                emb_dim=cfg.emb_dim,
                hidden=cfg.hidden,
                attention=name == "attention",
                attn_dim=cfg.attn_dim,
            )
        )
    return models


def held_out_accuracy(model, held: dict[str, list], vocabs) -> dict[str, dict[str, float]]:
    """Greedy token and edit accuracy (%) per bucket: {"token": {bucket: %}, "edit": {...}}."""
    import torch

    from core import evaluate as ev

    model.eval()
    out: dict[str, dict[str, float]] = {"token": {}, "edit": {}}
    with torch.inference_mode():
        for bucket, pairs in held.items():
            s = ev.score(ev.translate(model, pairs, *vocabs), [p.tgt for p in pairs])
            out["token"][bucket] = round(100 * s["token_acc"], 1)
            out["edit"][bucket] = round(100 * s["edit_acc"], 1)
    model.train()
    return out


Report = Callable[[dict[str, Any]], None]


def race(
    cfg: RaceConfig,
    report: Report | None = None,
    should_stop: Callable[[], bool] | None = None,
    data=None,
) -> dict[str, Any]:
    """Train both models in turn on the same batches; call ``report(record)`` at every loss
    point. Returns the result: the records, the last accuracies, the long sentence's two
    translations, parameter counts, whether it was cancelled. One thread is the caller's job."""
    import torch

    from core import evaluate as ev
    from core.data import sorted_batches
    from core.train import optimizer_step, translation_loss

    t0 = time.perf_counter()
    d = race_data(cfg, data)
    src_vocab, tgt_vocab = d["vocabs"]
    models = build_models(cfg, len(src_vocab), len(tgt_vocab))
    steppers = {
        n: optimizer_step(
            m, translation_loss, steps=cfg.steps, lr=cfg.lr, warmup=cfg.warmup, clip=1.0
        )
        for n, m in models.items()
    }
    batches = sorted_batches(d["src"], d["tgt"], cfg.batch_size, cfg.seed)
    records: list[dict[str, Any]] = []
    sums = dict.fromkeys(MODELS, 0.0)
    last_acc = None
    cancelled = False
    for m in models.values():
        m.train()
    for step in range(1, cfg.steps + 1):
        if should_stop is not None and should_stop():
            cancelled = True
            break
        batch = next(batches)
        for name in MODELS:  # one step each, in turn, on the same batch
            loss, _ = steppers[name](batch)
            sums[name] += float(loss.detach())
        if step % cfg.log_every and step % cfg.eval_every and step != cfg.steps:
            continue
        n_since = step - (records[-1]["step"] if records else 0)
        rec: dict[str, Any] = {
            "step": step,
            "steps": cfg.steps,
            "loss": {n: round(sums[n] / n_since, 4) for n in MODELS},
        }
        sums = dict.fromkeys(MODELS, 0.0)
        if step % cfg.eval_every == 0 or step == cfg.steps:
            last_acc = {n: held_out_accuracy(m, d["held"], d["vocabs"]) for n, m in models.items()}
            rec["acc"] = last_acc
        rec["elapsed"] = round(time.perf_counter() - t0, 2)
        records.append(rec)
        if report is not None:
            report(rec)
    long_pair = d["long"]
    translation = {"src": list(long_pair.src), "ref": list(long_pair.tgt)}
    with torch.inference_mode():
        for name, m in models.items():
            m.eval()
            translation[name] = ev.translate(m, [long_pair], src_vocab, tgt_vocab)[0]
    # how much of the reference each translation has, by edit distance: one inserted word
    # would zero the position-wise count of the rest of a long sentence
    translation["edit"] = {
        n: round(100 * ev.score([translation[n]], [translation["ref"]])["edit_acc"], 1)
        for n in MODELS
    }
    return {
        "config": asdict(cfg),
        "buckets": buckets(cfg.max_len),
        "params": {n: sum(p.numel() for p in m.parameters()) for n, m in models.items()},
        "records": records,
        "final_acc": last_acc,
        "steps_done": records[-1]["step"] if records else 0,
        "cancelled": cancelled,
        "translation": translation,
        "elapsed": round(time.perf_counter() - t0, 2),
    }


def long_margin(result: dict[str, Any], metric: str = "token") -> float:
    """Attention's lead (percentage points) on the longest bucket at the end of the run."""
    acc = result["final_acc"]
    if not acc:
        return 0.0
    long = result["buckets"][-1]
    return round(acc["attention"][metric][long] - acc["plain"][metric][long], 1)


def long_scores(result: dict[str, Any]) -> dict[str, float]:
    """Each model's token accuracy (%) on the longest bucket at the end of the run."""
    acc = result["final_acc"] or {}
    long = result["buckets"][-1]
    return {n: acc[n]["token"][long] if acc else 0.0 for n in MODELS}


VERDICTS = ("plain", "attention", "tie")  # what a run can end in (the poll's answers)
TIE = 5.0  # points: closer than this on the longest sentences is a tie


def verdict(result: dict[str, Any]) -> str:
    """Who won on the longest bucket: "attention", "plain" or "tie" (within :data:`TIE`)."""
    margin = long_margin(result)
    return "attention" if margin > TIE else "plain" if margin < -TIE else "tie"


# What the words at the end may say, chosen by thresholds on the run's own numbers (never
# typed in): the catalogue's live.race.end.<story> and live.race.takeaway.<story>.
STORIES = ("close", "far", "alone", "tie", "plain")
CLOSE = 75.0  # % words in place on the longest sentences: "three words in four or more"
ALONE = 1.0  # % below which the model with only C has "almost none" (no ratio to speak of)


def story(result: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Which words say what a finished run showed, and the numbers they quote.

    Attention ahead by more than :data:`TIE` points on the longest bucket is "close" when
    its own share of words in place there reaches :data:`CLOSE` (a translation a newcomer
    recognises); below that, "far" (ahead, yet most words still wrong: ``times`` as many
    words in place), or "alone" when the model with only C placed almost none (below
    :data:`ALONE`: no ratio to speak of). Otherwise the verdict: "tie" or "plain".
    The values: steps, seconds, bucket, both shares (a, p), the points between them (d), how
    many times as many words attention placed (times), about how many words in ten it got
    wrong (wrong), the shortest bucket's shares (a0, p0)."""
    acc = result["final_acc"]
    buckets = result["buckets"]
    long, short = buckets[-1], buckets[0]
    # whole percentages (24 sentences a bucket: a decimal would be noise), and the points
    # and the ratio from the same whole numbers, so the sentence adds up as read
    a, p = (round(acc[m]["token"][long]) for m in ("attention", "plain"))
    values: dict[str, Any] = dict(
        steps=result["steps_done"],
        s=round(result["elapsed"]),
        bucket=long,
        a=a,
        p=p,
        d=abs(a - p),
        tie=f"{TIE:.0f}",
        close=f"{CLOSE:.0f}",
        times=f"{a / p:.1f}" if p >= ALONE else "",
        wrong=round((100 - a) / 10),  # of every ten words of attention's, about this many wrong
        short=short,
        a0=round(acc["attention"]["token"][short]),
        p0=round(acc["plain"]["token"][short]),
    )
    won = verdict(result)
    if won != "attention":
        return won, values
    if acc["attention"]["token"][long] >= CLOSE:
        return "close", values
    return ("alone" if acc["plain"]["token"][long] < ALONE else "far"), values


DEFAULT = RaceConfig()

# the configurations the search tries (overrides of RaceConfig's defaults)
SEARCH_GRID: tuple[dict[str, Any], ...] = (
    {"steps": 900},
    {"steps": 1200},
)
BUDGET_CPU_S = 120.0  # both models together, one core: training, evaluation, translation


def search(
    grid=SEARCH_GRID, seeds=(0, 1, 2), base: RaceConfig = DEFAULT, data=None, log=print
) -> list[dict[str, Any]]:
    """Race every configuration of the grid for every seed: attention's lead on the longest
    bucket (token and edit accuracy) and the CPU seconds of the costliest seed."""
    rows = []
    for overrides in grid:
        cfg = replace(base, **overrides)
        row: dict[str, Any] = {
            "config": overrides,
            "token": [],
            "edit": [],
            "long": [],  # attention's and only C's own token accuracy on the longest bucket
            "sentence": [],  # their long sentence's edit accuracy
            "cpu_s": 0.0,
        }
        for seed in seeds:
            c0 = time.process_time()
            res = race(replace(cfg, seed=seed), data=data)
            row["cpu_s"] = round(max(row["cpu_s"], time.process_time() - c0), 1)
            row["token"].append(long_margin(res, "token"))
            row["edit"].append(long_margin(res, "edit"))
            row["long"].append(long_scores(res))
            row["sentence"].append(res["translation"]["edit"])
        log(json.dumps(row))
        rows.append(row)
    return rows


def choose(rows: list[dict[str, Any]], budget_s: float = BUDGET_CPU_S) -> dict[str, Any]:
    """The configuration within the budget where attention's long translations are
    recognisable (at least :data:`CLOSE` % of words in place on the longest bucket) for
    every seed, if any is; among those, the one whose smallest lead over the seeds is
    largest."""
    fits = [r for r in rows if r["cpu_s"] <= budget_s]
    if not fits:
        raise ValueError(f"no configuration fits {budget_s} s of one core; try fewer steps")

    def close(row: dict[str, Any]) -> bool:
        return bool(row.get("long")) and all(s["attention"] >= CLOSE for s in row["long"])

    return max(fits, key=lambda r: (close(r), min(r["token"])))


def main(argv: list[str] | None = None) -> int:
    import torch

    torch.set_num_threads(1)
    parser = argparse.ArgumentParser(description="Race a GRU with only C against attention.")
    parser.add_argument("--steps", type=int, default=DEFAULT.steps)
    parser.add_argument("--seed", type=int, default=DEFAULT.seed)
    parser.add_argument("--max-len", type=int, default=DEFAULT.max_len)
    parser.add_argument("--search", action="store_true", help="race the search grid, 3 seeds")
    args = parser.parse_args(argv)
    if args.search:
        print("chosen:", json.dumps(choose(search())))
        return 0
    cfg = replace(DEFAULT, steps=args.steps, seed=args.seed, max_len=args.max_len)
    result = race(cfg, report=lambda r: print(json.dumps(r)) if "acc" in r else None)
    summary = {k: result[k] for k in ("params", "translation", "elapsed")}
    print(json.dumps(summary, ensure_ascii=False))
    print("margin on the long bucket:", long_margin(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
