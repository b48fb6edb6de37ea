"""Autoregressive generation, one token at a time (lesson 1.2–1.3).

A model predicts a distribution over the next token, one token is chosen (greedy: the most
probable; sampling: drawn at a temperature among the ``top_k`` most probable, from a seeded
``torch.Generator`` so the same seed replays the same tokens) and appended, and the longer
sequence is fed back in. Everything here is a pure function of a model and plain id lists;
nothing is stored on the model. Ids: PAD 0, BOS 1, EOS 2 (``core.data``).

Shapes: B batch, T target length, S source length, V vocabulary, k shown alternatives.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from core.data import BOS_ID, EOS_ID, PAD_ID, pad
from core.evaluate import edit_distance

UNK_ID = 3  # core.vocab: PAD, BOS, EOS, UNK are ids 0-3
MODES: tuple[str, ...] = ("greedy", "sample")


@dataclass(frozen=True)
class Step:
    """One generation step: what the model read, what it considered, what it chose."""

    context: tuple[int, ...]  # the ids the model read (BOS first), the prefix of this step
    top_ids: tuple[int, ...]  # the k most probable next ids, most probable first
    top_probs: tuple[float, ...]  # their probabilities (the distribution the choice used)
    chosen: int  # the id appended at this step
    chosen_prob: float  # its probability in that distribution


def next_distribution(logits: torch.Tensor, temperature: float = 1.0, top_k: int = 0):
    """The distribution a next token is chosen from. logits (V,) -> probabilities (V,).

    ``temperature`` divides the logits (below 1 sharpens, above 1 flattens); ``top_k`` > 0
    keeps only the k most probable tokens and renormalises (0 keeps all).
    """
    if temperature <= 0:
        raise ValueError(f"temperature must be > 0, got {temperature}; use greedy for T→0")
    probs = F.softmax(logits.float() / temperature, dim=-1)  # (V,)
    if 0 < top_k < probs.numel():
        keep = torch.zeros_like(probs, dtype=torch.bool)
        keep[torch.topk(probs, top_k).indices] = True  # exactly k, even with ties
        probs = torch.where(keep, probs, torch.zeros_like(probs))
        probs = probs / probs.sum()
    return probs


def choose(probs: torch.Tensor, mode: str, generator: torch.Generator | None = None) -> int:
    """Greedy: the most probable id; sample: one draw from ``probs`` with ``generator``."""
    if mode == "greedy":
        return int(probs.argmax())
    if mode == "sample":
        return int(torch.multinomial(probs, 1, generator=generator))
    raise ValueError(f"mode must be one of {MODES}, got {mode!r}")


def _step(
    context: Sequence[int], probs: torch.Tensor, chosen: int, k_show: int
) -> Step:  # probs (V,)
    k = min(k_show, probs.numel())
    top = torch.topk(probs, k)
    return Step(
        context=tuple(context),
        top_ids=tuple(int(i) for i in top.indices),
        top_probs=tuple(round(float(p), 5) for p in top.values),
        chosen=chosen,
        chosen_prob=round(float(probs[chosen]), 5),
    )


@torch.inference_mode()
def lm_generate(
    lm,
    prefix_ids: Sequence[int],
    *,
    max_new: int = 12,
    mode: str = "greedy",
    temperature: float = 1.0,
    top_k: int = 0,
    seed: int = 0,
    k_show: int = 8,
) -> list[Step]:
    """Generate with a next-word language model until EOS or ``max_new`` tokens.

    ``prefix_ids`` are the prompt's word ids *without* BOS (an empty prompt starts from
    BOS alone). At every step the whole sequence so far, BOS first, is fed back in
    (``lm(ids) -> (logits (1,T,V), ...)``) and the next id is chosen from the last
    position's distribution. Greedy ignores ``temperature``/``top_k``; sampling uses a
    ``torch.Generator`` seeded with ``seed``, so the same arguments give the same steps.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    gen = torch.Generator().manual_seed(int(seed))
    ids = [BOS_ID, *prefix_ids]
    steps: list[Step] = []
    for _ in range(max_new):
        logits, _, _ = lm(torch.tensor([ids]))  # (1, T, V)
        if mode == "greedy":
            probs = F.softmax(logits[0, -1].float(), -1)  # (V,)
        else:
            probs = next_distribution(logits[0, -1], temperature, top_k)
        nxt = choose(probs, mode, gen)
        steps.append(_step(ids, probs, nxt, k_show))
        if nxt == EOS_ID:
            break
        ids.append(nxt)
    return steps


# --- conditional generation (translation) ---------------------------------------------------


@torch.inference_mode()
def continue_greedy(
    model, src_ids: Sequence[int], prefix: Sequence[int], max_len: int
) -> list[int]:
    """Greedy output ids after a forced ``prefix`` (ids without BOS), EOS included if reached.

    ``model(src (1,S), tgt_in (1,t)) -> logits (1,t,V)`` reads the source and the prefix
    (teacher forcing); the most probable next id is appended and the longer prefix is fed
    back in, until EOS or ``max_len`` output tokens. ``src_ids`` end with EOS.
    """
    src = torch.tensor([list(src_ids)])  # (1, S)
    out = list(prefix)
    while len(out) < max_len and (not out or out[-1] != EOS_ID):
        logits, _ = model(src, torch.tensor([[BOS_ID, *out]]))  # (1, t, V)
        out.append(int(logits[0, -1].argmax()))
    return out


@dataclass(frozen=True)
class Decoded:
    """A translation output with each step's alternatives and attention."""

    ids: tuple[int, ...]  # output ids, EOS included when the model produced it
    steps: tuple[Step, ...]  # one per output id
    attention: tuple[tuple[float, ...], ...] | None  # (T, S) cross-attention rows, or None


@torch.inference_mode()
def explain_output(model, src_ids: Sequence[int], out_ids: Sequence[int], k_show: int = 8):
    """Each step's distribution and attention row for a given output, in one forward pass.

    Teacher forcing ``[BOS] + out_ids[:-1]`` gives the distribution the model had at every
    step (B=1): logits (1,T,V) and, for attention models, ``attn["cross"]`` (1,T,S).
    """
    if not out_ids:
        raise ValueError("out_ids is empty; decode at least one token first")
    src = torch.tensor([list(src_ids)])  # (1, S)
    tgt_in = torch.tensor([[BOS_ID, *out_ids[:-1]]])  # (1, T)
    logits, attn = model(src, tgt_in)
    probs = F.softmax(logits[0].float(), -1)  # (T, V)
    steps = tuple(
        _step([BOS_ID, *out_ids[:t]], probs[t], int(out_ids[t]), k_show)
        for t in range(len(out_ids))
    )
    cross = attn.get("cross") if isinstance(attn, dict) else None
    rows = None
    if cross is not None:
        rows = tuple(tuple(round(float(a), 5) for a in row) for row in cross[0])  # (T, S)
    return Decoded(tuple(int(i) for i in out_ids), steps, rows)


def alternatives(dec: Decoded, pos: int) -> list[int]:
    """The ids the model considered at step ``pos`` (1-based) besides its own choice, most
    probable first (PAD, BOS and UNK left out; EOS stays: ending early is a real slip)."""
    step = dec.steps[pos - 1]
    return [i for i in step.top_ids if i != step.chosen and i not in (PAD_ID, BOS_ID, UNK_ID)]


def strip_eos(ids: Sequence[int]) -> list[int]:
    """The ids before the first EOS (or PAD)."""
    out = []
    for i in ids:
        if i in (EOS_ID, PAD_ID):
            break
        out.append(int(i))
    return out


# --- "one wrong step": forcing an error on held-out sentences ---------------------------------


@dataclass(frozen=True)
class WrongStepResult:
    """How often the rest of a sentence survives one forced wrong token, per position."""

    positions: tuple[int, ...]  # output positions p (0 = the first output token)
    n: tuple[int, ...]  # sentences measured at p (correct unforced, longer than p + 1)
    rest_exact: tuple[float, ...]  # share whose tokens after p all equal the reference
    rest_edit: tuple[float, ...]  # mean edit accuracy of the tokens after p
    n_sentences: int  # sentences sampled
    n_correct: int  # of which the unforced greedy output was exactly right


def _is_bahdanau_rnn(model) -> bool:
    """An RNNsearch decoder (core.models.rnn_seq2seq with attention): it can carry its state."""
    return all(hasattr(model, a) for a in ("cell", "attention", "init_state", "_logits")) and (
        model.attention is not None
    )


@torch.inference_mode()
def _batched_continue(model, src: torch.Tensor, prefix: torch.Tensor, max_len: int):
    """Greedy continuation for a batch. src (B,S), prefix (B,t) without BOS -> (B, L) ids.

    The source is encoded once. An RNNsearch decoder carries its state from step to step
    (the same computation as its teacher-forced ``decode``); any other decoder re-reads
    the growing prefix with ``decode(memory, tgt_in)`` at every step.
    """
    B = src.size(0)
    memory = model.encode(src)
    out = prefix
    done = (prefix == EOS_ID).any(1)  # (B,)
    if _is_bahdanau_rnn(model):
        state = torch.tanh(model.init_state(memory["context"]))  # (B, H)
        feed = torch.cat([torch.full((B, 1), BOS_ID), prefix], 1)  # (B, t+1)
        for i in range(feed.size(1)):
            y_emb = model.tgt_embed(feed[:, i])  # (B, E)
            context, _ = model.attention(state, memory["keys"], memory["hidden"], memory["mask"])
            state = model.cell(torch.cat([y_emb, context], -1), state)  # (B, H)
        while out.size(1) < max_len and not bool(done.all()):
            nxt = model._logits(state, context, y_emb).argmax(-1)  # (B,)
            nxt = torch.where(done, torch.full_like(nxt, PAD_ID), nxt)
            out = torch.cat([out, nxt.unsqueeze(1)], 1)
            done = done | (nxt == EOS_ID)
            y_emb = model.tgt_embed(nxt)
            context, _ = model.attention(state, memory["keys"], memory["hidden"], memory["mask"])
            state = model.cell(torch.cat([y_emb, context], -1), state)
        return out
    while out.size(1) < max_len and not bool(done.all()):
        tgt_in = torch.cat([torch.full((B, 1), BOS_ID), out], 1)  # (B, t+1)
        logits, _ = model.decode(memory, tgt_in)  # (B, t+1, V)
        nxt = logits[:, -1].argmax(-1)  # (B,)
        nxt = torch.where(done, torch.full_like(nxt, PAD_ID), nxt)
        out = torch.cat([out, nxt.unsqueeze(1)], 1)
        done = done | (nxt == EOS_ID)
    return out


@torch.inference_mode()
def wrong_step_effect(
    model,
    src_rows: Sequence[Sequence[int]],
    ref_rows: Sequence[Sequence[int]],
    positions: Sequence[int] = (0, 1, 2, 4, 8),
    extra: int = 5,
) -> WrongStepResult:
    """Force one wrong token at output position p and check the rest against the reference.

    ``src_rows``: source ids ending with EOS; ``ref_rows``: reference output ids (no BOS,
    no EOS). Only sentences the model translates exactly right on its own count (found with
    one teacher-forced pass: every step's argmax equals the reference, EOS included), so a
    later error is caused by the forced token. The wrong token at p is the model's most
    probable token other than the reference one there (its likeliest slip). The output
    then continues greedily up to ``len(ref) + extra`` tokens. "rest exact": every token
    after p (and the end) equals the reference after p; "rest edit": 1 − edit distance /
    max length over those tokens.
    """
    if len(src_rows) != len(ref_rows) or not src_rows:
        raise ValueError("src_rows and ref_rows must be non-empty and of the same length")
    src = pad(src_rows)  # (B, S)
    tgt = pad([[BOS_ID, *r, EOS_ID] for r in ref_rows])  # (B, T+1)
    logits, _ = model(src, tgt[:, :-1])  # (B, T, V)
    gold = tgt[:, 1:]  # (B, T)
    mask = gold != PAD_ID
    correct = ((logits.argmax(-1) == gold) | ~mask).all(1)  # (B,)
    ok = [i for i in range(len(ref_rows)) if bool(correct[i])]
    exact_share, edit_share, counts = [], [], []
    for p in positions:
        idx = [i for i in ok if len(ref_rows[i]) > p + 1]
        counts.append(len(idx))
        if not idx:
            exact_share.append(0.0)
            edit_share.append(0.0)
            continue
        step_logits = logits[idx, p].clone()  # (b, V)
        ref_tok = gold[idx, p]  # (b,)
        step_logits[torch.arange(len(idx)), ref_tok] = float("-inf")
        for special in (PAD_ID, BOS_ID, EOS_ID):
            step_logits[:, special] = float("-inf")
        wrong = step_logits.argmax(-1)  # (b,)
        prefix = torch.stack(
            [torch.tensor([*ref_rows[i][:p], int(w)]) for i, w in zip(idx, wrong)]
        )  # (b, p+1)
        max_len = max(len(ref_rows[i]) for i in idx) + extra
        out = _batched_continue(model, src[idx], prefix, max_len)  # (b, L)
        ex = ed = 0.0
        for row, i in zip(out.tolist(), idx):
            rest = strip_eos(row[p + 1 :])
            ref_rest = list(ref_rows[i][p + 1 :])
            ended = EOS_ID in row[p + 1 :]
            ex += ended and rest == ref_rest
            ed += 1 - edit_distance(rest, ref_rest) / max(len(rest), len(ref_rest), 1)
        exact_share.append(round(ex / len(idx), 4))
        edit_share.append(round(ed / len(idx), 4))
    return WrongStepResult(
        positions=tuple(positions),
        n=tuple(counts),
        rest_exact=tuple(exact_share),
        rest_edit=tuple(edit_share),
        n_sentences=len(ref_rows),
        n_correct=len(ok),
    )


# --- serial cost -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Timing:
    """Model calls and steps counted, and measured wall-clock times (fastest of the
    repetitions: the least disturbed by other work on a shared machine) in milliseconds. The
    counts are exact; the milliseconds vary from run to run."""

    lengths: tuple[int, ...]  # numbers of tokens
    generate_ms: tuple[float, ...]  # writing N tokens, one model call per token
    read_ms: tuple[float, ...]  # reading N given tokens in one model call
    repeats: int
    generate_calls: tuple[int, ...] = ()  # model calls made to write N tokens (counted)
    read_calls: tuple[int, ...] = ()  # model calls made to read N tokens (counted)
    # the recurrence inside the one reading call: steps that each wait for the one before
    read_steps: tuple[int, ...] = ()
    # the same N tokens read by a Transformer encoder (empty when none was given)
    parallel_ms: tuple[float, ...] = ()
    parallel_steps: tuple[int, ...] = ()  # its layers, run one after another (counted)


def _rnn_steps(lm, n: int) -> int:
    """Steps of the recurrence when ``lm`` reads ``n`` tokens: each layer's state at a word
    waits for its state at the word before, so n per layer (a fused call changes where the
    loop runs, not how many steps wait for one another). A model without an ``rnn`` module
    counts as one recurrent layer."""
    return n * int(getattr(getattr(lm, "rnn", None), "num_layers", 1))


def _encoder_steps(encoder, src: torch.Tensor) -> int:
    """Encoder layers run one after another while reading ``src`` (1,n), counted with
    forward hooks on an extra, untimed call: every layer handles all n positions at once."""
    calls = []
    hooks = [
        layer.register_forward_hook(lambda *_: calls.append(1)) for layer in encoder.enc_layers
    ]
    try:
        encoder.encode(src)
    finally:
        for h in hooks:
            h.remove()
    return len(calls)


@torch.inference_mode()
def time_generation(
    lm,
    lengths: Sequence[int] = (4, 8, 16, 32, 64),
    repeats: int = 5,
    start: int = BOS_ID,
    encoder=None,
) -> Timing:
    """Time a language model writing N tokens vs reading N tokens, for each N; with
    ``encoder`` (a Transformer: ``encode(src (1,N))``), time it reading the same N tokens too.

    Writing: N calls ``lm(one token, state)``, each waiting for the previous token (the
    recurrent state is carried, so every call does the same work); the next token is the
    argmax, EOS or not, so exactly N tokens are produced. Reading: one call on N tokens
    (teacher forcing, as in training), by the language model and by the encoder, each
    repetition timing all three in turn so that a busy moment of the machine hits them
    alike. ``time.perf_counter``; fastest of ``repeats``. The model calls of the last
    repetition are counted as they are made; the encoder reads the language model's ids
    (both read the corpus's English vocabulary).
    """
    if repeats < 1 or not lengths or min(lengths) < 1:
        raise ValueError("need repeats >= 1 and lengths >= 1")
    gen_ms, read_ms, par_ms, gen_calls, read_steps, par_steps = [], [], [], [], [], []
    for n in lengths:
        g, r, e = [], [], []
        for _ in range(repeats):
            tok = torch.tensor([[start]])  # (1, 1)
            state = None
            calls = 0
            t0 = time.perf_counter()
            written = []
            for _ in range(n):
                logits, _, state = lm(tok, state)  # (1, 1, V)
                calls += 1
                tok = logits[:, -1].argmax(-1, keepdim=True)  # (1, 1)
                written.append(tok)
            g.append((time.perf_counter() - t0) * 1000)
            seq = torch.cat([torch.tensor([[start]]), *written], 1)[:, :n]  # (1, n)
            t0 = time.perf_counter()
            lm(seq)
            r.append((time.perf_counter() - t0) * 1000)
            if encoder is not None:
                t0 = time.perf_counter()
                encoder.encode(seq)  # (1, n, D): every position in each layer at once
                e.append((time.perf_counter() - t0) * 1000)
        gen_ms.append(round(min(g), 4))
        read_ms.append(round(min(r), 4))
        gen_calls.append(calls)
        read_steps.append(_rnn_steps(lm, n))
        if encoder is not None:
            par_ms.append(round(min(e), 4))
            par_steps.append(_encoder_steps(encoder, seq))
    return Timing(
        tuple(lengths),
        tuple(gen_ms),
        tuple(read_ms),
        repeats,
        tuple(gen_calls),
        (1,) * len(lengths),  # the one call on the whole sequence above
        tuple(read_steps),
        tuple(par_ms),
        tuple(par_steps),
    )


# --- the clearest single slip: the default of the "one wrong step" screen --------------------

SLIP_THRESHOLD = 0.05  # a forced word counts as plausible when the model gave it at least this


def later_changes(
    own: Sequence[int], forced: Sequence[int], pos: int
) -> tuple[int, tuple[int, ...]]:
    """How much the words after output position ``pos`` (0-based) changed.

    ``own`` is the model's own output, ``forced`` the output with a forced word at ``pos``
    (EOS included in both when reached). Returns the word edit distance between the two
    continuations after ``pos`` and the positions (in ``forced``) of its words that are not
    in a longest common subsequence with the model's own continuation (the new words; a
    word merely shifted by an inserted or dropped one is not counted).
    """
    a, b = list(own[pos + 1 :]), list(forced[pos + 1 :])
    lcs = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            lcs[i][j] = lcs[i + 1][j + 1] + 1 if a[i] == b[j] else max(lcs[i + 1][j], lcs[i][j + 1])
    new, i, j = [], 0, 0
    while j < len(b):
        if i < len(a) and a[i] == b[j]:
            i, j = i + 1, j + 1
        elif i < len(a) and lcs[i + 1][j] >= lcs[i][j + 1]:
            i += 1
        else:
            new.append(pos + 1 + j)
            j += 1
    return edit_distance(a, b), tuple(new)


@dataclass(frozen=True)
class Slip:
    """One forced word: where, which, how plausible, and what it did to the rest."""

    index: int  # into the candidate sentences
    pos: int  # output position of the forced word (0 = the first output word)
    token: int  # the forced id
    prob: float  # the probability the model itself gave it there
    rank: int  # its rank among the model's choices there (2 = second choice)
    edits: int  # word edits between the continuation after it and the model's own
    own: tuple[int, ...]  # the model's own output (EOS included)
    forced: tuple[int, ...]  # the output with the forced word (EOS included when reached)


@torch.inference_mode()
def find_slip(
    model,
    src_rows: Sequence[Sequence[int]],
    ref_rows: Sequence[Sequence[int]],
    *,
    threshold: float = SLIP_THRESHOLD,
    k: int = 4,
    extra: int = 5,
) -> Slip | None:
    """The plausible slip that changes the rest of a sentence most, among ``src_rows``.

    Only sentences the model translates exactly like the reference count (one
    teacher-forced pass, as in :func:`wrong_step_effect`), so the forced word is wrong.
    At every output position before the end, each of the model's choices ranked 2..``k``
    with probability >= ``threshold`` (no special token) is forced and the output continues
    greedily (up to ``len(ref) + extra`` words). The best slip has the most word edits
    after it (:func:`later_changes`); ties go to the more probable word, then the shorter
    sentence, then the earlier one. ``None`` when no word reaches ``threshold``.
    Deterministic: greedy decoding and a fixed order.
    """
    if len(src_rows) != len(ref_rows) or not src_rows:
        raise ValueError("src_rows and ref_rows must be non-empty and of the same length")
    if not 0 < threshold < 1:
        raise ValueError(f"threshold must be a probability in (0, 1), got {threshold}")
    best: tuple | None = None
    for start in range(0, len(src_rows), 128):  # bounded memory
        rows = range(start, min(start + 128, len(src_rows)))
        src = pad([src_rows[i] for i in rows])  # (B, S)
        tgt = pad([[BOS_ID, *ref_rows[i], EOS_ID] for i in rows])  # (B, T+1)
        logits, _ = model(src, tgt[:, :-1])  # (B, T, V)
        probs = F.softmax(logits.float(), -1)  # (B, T, V)
        gold = tgt[:, 1:]
        correct = ((logits.argmax(-1) == gold) | (gold == PAD_ID)).all(1)  # (B,)
        top = probs.topk(k, -1)  # (B, T, k)
        for b, i in enumerate(rows):
            if not bool(correct[b]):
                continue
            ref = list(ref_rows[i])
            own = (*ref, EOS_ID)
            for p in range(len(ref)):
                for r in range(1, k):
                    q, tok = float(top.values[b, p, r]), int(top.indices[b, p, r])
                    if q < threshold or tok in (PAD_ID, BOS_ID, EOS_ID, UNK_ID):
                        continue
                    forced = continue_greedy(model, src_rows[i], [*ref[:p], tok], len(ref) + extra)
                    edits, _ = later_changes(own, forced, p)
                    key = (-edits, -q, len(ref), i, p)
                    if best is None or key < best[0]:
                        best = (key, Slip(i, p, tok, round(q, 5), r + 1, edits, own, tuple(forced)))
    return None if best is None else best[1]
