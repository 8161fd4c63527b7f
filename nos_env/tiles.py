"""Tiles of the double-six set (docs/rules/nos.md §1).

A tile is a tuple ``(a, b)`` with ``a <= b``. The 28 tiles have a fixed index
0..27 in the order 0-0, 0-1, ..., 0-6, 1-1, ..., 6-6; every engine and every
encoding in the project uses this index.
"""

from __future__ import annotations

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
