"""train/returns.py: the returns the critic-information benchmarks measure critics against."""

import numpy as np
import pytest

from train.returns import explained_variance, returns_to_hand_end


def test_returns_sum_to_each_hands_end_and_only_ended_hands_count():
    # Table 0: a hand ends at step 1 (rewards 1, 2), the next (3, 4) runs past the window.
    # Table 1: one hand of three steps ends at step 2, then a new one starts (5).
    rewards = np.array([[1, 10], [2, 20], [3, 30], [4, 5]], float)
    dones = np.array([[0, 0], [1, 0], [0, 1], [0, 0]], bool)
    returns, ended = returns_to_hand_end(rewards, dones)
    assert returns[:, 0].tolist() == [3, 2, 7, 4]
    assert ended[:, 0].tolist() == [True, True, False, False]
    assert returns[:, 1].tolist() == [60, 50, 30, 5]
    assert ended[:, 1].tolist() == [True, True, True, False]


def test_shapes_are_checked_and_the_explained_variance_is_sb3s():
    with pytest.raises(ValueError, match=r"\[T, B\] arrays of one shape"):
        returns_to_hand_end(np.zeros((3, 2)), np.zeros((3, 1), bool))
    y = np.array([1.0, 2.0, 3.0, 4.0])
    assert explained_variance(y, y) == 1.0
    assert explained_variance(y, np.full(4, 2.5)) == 0.0
    assert explained_variance(y, y + 1.0) == 1.0  # a constant offset is not penalised, as in SB3
