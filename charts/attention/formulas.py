"""The worked example in formulas: every step of the score part with the numbers substituted
(KaTeX strings), and the formulas of the trained models' attention."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def _n(x: float, digits: int = 3) -> str:
    """A number for a formula: short, with a real minus sign, never ``-0``."""
    text = f"{round(float(x), digits) + 0.0:.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _big(x: float) -> str:
    """A possibly large positive number (an exponential) with 4 significant digits."""
    mantissa, _, exp = f"{x:.4g}".partition("e")
    return rf"{mantissa} \times 10^{{{int(exp)}}}" if exp else mantissa


def _p(x: float) -> str:
    """A number as a factor: negative numbers in parentheses."""
    return f"({_n(x)})" if x < 0 else _n(x)


def _word(label: str) -> str:
    # Labels come from core.analysis.attention.TOY_WORDS: plain lower-case words. Anything
    # else is dropped so no text can reach KaTeX as a command.
    return r"\text{" + "".join(ch for ch in label if ch.isalnum()) + "}"


def _vec(v: Sequence[float] | np.ndarray) -> str:
    return "[" + ",\\ ".join(_n(x) for x in v) + "]"


def score_latex(
    kind: str,
    query: np.ndarray,
    keys: np.ndarray,
    energy: np.ndarray,
    labels: Sequence[str],
) -> str:
    """One line per key: the score e_j of ``kind`` with every product or tanh written out."""
    q, k = np.asarray(query, float), np.asarray(keys, float)
    if k.ndim != 2 or k.shape != (len(labels), q.size) or np.shape(energy) != (len(labels),):
        raise ValueError("keys (S, d), energy (S,) and labels (S) must match the query (d,)")
    d = q.size
    lines = []
    for lab, kj, e in zip(labels, k, energy):
        # each term braced: a line too wide for a phone wraps between terms, never inside one
        if kind == "additive":
            terms = " + ".join(rf"{{\tanh({_n(a)} + {_p(b)})}}" for a, b in zip(q, kj))
        else:
            terms = " + ".join(f"{{{_p(a)}\\cdot{_p(b)}}}" for a, b in zip(q, kj))
            if kind == "scaled":
                terms = rf"\big({terms}\big) / \sqrt{{{d}}}"
        lines.append(rf"e_{{{_word(lab)}}} = {terms} = \mathbf{{{_n(e)}}}")
    # one line per key at the top level (not an aligned block): a line wider than a phone
    # wraps after its + signs (ui.style lets display math wrap)
    return r" \\ ".join(lines)


def softmax_latex(
    energy: np.ndarray, weights: np.ndarray, labels: Sequence[str], temperature: float, j: int
) -> str:
    """The softmax of key ``j`` written out in two lines: the sum Z of every exp(e_k/τ), then
    exp(e_j/τ) / Z (the exponentials themselves are shown when they are small enough to read).
    Z on a line of its own: a line too wide for a phone wraps after a + of that sum."""
    e, w = np.asarray(energy, float), np.asarray(weights, float)
    if e.shape != w.shape or e.shape != (len(labels),) or not 0 <= j < e.size:
        raise ValueError("energy, weights and labels need one entry per key; j must be a key")
    tau = _n(temperature, 2)
    terms = [rf"e^{{{_n(x)}/{tau}}}" for x in e]
    z = e / temperature
    readable = np.abs(z).max() <= 30  # e^30 ~ 1e13: still a number a student can read
    total = rf"Z = \sum_k e^{{e_k/\tau}} = {' + '.join(terms)}"
    share = rf"\alpha_{{{_word(labels[j])}}} = \frac{{{terms[j]}}}{{Z}}"
    if readable:
        total += rf" = {_big(np.exp(z).sum())}"
        share += rf" = \frac{{{_big(np.exp(z[j]))}}}{{{_big(np.exp(z).sum())}}}"
    return rf"{total} \\ {share} = \mathbf{{{_n(w[j])}}}"


def context_latex(weights: np.ndarray, values: np.ndarray, labels: Sequence[str]) -> str:
    """The output as a weighted sum of the values, with the result: sum_j α_j v_j = [...]."""
    w, v = np.asarray(weights, float), np.asarray(values, float)
    if v.ndim != 2 or w.shape != (v.shape[0],) or len(labels) != w.size:
        raise ValueError("weights (S,), values (S, d_v) and labels (S) must match")
    terms = r" + ".join(f"{_n(a)}\\,{_vec(vj)}" for a, vj in zip(w, v))
    return rf"o = \sum_j \alpha_j v_j = {terms} = \mathbf{{{_vec(w @ v)}}}"


def model_score_latex(kind: str, d: int | None = None) -> str:
    """The score and softmax of a trained model's attention: additive (Bahdanau) over the
    decoder state and the encoder states, or dot / scaled dot with query size ``d``."""
    if kind == "additive":
        return (
            r"e_{ij} = v^\top \tanh(W s_{i-1} + U h_j) \\ "
            r"\alpha_{ij} = \frac{\exp(e_{ij}/\tau)}{\sum_k \exp(e_{ik}/\tau)}"
        )
    if kind not in ("dot", "scaled") or (kind == "scaled" and d is None):
        raise ValueError("kind is 'additive', 'dot' or 'scaled' (scaled needs the size d)")
    scale = r"\frac{q \cdot k_j}{\sqrt{d}},\ d = " + str(d)
    return (  # two lines: each fits a phone
        r"e_j = " + (r"q \cdot k_j" if kind == "dot" else scale) + r" \\ "
        r"\alpha_j = \frac{\exp(e_j/\tau)}{\sum_k \exp(e_k/\tau)}"
    )
