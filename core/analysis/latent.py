"""A latent-variable autoregressive model, step by step (lesson 1.4).

The GRU language model never sees its summary ``h_t`` written down anywhere: it updates it
from the previous one and the word just read, ``h_t = g(h_{t-1}, x_{t-1})``, and predicts
the next word from it alone, ``P(x_t | h_t)``. These functions run the trained model over
one sentence and return, per step, the state, how far it moved and what it predicts.
No streamlit here.

Shapes: T steps (BOS plus the sentence's words), H size of the state, V vocabulary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

BOS_ID = 1  # the vocabulary's begin-of-sentence id (core.vocab: pad 0, bos 1, eos 2, unk 3)
EOS_ID = 2


@dataclass(frozen=True)
class LatentSteps:
    """The language model's latent state after each word it read (BOS first)."""

    states: np.ndarray  # (T, H) h_t after reading input t (float32, the model's precision)
    change: np.ndarray  # (T,) ‖h_t − h_{t−1}‖ (h_0 = the zero start state)
    top_ids: np.ndarray  # (T,) the most likely next word from h_t
    top_probs: np.ndarray  # (T,) its probability
    target_probs: np.ndarray  # (T,) probability of the word that really comes next (EOS last)


@torch.inference_mode()
def latent_steps(lm, word_ids: Sequence[int]) -> LatentSteps:
    """Run the GRU language model ``lm`` over BOS + ``word_ids`` (no EOS) and keep, per step,
    the state ``h_t``, its change and the next-word prediction ``P(x_{t+1} | h_t)``."""
    if len(word_ids) == 0:
        raise ValueError("word_ids is empty; pass the sentence's word ids (no BOS, no EOS)")
    ids = [BOS_ID, *word_ids]
    logits, hidden, _ = lm(torch.tensor([ids]))  # (1, T, V), (1, T, H)
    probs = torch.softmax(logits[0].float(), -1)  # (T, V)
    states = hidden[0].float().numpy().copy()  # (T, H)
    prev = np.vstack([np.zeros((1, states.shape[1]), np.float32), states[:-1]])
    top = probs.max(-1)
    nxt = torch.tensor([*word_ids, EOS_ID])  # the word that really follows each state
    return LatentSteps(
        states=states,
        change=np.linalg.norm(states - prev, axis=1),
        top_ids=top.indices.numpy(),
        top_probs=top.values.numpy().astype(float),
        target_probs=probs[torch.arange(len(ids)), nxt].numpy().astype(float),
    )


def hits(steps: LatentSteps, word_ids: Sequence[int]) -> int:
    """How many of the sentence's next words (EOS included) are the state's top guess."""
    return int((steps.top_ids == np.array([*word_ids, EOS_ID])).sum())
