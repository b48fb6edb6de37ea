"""Why an RNN forgets: gradients through a recurrence shrink or grow with distance.

Back-propagation through time multiplies one Jacobian per step, ∂h_T/∂h_t = Π diag(tanh'(·))
W_hh for a plain tanh RNN, so its norm behaves like ρ^(T−t) (ρ the spectral radius of
``W_hh``; σ₁^(T−t) is a strict upper bound): it vanishes below 1 and can explode above
(Pascanu, Mikolov & Bengio 2013). LSTM and GRU add gated, additive paths that training can
open. Pure functions in float64 (1e-30 stays exact); cells written out step by step with the
equations and gate order of ``torch.nn.RNN`` / ``LSTM`` / ``GRU``, so trained modules can be
analysed too. Shapes: L length, E input, H hidden, S state (H, or 2H for the LSTM's (h, c)),
G gates (1 rnn, 4 lstm, 3 gru).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

KINDS: tuple[str, ...] = ("rnn", "lstm", "gru")  # the cells the page compares
GATES = {"linear": 1, "rnn": 1, "lstm": 4, "gru": 3}  # blocks stacked in W_ih / W_hh


@dataclass(frozen=True)
class Cell:
    """The weights of one recurrent layer, PyTorch layout, float64.

    ``kind``: "rnn" (tanh), "lstm", "gru", or "linear" (h' = W_hh h + W_ih x + b: the
    theory case with no nonlinearity). ``w_ih`` (G·H, E), ``w_hh`` (G·H, H), biases (G·H,).
    """

    kind: str
    w_ih: torch.Tensor
    w_hh: torch.Tensor
    b_ih: torch.Tensor
    b_hh: torch.Tensor

    @property
    def hidden(self) -> int:
        return self.w_hh.shape[1]

    @property
    def state_size(self) -> int:
        return 2 * self.hidden if self.kind == "lstm" else self.hidden


# --- recurrent matrices with a chosen spectral radius ----------------------------------------


def spectral_radius(w: np.ndarray) -> float:
    """max |λ| over the eigenvalues of a square matrix."""
    return float(np.max(np.abs(np.linalg.eigvals(w))))


def largest_singular_value(w: np.ndarray) -> float:
    """σ₁ = ‖W‖₂, the largest stretch W applies to any vector."""
    return float(np.linalg.norm(w, 2))


def recurrent_matrix(hidden: int, radius: float, seed: int) -> np.ndarray:
    """A seeded Gaussian (H, H) matrix rescaled so that its spectral radius is ``radius``.

    The same seed gives the same matrix at every radius (only the scale changes), so a
    slider over ``radius`` shows one matrix growing, not a new random draw each time.
    """
    if hidden < 1 or not radius > 0:
        raise ValueError(f"need hidden >= 1 and radius > 0, got hidden={hidden}, radius={radius}")
    return _unit_radius_matrix(hidden, seed) * radius


@functools.lru_cache(maxsize=64)
def _unit_radius_matrix(hidden: int, seed: int) -> np.ndarray:
    """The seeded Gaussian (H, H) matrix divided by its spectral radius (read-only): drawn
    and eigen-solved once per (hidden, seed), since a slider over the radius only rescales
    it."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((hidden, hidden)) / np.sqrt(hidden)
    w = w / spectral_radius(w)
    w.flags.writeable = False
    return w


def fresh_cell(
    kind: str, radius: float, *, hidden: int = 64, input_size: int = 32, seed: int = 0
) -> Cell:
    """A freshly initialised cell whose every recurrent gate block has spectral radius
    ``radius``. Input weights and biases follow PyTorch's default U(−1/√H, 1/√H), seeded."""
    if kind not in GATES:
        raise ValueError(f"unknown cell kind {kind!r}; use one of {', '.join(GATES)}")
    G, H = GATES[kind], hidden
    gen = torch.Generator().manual_seed(seed)
    bound = 1.0 / np.sqrt(H)

    def uniform(*shape: int) -> torch.Tensor:
        return (torch.rand(*shape, generator=gen, dtype=torch.float64) * 2 - 1) * bound

    blocks = [recurrent_matrix(H, radius, seed * 10 + g) for g in range(G)]
    w_hh = torch.from_numpy(np.concatenate(blocks, 0))  # (G·H, H)
    w_ih = uniform(G * H, input_size)  # (G·H, E)
    b_ih, b_hh = uniform(G * H), uniform(G * H)
    if kind == "linear":
        b_ih, b_hh = torch.zeros(H, dtype=torch.float64), torch.zeros(H, dtype=torch.float64)
    return Cell(kind, w_ih, w_hh, b_ih, b_hh)


def cell_from_module(module: nn.Module) -> Cell:
    """The first layer of a trained ``nn.RNN`` (tanh) / ``nn.LSTM`` / ``nn.GRU`` as a Cell."""
    if isinstance(module, nn.LSTM):
        kind = "lstm"
    elif isinstance(module, nn.GRU):
        kind = "gru"
    elif isinstance(module, nn.RNN) and module.nonlinearity == "tanh":
        kind = "rnn"
    else:
        raise ValueError(f"need an nn.RNN (tanh), nn.LSTM or nn.GRU, got {type(module).__name__}")
    if not module.batch_first or module.bidirectional or module.num_layers != 1:
        raise ValueError("need a one-layer, unidirectional, batch_first recurrence")

    def get(name: str) -> torch.Tensor:
        p = getattr(module, name, None)
        return (
            p.detach().to(torch.float64).clone()
            if p is not None
            else torch.zeros(GATES[kind] * module.hidden_size, dtype=torch.float64)
        )

    return Cell(
        kind, get("weight_ih_l0"), get("weight_hh_l0"), get("bias_ih_l0"), get("bias_hh_l0")
    )


# --- the recurrence, one step at a time ----------------------------------------------------


def gru_gates(gi: torch.Tensor, gh: torch.Tensor, H: int):
    """The GRU's gates from gi = W_ih x + b_ih and gh = W_hh h + b_hh (..., 3H), PyTorch's
    order (reset, update, new): r, z, hn = W_hn h + b_hn and the candidate
    n = tanh(W_in x + b_in + r ⊙ hn), each (..., H)."""
    r = torch.sigmoid(gi[..., :H] + gh[..., :H])
    z = torch.sigmoid(gi[..., H : 2 * H] + gh[..., H : 2 * H])
    hn = gh[..., 2 * H :]
    n = torch.tanh(gi[..., 2 * H :] + r * hn)
    return r, z, hn, n


def step(cell: Cell, state: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """One step of the recurrence: state (..., S), x (..., E) → next state (..., S)."""
    H = cell.hidden
    h = state[..., :H]
    gi = x @ cell.w_ih.T + cell.b_ih  # (..., G·H)
    gh = h @ cell.w_hh.T + cell.b_hh  # (..., G·H)
    if cell.kind == "linear":
        return gi + gh
    if cell.kind == "rnn":
        return torch.tanh(gi + gh)
    if cell.kind == "lstm":
        c = state[..., H:]
        i, f, g, o = (gi + gh).split(H, dim=-1)  # PyTorch order: input, forget, cell, output
        c_new = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h_new = torch.sigmoid(o) * torch.tanh(c_new)
        return torch.cat([h_new, c_new], dim=-1)  # (..., 2H)
    _, z, _, n = gru_gates(gi, gh, H)
    return (1 - z) * n + z * h


def unroll(cell: Cell, xs: torch.Tensor) -> torch.Tensor:
    """Run the cell from a zero state over xs (..., L, E); returns the states (..., L+1, S),
    position 0 being the zero start state h_0 and position t the state after input t."""
    xs = xs.to(torch.float64)
    state = torch.zeros(*xs.shape[:-2], cell.state_size, dtype=torch.float64)
    states = [state]
    for t in range(xs.shape[-2]):
        state = step(cell, state, xs[..., t, :])
        states.append(state)
    return torch.stack(states, dim=-2)


def _diag(v: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    """diag(v) @ m for a batch: v (..., H), m (H, K) → (..., H, K)."""
    return v.unsqueeze(-1) * m


def step_jacobians(cell: Cell, states: torch.Tensor, xs: torch.Tensor) -> torch.Tensor:
    """∂s_{t+1}/∂s_t for every step, in closed form: states (..., S) before the step,
    xs (..., E) the inputs of the step → (..., S, S). (Checked against autograd in tests.)"""
    H = cell.hidden
    h = states[..., :H]
    W = cell.w_hh  # (G·H, H)
    pre = xs @ cell.w_ih.T + cell.b_ih + h @ W.T + cell.b_hh  # (..., G·H)
    if cell.kind == "linear":
        return W.expand(*states.shape[:-1], H, H)
    if cell.kind == "rnn":
        return _diag(1 - torch.tanh(pre) ** 2, W)  # diag(tanh') W_hh
    if cell.kind == "gru":
        gi = xs @ cell.w_ih.T + cell.b_ih
        gh = h @ W.T + cell.b_hh
        W_r, W_z, W_n = W.split(H)
        r, z, hn, n = gru_gates(gi, gh, H)
        dr = _diag(r * (1 - r), W_r)  # ∂r/∂h
        dz = _diag(z * (1 - z), W_z)  # ∂z/∂h
        dn = _diag(1 - n**2, _diag(r, W_n) + hn.unsqueeze(-1) * dr)  # ∂n/∂h
        eye = torch.eye(H, dtype=h.dtype)
        return _diag(1 - z, dn) + z.unsqueeze(-1) * eye + (h - n).unsqueeze(-1) * dz
    # lstm: state (h, c)
    c = states[..., H:]
    W_i, W_f, W_g, W_o = W.split(H)
    a_i, a_f, a_g, a_o = pre.split(H, dim=-1)
    i, f, g, o = torch.sigmoid(a_i), torch.sigmoid(a_f), torch.tanh(a_g), torch.sigmoid(a_o)
    c_new = f * c + i * g
    tc = torch.tanh(c_new)
    dc_dh = _diag(c * f * (1 - f), W_f) + _diag(g * i * (1 - i), W_i) + _diag(i * (1 - g**2), W_g)
    dc_dc = torch.diag_embed(f)
    k = o * (1 - tc**2)
    dh_dh = _diag(tc * o * (1 - o), W_o) + k.unsqueeze(-1) * dc_dh
    dh_dc = torch.diag_embed(k * f)
    top = torch.cat([dh_dh, dh_dc], dim=-1)  # (..., H, 2H)
    bottom = torch.cat([dc_dh, dc_dc], dim=-1)  # (..., H, 2H)
    return torch.cat([top, bottom], dim=-2)  # (..., 2H, 2H)


# --- what the page measures ------------------------------------------------------------------


def state_jacobian_norms(cell: Cell, xs: torch.Tensor) -> np.ndarray:
    """‖∂h_T/∂s_t‖₂ (spectral norm) for t = T, T−1, …, 1: index k is the distance T − t.

    xs (L, E) one input sequence, or (B, L, E) several (T = L). s_t is the whole state at
    time t (for the LSTM both h_t and its memory cell c_t, so the gated highway through c
    is included). Distance 0 is ∂h_T/∂h_T, norm 1. Returns (L,) or (B, L) float64.
    """
    xs = xs.detach().to(torch.float64)
    single = xs.dim() == 2
    if single:
        xs = xs.unsqueeze(0)  # (1, L, E)
    states = unroll(cell, xs)  # (B, L+1, S)
    H, S, L = cell.hidden, cell.state_size, xs.shape[1]
    back = _backward_step(cell, states[:, :-1], xs)
    g = torch.eye(S, dtype=torch.float64)[:H].expand(xs.shape[0], H, S)  # ∂h_T/∂s_T
    chain = [g]
    for t in range(L - 1, 0, -1):  # ∂h_T/∂s_t = ∂h_T/∂s_{t+1} · ∂s_{t+1}/∂s_t
        g = back(g, t)  # (B, H, S)
        chain.append(g)
    norms = spectral_norms(torch.stack(chain, 1)).numpy()  # (B, L)
    return norms[0] if single else norms


def _backward_step(cell: Cell, states: torch.Tensor, xs: torch.Tensor):
    """``back(g, t) = g · ∂s_{t+1}/∂s_t`` for g (B, R, S), without forming the (S, S) step
    Jacobian: its factors diag(v)·W act on g as (g ⊙ v) · W, and the gate blocks share one
    matrix product. The same product as with :func:`step_jacobians` (checked in the tests),
    a few times cheaper. states (B, L, S) before each step, xs (B, L, E) its input."""
    H = cell.hidden
    W = cell.w_hh  # (G·H, H)
    h = states[..., :H]
    gi = xs @ cell.w_ih.T + cell.b_ih  # (B, L, G·H)
    gh = h @ W.T + cell.b_hh
    if cell.kind == "linear":
        return lambda g, t: g @ W
    if cell.kind == "rnn":
        a = 1 - torch.tanh(gi + gh) ** 2  # (B, L, H): tanh'
        return lambda g, t: (g * a[:, t, None, :]) @ W
    if cell.kind == "gru":  # gates r, z, n
        r, z, hn, n = gru_gates(gi, gh, H)
        dn = (1 - z) * (1 - n**2)  # (B, L, H)
        v = torch.cat([dn * hn * r * (1 - r), (h - n) * z * (1 - z), dn * r], -1)  # r, z, n

        def back_gru(g: torch.Tensor, t: int) -> torch.Tensor:
            vt = v[:, t, None, :]  # (B, 1, 3H)
            return (g.repeat(1, 1, 3) * vt) @ W + g * z[:, t, None, :]

        return back_gru
    # lstm: state (h, c), gates i, f, g, o
    c = states[..., H:]
    pre = gi + gh
    i, f = torch.sigmoid(pre[..., :H]), torch.sigmoid(pre[..., H : 2 * H])
    gg, o = torch.tanh(pre[..., 2 * H : 3 * H]), torch.sigmoid(pre[..., 3 * H :])
    tc = torch.tanh(f * c + i * gg)
    k = o * (1 - tc**2)
    v = torch.cat([gg * i * (1 - i), c * f * (1 - f), i * (1 - gg**2)], -1)  # (B, L, 3H)
    v_o = tc * o * (1 - o)

    def back_lstm(g: torch.Tensor, t: int) -> torch.Tensor:
        g_h, g_c = g[..., :H], g[..., H:]
        u = g_h * k[:, t, None, :] + g_c  # the gradient reaching c_{t+1}
        parts = torch.cat([u.repeat(1, 1, 3) * v[:, t, None, :], g_h * v_o[:, t, None, :]], -1)
        return torch.cat([parts @ W, u * f[:, t, None, :]], -1)  # (B, R, 2H)

    return back_lstm


def spectral_norms(m: torch.Tensor) -> torch.Tensor:
    """‖M‖₂ of a batch of (R, C) matrices with R ≤ C: √λ_max(M Mᵀ) (..., R, C) → (...).

    Same value as ``matrix_norm(ord=2)`` (to float64 rounding); the symmetric eigen-solve
    of the small Gram matrix measured ~1.7× faster than ``matrix_norm(ord=2)`` / ``svdvals``
    here, and exact where a 20-step power iteration was off by up to 8 %."""
    gram = m @ m.transpose(-1, -2)  # (..., R, R)
    return torch.linalg.eigvalsh(gram)[..., -1].clamp_min(0).sqrt()


def input_gradient_norms(
    cell: Cell, xs: torch.Tensor, readout: torch.Tensor | None = None
) -> np.ndarray:
    """‖∂L/∂x_t‖ for a linear read-out L = w · h_T; index k is the distance T − t.

    xs (L, E); ``readout`` w (H,) (default: a fixed unit vector). Returns (L,) float64,
    element 0 for the last input (it enters h_T directly), element L−1 for the first.
    """
    xs = xs.detach().to(torch.float64).clone().requires_grad_(True)  # (L, E)
    if readout is None:
        readout = torch.ones(cell.hidden, dtype=torch.float64) / np.sqrt(cell.hidden)
    with torch.enable_grad():
        h_last = unroll(cell, xs)[-1, : cell.hidden]  # (H,)
        (grad,) = torch.autograd.grad(readout.to(torch.float64) @ h_last, xs)  # (L, E)
    return grad.norm(dim=1).flip(0).numpy()  # (L,) by distance


def sequence_inputs(length: int, input_size: int = 32, seed: int = 0) -> torch.Tensor:
    """A seeded Gaussian input sequence (L, E) for the freshly initialised cells."""
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(length, input_size, generator=gen, dtype=torch.float64)


def geometric_mean(rows: np.ndarray, axis: int = 0) -> np.ndarray:
    """exp(mean(log x)): the average that suits quantities spanning many decades."""
    rows = np.asarray(rows, float)
    tiny = np.finfo(float).tiny
    return np.exp(np.mean(np.log(np.maximum(rows, tiny)), axis=axis))


def probe_decay(probe, x: torch.Tensor, y: torch.Tensor, n_state: int = 8) -> dict[str, np.ndarray]:
    """The same two measurements for a trained recurrent distance probe on task sequences.

    ``probe`` a ``DistanceProbe`` of kind rnn/lstm/gru (frozen parameters are fine);
    x (B, L) symbol ids, y (B,) answers. ``input``: ‖∂loss/∂e_t‖ of the cross-entropy with
    respect to each input embedding, geometric mean over the B sequences; ``state``:
    ‖∂h_T/∂s_t‖ averaged the same way over the first ``n_state`` sequences. Index k is the
    distance from the query (the last position). Call outside ``torch.inference_mode()``.
    """
    with torch.enable_grad():
        emb = probe.embed(x).detach().requires_grad_(True)  # (B, L, E)
        logits, _ = probe(x, embedded=emb)  # (B, n_keys)
        loss = F.cross_entropy(logits, y, reduction="sum")  # per-sequence losses, summed
        (grad,) = torch.autograd.grad(loss, emb)  # (B, L, E): row b only from sequence b
    cell = cell_from_module(probe.rnn)
    states = state_jacobian_norms(cell, emb.detach()[:n_state])  # (n_state, L)
    return {
        "distance": np.arange(x.shape[1]),
        "input": geometric_mean(grad.norm(dim=2).flip(1).numpy()),  # (L,)
        "state": geometric_mean(states),  # (L,)
    }


def eigenvalues(w: np.ndarray) -> np.ndarray:
    """The eigenvalues of a square matrix (complex, (H,))."""
    return np.linalg.eigvals(np.asarray(w, float))


def recorded_accuracy(
    entries: Mapping[str, Mapping], distances: Sequence[int]
) -> dict[str, list[float]]:
    """Held-out accuracy at each of ``distances`` as the training runs recorded it in the
    models' manifest ``entries`` (``entry["metrics"]["distance"][str(d)]``): {model: one
    accuracy per distance}, only for the models whose record holds every distance."""
    keys = [str(d) for d in distances]
    acc = {
        n: [float(e.get("metrics", {}).get("distance", {}).get(k, np.nan)) for k in keys]
        for n, e in entries.items()
    }
    return {n: v for n, v in acc.items() if np.all(np.isfinite(v))}


# --- part 2's default: the clearest view of what its headline says ---------------------------


def relative_to_last(curve: np.ndarray) -> np.ndarray:
    """A decay divided by its value at distance 0: curves of different measures (a read-out's
    gradient, a loss's) start at 1 and compare by how fast they fall."""
    curve = np.asarray(curve, float)
    return curve / curve[0]


def headline_holds(
    plain: np.ndarray,
    guide: np.ndarray,
    gated: Mapping[str, np.ndarray],
    *,
    follow: float = 10.0,
    gap: float = 100.0,
) -> bool:
    """Part 2's headline on one set of curves (index k = distance): the plain RNN falls
    with the guide ρ^k (within a factor ``follow`` at every distance), ends ``gap`` times
    below its start, and each gated cell ends at least ``gap`` times above the plain RNN at
    the last distance both reach."""
    plain, guide = np.asarray(plain, float), np.asarray(guide, float)
    ratio = plain / guide
    if not (np.all(ratio <= follow) and np.all(ratio >= 1 / follow)):
        return False
    if plain[-1] * gap > plain[0]:
        return False
    for curve in gated.values():
        k = min(len(curve), len(plain)) - 1
        if curve[k] < gap * plain[k]:
            return False
    return True


def clearest_default(candidates: Mapping[tuple, tuple]) -> tuple | None:
    """Of ``{(gates, radius, drive): (plain, guide, gated)}``, the key whose curves
    :func:`headline_holds`, with the weight scale nearest 1 (the mildest shrinking that still
    shows it) and then the weakest input; None when no candidate shows the headline."""
    good = [key for key, curves in candidates.items() if headline_holds(*curves)]
    if not good:
        return None
    return max(good, key=lambda key: (key[1], -float(key[2])))
