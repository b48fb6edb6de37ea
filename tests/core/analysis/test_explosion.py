"""Part 5 of the RNN-gradients page, measured on the trained plain RNN: one unclipped step
along an exploding gradient breaks the model, the same step clipped does not."""

from __future__ import annotations

import pytest
import torch

from core import zoo
from core.analysis import explosion as ex
from core.train import SPECS

CLIP = float(SPECS["probe_rnn"].clip)
EXPLODES = 10.0  # the chosen batch's gradient is at least this many times the threshold
WORKS_BEFORE = 0.90  # the trained model answers at least this share before the step
BREAKS = 0.50  # the unclipped step costs at least this much accuracy (50 points) ...
KEEPS = 0.02  # ... while the clipped step costs at most 2 points
CHANCE = 0.10


@pytest.fixture(scope="module")
def probe():
    return zoo.load_model("probe_rnn")


@pytest.fixture(scope="module")
def result(probe):
    return ex.explosion_sweep(probe, clip=CLIP)


def test_the_default_step_breaks_unclipped_and_survives_clipped(result):
    lr = ex.clearest_lr(result)
    i = result.at(lr)
    assert result.grad_norm >= EXPLODES * CLIP, result.batch_norms
    assert result.acc_before >= WORKS_BEFORE
    assert result.acc_before - result.acc_plain[i] >= BREAKS, (lr, result.acc_plain)
    assert result.acc_before - result.acc_clipped[i] <= KEEPS, (lr, result.acc_clipped)
    assert result.acc_plain[i] <= CHANCE + 0.05  # no better than guessing
    # the loss says the same
    assert result.loss_plain[i] > 5 * result.loss_before
    assert result.loss_clipped[i] < 1.5 * result.loss_before


def test_the_page_takeaway_rule_reads_both_at_the_default(result):
    # the page (ex.outcome) says "both" when the unclipped step costs >= 30 points and the
    # clipped one <= 5: the default must be such a step
    i = result.at(ex.clearest_lr(result))
    assert result.acc_before - result.acc_plain[i] >= 0.3
    assert result.acc_before - result.acc_clipped[i] <= 0.05
    assert ex.outcome(result, ex.clearest_lr(result)) == "both"  # the rule the page applies


@pytest.mark.parametrize(
    ("plain", "clipped", "said"),
    [
        (0.5, 0.88, "both"),  # the unclipped step cost 40 points, the clipped one 2
        (0.7, 0.88, "neither"),  # the unclipped step cost only 20 points
        (0.7, 0.1, "neither"),
        (0.1, 0.5, "clip_too"),  # the clipped step cost 40 points too
    ],
)
def test_the_takeaway_rule(plain, clipped, said):
    res = ex.Explosion(0, (1.0,), 1.0, 1.0, 1.0, (0.1,), 0.9, 1.0, (plain,), (clipped,), (1,), (1,))
    assert ex.outcome(res, 0.1) == said
    with pytest.raises(ValueError, match="not in"):
        ex.outcome(res, 0.2)


def test_clipping_is_no_cure_for_too_large_a_learning_rate(result):
    # honest about the limits: at the largest rate even the clipped step breaks the model
    assert result.acc_clipped[-1] <= CHANCE + 0.1
    # below the threshold nothing changes: the clipped step is lr * clip long
    assert result.step_clipped(0.01) == pytest.approx(0.01 * CLIP)
    assert result.step_plain(0.01) == pytest.approx(0.01 * result.grad_norm)


def test_the_batch_search_picks_the_largest_gradient(result):
    assert result.batch_norms[result.batch_seed] == max(result.batch_norms)
    assert result.grad_norm == pytest.approx(result.batch_norms[result.batch_seed], rel=1e-5)
    # calm and wild batches: the largest gradient is many times the smallest
    assert max(result.batch_norms) >= EXPLODES * min(result.batch_norms)


def test_deterministic_and_the_shared_model_is_untouched(probe, result):
    before = [p.detach().clone() for p in probe.parameters()]
    again = ex.explosion_sweep(probe, clip=CLIP)
    assert again == result
    assert all(torch.equal(a, b) for a, b in zip(before, probe.parameters(), strict=True))
    assert not any(p.requires_grad for p in probe.parameters())


def test_bad_arguments_are_refused(probe):
    with pytest.raises(ValueError, match="positive"):
        ex.explosion_sweep(probe, clip=0)
    with pytest.raises(ValueError, match="not in"):
        ex.Explosion(0, (1.0,), 1.0, 1.0, 1.0, (0.1,), 1, 1, (1,), (1,), (1,), (1,)).at(0.2)
