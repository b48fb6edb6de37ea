"""Train the model zoo: ``python -m core.train --all`` or ``--model NAME``.

One training loop serves every model (``train_loop``); what differs is the batch source
and the loss, given by the model's task (translation, language model, distance probe).
Seeds and step budgets (not time budgets) are fixed per model, so a retrain reproduces
the metrics. Each model trains in its own process with one thread; ``--jobs 2`` trains
two at once on a 2-core machine. The weights go to ``assets/models/NAME.pt`` and the
manifest (config, parameter count, data seed, steps, time, metrics, sha256) to
``assets/models/manifest.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DATA_SEED = 1234  # the corpus seed: train/dev/test splits and vocabularies
# "it" in varied frames for the two attention translation models: the base corpus has one
# frame (the animal always first), in which a state adjective can simply name the subject
COREF_FRAME_PAIRS = 6000
COREF_FRAME_SEED = 64


@dataclass(frozen=True)
class TrainSpec:
    family: str  # key of core.zoo's family table
    task: str  # "translation" | "lm" | "probe" | "coref"
    config: dict[str, Any]  # model config, vocabulary sizes filled in at build time
    steps: int  # optimizer steps (the budget)
    batch_size: int = 64
    lr: float = 1e-3  # peak learning rate (Adam)
    warmup: int = 200  # linear warm-up steps, then linear decay to lr/10
    clip: float = 1.0  # gradient-norm clipping
    seed: int = 0  # initialisation and batch-order seed
    oversample: dict[str, int] = field(default_factory=dict)  # corpus kind → copies in training
    # generated pairs appended to this model's training list only (the base splits and
    # vocabularies stay those of every other model): {"coref_frames": n} adds n sentences
    # of core.corpus.coref_frames, whose held-out frames and nouns it never sees
    extra: dict[str, int] = field(default_factory=dict)


SPECS: dict[str, TrainSpec] = {
    # Budgets are optimizer steps, not seconds, so that a retrain on a noisy machine gives
    # the same models; the models of one family share one budget, so a comparison inside a
    # family is about size or architecture alone.
    # the bottleneck family: C of 32, 128 and 256 numbers (256 = the attention model's state)
    "gru_plain_32": TrainSpec(
        "rnn_seq2seq", "translation", {"hidden": 32, "emb_dim": 64}, 2000, lr=3e-3
    ),
    "gru_plain_128": TrainSpec("rnn_seq2seq", "translation", {"hidden": 128}, 2000, lr=2e-3),
    "gru_plain_256": TrainSpec("rnn_seq2seq", "translation", {"hidden": 256}, 2000, lr=2e-3),
    # the same bridge with a plain tanh recurrence (no gates): the RNN whose gradients vanish
    "rnn_plain_256": TrainSpec(
        "rnn_seq2seq", "translation", {"hidden": 256, "cell": "rnn"}, 2000, lr=2e-3
    ),
    # the two attention models see the long-range sentences three times as often: their
    # antecedent sits up to 40 words before the pronoun, and they hinge on one target word.
    # The GRU also sees the word-sense sentences twice: at this budget it otherwise missed
    # 13 of the 200 sense probes (a context word several clauses before "transformer" or
    # "bank"), where the transformer's self-attention missed none.
    "gru_attention": TrainSpec(
        "rnn_seq2seq",
        "translation",
        {"hidden": 256, "attention": True, "bidirectional": True, "attn_dim": 64},
        3500,
        lr=2e-3,
        oversample={"longrange": 3, "sense": 2},
        extra={"coref_frames": COREF_FRAME_PAIRS},
    ),
    "cnn_s2s": TrainSpec(
        "cnn_seq2seq", "translation", {"channels": 128, "dropout": 0.0}, 3500, lr=2e-3
    ),
    "transformer": TrainSpec(
        "transformer",
        "translation",
        {"dropout": 0.0, "d_ff": 256},
        5000,
        lr=2e-3,
        warmup=400,
        oversample={"longrange": 3},
        extra={"coref_frames": COREF_FRAME_PAIRS},
    ),
    "lm_gru": TrainSpec("lm_gru", "lm", {}, 1000, lr=2e-3),
    # self-attention that must resolve "it": two layers, one head in the last (core.corpus
    # coref_cases: noun/predicate pairs held out from training)
    "coref_encoder": TrainSpec("coref_encoder", "coref", {}, 1500, lr=2e-3, warmup=100),
    # distance probes: same task, same budget per family, only the architecture differs
    "probe_rnn": TrainSpec("probe", "probe", {"kind": "rnn"}, 2000),
    "probe_lstm": TrainSpec("probe", "probe", {"kind": "lstm"}, 2000, lr=2e-3),
    "probe_gru": TrainSpec("probe", "probe", {"kind": "gru"}, 2000, lr=2e-3),
    "probe_cnn2": TrainSpec(
        "probe", "probe", {"kind": "cnn", "layers": 2, "hidden": 32}, 1000, lr=2e-3
    ),
    "probe_cnn4": TrainSpec(
        "probe", "probe", {"kind": "cnn", "layers": 4, "hidden": 32}, 1000, lr=2e-3
    ),
    "probe_cnn8": TrainSpec(
        "probe", "probe", {"kind": "cnn", "layers": 8, "hidden": 32}, 1000, lr=2e-3
    ),
    "probe_attention": TrainSpec("probe", "probe", {"kind": "attention"}, 1000, lr=2e-3),
}


# --- the one training loop -----------------------------------------------------------------


Callback = Callable[[int, int, float, float], None]  # (step, steps, loss, acc)


def optimizer_step(
    model, loss_fn: Callable, *, steps: int, lr: float, warmup: int = 0, clip: float = 1.0
) -> Callable[[Any], tuple[Any, float]]:
    """The loop's body: a function that takes one batch, makes one Adam step (linear
    warm-up, then linear decay to lr/10 at ``steps``; gradient-norm clipping) and returns
    (loss tensor, accuracy). Two models stepped in turn share nothing but the batches."""
    import torch

    opt = torch.optim.Adam(model.parameters(), lr=lr)

    def schedule(step: int) -> float:
        if warmup and step < warmup:
            return (step + 1) / warmup
        return 1.0 - 0.9 * (step - warmup) / max(1, steps - warmup)

    sched = torch.optim.lr_scheduler.LambdaLR(opt, schedule)

    def step(batch) -> tuple[Any, float]:
        loss, acc = loss_fn(model, batch)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        sched.step()
        return loss, acc

    return step


def train_loop(
    model,
    batches: Iterator,
    loss_fn: Callable,
    *,
    steps: int,
    lr: float,
    warmup: int = 0,
    clip: float = 1.0,
    callback: Callback | None = None,
    curve_points: int = 50,
) -> list[list[float]]:
    """Adam with linear warm-up and linear decay; returns the curve [[step, loss, acc], ...]
    (means over the steps since the previous point)."""
    one_step = optimizer_step(model, loss_fn, steps=steps, lr=lr, warmup=warmup, clip=clip)
    every = max(1, steps // curve_points)
    curve, sum_loss, sum_acc, k = [], 0.0, 0.0, 0
    model.train()
    for step in range(1, steps + 1):
        loss, acc = one_step(next(batches))
        sum_loss, sum_acc, k = sum_loss + float(loss.detach()), sum_acc + acc, k + 1
        if step % every == 0 or step == steps:
            curve.append([step, round(sum_loss / k, 4), round(sum_acc / k, 4)])
            sum_loss, sum_acc, k = 0.0, 0.0, 0
        if callback is not None:
            callback(step, steps, float(loss.detach()), acc)
    model.eval()
    return curve


# --- tasks: batches and losses -------------------------------------------------------------


def _masked_ce(logits, target, pad_id: int = 0):
    import torch.nn.functional as F

    loss = F.cross_entropy(
        logits.reshape(-1, logits.size(-1)), target.reshape(-1), ignore_index=pad_id
    )
    mask = target != pad_id
    acc = float(((logits.argmax(-1) == target) & mask).sum()) / max(1, int(mask.sum()))
    return loss, acc


def translation_loss(model, batch):
    src, tgt = batch
    logits, _ = model(src, tgt[:, :-1])  # teacher forcing: (B, T-1, V)
    return _masked_ce(logits, tgt[:, 1:])


def lm_loss(model, batch):
    logits, _, _ = model(batch[:, :-1])  # (B, T-1, V)
    return _masked_ce(logits, batch[:, 1:])


def probe_loss(model, batch):
    import torch.nn.functional as F

    x, y, _ = batch
    logits, _ = model(x)  # (B, n_keys)
    return F.cross_entropy(logits, y), float((logits.argmax(-1) == y).float().mean())


def coref_loss(model, batch):
    ids, target = batch  # (B, S), (B, S): the antecedent's id at "it", PAD elsewhere
    logits, _ = model(ids)  # (B, S, V)
    return _masked_ce(logits, target)


def _coref_cases(rng, n: int) -> list:
    """``n`` trainable sentences of the training frames (core.corpus.coref_frames), in turn."""
    from core.corpus import coref_frames as cf

    frames = [f for f in cf.FRAMES if f not in cf.HELD_OUT_FRAMES]
    out: list = []
    while len(out) < n:
        case = cf.frame_case(rng, frames[len(out) % len(frames)])
        if cf.is_trainable(case):
            out.append(case)
    return out


def _coref_batches(vocab, batch_size: int, seed: int) -> Iterator:
    """Endless batches of trainable sentences of the training frames, a quarter of each
    batch in the base corpus's one frame over every noun (core.corpus.coref_case, plain),
    as the translation models read it in their corpus."""
    import random

    from core import corpus
    from core.data import pad

    train_pairs, _ = corpus.coref_pair_split()
    rng = random.Random(seed)
    base = batch_size // 4
    while True:
        cases = [corpus.coref_case(rng, train_pairs, plain=True) for _ in range(base)]
        cases += _coref_cases(rng, batch_size - base)
        ids = pad([vocab.encode(c.tokens) for c in cases])  # (B, S)
        target = ids.new_zeros(ids.shape)
        for i, c in enumerate(cases):
            target[i, c.it] = ids[i, c.antecedent]
        yield ids, target


def _probe_batches(batch_size: int, seed: int) -> Iterator:
    import torch

    from core import probes_data

    gen = torch.Generator().manual_seed(seed)
    while True:
        yield probes_data.make_batch(gen, batch_size)


def _lm_batches(rows: list[list[int]], batch_size: int, seed: int) -> Iterator:
    from core.data import sorted_batches

    for src, _ in sorted_batches(rows, rows, batch_size, seed):
        yield src


# --- one model, end to end -----------------------------------------------------------------


def prepare_data(data_seed: int = DATA_SEED):
    """The corpus splits and the vocabularies built from the training split."""
    from core import corpus
    from core.vocab import Vocab

    splits = corpus.build_splits(data_seed)
    src_vocab = Vocab.build(p.src for p in splits.train)
    tgt_vocab = Vocab.build(p.tgt for p in splits.train)
    return splits, src_vocab, tgt_vocab


def extra_pairs(spec: TrainSpec, splits) -> list:
    """The generated pairs ``spec.extra`` appends to a translation model's training list:
    none of them is a dev, test or probe source."""
    from core import corpus
    from core.corpus import coref_frames

    n = spec.extra.get("coref_frames", 0)
    if not n:
        return []
    probes = corpus.coref_probe() + corpus.sense_probe() + corpus.longrange_probe()
    exclude = frozenset(p.src for p in (*splits.dev, *splits.test, *probes))
    return coref_frames.frame_pairs(COREF_FRAME_SEED, n, exclude)


def full_config(spec: TrainSpec, src_vocab, tgt_vocab) -> dict[str, Any]:
    from core import probes_data

    cfg = dict(spec.config)
    if spec.task == "translation":
        cfg.update(src_vocab=len(src_vocab), tgt_vocab=len(tgt_vocab))
    elif spec.task in ("lm", "coref"):
        cfg.update(vocab=len(src_vocab))
    else:
        cfg.update(n_symbols=probes_data.N_SYMBOLS, n_keys=probes_data.N_KEYS)
    return cfg


def train_one(
    name: str,
    spec: TrainSpec,
    out_dir: Path,
    data=None,
    steps: int | None = None,
    callback: Callback | None = None,
    evaluate: bool = True,
) -> dict[str, Any]:
    """Train one model from its spec, save its weights, return its manifest entry."""
    import torch

    from core import evaluate as ev
    from core import zoo
    from core.data import encode_pairs, sorted_batches

    splits, src_vocab, tgt_vocab = data if data is not None else prepare_data()
    steps = spec.steps if steps is None else steps
    cfg = full_config(spec, src_vocab, tgt_vocab)
    torch.manual_seed(spec.seed)
    model = zoo.build_model(spec.family, cfg)
    if spec.task == "translation":
        train = list(splits.train)
        for kind, copies in sorted(spec.oversample.items()):  # rare constructions, more often
            train += [p for p in splits.train if p.kind == kind] * (copies - 1)
        train += extra_pairs(spec, splits)
        src, tgt = encode_pairs(train, src_vocab, tgt_vocab)
        batches, loss_fn = sorted_batches(src, tgt, spec.batch_size, spec.seed), translation_loss
    elif spec.task == "lm":
        rows = [src_vocab.encode(p.src, bos=True, eos=True) for p in splits.train]
        batches, loss_fn = _lm_batches(rows, spec.batch_size, spec.seed), lm_loss
    elif spec.task == "coref":
        batches, loss_fn = _coref_batches(src_vocab, spec.batch_size, spec.seed), coref_loss
    else:
        batches, loss_fn = _probe_batches(spec.batch_size, spec.seed), probe_loss
    t0 = time.perf_counter()
    curve = train_loop(
        model,
        batches,
        loss_fn,
        steps=steps,
        lr=spec.lr,
        warmup=spec.warmup,
        clip=spec.clip,
        callback=callback,
    )
    train_time = time.perf_counter() - t0
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.pt"
    torch.save(model.state_dict(), path)
    metrics: dict[str, Any] = {}
    if evaluate:
        with torch.inference_mode():
            if spec.task == "translation":
                metrics = ev.translation_metrics(model, splits, src_vocab, tgt_vocab)
            elif spec.task == "lm":
                metrics = ev.lm_metrics(model, src_vocab, splits.test)
            elif spec.task == "coref":
                metrics = ev.coref_metrics(model, src_vocab)
            else:
                metrics = {"distance": ev.distance_accuracy(model)}
    return {
        "family": spec.family,
        "task": spec.task,
        "file": path.name,
        "sha256": zoo.sha256_of(path),
        "params": sum(p.numel() for p in model.parameters()),
        "config": cfg,
        "data_seed": DATA_SEED,
        "seed": spec.seed,
        "steps": steps,
        "batch_size": spec.batch_size,
        "lr": spec.lr,
        "oversample": dict(spec.oversample),
        **({"extra": dict(spec.extra)} if spec.extra else {}),
        **({"held_out": _held_out()} if spec.extra or spec.task == "coref" else {}),
        "train_time_s": round(train_time, 1),
        "metrics": metrics,
        "curve": curve,
    }


def _held_out() -> dict:
    from core.corpus import coref_frames

    return coref_frames.held_out_description()


def _worker(name: str, out_dir: str, position: int) -> tuple[str, dict]:
    import torch

    torch.set_num_threads(1)
    from tqdm import tqdm

    bar = tqdm(
        total=SPECS[name].steps, desc=f"{name:16s}", position=position, leave=True, mininterval=2
    )

    def cb(step, steps, loss, acc):
        bar.update(1)
        if step % 50 == 0:
            bar.set_postfix(loss=f"{loss:.3f}", acc=f"{acc:.3f}")

    entry = train_one(name, SPECS[name], Path(out_dir), callback=cb)
    bar.close()
    return name, entry


def write_manifest(entries: dict[str, dict], out_dir: Path, data) -> Path:
    """Merge entries into the manifest (models not retrained keep their entry)."""
    from core import zoo

    splits, src_vocab, tgt_vocab = data
    path = out_dir / "manifest.json"
    manifest: dict[str, Any] = {}
    if path.is_file():
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            manifest = {}
    vocab = {}
    for side, v in (("src", src_vocab), ("tgt", tgt_vocab)):
        vpath = out_dir / f"vocab_{side}.json"
        vpath.write_text(json.dumps(v.to_json(), ensure_ascii=False), encoding="utf-8")
        vocab[side] = {"file": vpath.name, "sha256": zoo.sha256_of(vpath), "size": len(v)}
    manifest["format"] = 1
    manifest["command"] = "python -m core.train --all"
    manifest["corpus"] = {
        "seed": DATA_SEED,
        "train": len(splits.train),
        "dev": len(splits.dev),
        "test": len(splits.test),
        "note": "synthetic English→Chinese grammar, core/corpus.py",
    }
    manifest["vocab"] = vocab
    models = manifest.get("models", {})
    models.update(entries)
    from core.zoo import SHIPPED_MODELS

    manifest["models"] = {k: models[k] for k in SHIPPED_MODELS if k in models}
    path.write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Train the pretrained model zoo.")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--all", action="store_true", help="train every model")
    group.add_argument(
        "--model", action="append", choices=sorted(SPECS), help="train this model (repeatable)"
    )
    parser.add_argument(
        "--jobs", type=int, default=min(2, os.cpu_count() or 1), help="models trained at once"
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="output folder (default assets/models)"
    )
    args = parser.parse_args(argv)
    from core import zoo

    out_dir = args.out or zoo.ASSETS_DIR
    names = list(SPECS) if args.all else args.model
    # the longest jobs first, so two workers finish at about the same time
    names.sort(key=lambda n: -_cost(SPECS[n]))
    data = prepare_data()
    t0 = time.perf_counter()
    entries: dict[str, dict] = {}
    with ProcessPoolExecutor(max_workers=max(1, args.jobs), mp_context=_spawn()) as pool:
        futures = [
            pool.submit(_worker, n, str(out_dir), i % max(1, args.jobs))
            for i, n in enumerate(names)
        ]
        for fut in as_completed(futures):
            name, entry = fut.result()
            entries[name] = entry
            write_manifest(entries, out_dir, data)
    path = write_manifest(entries, out_dir, data)
    print(f"trained {len(entries)} models in {time.perf_counter() - t0:.0f} s; manifest: {path}")
    return 0


# rough seconds per step on one of two busy cores, only used to start the longest jobs
# first (a GRU's cost scales with its hidden size; attention adds about 20 %)
_COST = {"rnn_seq2seq": 0.23, "transformer": 0.14, "cnn_seq2seq": 0.28, "lm_gru": 0.1}
_COST_RNN_CELL = {"gru": 1.0, "rnn": 0.45}  # a tanh step is about a third of a GRU's work


def _cost(spec: TrainSpec) -> float:
    per_step = _COST.get(spec.family, 0.035)
    if spec.family == "rnn_seq2seq":
        per_step *= spec.config.get("hidden", 256) / 256
        per_step *= 1.2 if spec.config.get("attention") else 1.0
        per_step *= _COST_RNN_CELL[spec.config.get("cell", "gru")]
    return spec.steps * per_step


def _spawn():
    import multiprocessing

    return multiprocessing.get_context("spawn")


if __name__ == "__main__":
    sys.exit(main())
