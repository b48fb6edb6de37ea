"""Exploding gradients in a trained model: one unclipped step can break it, a clipped one not.

The plain-RNN distance probe's loss surface has cliffs (Pascanu, Mikolov & Bengio 2013).
:func:`exploding_batch` finds the seeded training batch with the largest gradient;
:func:`explosion_sweep` takes ONE plain-SGD step on it over a range of learning rates, raw
and with the norm clipping every shipped model was trained with, and measures held-out
accuracy and loss before and after. It works on a ``copy.deepcopy`` of the model (the
shared one is never modified); deterministic.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from core import probes_data

LRS: tuple[float, ...] = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3)  # one-step learning rates
EVAL_DISTANCES: tuple[int, ...] = (5, 10, 15, 20)  # where the plain RNN answers well
N_EVAL = 50  # held-out sequences per distance
N_BATCHES = 8  # training batches searched for the largest gradient (seeds 0..7)
BATCH_SIZE = 64  # the training batch size of the probes
BREAK_COST = 0.3  # a step "breaks" the model when it costs at least 30 points of accuracy ...
KEEP_COST = 0.05  # ... and "keeps" it when it costs at most 5


@dataclass(frozen=True)
class Explosion:
    """One gradient step from a trained probe, unclipped and clipped, at each learning rate."""

    batch_seed: int  # the searched training batch the step is taken on
    batch_norms: tuple[float, ...]  # ‖g‖ of every searched batch (seed k at index k)
    grad_norm: float  # ‖g‖ of the chosen batch, before clipping
    clip: float  # clipping threshold on ‖g‖
    weight_norm: float  # ‖θ‖ before the step
    lrs: tuple[float, ...]
    acc_before: float  # held-out accuracy before the step
    loss_before: float  # held-out loss before the step
    acc_plain: tuple[float, ...]  # after the unclipped step, per learning rate
    acc_clipped: tuple[float, ...]
    loss_plain: tuple[float, ...]
    loss_clipped: tuple[float, ...]

    def step_plain(self, lr: float) -> float:
        """‖Δθ‖ of the unclipped step: lr·‖g‖."""
        return lr * self.grad_norm

    def step_clipped(self, lr: float) -> float:
        """‖Δθ‖ of the clipped step: lr·min(‖g‖, clip)."""
        return lr * min(self.grad_norm, self.clip)

    def at(self, lr: float) -> int:
        """Index of ``lr`` in :attr:`lrs` (ValueError if it is not one of them)."""
        for i, x in enumerate(self.lrs):
            if abs(x - lr) <= 1e-12 * max(1.0, lr):
                return i
        raise ValueError(f"learning rate {lr} not in {self.lrs}")


def _gradient(model, x: torch.Tensor, y: torch.Tensor) -> tuple[list[torch.Tensor], float]:
    """The gradient of the batch's mean cross-entropy for every parameter, and its norm."""
    params = list(model.parameters())
    with torch.enable_grad():
        loss = F.cross_entropy(model(x)[0], y)
        grads = torch.autograd.grad(loss, params)
    norm = float(torch.cat([g.flatten() for g in grads]).norm())
    return [g.detach() for g in grads], norm


def _trainable_copy(probe):
    model = copy.deepcopy(probe)  # never touch the shared model
    for p in model.parameters():
        p.requires_grad_(True)
    return model


def exploding_batch(probe, n_batches: int = N_BATCHES, batch_size: int = BATCH_SIZE):
    """Search the seeded training batches 0..n_batches−1 for the largest gradient norm.
    Returns (seed, norms) with norms[k] the gradient norm of batch k."""
    model = _trainable_copy(probe)
    norms = []
    for seed in range(n_batches):
        x, y, _ = probes_data.make_batch(torch.Generator().manual_seed(seed), batch_size)
        norms.append(_gradient(model, x, y)[1])
    return int(np.argmax(norms)), tuple(norms)


def held_out(distances=EVAL_DISTANCES, n: int = N_EVAL) -> tuple[torch.Tensor, torch.Tensor]:
    """The fixed held-out set the accuracy is measured on (n sequences per distance)."""
    sets = [probes_data.eval_set(d, n) for d in distances]
    return torch.cat([s[0] for s in sets]), torch.cat([s[1] for s in sets])


@torch.no_grad()
def _score(model, x: torch.Tensor, y: torch.Tensor) -> tuple[float, float]:
    logits = model(x)[0]
    loss = float(F.cross_entropy(logits, y))
    acc = float((logits.argmax(1) == y).float().mean())
    return acc, (loss if np.isfinite(loss) else float("inf"))


def explosion_sweep(probe, *, clip: float = 1.0, lrs=LRS, n_batches: int = N_BATCHES) -> Explosion:
    """One plain-SGD step (θ ← θ − lr·g) on the exploding batch, at every learning rate,
    with g as it is and with g rescaled to norm ≤ ``clip`` (as ``clip_grad_norm_``)."""
    if not clip > 0 or not all(lr > 0 for lr in lrs):
        raise ValueError(f"clip and learning rates must be positive, got {clip}, {lrs}")
    seed, norms = exploding_batch(probe, n_batches)
    x, y, _ = probes_data.make_batch(torch.Generator().manual_seed(seed), BATCH_SIZE)
    model = _trainable_copy(probe)
    params = list(model.parameters())
    grads, norm = _gradient(model, x, y)
    start = [p.detach().clone() for p in params]
    xe, ye = held_out()
    acc0, loss0 = _score(model, xe, ye)
    scale = min(1.0, clip / (norm + 1e-6))  # clip_grad_norm_'s factor
    out: dict[str, list[float]] = {
        "acc_plain": [],
        "acc_clipped": [],
        "loss_plain": [],
        "loss_clipped": [],
    }
    for lr in lrs:
        for key, factor in (("plain", 1.0), ("clipped", scale)):
            with torch.no_grad():
                for p, p0, g in zip(params, start, grads, strict=True):
                    p.copy_(p0 - lr * factor * g)
            acc, loss = _score(model, xe, ye)
            out[f"acc_{key}"].append(acc)
            out[f"loss_{key}"].append(loss)
    weight_norm = float(torch.cat([p.flatten() for p in start]).norm())
    return Explosion(
        batch_seed=seed,
        batch_norms=norms,
        grad_norm=norm,
        clip=float(clip),
        weight_norm=weight_norm,
        lrs=tuple(float(lr) for lr in lrs),
        acc_before=acc0,
        loss_before=loss0,
        **{k: tuple(v) for k, v in out.items()},
    )


def clearest_lr(result: Explosion) -> float:
    """The learning rate where clipping makes the largest difference to held-out accuracy
    (clipped − unclipped after one step; the smallest such rate on ties): the page's
    default."""
    gaps = np.round(np.subtract(result.acc_clipped, result.acc_plain), 6)
    return result.lrs[int(np.argmax(gaps))]  # argmax returns the first (smallest lr) on ties


def outcome(result: Explosion, lr: float) -> str:
    """What the step at ``lr`` did, as the page's takeaway says it: "both" (the unclipped
    step broke the model and the clipped one kept it), "neither" (the unclipped step did not
    break it) or "clip_too" (it broke, and the clipped step did not keep it either)."""
    i = result.at(lr)
    broke = result.acc_before - result.acc_plain[i] >= BREAK_COST
    kept = result.acc_before - result.acc_clipped[i] <= KEEP_COST
    return "both" if broke and kept else ("neither" if not broke else "clip_too")
