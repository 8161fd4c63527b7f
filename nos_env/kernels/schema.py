"""The named state: a declarative description of the arrays that hold B tables.

Every game of the fast engine keeps its tables in the same kinds of arrays, one row per
table (``B`` rows):

====== ======== =============================== ============================================
array  dtype    shape                           what
====== ======== =============================== ============================================
T      int32    (B, NUM_T)                      per-table scalars, ``T[b, T_*]``
S      int32    (B, max_seats, NUM_S)           per-seat fields, ``S[b, seat, S_*]``
TSET   uint64   (B, table sets, words)          per-table tile sets (when not inline)
SSET   uint64   (B, max_seats, seat sets, words) per-seat tile sets (when not inline)
A      int32    (B, num_arms, NUM_A)            per arm/end of the layout, ``A[b, arm, A_*]``
L      int8     (B, num_tiles, NUM_L)           per tile (e.g. where it was placed)
BONE   int8     (B, num_tiles)                  the boneyard order, from ``T_BONE_TOP``
R      uint64   (B,)                            the table's SplitMix64 state (``rng.py``)
MASK   int8     (B, num_actions)                the legal actions of the seat to move
LEGAL  int16    (B, num_actions)                the same as a sorted list, ``T_NLEGAL`` long
H      int16    (B, max_history)                the legal decisions of the current hand
PEN    int64    (B, max_history + 2) or (B, 1)  D16 penalties by where they came (penalty option)
====== ======== =============================== ============================================

Common columns every game has come first, at the same index in every game (so the shared
layer, ``core.py``, can fold them): the seat to move, the phase, done, the hands left and
the hand index, the number of legal actions, the history length, the boneyard's top and end
(``T``); every seat's chips, chips at the hand's and at the episode's start and pending
rewards (``S``); every seat's hand and dealt tiles (tile sets). A game then declares its
own columns, arms and per-tile fields (:class:`Schema`).

Tile sets: when the game's tile set fits an int32 (double-six's 28 tiles,
``TileSet.inline``) a tile set is one column of ``T`` or ``S``, a bit per tile; otherwise
(55 or 91 tiles) the sets live in ``TSET``/``SSET`` as ``TileSet.words`` uint64 words each,
read with the multi-word helpers of ``bits.py``. The constant (``S_HAND``, ...) has the same
name either way: a column of ``S`` or an index into ``SSET``'s third axis.

:meth:`Schema.constants` gives the integer column constants (``T_TO_MOVE``, ``S_CHIPS``,
``A_OPEN``, ``NUM_T``, ...). A game's state module binds them as module-level ints, which
numba folds into the kernels like literals.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .tilesets import TileSet

#: Per-table columns every game has, in this order from column 0.
COMMON_TABLE = ("PHASE", "TO_MOVE", "DONE", "HANDS_LEFT", "HAND_INDEX", "NLEGAL", "NHIST", "BONE_TOP", "BONE_END")
#: Per-seat columns every game has, in this order from column 0.
COMMON_SEAT = ("CHIPS", "CHIPS_HAND", "CHIPS_EPISODE", "PENDING")
#: Per-seat tile sets every game has: the tiles in hand and the tiles dealt.
COMMON_SEAT_SETS = ("HAND", "DEALT")
#: The most seats a schema admits (Mexican Train: 8).
MAX_SEATS_LIMIT = 8
#: LEGAL is int16 and BONE/L int8: these bound the action and tile counts.
MAX_ACTIONS, MAX_TILES = 32767, 127

_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")


@dataclass(frozen=True)
class ArraySpec:
    """One state array: its name, dtype and shape after the batch axis."""

    name: str
    dtype: type
    shape: tuple[int, ...]

    def allocate(self, num_tables: int) -> np.ndarray:
        return np.zeros((num_tables,) + self.shape, self.dtype)


def _columns(prefix: str, entries, start: int = 0) -> tuple[dict[str, int], int]:
    """Column constants for entries (a name, or (name, width) for a group of columns)."""
    out, i = {}, start
    for entry in entries:
        name, width = (entry, 1) if isinstance(entry, str) else entry
        if not isinstance(name, str) or not _NAME.match(name):
            raise ValueError(f"a column name must be upper case (A-Z, 0-9, _), got {name!r} in {prefix}")
        if isinstance(width, bool) or not isinstance(width, int) or width < 1:
            raise ValueError(f"column group {prefix}{name} needs a positive integer width, got {width!r}")
        if prefix + name in out:
            raise ValueError(f"column {prefix}{name} is declared twice")
        out[prefix + name] = i
        i += width
    return out, i


class Schema:
    """The state arrays of one game: common columns, then the game's own.

    ``table``/``seat`` are the game's per-table and per-seat int32 columns (a name, or
    ``(name, width)`` for a group), ``table_sets``/``seat_sets`` its tile sets (besides the
    common ``HAND`` and ``DEALT``), ``arm`` the fields of each of ``num_arms`` arms or open
    ends (a branching layout declares as many as it can have), ``tile`` the int8 fields kept
    per tile. Nothing here is Nos-specific: Nos declares its schema in
    ``nos_env/games/nos/state.py``.
    """

    def __init__(self, game: str, tiles: TileSet, max_seats: int, num_actions: int, max_history: int = 256,
                 num_arms: int = 0, table=(), table_sets=(), seat=(), seat_sets=(), arm=(), tile=()):
        if not isinstance(tiles, TileSet):
            raise ValueError(f"tiles must be a TileSet (kernels.tilesets), got {type(tiles).__name__}")
        for what, value, low, high in (("max_seats", max_seats, 2, MAX_SEATS_LIMIT),
                                       ("num_actions", num_actions, 1, MAX_ACTIONS),
                                       ("max_history", max_history, 1, 1 << 20),
                                       ("num_arms", num_arms, 0, 64)):
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"{game} schema: {what} must be an integer {low}..{high}, got {value!r}")
        if tiles.num_tiles > MAX_TILES:
            raise ValueError(f"{game} schema: at most {MAX_TILES} tiles (int8 tile indices), got {tiles.num_tiles}")
        if bool(arm) != bool(num_arms):
            raise ValueError(f"{game} schema: arm fields need num_arms > 0 and num_arms needs arm fields")
        self.game, self.tiles, self.max_seats, self.num_actions = game, tiles, max_seats, num_actions
        self.max_history, self.num_arms = max_history, num_arms
        sets = tiles.inline
        t_cols = COMMON_TABLE + tuple(table) + (tuple(table_sets) if sets else ())
        s_cols = COMMON_SEAT + ((COMMON_SEAT_SETS + tuple(seat_sets)) if sets else ()) + tuple(seat)
        c: dict[str, int] = {}
        for prefix, entries, num in (("T_", t_cols, "NUM_T"), ("S_", s_cols, "NUM_S"), ("A_", tuple(arm), "NUM_A"),
                                     ("L_", tuple(tile), "NUM_L")):
            cols, c[num] = _columns(prefix, entries)
            c.update(cols)
        shapes = {"T": (c["NUM_T"],), "S": (max_seats, c["NUM_S"])}
        if not sets:
            ts, c["NUM_TSET"] = _columns("T_", tuple(table_sets))
            ss, c["NUM_SSET"] = _columns("S_", COMMON_SEAT_SETS + tuple(seat_sets))
            for name in set(ts) & set(c) | set(ss) & set(c):
                raise ValueError(f"column {name} is declared twice")
            c.update(ts)
            c.update(ss)
            if ts:
                shapes["TSET"] = (c["NUM_TSET"], tiles.words)
            shapes["SSET"] = (max_seats, c["NUM_SSET"], tiles.words)
        if num_arms:
            shapes["A"] = (num_arms, c["NUM_A"])
        if tile:
            shapes["L"] = (tiles.num_tiles, c["NUM_L"])
        shapes.update(BONE=(tiles.num_tiles,), R=(), MASK=(num_actions,), LEGAL=(num_actions,), H=(max_history,))
        dtypes = dict(T=np.int32, S=np.int32, TSET=np.uint64, SSET=np.uint64, A=np.int32, L=np.int8, BONE=np.int8,
                      R=np.uint64, MASK=np.int8, LEGAL=np.int16, H=np.int16, PEN=np.int64)
        self._specs = {name: ArraySpec(name, dtypes[name], shape) for name, shape in shapes.items()}
        # PEN's last column: the row holds counts of the current hand (cleared at the next hand).
        c.update(NT=tiles.num_tiles, MAX_SEATS=max_seats, NUM_ARMS=num_arms, NUM_ACTIONS=num_actions,
                 MAX_HISTORY=max_history, PEN_DIRTY=max_history + 1, PEN_COLUMNS=max_history + 2)
        self._constants = c

    @property
    def array_names(self) -> tuple[str, ...]:
        """The state arrays, in a fixed order (what clone() copies)."""
        return tuple(self._specs) + ("PEN",)

    def spec(self, name: str, penalty: bool = False) -> ArraySpec:
        """Array ``name``'s dtype and shape (PEN's width depends on the illegal-action policy:
        ``max_history + 2`` columns with penalties, one unused column without)."""
        if name == "PEN":
            return ArraySpec("PEN", np.int64, (self._constants["PEN_COLUMNS"] if penalty else 1,))
        if name not in self._specs:
            raise ValueError(f"the {self.game} schema has no array {name!r}; it has {', '.join(self.array_names)}")
        return self._specs[name]

    def allocate(self, num_tables: int, penalty: bool = False) -> dict[str, np.ndarray]:
        """Zeroed state arrays for ``num_tables`` tables, by name."""
        if isinstance(num_tables, bool) or not isinstance(num_tables, (int, np.integer)) or num_tables < 1:
            raise ValueError(f"num_tables must be a positive integer, got {num_tables!r}")
        return {name: self.spec(name, penalty).allocate(int(num_tables)) for name in self.array_names}

    def nbytes(self, num_tables: int, penalty: bool = False) -> int:
        return sum(int(np.prod((num_tables,) + s.shape)) * np.dtype(s.dtype).itemsize
                   for s in (self.spec(n, penalty) for n in self.array_names))

    def constants(self) -> dict[str, int]:
        """Every column constant (``T_*``, ``S_*``, ``A_*``, ``L_*``, ``NUM_*``) and size
        (``NT``, ``MAX_SEATS``, ``NUM_ARMS``, ``NUM_ACTIONS``, ``MAX_HISTORY``, ``PEN_*``)."""
        return dict(self._constants)

    def __repr__(self) -> str:
        c = self._constants
        return (f"Schema({self.game!r}, {self.tiles.name}, seats={self.max_seats}, arms={self.num_arms}, "
                f"NUM_T={c['NUM_T']}, NUM_S={c['NUM_S']})")


def common_constants() -> dict[str, int]:
    """The common columns' constants, the same in every game's schema (core.py folds them)."""
    cols, _ = _columns("T_", COMMON_TABLE)
    seat, _ = _columns("S_", COMMON_SEAT)
    return {**cols, **seat}
