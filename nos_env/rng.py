"""The random stream every engine deals from: SplitMix64.

Sessions, the AEC environment and the fast engine's kernels draw deals,
setters and tie-breaks from this generator, one stream per table, in the same
order, so the same seed gives the same games in every engine and API. It is
tiny and written twice: here in plain Python, and in ``nos_env/kernels/core.py`` as
numba functions over a ``uint64`` state; ``tests/test_fast_engine.py``
checks that the two agree.

Draws, in order, for one hand: the deal (a Fisher-Yates shuffle of the 28
tile indices, 27 draws), then the setter of a one-hand episode (D20). A
session's later hand first breaks a tie for loser (D2, one draw only when
there is a tie), then deals.
"""

from __future__ import annotations

MASK64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15


def mix64(z: int) -> int:
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 & MASK64
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB & MASK64
    return z ^ (z >> 31)


def seed_state(seed: int) -> int:
    """The generator state for a seed (any integer)."""
    return mix64(int(seed) & MASK64)


class SplitMix64:
    def __init__(self, seed: int):
        self.state = seed_state(seed)

    @classmethod
    def from_state(cls, state: int) -> "SplitMix64":
        """A generator continuing from a raw state (e.g. a fast-engine table's)."""
        rng = cls.__new__(cls)
        rng.state = int(state) & MASK64
        return rng

    def next(self) -> int:
        self.state = (self.state + GAMMA) & MASK64
        return mix64(self.state)

    def below(self, n: int) -> int:
        """A number in 0..n-1 (the top 32 bits, reduced; the bias is below 1e-9)."""
        return (self.next() >> 32) % n

    def shuffle28(self) -> list[int]:
        """A permutation of the tile indices 0..27 (Fisher-Yates, from the top)."""
        order = list(range(28))
        for i in range(27, 0, -1):
            j = self.below(i + 1)
            order[i], order[j] = order[j], order[i]
        return order
