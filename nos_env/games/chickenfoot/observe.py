"""Chickenfoot's observation kernel: ``chickenfoot_encoding.encode`` for one table, over arrays.

The layout depends on the tile set, so its offsets come in as a small int64 array
(:func:`offsets`: each slice's start in ``FIELDS`` order, then the compact tail's start, the
number of hands of the match and M + 1); the indices into it (``O_*``) are constants numba folds.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.core.extending import overload

from ...family.chickenfoot_encoding import MAX_SEATS, compact_scores_at, observation_layout
from ...kernels.bits import low_bit
from ...kernels.core import KERNEL, rel as _rel
from .kernels import foot_toe
from .state import (
    A_COUNT, A_LAST, A_OPEN, L_ARM, L_PLACER, S_CHIPS, S_HAND, S_NHAND, S_VOID, T_BONE_END, T_BONE_TOP, T_DONE,
    T_DRAWN, T_FOOT_LEFT, T_FOOT_NUM, T_HANDS_DONE, T_NTOES, T_PHASE, T_SET_TILE, T_TO_MOVE,
)
from .state import P_OVER

FIELDS = ("num_players", "phase", "hand", "on_table", "placer", "tile_arm", "set_tile", "arm_exists", "arm_open",
          "arm_count", "arm_playable", "arm_double_end", "seat_present", "seat_to_move", "seat_hand_size",
          "seat_partner", "seat_void", "boneyard_size", "boneyard_drawable", "foot_left", "foot_number", "foot_toe",
          "hand_number", "hands_left", "seat_score", "target")
(O_NUM_PLAYERS, O_PHASE, O_HAND, O_ON_TABLE, O_PLACER, O_TILE_ARM, O_SET_TILE, O_ARM_EXISTS, O_ARM_OPEN,
 O_ARM_COUNT, O_ARM_PLAYABLE, O_ARM_DOUBLE_END, O_PRESENT, O_TO_MOVE, O_HSIZE, O_PARTNER, O_VOID, O_BONE_SIZE,
 O_BONE_DRAWABLE, O_FOOT_LEFT, O_FOOT_NUMBER, O_FOOT_TOE, O_HAND_NUMBER, O_HANDS_LEFT, O_SCORE,
 O_TARGET) = range(len(FIELDS))
O_TAIL_AT, O_NUM_HANDS, O_M1 = len(FIELDS), len(FIELDS) + 1, len(FIELDS) + 2

_ONE = np.uint64(1)


def offsets(rules) -> np.ndarray:
    layout = observation_layout(rules)
    assert tuple(layout) == FIELDS, "observe.FIELDS must follow chickenfoot_encoding.observation_layout"
    return np.array([layout[f][0] for f in FIELDS] + [compact_scores_at(rules), rules.num_hands, rules.max_pip + 1],
                    np.int64)


def _put_score(obs, slot, k, value, scale, tail_at):
    """Tail value k (seat_score by offset, then target): value / scale in a float32 row, the
    int32 in a compact row's tail. numba picks the body by the row's dtype."""


@overload(_put_score, inline="always")
def _put_score_typed(obs, slot, k, value, scale, tail_at):
    if obs.dtype == types.uint8:
        def compact(obs, slot, k, value, scale, tail_at):
            v = np.uint32(np.int32(value))
            at = tail_at + 4 * k
            obs[at] = v & 0xFF
            obs[at + 1] = (v >> 8) & 0xFF
            obs[at + 2] = (v >> 16) & 0xFF
            obs[at + 3] = v >> 24
        return compact

    def decoded(obs, slot, k, value, scale, tail_at):
        obs[slot] = value / scale
    return decoded


@njit(**KERNEL)
def encode(T, S, SSET, A, L, b, n, seat, obs, O, LOW, HIGH, scale):
    """chickenfoot_encoding.encode for one table into obs (zeroed here), float32 or compact uint8."""
    # The offsets as locals: obs and O are both arrays, so numba must assume a write to obs
    # may change O and would read O again after every write.
    o_hand, o_on_table, o_placer, o_tile_arm = O[O_HAND], O[O_ON_TABLE], O[O_PLACER], O[O_TILE_ARM]
    o_exists, o_open, o_count, o_playable, o_double = (O[O_ARM_EXISTS], O[O_ARM_OPEN], O[O_ARM_COUNT],
                                                       O[O_ARM_PLAYABLE], O[O_ARM_DOUBLE_END])
    o_present, o_to_move, o_hsize, o_void = O[O_PRESENT], O[O_TO_MOVE], O[O_HSIZE], O[O_VOID]
    o_score, tail_at, m1, num_hands = O[O_SCORE], O[O_TAIL_AT], O[O_M1], O[O_NUM_HANDS]
    for i in range(obs.shape[0]):
        obs[i] = 0
    nt = LOW.shape[0]
    na = A.shape[1]
    obs[O[O_NUM_PLAYERS] + n - 2] = 1
    obs[O[O_PHASE] + (2 if T[b, T_DRAWN] else 1)] = 1
    W = SSET.shape[3]
    for w in range(W):
        word = SSET[b, seat, S_HAND, w]
        while word:
            obs[o_hand + 64 * w + low_bit(word)] = 1
            word &= word - _ONE
    for t in range(nt):
        placer = L[b, t, L_PLACER]
        if placer >= 0:
            obs[o_on_table + t] = 1
            obs[o_placer + t * MAX_SEATS + _rel(placer, seat, n)] = 1
            obs[o_tile_arm + t * (na + 1) + L[b, t, L_ARM]] = 1
    obs[O[O_SET_TILE] + T[b, T_SET_TILE]] = 1
    ntoes = T[b, T_NTOES]
    pending = T[b, T_FOOT_LEFT] > 0
    ft = foot_toe(T, b)
    for k in range(ntoes):
        e = A[b, k, A_OPEN]
        obs[o_exists + k] = 1
        obs[o_open + k * m1 + e] = 1
        obs[o_count + k] = A[b, k, A_COUNT]
        if not pending or k == ft:
            obs[o_playable + k] = 1
        last = A[b, k, A_LAST]
        if last >= 0 and LOW[last] == HIGH[last]:
            obs[o_double + k] = 1
    for s in range(n):
        r = _rel(s, seat, n)
        obs[o_present + r] = 1
        obs[o_hsize + r] = S[b, s, S_NHAND]
        for w in range(W):
            word = SSET[b, s, S_VOID, w]
            while word:
                obs[o_void + r * nt + 64 * w + low_bit(word)] = 1
                word &= word - _ONE
        _put_score(obs, o_score + r, r, -S[b, s, S_CHIPS], scale, tail_at)
    if not T[b, T_DONE] and T[b, T_PHASE] != P_OVER:
        obs[o_to_move + _rel(T[b, T_TO_MOVE], seat, n)] = 1
    yard = T[b, T_BONE_END] - T[b, T_BONE_TOP]
    obs[O[O_BONE_SIZE]] = yard
    if yard > 0:
        obs[O[O_BONE_DRAWABLE]] = 1
    if pending:
        obs[O[O_FOOT_LEFT]] = T[b, T_FOOT_LEFT]
        obs[O[O_FOOT_NUMBER] + T[b, T_FOOT_NUM]] = 1
        obs[O[O_FOOT_TOE] + ft] = 1
    done = T[b, T_HANDS_DONE]
    obs[O[O_HAND_NUMBER]] = done
    obs[O[O_HANDS_LEFT]] = num_hands - done
