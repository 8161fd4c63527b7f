"""Nos's state on the kernel library's schema (``nos_env/kernels/schema.py``).

Nos keeps 5 seats, 4 arms and the 28 double-six tiles, so its tile sets are int32
columns of ``T`` and ``S``. Besides the common columns its tables hold:

- ``T``: the setter, the first-hand flag, the set tile and the tile drawn for setting, the
  announcement, the last tile placed (for double claims, section 8) with its placer and
  whether he went out with it, passes in a row (D23), who went nos, how the hand ended,
  the declaring/immediate queue position, the placed tiles, the episode's correct and
  wrong closings;
- ``S``: whether the seat declared (section 6), went out, the arms it owes a wait on
  (immediate doubles), the numbers and tiles it passed or drew on (public information),
  its final count, and its net chips this episode by payment reason (``S_PAY + R_*``);
- ``A``: each arm's tile count, open number and last tile;
- ``L`` (int8): who placed each tile (-1: not on the layout), its arm (4: the set tile),
  whether it was placed at once.

The column constants (``T_PHASE``, ``S_CHIPS``, ``A_OPEN``, ``L_PLACER``, ``NUM_T``, ...)
are module-level ints made from :data:`SCHEMA`, so numba folds them.
"""

from __future__ import annotations

from ...encoding import MAX_ARMS, MAX_SEATS, NUM_ACTIONS
from ...kernels.schema import Schema
from ...kernels.tilesets import DOUBLE_SIX

#: Payment reasons, as in the reference ledger; S[b, seat, S_PAY + reason] is this episode's net.
REASONS = ("set", "declared", "immediate", "double", "nos", "close", "wrong_close", "settlement", "penalty")
R_SET, R_DECLARED, R_IMMEDIATE, R_DOUBLE, R_NOS, R_CLOSE, R_WRONG_CLOSE, R_SETTLEMENT, R_PENALTY = range(9)

SCHEMA = Schema(
    "nos", DOUBLE_SIX, max_seats=MAX_SEATS, num_actions=NUM_ACTIONS,
    # Legal decisions kept per hand (for rebuilding it in the reference engine); a hand has at
    # most about 180. T_NHIST beyond it marks an overflow. Penalised attempts (D16) are not
    # decisions: they are counted in PEN, so a hand of any length fits.
    max_history=256,
    num_arms=MAX_ARMS,
    table=("ON_SET", "FIRST_HAND", "SET_TILE", "SET_DRAWN", "ANN", "PREV_TILE", "PREV_SEAT", "PREV_OUT", "PASSES",
           "NOS", "END", "QPOS", "CLOSE_RIGHT", "CLOSE_WRONG"),
    table_sets=("PLACED",),
    seat=("DECLARED", "OUT", "NWAITS", "WAIT0", "WAIT1", "PASSED_ON", "DREW_ON", "COUNT", ("PAY", len(REASONS))),
    seat_sets=("PASSED_TILES", "DREW_TILES"),
    arm=("COUNT", "OPEN", "LAST"),
    tile=("PLACER", "ARM", "IMMEDIATE"),
)
globals().update(SCHEMA.constants())  # T_PHASE, T_TO_MOVE, ..., S_CHIPS, ..., A_COUNT, L_PLACER, NUM_T, ...
assert [SCHEMA.constants()[k] for k in ("NUM_T", "NUM_S", "NUM_A", "NUM_L")] == [24, 25, 3, 3]  # today's shapes

# Phases, as engine.PHASES.
P_SET, P_ANNOUNCE, P_DECLARE, P_IMMEDIATE, P_PLAY, P_OVER = range(6)

#: What step_batch reports for a finished episode: its last hand's announcement, setter and
#: end, the episode's correct and wrong closings, and every seat's net chips by reason.
F_ANN, F_ON_SET, F_END, F_CLOSE_RIGHT, F_CLOSE_WRONG, F_PAY = range(6)
NUM_F = F_PAY + MAX_SEATS * len(REASONS)

__all__ = ["SCHEMA", "REASONS", "NUM_F", *SCHEMA.constants(),
           *(n for n in dict(globals()) if n[:2] in ("R_", "P_", "F_"))]
