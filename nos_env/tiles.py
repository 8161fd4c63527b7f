"""Tiles of the double-six set (docs/rules/nos.md §1).

A tile is a tuple ``(a, b)`` with ``a <= b``. The 28 tiles have a fixed index
0..27 in the order 0-0, 0-1, ..., 0-6, 1-1, ..., 6-6; every engine and every
encoding in the project uses this index.

Tile sets as bits (bit t for tile index t, as the fast engine's hands) and the per-tile numpy
tables the vectorised agents read are built here, once (the end of this file), with
:func:`popcount` to count a set.
"""

from __future__ import annotations

import numpy as np

from .kernels.tilesets import DOUBLE_SIX

Tile = tuple[int, int]

# One definition of the tile order for every engine and tile set (kernels/tilesets.py).
ALL_TILES: tuple[Tile, ...] = DOUBLE_SIX.tiles
TILE_INDEX: dict[Tile, int] = DOUBLE_SIX.index
NUM_TILES = DOUBLE_SIX.num_tiles

MATADORS: frozenset[Tile] = frozenset({(0, 0), (1, 6), (2, 5), (3, 4)})
#: The three matadors that form the triangle around [0-0] (games 13-16).
TRIANGLE_MATADORS: frozenset[Tile] = frozenset({(1, 6), (2, 5), (3, 4)})


def make_tile(a: int, b: int) -> Tile:
    """Return the canonical tile with numbers ``a`` and ``b`` (any order)."""
    if not (isinstance(a, int) and isinstance(b, int)) or not (0 <= a <= 6 and 0 <= b <= 6):
        raise ValueError(f"a tile's numbers must be integers 0..6, got {a!r} and {b!r}")
    return (a, b) if a <= b else (b, a)


def parse_tile(text: str) -> Tile:
    """Parse ``"a-b"`` (either order) into a canonical tile."""
    parts = text.strip().split("-")
    if len(parts) != 2 or not all(len(p) == 1 and p in "0123456" for p in parts):
        raise ValueError(f"not a tile: {text!r} (expected 'a-b' with numbers 0..6, e.g. '2-6')")
    return make_tile(int(parts[0]), int(parts[1]))


def tile_str(tile: Tile) -> str:
    return f"{tile[0]}-{tile[1]}"


def is_double(tile: Tile) -> bool:
    return tile[0] == tile[1]


def is_matador(tile: Tile) -> bool:
    return tile in MATADORS


def double_value(tile: Tile) -> int:
    """v for a double: the pips on one end, and 7 for [0-0] (sections 2, 6, 8)."""
    assert is_double(tile), tile
    return 7 if tile == (0, 0) else tile[0]


def count_value(tile: Tile) -> int:
    """A tile's value at end-of-hand counting: a+b, and 14 for [0-0] (section 1)."""
    return 14 if tile == (0, 0) else tile[0] + tile[1]


def double_rank(tile: Tile) -> int:
    """Rank of a double for the first-hand rule: 6-6 high, 0-0 low."""
    assert is_double(tile), tile
    return tile[0]


# ---------------------------------------------------------------- tile sets as bits, per-tile tables
#: TILE_BIT[t] = 1 << t (int64): tile index t as a one-tile set.
TILE_BIT = np.int64(1) << np.arange(NUM_TILES, dtype=np.int64)
#: Every tile of the set.
ALL_TILES_MASK = (1 << NUM_TILES) - 1


def tiles_mask(tiles) -> int:
    """The set of ``tiles`` (canonical tuples) as bits."""
    return sum(1 << TILE_INDEX[t] for t in set(tiles))


def mask_from_flags(flags) -> np.ndarray:
    """Tile sets (int64) from 0/1 flags over the 28 tiles on the last axis, e.g. an observation's
    ``hand`` block: one set per row (a 1-d row gives one)."""
    return (np.asarray(flags) > 0.5).astype(np.int64) @ TILE_BIT


#: Per tile index: its two numbers (low, high), pips a+b, end-of-hand count (section 1: [0-0] counts
#: 14), whether a double or a matador, and a double's v (sections 2, 6, 8: [0-0] is 7; 0 for others).
TILE_LOW, TILE_HIGH, TILE_PIPS = DOUBLE_SIX.LOW, DOUBLE_SIX.HIGH, DOUBLE_SIX.PIPS  # (read-only: shared)
TILE_COUNT = np.array([count_value(t) for t in ALL_TILES], np.int64)
TILE_IS_DOUBLE = DOUBLE_SIX.IS_DOUBLE
TILE_IS_MATADOR = np.array([t in MATADORS for t in ALL_TILES], bool)
TILE_DOUBLE_VALUE = np.array([double_value(t) if is_double(t) else 0 for t in ALL_TILES], np.int64)
#: DOUBLE_INDEX[d]: the tile index of [d-d], d = 0..6 (also the doubles in index order).
DOUBLE_INDEX = DOUBLE_SIX.DOUBLE_OF
DOUBLES_MASK = DOUBLE_SIX.doubles_mask
MATADORS_MASK = tiles_mask(MATADORS)
TRIANGLE_MATADORS_MASK = tiles_mask(TRIANGLE_MATADORS)


def popcount(x) -> np.ndarray:
    """How many tiles each set holds: the set bits of non-negative integers (any int or int array),
    as int64. numpy >= 2 has a ufunc for it; SWAR arithmetic otherwise (numpy 1.26 is supported)."""
    x = np.asarray(x, np.int64)
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(x).astype(np.int64)
    x = x.astype(np.uint64)  # SWAR: the last multiply wraps on purpose
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    with np.errstate(over="ignore"):
        return ((x * np.uint64(0x0101010101010101)) >> np.uint64(56)).astype(np.int64)
