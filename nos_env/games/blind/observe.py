"""Blind's observation kernel: ``blind_encoding.encode`` for one table, over arrays.

The layout depends on the tile set, so its offsets come in as a small int64 array
(:func:`offsets`: each slice's start in ``FIELDS`` order, then the compact tail's start and
M + 1); the indices into it (``O_*``) are constants numba folds.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.core.extending import overload

from ...family.blind_encoding import compact_tail_at, observation_layout
from ...kernels.core import KERNEL, rel as _rel
from .state import (
    A_COUNT,
    A_LAST,
    A_OPEN,
    L_ARM,
    L_PLACER,
    L_SEEN,
    MAX_SEATS,
    S_CHIPS,
    S_HEAD,
    S_LEN,
    S_ROW,
    T_BONE_END,
    T_BONE_TOP,
    T_DONE,
    T_PLAYED,
    T_SET_TILE,
    T_TO_MOVE,
    T_TURNED,
)

FIELDS = ("num_players", "phase", "turned_up", "on_table", "placer", "tile_arm", "set_tile", "arm_exists",
          "arm_open", "arm_count", "arm_playable", "arm_double_end", "seat_present", "seat_to_move",
          "seat_hand_size", "seat_unseen", "row_seen", "row_place", "unseen", "set_aside", "seat_score", "target")
(O_NUM_PLAYERS, O_PHASE, O_TURNED, O_ON_TABLE, O_PLACER, O_TILE_ARM, O_SET_TILE, O_ARM_EXISTS, O_ARM_OPEN,
 O_ARM_COUNT, O_ARM_PLAYABLE, O_ARM_DOUBLE_END, O_PRESENT, O_TO_MOVE, O_HSIZE, O_UNSEEN_COUNT, O_ROW_SEEN,
 O_ROW_PLACE, O_UNSEEN, O_SET_ASIDE, O_SCORE, O_TARGET) = range(len(FIELDS))
O_TAIL_AT, O_M1 = len(FIELDS), len(FIELDS) + 1


def offsets(rules) -> np.ndarray:
    layout = observation_layout(rules)
    assert tuple(layout) == FIELDS, "observe.FIELDS must follow blind_encoding.observation_layout"
    return np.array([layout[f][0] for f in FIELDS] + [compact_tail_at(rules), rules.max_pip + 1], np.int64)


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
def encode(T, S, A, L, b, n, seat, obs, O, LOW, HIGH, scale):
    """blind_encoding.encode for one table into obs (zeroed here), float32 or compact uint8."""
    # The offsets as locals: obs and O are both arrays, so numba must assume a write to obs
    # may change O and would read O again after every write.
    o_turned, o_on_table, o_placer, o_tile_arm = O[O_TURNED], O[O_ON_TABLE], O[O_PLACER], O[O_TILE_ARM]
    o_unseen, o_row_seen, o_row_place = O[O_UNSEEN], O[O_ROW_SEEN], O[O_ROW_PLACE]
    o_present, o_to_move, o_hsize, o_unseen_count = O[O_PRESENT], O[O_TO_MOVE], O[O_HSIZE], O[O_UNSEEN_COUNT]
    o_score, tail_at, m1 = O[O_SCORE], O[O_TAIL_AT], O[O_M1]
    for i in range(obs.shape[0]):
        obs[i] = 0
    nt = LOW.shape[0]
    obs[O[O_NUM_PLAYERS] + n - 2] = 1
    if not T[b, T_DONE]:
        obs[O[O_PHASE] + (3 if T[b, T_PLAYED] else 1)] = 1
    turned = T[b, T_TURNED]
    if turned >= 0:
        obs[o_turned + turned] = 1
    for t in range(nt):
        placer = L[b, t, L_PLACER]
        if placer >= 0:
            obs[o_on_table + t] = 1
            obs[o_placer + t * MAX_SEATS + _rel(placer, seat, n)] = 1
            obs[o_tile_arm + t * 3 + L[b, t, L_ARM]] = 1
        if not L[b, t, L_SEEN]:
            obs[o_unseen + t] = 1
    st = T[b, T_SET_TILE]
    if st >= 0:
        obs[O[O_SET_TILE] + st] = 1
        o_exists, o_open, o_count = O[O_ARM_EXISTS], O[O_ARM_OPEN], O[O_ARM_COUNT]
        o_playable, o_double = O[O_ARM_PLAYABLE], O[O_ARM_DOUBLE_END]
        for arm in range(2):
            e = A[b, arm, A_OPEN]
            obs[o_exists + arm] = 1
            obs[o_open + arm * m1 + e] = 1
            obs[o_count + arm] = A[b, arm, A_COUNT]
            if turned >= 0 and (LOW[turned] == e or HIGH[turned] == e):
                obs[o_playable + arm] = 1
            last = A[b, arm, A_LAST]
            if LOW[last] == HIGH[last]:
                obs[o_double + arm] = 1
    k = T[b, T_BONE_TOP] // n
    to_move = T[b, T_TO_MOVE]
    for s in range(n):
        r = _rel(s, seat, n)
        obs[o_present + r] = 1
        if to_move == s:
            obs[o_to_move + r] = 1
        head, length = S[b, s, S_HEAD], S[b, s, S_LEN]
        obs[o_hsize + r] = length
        unseen = 0
        for i in range(length):
            at = head + i
            at = at - k if at >= k else at
            t = S[b, s, S_ROW + at]
            if L[b, t, L_SEEN]:  # an unseen tile's identity is never read
                obs[o_row_seen + r * nt + t] = 1
                obs[o_row_place + r * nt + t] = i + 1
            else:
                unseen += 1
        obs[o_unseen_count + r] = unseen
        _put_score(obs, o_score + r, r, S[b, s, S_CHIPS], scale, tail_at)
    obs[O[O_SET_ASIDE]] = T[b, T_BONE_END] - T[b, T_BONE_TOP]
