"""Tile sets: double-six (28 tiles), double-nine (55) and double-twelve (91), one definition.

A tile is ``(low, high)`` with ``low <= high``. Every set orders its tiles low-major:
0-0, 0-1, ..., 0-m, 1-1, ..., m-m (for double-six this is ``nos_env.tiles.ALL_TILES``,
the index every encoding uses). The per-tile tables are numpy arrays the numba kernels
read as constants; a set of tiles (a hand, the placed tiles) is a bit set, bit ``t`` for
tile ``t``, stored as described by :attr:`TileSet.words` and :attr:`TileSet.inline`.

No numba here: the reference engine imports this module too (``tiles.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import numpy as np

#: A tile set of at most this many tiles is one int32 column of a state array (bit 31, the
#: sign, stays free, so ``~set`` and ``set & -set`` behave as on any non-negative integer).
INLINE_TILES = 31


@dataclass(frozen=True, eq=False)
class TileSet:
    """All tiles ``(a, b)``, ``0 <= a <= b <= max_pip``, with their lookup tables."""

    max_pip: int
    name: str
    tiles: tuple[tuple[int, int], ...] = field(repr=False)
    #: tile -> index
    index: dict[tuple[int, int], int] = field(repr=False)
    #: per tile: lower and higher pip count, pip sum, whether it is a double (numpy arrays)
    LOW: np.ndarray = field(repr=False)
    HIGH: np.ndarray = field(repr=False)
    PIPS: np.ndarray = field(repr=False)
    IS_DOUBLE: np.ndarray = field(repr=False)
    #: DOUBLE_OF[d]: the index of the tile [d|d]
    DOUBLE_OF: np.ndarray = field(repr=False)

    @property
    def num_tiles(self) -> int:
        return len(self.tiles)

    @property
    def words(self) -> int:
        """The 64-bit words a set of these tiles needs (1 for 28 and 55 tiles, 2 for 91)."""
        return (self.num_tiles + 63) // 64

    @property
    def inline(self) -> bool:
        """Whether a set of these tiles fits one int32 state column (double-six's 28 do)."""
        return self.num_tiles <= INLINE_TILES

    @property
    def doubles_mask(self) -> int:
        """The set of all doubles as a Python integer (any width)."""
        return sum(1 << int(t) for t in self.DOUBLE_OF)

    def mask(self, tiles) -> int:
        """A collection of tiles as a Python integer bit set."""
        return sum(1 << self.index[t] for t in set(tiles))

    def tiles_of(self, mask: int) -> list[tuple[int, int]]:
        """The tiles of an integer bit set, in tile order."""
        if mask < 0 or mask >> self.num_tiles:
            raise ValueError(f"{mask!r} is not a set of {self.name} tiles (bits 0..{self.num_tiles - 1})")
        return [t for i, t in enumerate(self.tiles) if (mask >> i) & 1]

    def to_words(self, mask: int) -> np.ndarray:
        """An integer bit set as ``words`` uint64 words, lowest tiles in word 0."""
        if mask < 0 or mask >> self.num_tiles:
            raise ValueError(f"{mask!r} is not a set of {self.name} tiles (bits 0..{self.num_tiles - 1})")
        return np.array([(mask >> (64 * w)) & ((1 << 64) - 1) for w in range(self.words)], np.uint64)

    def from_words(self, words) -> int:
        return sum(int(w) << (64 * i) for i, w in enumerate(words))


def canonical_tiles(max_pip: int) -> tuple[tuple[int, int], ...]:
    """The tiles of a double-``max_pip`` set in canonical order (low-major)."""
    return tuple((a, b) for a in range(max_pip + 1) for b in range(a, max_pip + 1))


@cache
def tile_set(max_pip: int) -> TileSet:
    """The double-``max_pip`` set (one object per size, so kernels can share its tables)."""
    if isinstance(max_pip, bool) or not isinstance(max_pip, int) or not 1 <= max_pip <= 15:
        raise ValueError(f"max_pip must be an integer 1..15 (6: double-six, 9: double-nine, 12: double-twelve), "
                         f"got {max_pip!r}")
    tiles = canonical_tiles(max_pip)
    index = {t: i for i, t in enumerate(tiles)}
    low = np.array([a for a, _ in tiles], np.int64)
    high = np.array([b for _, b in tiles], np.int64)
    arrays = dict(LOW=low, HIGH=high, PIPS=low + high, IS_DOUBLE=low == high,
                  DOUBLE_OF=np.array([index[(d, d)] for d in range(max_pip + 1)], np.int64))
    for a in arrays.values():
        a.flags.writeable = False  # shared by every kernel and module: nobody may change them
    names = {6: "double-six", 9: "double-nine", 12: "double-twelve"}
    return TileSet(max_pip, names.get(max_pip, f"double-{max_pip}"), tiles, index, **arrays)


DOUBLE_SIX = tile_set(6)
DOUBLE_NINE = tile_set(9)
DOUBLE_TWELVE = tile_set(12)
