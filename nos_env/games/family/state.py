"""The family games' state on the kernel library's schema (``nos_env/kernels/schema.py``).

One schema serves all ten non-Blind games of ``docs/rules/family.md``: the columns are the
same for every game, so one compiled kernel steps every game and option. What differs per
game is only the size of some arrays (the arms of its layout, its actions, its seats) and a
small runtime settings array ``CFG`` (``C_*`` below), made by ``nos_env.family_tables``
from the game's rules object. The tile sets are always uint64 words (``SSET``/``TSET``),
whether the game plays double-six (28 tiles) or double-nine (55): one word either way, so
the kernels read the word directly.

Besides the common columns the tables hold:

- ``T``: the setter, the set tile, how many arms exist, whether the cross is complete,
  whether the mover has drawn / placed this turn, the F23 extra play's double and the arms
  it may go on, the last placer (F19), the next hand's setter, the first double placed
  (Five Up's ``spinners="first"``), how the hand ended and its winner, a placement counter;
- ``TSET``: the tiles on the table;
- ``S``: the step (placement counter) of each seat's last placement (F19 with teams);
- ``SSET``: hand, dealt tiles, and the public evidence of F24 (``VOID``: tiles the seat is
  known not to hold, the contract's seat_void rule);
- ``A``: per arm whether it exists, its open number, tile count, last tile, whether its last
  tile is a double with nothing beyond, the double it starts from (-1: the set's arms);
- ``L``: who placed each tile (-1: not on the table) and on which arm (``SET_ARM``: the set
  tile), whether the double spins (Five Up).
"""

from __future__ import annotations

from ...kernels.schema import Schema
from ...kernels.tilesets import DOUBLE_NINE

#: Legal decisions kept per hand (a hand has at most 55 placements, 55 draws and fewer
#: than 8 passes per placement, far below this; T_NHIST beyond it marks an overflow).
MAX_HISTORY = 512
#: The largest layout of the family (Double-Nine Cross, DN4).
MAX_ARMS = 22
#: The largest tile set of the family (double-nine).
MAX_TILES = 55
#: The most seats of the family (Double-Nine Cross, DN1).
MAX_SEATS = 8
#: L_ARM of the set tile.
SET_ARM = MAX_ARMS


def make_schema(max_seats: int, num_arms: int, num_actions: int) -> Schema:
    """The schema of one game: the same columns for every game, sized by its seats, arms and actions."""
    return Schema(
        "family", DOUBLE_NINE, max_seats=max_seats, num_actions=num_actions, max_history=MAX_HISTORY,
        num_arms=num_arms,
        table=("SETTER", "SET_TILE", "NARMS", "CROSS_DONE", "DRAWN", "PLACED_TURN", "EXTRA", "EXTRA_ARMS",
               "LAST_PLACER", "NEXT_SETTER", "FIRST_DOUBLE", "END", "WINNER", "CLOCK", "BONE_START"),
        table_sets=("PLACED",),
        seat=("LAST_PLACE",),
        seat_sets=("VOID",),
        arm=("EXISTS", "OPEN", "COUNT", "LAST", "DBL_END", "FROM"),
        tile=("PLACER", "ARM", "SPINS"),
    )


#: The schema of the largest game; its column constants are every game's (only sizes differ).
SCHEMA = make_schema(MAX_SEATS, MAX_ARMS, 1)
_CONSTANTS = {k: v for k, v in SCHEMA.constants().items()
              if k.startswith(("T_", "S_", "A_", "L_")) or k in ("NUM_T", "NUM_S", "NUM_A", "NUM_L", "NUM_TSET",
                                                              "NUM_SSET")}
globals().update(_CONSTANTS)  # T_PHASE, T_TO_MOVE, ..., S_HAND, A_OPEN, L_PLACER, ...

# Phases (T_PHASE).
P_SET, P_PLAY, P_OVER, P_NEXT = range(4)  # P_NEXT: the hand is over, the next one not dealt yet
# How a hand ended (T_END).
END_NONE, END_OUT, END_BLOCKED = range(3)

# The runtime settings (CFG[C_*], int64), one array per FamilyTables.
(C_N, C_NT, C_MAXPIP, C_ARMS, C_SEATS, C_LAYOUT, C_MATCH, C_DRAW, C_CROSS_DRAW, C_RESERVE, C_OPENING,
 C_FIRST_SEAT, C_HAND_SIZE, C_BLOCKED_TOTAL, C_ONE_POINT, C_STOCK, C_DBL_ONE, C_ROUND, C_DIV, C_AWARD_BERGEN,
 C_PLAY_SCORE, C_TARGET, C_EXACT, C_TEAMS, C_TEAM_BOTH, C_POD, C_MULTI, C_SPIN_FIRST, C_SIDES, C_PLAY_IDS,
 C_PC_INDEX, C_MATADOR_VOID, C_PHASE_DRAWN) = range(33)
# Observation offsets follow in CFG (O_* are indices into CFG, written from the layout).
(O_NUM_PLAYERS, O_PHASE, O_HAND, O_ON_TABLE, O_PLACER, O_TILE_ARM, O_SET_TILE, O_ARM_EXISTS, O_ARM_OPEN,
 O_ARM_COUNT, O_ARM_PLAYABLE, O_ARM_DOUBLE_END, O_SEAT_PRESENT, O_SEAT_TO_MOVE, O_SEAT_HAND_SIZE,
 O_SEAT_PARTNER, O_SEAT_VOID, O_BONEYARD_SIZE, O_BONEYARD_DRAWABLE, O_SEAT_SCORE, O_TARGET, O_TAIL,
 O_FLOAT_SIZE) = range(33, 56)
NUM_CFG = 56

# Values of the settings.
LAYOUT_LINE, LAYOUT_CROSS, LAYOUT_DN_CROSS, LAYOUT_FIVE_UP = range(4)
MATCH_EQUAL, MATCH_SEVEN = range(2)
DRAW_NONE, DRAW_UNTIL, DRAW_ONE, DRAW_AT_WILL = range(4)
OPEN_HIGHEST_DOUBLE, OPEN_HIGHEST_TILE, OPEN_FREE, OPEN_LOWEST_DOUBLE, OPEN_LOWEST_TILE = range(5)
ROUND_NONE, ROUND_PER_OPPONENT, ROUND_TOTAL = range(3)
SCORE_NONE, SCORE_FIVES, SCORE_FIVES_THREES, SCORE_BERGEN = range(4)
MULTI_NONE, MULTI_MUST, MULTI_MAY = range(3)

# Tile table columns (TT[t, TT_*], int64).
TT_LOW, TT_HIGH, TT_PIPS, TT_DOUBLE, TT_RANK = range(5)
NUM_TT = 5
