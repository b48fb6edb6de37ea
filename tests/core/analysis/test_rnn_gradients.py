"""core.analysis.rnn_gradients: the measured decay follows the theory (Pascanu et al. 2013)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from core import probes_data
from core.analysis import rnn_gradients as rg
from core.models.probes import DistanceProbe, ProbeConfig


@pytest.mark.parametrize("radius", [0.5, 0.8, 1.2, 1.5])
def test_recurrent_matrix_has_the_requested_spectral_radius(radius):
    w = rg.recurrent_matrix(64, radius, seed=3)
    assert rg.spectral_radius(w) == pytest.approx(radius, rel=1e-9)
    # the same seed gives the same matrix, only scaled
    np.testing.assert_allclose(w / radius, rg.recurrent_matrix(64, 1.0, seed=3), atol=1e-12)
    # a random Gaussian matrix is far from normal: its largest singular value is about 2ρ
    assert rg.largest_singular_value(w) > 1.5 * radius


@pytest.mark.parametrize("kind", ["rnn", "lstm", "gru"])
def test_every_gate_block_of_a_fresh_cell_has_radius_rho(kind):
    cell = rg.fresh_cell(kind, 1.3, hidden=16, input_size=8, seed=1)
    H = cell.hidden  # the (H, H) recurrent matrix of each gate, in PyTorch's gate order
    blocks = [cell.w_hh[i * H : (i + 1) * H].numpy() for i in range(rg.GATES[kind])]
    assert len(blocks) == rg.GATES[kind]
    for w in blocks:
        assert rg.spectral_radius(w) == pytest.approx(1.3, rel=1e-9)


@pytest.mark.parametrize("radius", [0.5, 0.8, 1.2, 1.5])
def test_linear_recurrence_slope_is_log_spectral_radius(radius):
    """The first law: for h' = W h + U x, log‖∂h_T/∂h_t‖ falls (or rises) by
    ln ρ per step of distance, within 5%."""
    cell = rg.fresh_cell("linear", radius, hidden=64, seed=0)
    norms = rg.state_jacobian_norms(cell, rg.sequence_inputs(60, 32, seed=0))
    d = np.arange(60)
    slope = np.polyfit(d[20:], np.log(norms[20:]), 1)[0]  # ln of the factor per step
    assert slope == pytest.approx(np.log(radius), rel=0.05)


def test_linear_recurrence_jacobian_is_the_matrix_power():
    cell = rg.fresh_cell("linear", 0.9, hidden=12, input_size=4, seed=2)
    norms = rg.state_jacobian_norms(cell, rg.sequence_inputs(10, 4, seed=2))
    w = cell.w_hh.numpy()
    for k in range(10):
        assert norms[k] == pytest.approx(np.linalg.norm(np.linalg.matrix_power(w, k), 2))


def test_tanh_at_half_vanishes_within_30_steps():
    """The second law: at scale 0.5 the tanh RNN's norm drops below 1e-3 of its
    start (distance 0) within 30 steps."""
    for seed in range(3):
        cell = rg.fresh_cell("rnn", 0.5, hidden=64, seed=seed)
        xs = rg.sequence_inputs(60, cell.w_ih.shape[1], seed)
        for key, measure in (
            ("state", rg.state_jacobian_norms),
            ("input", rg.input_gradient_norms),
        ):
            norms = measure(cell, xs)
            assert np.any(norms[:31] < 1e-3 * norms[0]), (seed, key, norms[:31])


@pytest.mark.parametrize("radius", [0.7, 1.0, 1.4])
def test_tanh_rnn_stays_under_the_singular_value_bound(radius):
    """|tanh'| ≤ 1, so ‖∂h_T/∂h_t‖ ≤ σ₁^(T−t) for the plain RNN, whatever the inputs."""
    cell = rg.fresh_cell("rnn", radius, hidden=32, input_size=8, seed=4)
    norms = rg.state_jacobian_norms(cell, rg.sequence_inputs(40, 8, seed=4))
    sigma = rg.largest_singular_value(cell.w_hh.numpy())
    assert np.all(norms <= sigma ** np.arange(40) * (1 + 1e-9))


def test_vanishing_below_one_growing_above_one_with_weak_inputs():
    weak = 0.1
    cell_lo = rg.fresh_cell("rnn", 0.7, seed=0)
    cell_hi = rg.fresh_cell("rnn", 1.5, seed=0)
    xs = rg.sequence_inputs(60, 32, seed=0) * weak
    lo = rg.state_jacobian_norms(cell_lo, xs)
    hi = rg.state_jacobian_norms(cell_hi, xs)
    assert lo[-1] < 1e-6 and hi[-1] > 10


@pytest.mark.parametrize("cls", [nn.RNN, nn.LSTM, nn.GRU])
def test_step_by_step_cell_matches_torch_module(cls):
    torch.manual_seed(0)
    module = cls(5, 7, batch_first=True).double()
    xs = torch.randn(1, 11, 5, dtype=torch.float64)
    with torch.no_grad():
        ref, _ = module(xs)  # (1, L, H)
    cell = rg.cell_from_module(module)
    states = rg.unroll(cell, xs[0])  # (L+1, S)
    torch.testing.assert_close(states[1:, :7], ref[0])


@pytest.mark.parametrize("kind", ["rnn", "lstm", "gru"])
def test_state_jacobian_matches_brute_force_autograd(kind):
    cell = rg.fresh_cell(kind, 1.1, hidden=6, input_size=3, seed=5)
    xs = rg.sequence_inputs(8, 3, seed=5)
    norms = rg.state_jacobian_norms(cell, xs)
    states = rg.unroll(cell, xs)
    H = cell.hidden
    for t in (8, 5, 1):  # distance 0, 3, 7

        def from_t(s, t=t):
            for x in xs[t:]:
                s = rg.step(cell, s, x)
            return s[:H]

        jac = torch.autograd.functional.jacobian(from_t, states[t])  # (H, S)
        assert norms[8 - t] == pytest.approx(float(torch.linalg.matrix_norm(jac, 2)), rel=1e-9)


@pytest.mark.parametrize("kind", ["linear", "rnn", "lstm", "gru"])
def test_state_jacobian_chain_equals_the_product_of_step_jacobians(kind):
    """state_jacobian_norms never forms the step Jacobians; the product of the full
    matrices (step_jacobians, checked against autograd above) gives the same norms."""
    cell = rg.fresh_cell(kind, 1.2, hidden=8, input_size=4, seed=2)
    xs = rg.sequence_inputs(30, 4, seed=3).reshape(3, 10, 4)  # a batch of 3 sequences
    states = rg.unroll(cell, xs)
    steps = rg.step_jacobians(cell, states[:, :-1], xs)  # (3, 10, S, S)
    g = torch.eye(cell.state_size, dtype=torch.float64)[: cell.hidden].expand(3, -1, -1)
    chain = [g]
    for t in range(9, 0, -1):
        g = g @ steps[:, t]
        chain.append(g)
    expected = rg.spectral_norms(torch.stack(chain, 1)).numpy()
    np.testing.assert_allclose(rg.state_jacobian_norms(cell, xs), expected, rtol=1e-10)


def test_input_gradient_of_last_input_is_readout_through_input_weights():
    cell = rg.fresh_cell("linear", 0.9, hidden=10, input_size=4, seed=6)
    w = torch.randn(10, dtype=torch.float64)
    norms = rg.input_gradient_norms(cell, rg.sequence_inputs(5, 4), readout=w)
    assert norms[0] == pytest.approx(float((cell.w_ih.T @ w).norm()))
    assert norms[1] == pytest.approx(float((cell.w_ih.T @ cell.w_hh.T @ w).norm()))


def test_cell_from_module_rejects_what_it_cannot_read():
    with pytest.raises(ValueError, match="tanh"):
        rg.cell_from_module(nn.RNN(3, 4, nonlinearity="relu", batch_first=True))
    with pytest.raises(ValueError, match="one-layer"):
        rg.cell_from_module(nn.GRU(3, 4, num_layers=2, batch_first=True))
    with pytest.raises(ValueError, match="unknown cell kind"):
        rg.fresh_cell("transformer", 1.0)


def test_probe_decay_on_task_sequences():
    cfg = ProbeConfig("gru", probes_data.N_SYMBOLS, probes_data.N_KEYS, hidden=16)
    probe = DistanceProbe(cfg).eval()
    for p in probe.parameters():
        p.requires_grad_(False)  # like the shipped models
    x, y, _ = probes_data.make_batch(torch.Generator().manual_seed(0), 4)
    out = rg.probe_decay(probe, x, y, n_state=2)
    L = probes_data.SEQ_LEN
    assert out["input"].shape == out["state"].shape == (L,)
    assert np.all(out["input"] > 0) and out["state"][0] == pytest.approx(1.0)


def test_spectral_norms_match_the_svd_even_when_tiny():
    m = torch.randn(5, 6, 9, dtype=torch.float64) * torch.logspace(-30, 3, 5).view(5, 1, 1)
    ref = torch.linalg.matrix_norm(m, ord=2)
    torch.testing.assert_close(rg.spectral_norms(m), ref, rtol=1e-10, atol=0)


def test_recurrent_matrix_is_the_seeded_gaussian_rescaled():
    # the unit-radius matrix is cached per (hidden, seed): same as drawing it afresh
    rng = np.random.default_rng(4)
    w = rng.standard_normal((16, 16)) / np.sqrt(16)
    expected = w * (1.3 / rg.spectral_radius(w))
    np.testing.assert_allclose(rg.recurrent_matrix(16, 1.3, seed=4), expected, rtol=1e-12)
    m = rg.recurrent_matrix(16, 1.3, seed=4)
    m[0, 0] = 99.0  # the caller's copy: the cached matrix is untouched
    assert rg.recurrent_matrix(16, 1.3, seed=4)[0, 0] != 99.0


# --- every default view proves its takeaway (measured on the shipped models) ---------------

VANISHED = 1e-2  # part 1: at ρ = 0.9, 59 steps back, the plain RNN keeps < 1 % of the signal
GATED_AHEAD = 1e3  # part 2: 40 back, the gated cells keep >= 1000x the plain RNN's signal
NEAR_ACC, FAR_SLACK, GATED_ACC = 0.9, 0.05, 0.9  # part 3: accuracies behind the takeaway


def test_part_1_default_shows_the_gradient_vanishing():
    cell = rg.fresh_cell("rnn", 0.9, hidden=64, seed=0)
    xs = rg.sequence_inputs(60, cell.w_ih.shape[1], 0) * 0.1
    norms = rg.state_jacobian_norms(cell, xs)
    assert norms[59] < VANISHED * norms[0]
    assert np.all(np.diff(np.log(norms[5:])) < 0.05)  # falling all the way (no rebound)


def test_part_2_default_shows_the_plain_rnn_vanish_and_the_gates_hold():
    from core import probes_data, zoo

    x, y, _ = probes_data.make_batch(torch.Generator().manual_seed(7), 32)
    state = {
        k: rg.probe_decay(zoo.load_model(f"probe_{k}"), x, y, n_state=8)["state"][40]
        for k in rg.KINDS
    }
    assert min(state["lstm"], state["gru"]) >= GATED_AHEAD * state["rnn"], state


def test_part_3_manifest_shows_accuracy_falling_with_distance_for_the_plain_rnn_only():
    from core import probes_data, zoo

    models = zoo.load_manifest()["models"]
    acc = {k: models[f"probe_{k}"]["metrics"]["distance"] for k in rg.KINDS}
    near, far = str(probes_data.EVAL_DISTANCES[0]), str(probes_data.EVAL_DISTANCES[-1])
    assert acc["rnn"][near] >= NEAR_ACC
    assert acc["rnn"][far] <= 1 / probes_data.N_KEYS + FAR_SLACK
    assert acc["lstm"][far] >= GATED_ACC and acc["gru"][far] >= GATED_ACC


def test_recorded_accuracy_reads_the_manifest_and_drops_incomplete_records():
    entries = {
        "a": {"metrics": {"distance": {"5": 0.9, "10": 0.5}}},
        "b": {"metrics": {"distance": {"5": 1.0}}},  # no record at 10: left out
        "c": {},  # no metrics at all: left out
        "d": {"metrics": {"distance": {"5": "0.25", "10": 1, "20": 0.0}}},
    }
    assert rg.recorded_accuracy(entries, (5, 10)) == {"a": [0.9, 0.5], "d": [0.25, 1.0]}
    assert rg.recorded_accuracy(entries, ()) == {n: [] for n in entries}
    # on the shipped manifest: the page's part 3 gets every probe, one value per distance
    from core import zoo

    models = zoo.load_manifest()["models"]
    acc = rg.recorded_accuracy(
        {f"probe_{k}": models[f"probe_{k}"] for k in rg.KINDS}, probes_data.EVAL_DISTANCES
    )
    assert set(acc) == {f"probe_{k}" for k in rg.KINDS}
    assert all(len(v) == len(probes_data.EVAL_DISTANCES) for v in acc.values())


# --- part 2's headline and the search for its default


def _guide(radius: float, n: int = 60) -> np.ndarray:
    return radius ** np.arange(n, dtype=float)


def test_the_headline_holds_only_when_the_plain_rnn_follows_its_guide_below_the_gates():
    guide = _guide(0.85)
    high = {"lstm": np.full(60, 5e-2), "gru": np.full(60, 0.1)}
    assert rg.headline_holds(guide * 2, guide, high)
    # off its guide by more than the factor allowed: no
    assert not rg.headline_holds(guide * 20, guide, high)
    # a plain RNN that does not shrink 100 times: no
    flat = _guide(0.99)
    assert not rg.headline_holds(flat, flat, high)
    # a gated cell that fades like the plain RNN (an untrained one): no
    assert not rg.headline_holds(guide, guide, {**high, "gru": guide * 10})
    # a gated line measured on shorter sequences is read where it ends (0.85^39 = 1.8e-3)
    assert rg.headline_holds(guide, guide, {"lstm": np.full(40, 0.5)})
    assert not rg.headline_holds(guide, guide, {"lstm": np.full(40, 0.1)})


def test_the_search_picks_the_mildest_weight_scale_that_shows_the_headline():
    high = {"lstm": np.full(60, 1e-2)}
    candidates = {
        ("trained", r, "0.1"): (_guide(r), _guide(r), high) for r in (0.6, 0.8, 0.85, 0.95)
    }
    candidates[("untrained", 0.8, "0.1")] = (_guide(0.8), _guide(0.8), {"lstm": _guide(0.8)})
    # 0.95^59 = 0.05: the plain RNN has not shrunk 100 times; 0.85 is the mildest that has
    assert rg.clearest_default(candidates) == ("trained", 0.85, "0.1")
    assert (
        rg.clearest_default({("untrained", 0.8, "0.1"): candidates[("untrained", 0.8, "0.1")]})
        is None
    )


def test_relative_to_last_starts_every_curve_at_one():
    out = rg.relative_to_last(np.array([4.0, 2.0, 1.0]))
    assert out.tolist() == [1.0, 0.5, 0.25]
