"""How much each source word still counts for the encoder's summary.

For an RNN encoder-decoder without attention the decoder sees only ``C``, so the gradient
of ``C`` with respect to each input word's embedding measures how strongly that word can
still move what the decoder gets (Bahdanau et al. 2015; Pascanu et al. 2013 for why it
fades with distance). Shared by the bottleneck and RNN-gradient pages.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import nn


def context_influence(model, src_ids: Sequence[int]) -> np.ndarray:
    """‖∂C/∂e_j‖ (Frobenius norm of the Jacobian) for every source position j, unnormalised.

    ``model`` is an ``RNNSeq2Seq`` (its frozen parameters are fine: only the input
    embeddings get gradients); ``src_ids`` the source ids of one sentence, EOS included.
    Returns a float array of shape (S,). A one-layer, left-to-right GRU encoder (the plain
    models) gets the exact Jacobians by the chain rule written out (:func:`gru_influence`,
    tens of milliseconds); any other encoder one batched backward pass
    (:func:`backward_influence`, the same numbers, about ten times the work).
    """
    rnn = model.encoder.rnn
    if isinstance(rnn, nn.GRU) and not rnn.bidirectional and rnn.num_layers == 1:
        return gru_influence(model, src_ids)
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
def gru_influence(model, src_ids: Sequence[int]) -> np.ndarray:
    """:func:`context_influence` for a one-layer, unidirectional GRU encoder (C = h_S), from
    the closed-form step Jacobians:

        ∂C/∂e_j = (∂h_S/∂h_j) · ∂h_j/∂e_j,   ∂h_S/∂h_j = Π_{k=j+1..S} ∂h_k/∂h_{k-1},

    the product built from the end backwards, one (H, H) matrix product per word.
    """
    from core.analysis import rnn_gradients as rg

    if len(src_ids) == 0:
        raise ValueError("src_ids is empty; encode the sentence with eos=True first")
    cell = rg.cell_from_module(model.encoder.rnn)  # float64 weights, PyTorch gate order
    xs = model.encoder.embed(torch.tensor(list(src_ids), dtype=torch.long)).double()  # (S, E)
    states = rg.unroll(cell, xs)[:-1]  # (S, H): h_{t-1}, the state each word is read into
    # the Jacobians in float32, the model's own precision: half the time of float64
    cell = rg.Cell(cell.kind, *(w.float() for w in (cell.w_ih, cell.w_hh, cell.b_ih, cell.b_hh)))
    states, xs = states.float(), xs.float()
    step = rg.step_jacobians(cell, states, xs)  # (S, H, H): [t] = ∂h_t/∂h_{t-1}
    inp = gru_input_jacobians(cell, states, xs)  # (S, H, E): [t] = ∂h_t/∂x_t
    S, H = xs.shape[0], cell.hidden
    to_end = torch.empty(S, H, H)  # [t] = ∂h_S/∂h_t
    g = torch.eye(H)
    for t in range(S - 1, -1, -1):
        to_end[t] = g
        g = g @ step[t]
    return torch.linalg.matrix_norm(to_end @ inp).numpy()  # (S,) Frobenius norms


def gru_input_jacobians(cell, states: torch.Tensor, xs: torch.Tensor) -> torch.Tensor:
    """∂h_{t}/∂x_t of a GRU step (PyTorch's equations and gate order) for every step:
    states (..., H) the state before the step, xs (..., E) its input → (..., H, E)."""
    H = cell.hidden
    gi = xs @ cell.w_ih.T + cell.b_ih  # (..., 3H)
    gh = states @ cell.w_hh.T + cell.b_hh  # (..., 3H)
    r = torch.sigmoid(gi[..., :H] + gh[..., :H])
    z = torch.sigmoid(gi[..., H : 2 * H] + gh[..., H : 2 * H])
    hn = gh[..., 2 * H :]
    n = torch.tanh(gi[..., 2 * H :] + r * hn)
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


def median_fade(model, rows: Sequence[Sequence[int]], near: int = 3, far: int = 3) -> float:
    """:func:`fade_factor` of :func:`context_influence` over sentences (ids with EOS):
    the median, so that one odd sentence does not decide."""
    factors = [fade_factor(context_influence(model, r), near, far) for r in rows]
    factors = [f for f in factors if np.isfinite(f)]
    if not factors:
        raise ValueError(f"no sentence has {near + far} words or more")
    return float(np.median(factors))


def sentence_curve(model, src_vocab, text: str) -> dict:
    """The curve a page draws for one sentence: its words, ‖∂C/∂e_j‖ per word (EOS left
    out) divided by the largest, the first-third / last-third ratio and its verdict
    (:func:`verdict`), and :func:`fade_factor`."""
    from core.analysis.bottleneck import early_late_ratio

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
