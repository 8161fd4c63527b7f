"""Blind's state on the kernel library's schema (``nos_env/kernels/schema.py``).

One schema per tile set (double-six, double-nine) with the same column numbers, so one
compiled set of kernels serves both: double-six keeps the common HAND/DEALT sets as two
``S`` columns (an inline tile set), double-nine keeps them in ``SSET`` and pads its ``S``
with two unused columns instead. Blind uses neither set: a hand is a row (BD3).

- ``T``: the tile turned up awaiting a decision (-1 none), whether the player has played
  this turn, the set tile, the starter, the winner (-1 none), whether the game ended
  blocked, the random state at this game's deal (two 32-bit halves, for
  ``reference_game``), the decisionless deals skipped so far at this table;
- ``S``: each row as a circular buffer of capacity k = hand size: its head, its length,
  and the tiles (``S_ROW + i``);
- ``A``: each arm's open number, tile count and last tile (the set tile while empty);
- ``L`` (int8): the seat whose row holds the tile (-1: on the table or set aside), its
  buffer index in that row, whether it has been seen, who placed it (-1), its arm (2: set).

``BONE`` holds the deal order (the shuffle's scratch); its tiles from ``T_BONE_TOP`` are
the set-aside ones.
"""

from __future__ import annotations

from ...kernels.schema import Schema
from ...kernels.tilesets import DOUBLE_NINE, DOUBLE_SIX

MAX_SEATS = 5
MAX_ROW = 27  # double-nine, two players (BD2)
#: Decisions kept per game for reference_game; a game with optional_play is unbounded, a
#: longer one marks an overflow (T_NHIST beyond it).
MAX_HISTORY = 1024

_COMMON = dict(
    max_seats=MAX_SEATS, max_history=MAX_HISTORY, num_arms=2,
    table=("TURNED", "PLAYED", "SET_TILE", "STARTER", "WINNER", "BLOCKED", "DEAL_LO", "DEAL_HI", "SKIPPED"),
    arm=("OPEN", "COUNT", "LAST"),
    tile=("OWNER", "POS", "SEEN", "PLACER", "ARM"),
)
_SEAT = ("HEAD", "LEN", ("ROW", MAX_ROW))
SCHEMAS = {
    "double_six": Schema("blind", DOUBLE_SIX, num_actions=3 * 28 + 2, seat=_SEAT, **_COMMON),
    "double_nine": Schema("blind", DOUBLE_NINE, num_actions=3 * 55 + 2, seat=(("PAD", 2),) + _SEAT, **_COMMON),
}
_six, _nine = SCHEMAS["double_six"].constants(), SCHEMAS["double_nine"].constants()
_SHARED = [k for k in _six if k[:2] in ("T_", "S_", "A_", "L_") or k in ("NUM_T", "NUM_S", "NUM_A", "NUM_L")]
assert all(_six[k] == _nine[k] for k in _SHARED if k not in ("S_HAND", "S_DEALT")), "column numbers differ"
globals().update({k: _six[k] for k in _SHARED if k not in ("S_HAND", "S_DEALT")})
ARRAYS = SCHEMAS["double_six"].array_names

# Phases (T_PHASE): the contract's observation phases, plus over.
P_PLAY, P_CONTINUING, P_OVER = 1, 3, 4

__all__ = ["SCHEMAS", "ARRAYS", "MAX_SEATS", "MAX_ROW", "MAX_HISTORY", "P_PLAY", "P_CONTINUING", "P_OVER",
           *(k for k in _SHARED if k not in ("S_HAND", "S_DEALT"))]
