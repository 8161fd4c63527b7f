"""Checks of the options the environments and the fast engine share (clear errors, one place)."""

from __future__ import annotations

import numpy as np


def check_options(hands_per_episode=1, illegal_action="raise", starting_chips=0, **scales) -> None:
    """Raise ``ValueError`` naming the first bad option; ``scales`` are positive numbers."""
    if isinstance(hands_per_episode, bool) or not isinstance(hands_per_episode, int) or hands_per_episode < 1:
        raise ValueError(f"hands_per_episode must be a positive integer, got {hands_per_episode!r}")
    if illegal_action not in ("raise", "penalty"):
        raise ValueError(f"illegal_action must be 'raise' or 'penalty', got {illegal_action!r}")
    if isinstance(starting_chips, bool) or not isinstance(starting_chips, int):
        raise ValueError(f"starting_chips must be an integer, got {starting_chips!r}")
    for name, value in scales.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value) or value <= 0:
            raise ValueError(f"{name} must be a positive number, got {value!r}")
