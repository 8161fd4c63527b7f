"""Mexican Train's state on the kernel library's schema (``nos_env/kernels/schema.py``).

One schema per tile set (double-twelve, double-nine) with the same column numbers, so one
compiled set of kernels serves both (neither set fits an int32: tile sets live in ``SSET``
and ``TSET``, 2 words for double-twelve, 1 for double-nine).

- ``T``: the round's engine tile and number, the match's first starter, this round's
  starter, what the player to move owes (MT7/MT8: 0 nothing, 1 a second tile, 2 a third),
  the tile drawn in the current obligation (-1 none), the match winner (-1 none), whether
  the round ended blocked, the random state at the match's start and at this round's deal
  (two 32-bit halves each, for ``reference_game``), the rounds of the match;
- ``S``: hand size, marker (MT6); ``SSET``: each seat's hand and its public void tiles
  (MT12) as bit sets of ``TileSet.words`` uint64 words (DEALT unused); ``TSET``: the tiles on
  the table, the engine included;
- ``A``: 9 trains by absolute arm (seat s's train is arm s, the Mexican train arm 8): open
  number, tile count, last tile (-1 while empty);
- ``L`` (int8): the seat holding the tile (-1: none), who placed it (-1), its train (-1; 9
  the engine).

``BONE`` holds the round's deal order (the shuffle of the N - 1 tiles but the engine; the
hands are its first n*k entries); the boneyard is ``BONE[T_BONE_TOP:T_BONE_END]``.
"""

from __future__ import annotations

from ...family.mexican_train_encoding import MAX_SEATS, MEXICAN, NUM_ARMS
from ...kernels.schema import Schema
from ...kernels.tilesets import DOUBLE_NINE, DOUBLE_TWELVE

ENGINE_ARM = NUM_ARMS
#: Decisions kept per round for reference_game (a longer round marks an overflow).
MAX_HISTORY = 1024

_COMMON = dict(
    max_seats=MAX_SEATS, max_history=MAX_HISTORY, num_arms=NUM_ARMS,
    table=("ENGINE", "ENGINE_PIP", "FIRST", "STARTER", "OWE", "DRAWN", "WINNER", "BLOCKED", "MATCH_LO", "MATCH_HI",
           "DEAL_LO", "DEAL_HI", "ROUNDS"),
    seat=("COUNT", "MARKER"),
    table_sets=("ON_TABLE",),
    seat_sets=("VOID",),
    arm=("OPEN", "COUNT", "LAST"),
    tile=("OWNER", "PLACER", "ARM"),
)
SCHEMAS = {
    "double_twelve": Schema("mexican_train", DOUBLE_TWELVE, num_actions=10 * 91 + 2, **_COMMON),
    "double_nine": Schema("mexican_train", DOUBLE_NINE, num_actions=10 * 55 + 2, **_COMMON),
}
_twelve, _nine = SCHEMAS["double_twelve"].constants(), SCHEMAS["double_nine"].constants()
_SHARED = [k for k in _twelve if k[:2] in ("T_", "S_", "A_", "L_") or k in ("NUM_T", "NUM_S", "NUM_A", "NUM_L")]
assert all(_twelve[k] == _nine[k] for k in _SHARED), "column numbers differ"
globals().update({k: _twelve[k] for k in _SHARED})
ARRAYS = SCHEMAS["double_twelve"].array_names

# Phases (T_PHASE): the contract's observation phases, plus over.
P_PLAY, P_DRAWN, P_CONTINUING, P_OVER = 1, 2, 3, 4

__all__ = ["SCHEMAS", "ARRAYS", "MAX_SEATS", "MEXICAN", "NUM_ARMS", "ENGINE_ARM", "MAX_HISTORY", "P_PLAY", "P_DRAWN",
           "P_CONTINUING", "P_OVER", *_SHARED]
