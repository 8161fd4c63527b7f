"""Chickenfoot's state on the kernel library's schema (``nos_env/kernels/schema.py``).

One schema per tile set (double-nine: 55 tiles, 24 toes, one set word; double-twelve: 91
tiles, 30 toes, two words) with the same column numbers, so one compiled set of kernels
serves both (the arrays differ only in their lengths).

- ``T``: the pending foot (toes left to fill, its number, the toe it was played on, -1 for
  the set's double chickenfoot, and its first new toe), the toes created so far, for every
  number the bit set of toes open on it (``T_OPENS + d``), the set tile, its number and
  holder, whether the mover has drawn this turn, the hands finished, the match's winner (-1
  none), whether the hand ended blocked, where the hand's yard began in ``BONE``;
- ``S``: the tiles in each hand (a count; the tiles are the common ``HAND`` set);
- ``SSET``: the common ``HAND`` and ``DEALT`` sets, and ``VOID`` (public evidence, CK15);
- ``A``: each toe's open number, tile count and last tile (-1 while empty);
- ``L`` (int8): who placed the tile (-1), its toe (the set: the toe count A).

``BONE`` holds the deal order; the yard is ``BONE[T_BONE_TOP:T_BONE_END]``, top first.
Chips (``S_CHIPS``) are minus the penalty totals (CK12), so a step's chip change is the
points the engines report.
"""

from __future__ import annotations

from ...family.chickenfoot_encoding import MAX_SEATS, num_arms_for
from ...kernels.schema import Schema
from ...kernels.tilesets import DOUBLE_NINE, DOUBLE_TWELVE

#: Decisions kept per hand (the longest random double-twelve hands take a few hundred).
MAX_HISTORY = 2048
MAX_NUMBERS = 13  # double-twelve's 0..12

_COMMON = dict(
    max_seats=MAX_SEATS, max_history=MAX_HISTORY,
    table=("FOOT_LEFT", "FOOT_NUM", "FOOT_K", "FOOT_NEW", "NTOES", ("OPENS", MAX_NUMBERS), "SET_TILE", "SET_NUM",
           "SETTER", "DRAWN", "HANDS_DONE", "WINNER", "BLOCKED", "YARD0"),
    seat=("NHAND",), seat_sets=("VOID",),
    arm=("OPEN", "COUNT", "LAST"),
    tile=("PLACER", "ARM"),
)


def _schema(tiles):
    arms = num_arms_for(tiles.max_pip)
    return Schema("chickenfoot", tiles, num_actions=tiles.num_tiles * arms + tiles.num_tiles + 2, num_arms=arms,
                  **_COMMON)


SCHEMAS = {"double_nine": _schema(DOUBLE_NINE), "double_twelve": _schema(DOUBLE_TWELVE)}
_nine, _twelve = SCHEMAS["double_nine"].constants(), SCHEMAS["double_twelve"].constants()
_SHARED = [k for k in _nine if k[:2] in ("T_", "S_", "A_", "L_") or k in ("NUM_T", "NUM_S", "NUM_A", "NUM_L",
                                                                             "NUM_SSET")]
assert all(_nine[k] == _twelve[k] for k in _SHARED), "column numbers differ between the tile sets"
globals().update({k: _nine[k] for k in _SHARED})
ARRAYS = SCHEMAS["double_nine"].array_names

# Phases (T_PHASE): the contract's observation phases, plus over.
P_PLAY, P_DRAWN, P_OVER = 1, 2, 4

__all__ = ["SCHEMAS", "ARRAYS", "MAX_SEATS", "MAX_HISTORY", "MAX_NUMBERS", "P_PLAY", "P_DRAWN", "P_OVER", *_SHARED]
