"""What a critic is measured against: each decision's return to the end of its hand.

The critic-information benchmarks (``benchmarks/critic_information.py`` for the family games,
``benchmarks/nos_critic_information.py`` for Nos) step many tables for a window of decisions and
ask how much of the chips or points still to come in each hand the value function explained.
Only decisions whose hand ended inside the window have a known return.
"""

from __future__ import annotations

import numpy as np


def returns_to_hand_end(rewards, dones) -> tuple[np.ndarray, np.ndarray]:
    """``rewards`` and ``dones`` [T, B] (step t of table b; ``dones[t, b]``: the hand ended at that
    step, its reward included). Returns (returns float64 [T, B]: the undiscounted sum of rewards
    from step t to the end of its hand, ended bool [T, B]: that end lies inside the window)."""
    rewards = np.asarray(rewards, np.float64)
    dones = np.asarray(dones, bool)
    if rewards.ndim != 2 or rewards.shape != dones.shape:
        raise ValueError(f"rewards and dones must be [T, B] arrays of one shape, got {rewards.shape} and {dones.shape}")
    returns = np.zeros_like(rewards)
    ended = np.zeros(rewards.shape, bool)
    acc = np.zeros(rewards.shape[1])
    seen = np.zeros(rewards.shape[1], bool)
    for t in range(rewards.shape[0] - 1, -1, -1):  # backwards: a done step starts a new sum
        acc = np.where(dones[t], 0.0, acc) + rewards[t]
        seen |= dones[t]
        returns[t], ended[t] = acc, seen
    return returns, ended


def explained_variance(target: np.ndarray, prediction: np.ndarray) -> float:
    """1 - Var(target - prediction) / Var(target), as SB3 reports for its critic."""
    target = np.asarray(target, np.float64)
    return float(1 - np.var(target - np.asarray(prediction, np.float64)) / np.var(target))
