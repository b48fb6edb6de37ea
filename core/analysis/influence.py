"""How much each source word still counts for the encoder's summary.

For an RNN encoder-decoder without attention the decoder sees only ``C``, so the gradient
of ``C`` with respect to each input word's embedding measures how strongly that word can
still move what the decoder gets (Bahdanau et al. 2015; Pascanu et al. 2013 for why it
fades with distance). Shared by the bottleneck and RNN-gradient pages, as is the choice of
the RNN-gradient page's default sentence (:func:`typical_sentence`).
"""

from __future__ import annotations

import json
import random
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from core import corpus, zoo
from core.analysis import rnn_gradients
from core.analysis.bottleneck import early_late_ratio


def context_influence(model, src_ids: Sequence[int]) -> np.ndarray:
    """‖∂C/∂e_j‖ (Frobenius norm of the Jacobian) for every source position j, unnormalised.

    ``model`` is an ``RNNSeq2Seq`` (its frozen parameters are fine: only the input
    embeddings get gradients); ``src_ids`` the source ids of one sentence, EOS included.
    Returns a float array of shape (S,). A one-layer, left-to-right GRU or tanh-RNN encoder
    (the plain models) gets the exact Jacobians by the chain rule written out
    (:func:`closed_form_influence`, tens of milliseconds); any other encoder one batched
    backward pass
    (:func:`backward_influence`, the same numbers, about ten times the work).
    """
    rnn = model.encoder.rnn
    gru = isinstance(rnn, nn.GRU)
    tanh_rnn = isinstance(rnn, nn.RNN) and rnn.nonlinearity == "tanh"
    if (gru or tanh_rnn) and not rnn.bidirectional and rnn.num_layers == 1:
        return closed_form_influence(model, src_ids)
    return backward_influence(model, src_ids)


def backward_influence(model, src_ids: Sequence[int]) -> np.ndarray:
    """:func:`context_influence` for any encoder, from one batched backward pass.

    Call it outside ``torch.inference_mode()`` (inference tensors cannot carry gradients).
    """
    H = model.cfg.hidden
    # one backward pass for the whole Jacobian: H copies of the sentence, copy k asks for
    # the gradient of C_k alone (the copies do not interact, so the sum separates)
    src = torch.tensor([list(src_ids)] * H, dtype=torch.long)  # (H, S)
    with torch.enable_grad():
        emb = model.encoder.embed(src).detach().requires_grad_(True)  # (H, S, E)
        context = model.encode(src, embedded=emb)["context"]  # (H, H): row k = copy k's C
        context.diagonal().sum().backward()
        jac = emb.grad  # (H, S, E): jac[k] = dC_k / de
    return jac.pow(2).sum(dim=(0, 2)).sqrt().numpy()  # (S,)


@torch.inference_mode()
def closed_form_influence(model, src_ids: Sequence[int]) -> np.ndarray:
    """:func:`context_influence` for a one-layer, unidirectional GRU or tanh-RNN encoder
    (C = h_S), from the closed-form step Jacobians:

        ∂C/∂e_j = (∂h_S/∂h_j) · ∂h_j/∂e_j,   ∂h_S/∂h_j = Π_{k=j+1..S} ∂h_k/∂h_{k-1},

    the product built from the end backwards, one (H, H) matrix product per word.
    """
    if len(src_ids) == 0:
        raise ValueError("src_ids is empty; encode the sentence with eos=True first")
    # float64 weights, PyTorch gate order
    cell = rnn_gradients.cell_from_module(model.encoder.rnn)
    xs = model.encoder.embed(torch.tensor(list(src_ids), dtype=torch.long)).double()  # (S, E)
    # (S, H): h_{t-1}, the state each word is read into
    states = rnn_gradients.unroll(cell, xs)[:-1]
    # the Jacobians in float32, the model's own precision: half the time of float64
    cell = rnn_gradients.Cell(
        cell.kind, *(w.float() for w in (cell.w_ih, cell.w_hh, cell.b_ih, cell.b_hh))
    )
    states, xs = states.float(), xs.float()
    step = rnn_gradients.step_jacobians(cell, states, xs)  # (S, H, H): [t] = ∂h_t/∂h_{t-1}
    inp = input_jacobians(cell, states, xs)  # (S, H, E): [t] = ∂h_t/∂x_t
    S, H = xs.shape[0], cell.hidden
    to_end = torch.empty(S, H, H)  # [t] = ∂h_S/∂h_t
    g = torch.eye(H)
    for t in range(S - 1, -1, -1):
        to_end[t] = g
        g = g @ step[t]
    return torch.linalg.matrix_norm(to_end @ inp).numpy()  # (S,) Frobenius norms


def input_jacobians(cell, states: torch.Tensor, xs: torch.Tensor) -> torch.Tensor:
    """∂h_{t}/∂x_t of a GRU or tanh-RNN step (PyTorch's equations and gate order) for every
    step: states (..., H) the state before the step, xs (..., E) its input → (..., H, E)."""
    H = cell.hidden
    if cell.kind == "rnn":  # h_t = tanh(W_ih x + b_ih + W_hh h + b_hh)
        pre = xs @ cell.w_ih.T + cell.b_ih + states @ cell.w_hh.T + cell.b_hh
        return (1 - torch.tanh(pre) ** 2).unsqueeze(-1) * cell.w_ih
    if cell.kind != "gru":
        raise ValueError(f"need a GRU or tanh-RNN cell, got {cell.kind!r}")
    gi = xs @ cell.w_ih.T + cell.b_ih  # (..., 3H)
    gh = states @ cell.w_hh.T + cell.b_hh  # (..., 3H)
    r, z, hn, n = rnn_gradients.gru_gates(gi, gh, H)
    W_r, W_z, W_n = cell.w_ih.split(H)  # (H, E) each
    dr = (r * (1 - r)).unsqueeze(-1) * W_r  # ∂r/∂x
    dz = (z * (1 - z)).unsqueeze(-1) * W_z  # ∂z/∂x
    dn = (1 - n**2).unsqueeze(-1) * (W_n + hn.unsqueeze(-1) * dr)  # ∂n/∂x
    return (1 - z).unsqueeze(-1) * dn + (states - n).unsqueeze(-1) * dz


# One statistic, one conclusion: the bottleneck page and the RNN-gradients page read the
# same measurement (‖∂C/∂e_j‖ of a plain GRU encoder) the same way.
FADE_BELOW, EARLY_ABOVE = 0.67, 1.5  # thresholds on early_late_ratio


def verdict(ratio: float) -> str:
    """What the first-third / last-third influence ratio
    (:func:`core.analysis.bottleneck.early_late_ratio`) says: ``"short"`` (sentence too short
    to compare, ratio not finite), ``"fade"`` (early words count clearly less, < 0.67),
    ``"even"`` (within 0.67-1.5) or ``"early"`` (early words count more, > 1.5)."""
    if not np.isfinite(ratio):
        return "short"
    if ratio < FADE_BELOW:
        return "fade"
    if ratio <= EARLY_ABOVE:
        return "even"
    return "early"


# --- which words still reach C: one sentence that reads like the model's usual behaviour --

# Sentences modelled on the lesson's (Beiping in autumn, the cicadas in the trees, "their"
# far from what it refers to), every word in the corpus's vocabulary. None of them is the
# lesson's sentence (its one English version is ``core.corpus.lesson.CICADAS``): the page
# calls them sentences like the lesson's, and picks the one the model reads most typically.
WORDS_CANDIDATES: tuple[str, ...] = (
    "the trees in beiping are full of autumn cicadas and the houses are low "
    "so you can hear their song everywhere",
    "the autumn cicadas live in the trees in beiping and the houses are low "
    "so you can hear their song all day",
    "the old trees are full of autumn cicadas and autumn in the north is cool "
    "so people can hear their song",
    "the autumn cicadas sing in the old trees and the old streets are quiet "
    "so you can hear their song everywhere",
    "the tall trees are full of autumn cicadas and the sky in beiping is blue "
    "so we can see their shade",
    "the autumn cicadas live in the tall trees and the days are short in the north "
    "so you can see their shade all day",
    "the green trees are full of autumn cicadas and people sit outside in the evening "
    "so you can hear their song",
)


@dataclass(frozen=True)
class WordsChoice:
    """The default sentence of the "which words arrive" part and the evidence behind it."""

    text: str  # the chosen sentence
    ratio: float  # its first-third / last-third influence ratio
    verdict: str  # verdict(ratio)
    ratios: tuple[float, ...]  # the ratio of every candidate, in order
    majority: str  # the verdict most candidates share
    n_majority: int  # how many candidates share it


def typical_sentence(model, src_vocab, candidates=WORDS_CANDIDATES) -> WordsChoice:
    """Read every candidate with the bottleneck page's statistic
    (:func:`core.analysis.bottleneck.early_late_ratio` of ‖∂C/∂e_j‖, read by
    :func:`verdict`), find the verdict most candidates share, and
    return the candidate that shows it most clearly: for "fade" the lowest ratio, for
    "early" the highest, for "even" the one closest to 1 (on a log scale). The default thus
    says what the model usually does, never an exception picked by eye."""
    ratios = []
    for text in candidates:
        ids = src_vocab.encode(text.split(), eos=True)
        ratios.append(early_late_ratio(context_influence(model, ids)))
    verdicts = [verdict(r) for r in ratios]
    majority, n = Counter(verdicts).most_common(1)[0]
    clarity = {"fade": lambda r: -r, "early": lambda r: r, "even": lambda r: -abs(np.log(r))}
    pick = max(
        (i for i, v in enumerate(verdicts) if v == majority),
        key=lambda i: clarity.get(majority, lambda r: 0.0)(ratios[i]),
    )
    return WordsChoice(candidates[pick], float(ratios[pick]), majority, tuple(ratios), majority, n)


# --- how the influence falls with distance: the plain tanh RNN beside the GRU ------------------


def by_distance(influence: np.ndarray) -> np.ndarray:
    """The words' influence (EOS left out) ordered by distance from the end of the sentence:
    index k is the word k steps before the last word; (S-1,) for an (S,) input."""
    return np.asarray(influence, dtype=float)[:-1][::-1].copy()


def fade_factor(influence: np.ndarray, near: int = 3, far: int = 3) -> float:
    """How many times less the ``far`` first words move C than the ``near`` last words
    (mean of the last over mean of the first; > 1 means fading). NaN when the sentence has
    fewer than ``near + far`` words."""
    words = np.asarray(influence, dtype=float)[:-1]
    if len(words) < near + far or words[:far].mean() <= 0:
        return float("nan")
    return float(words[-near:].mean() / words[:far].mean())


def sentence_curve(model, src_vocab, text: str) -> dict:
    """The curve a page draws for one sentence: its words, ‖∂C/∂e_j‖ per word (EOS left
    out) divided by the largest, the first-third / last-third ratio and its verdict
    (:func:`verdict`), and :func:`fade_factor`."""
    tokens = text.split()
    unknown = [w for w in tokens if w not in src_vocab]
    if unknown:
        raise ValueError(f"words not in the vocabulary: {', '.join(unknown)}")
    influence = context_influence(model, src_vocab.encode(tokens, eos=True))
    words = influence[:-1]
    ratio = early_late_ratio(influence)
    return {
        "tokens": tokens,
        "influence": words / words.max(),
        "raw": words,
        "ratio": ratio,
        "verdict": verdict(ratio),
        "fade": fade_factor(influence),
    }


# --- a translation model whose gradients vanish: the plain tanh RNN beside the GRU ---------


@dataclass(frozen=True)
class FadeComparison:
    """One sentence read by a fading and a non-fading encoder, with the evidence for each."""

    text: str  # the sentence (the fading model's clearest typical candidate)
    curves: dict  # model name -> core.analysis.influence.sentence_curve(...)
    choices: dict  # model name -> WordsChoice: its verdicts over every candidate


def compare_fade(
    models: dict, src_vocab, fading: str = "rnn_plain_256", candidates=WORDS_CANDIDATES
) -> FadeComparison:
    """The sentence like the lesson's that the ``fading`` model reads most typically
    (:func:`typical_sentence` over ``candidates``), and every model of ``models``
    ({name: model}) on that same sentence: ‖∂C/∂e_j‖ per word (:func:`sentence_curve`)."""
    if fading not in models:
        raise ValueError(f"models must include the fading model {fading!r}")
    choices = {name: typical_sentence(m, src_vocab, candidates) for name, m in models.items()}
    text = choices[fading].text
    curves = {name: sentence_curve(m, src_vocab, text) for name, m in models.items()}
    return FadeComparison(text, curves, choices)


def long_sentences(
    pairs, n: int = 20, min_words: int = 40, seed: int = 0, max_words: int | None = None
) -> list:
    """``n`` seeded declarative pairs (no questions) of ``min_words`` source words or more
    (and at most ``max_words``): the sentences the by-distance evidence is measured on."""
    top = max_words if max_words is not None else float("inf")
    pool = [p for p in pairs if p.kind != "question" and min_words <= len(p.src) <= top]
    if len(pool) < n:
        raise ValueError(f"only {len(pool)} sentences of {min_words}+ words; ask for fewer")
    return random.Random(seed).sample(pool, n)


@dataclass(frozen=True)
class FadeEvidence:
    """How one encoder's influence falls with distance over many sentences."""

    curve: np.ndarray  # geometric mean of ‖∂C/∂e_j‖ by distance over sentences, 1 at 0
    median_fade: float  # fade_factor (last three words over first three): the median
    n: int  # sentences measured


def fade_evidence(model, rows) -> FadeEvidence:
    """How :func:`context_influence` falls with distance over sentences (ids with EOS), from
    one backward pass per sentence: the geometric mean of :func:`by_distance` divided by its
    value at distance 0 ((L,) for the shortest sentence's L words), and the median
    :func:`fade_factor`, so that one odd sentence does not decide."""
    if not rows:
        raise ValueError("rows is empty; pass source id lists ending with EOS")
    influences = [context_influence(model, r) for r in rows]
    curves = [by_distance(i) for i in influences]
    n = min(len(c) for c in curves)
    g = rnn_gradients.geometric_mean(np.array([c[:n] for c in curves]))
    factors = [f for f in (fade_factor(i) for i in influences) if np.isfinite(f)]
    if not factors:
        raise ValueError("no sentence has 6 words or more")
    return FadeEvidence(g / g[0], float(np.median(factors)), len(rows))


# --- the study the RNN-gradients page opens on, shared by the page and the warm-up ----------

FADE_MODELS = ("rnn_plain_256", "gru_plain_256")  # the fading tanh RNN, the GRU beside it
FADE_LONG = (20, 40)  # the evidence: 20 test sentences of 40 words or more
# where the plain RNN's fade is stated again, shorter: 20 test sentences of 25-39 words
FADE_MIDDLE = (20, 25, 39)
_studies: dict[tuple, dict] = {}
_studies_lock = threading.Lock()


def fade_study() -> dict:
    """``{"compare": compare_fade(...), "evidence": {name: fade_evidence(...)}, "middle":
    fade_evidence(plain RNN, FADE_MIDDLE's sentences)}`` for ``FADE_MODELS`` on the shipped
    weights, computed once per process (~3 s on one core;
    the server's warm-up starts it, so the page that opens on it rarely waits). Keyed on
    the models' manifest entries and the corpus seed; a second caller waits for the first."""
    manifest = zoo.load_manifest()
    seed = manifest["corpus"]["seed"]
    # the models' manifest entries (their checksums, or a test zoo's own) name the weights
    key = (
        seed,
        *(json.dumps(manifest["models"].get(name), sort_keys=True) for name in FADE_MODELS),
    )
    with _studies_lock:
        if key not in _studies:
            models = {name: zoo.load_model(name) for name in FADE_MODELS}
            src_vocab = zoo.load_vocabs()[0]
            long = long_sentences(corpus.shared_splits(seed).test, *FADE_LONG)
            rows = [src_vocab.encode(p.src, eos=True) for p in long]
            n, lo, hi = FADE_MIDDLE
            middle = long_sentences(corpus.shared_splits(seed).test, n, lo, max_words=hi)
            mid_rows = [src_vocab.encode(p.src, eos=True) for p in middle]
            _studies[key] = {
                "compare": compare_fade(models, src_vocab, fading=FADE_MODELS[0]),
                "evidence": {name: fade_evidence(m, rows) for name, m in models.items()},
                # the plain RNN on shorter sentences: the lengths where its fade holds
                "middle": fade_evidence(models[FADE_MODELS[0]], mid_rows),
            }
        return _studies[key]
