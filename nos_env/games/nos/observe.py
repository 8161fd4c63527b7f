"""Nos's observation kernel: ``encoding.encode_observation`` for one table, over arrays.

The offsets are ``encoding.OBSERVATION_LAYOUT``'s, as constants numba folds in; the arm
rules, locks and needs come from the rule kernels (``kernels.py``).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.core.extending import overload

from ...encoding import COMPACT_CHIPS_AT, MAX_ARMS, MAX_SEATS, OBSERVATION_LAYOUT
from ...kernels.bits import low_bit as _low_bit, popcount as _popcount
from ...kernels.core import KERNEL, rel as _rel
from .kernels import (
    C_FIRST,
    C_NONE,
    DOUBLE_OF,
    DOUBLES_MASK,
    N_NEEDS,
    SP_BASE,
    SP_COMP,
    SP_COND,
    SP_GAME,
    SP_K,
    SP_KIND,
    SP_LATER,
    SP_NARMS,
    SP_OPEN,
    SP_SIDE,
    SP_SWITCH,
    SP_VOLARM,
    SPEC,
    _arm_needs,
    _is_dead,
    _locked,
    _opening_over,
)
from .state import (
    A_COUNT,
    A_OPEN,
    L_ARM,
    L_IMMEDIATE,
    L_PLACER,
    NT,
    P_DECLARE,
    P_OVER,
    S_CHIPS,
    S_CHIPS_EPISODE,
    S_CHIPS_HAND,
    S_DEALT,
    S_DECLARED,
    S_DREW_ON,
    S_DREW_TILES,
    S_HAND,
    S_NWAITS,
    S_OUT,
    S_PASSED_ON,
    S_PASSED_TILES,
    T_ANN,
    T_BONE_END,
    T_BONE_TOP,
    T_NOS,
    T_ON_SET,
    T_PHASE,
    T_PLACED,
    T_PREV_OUT,
    T_PREV_SEAT,
    T_PREV_TILE,
    T_SET_DRAWN,
    T_SET_TILE,
    T_TO_MOVE,
)

# Observation offsets (encoding.OBSERVATION_LAYOUT), as constants numba folds in.
_O = {name: start for name, (start, _, _) in OBSERVATION_LAYOUT.items()}
O_NUM_PLAYERS, O_PHASE, O_HAND = _O["num_players"], _O["phase"], _O["hand"]
O_LTILES, O_LPLACER, O_LARM, O_LIMM = _O["layout_tiles"], _O["layout_placer"], _O["layout_arm"], _O["layout_immediate"]
O_SET_TILE, O_SET_DRAWN = _O["set_tile"], _O["set_drawn"]
O_ARM_EXISTS, O_ARM_OPEN, O_ARM_RULE, O_ARM_NEEDS = _O["arm_exists"], _O["arm_open"], _O["arm_rule"], _O["arm_needs"]
O_ARM_LOCKED, O_ARM_DEAD, O_ARM_COUNT = _O["arm_locked"], _O["arm_dead"], _O["arm_count"]
O_ANN, O_GAME, O_BASE, O_COND = _O["announcement"], _O["game"], _O["base_rule"], _O["condition"]
O_COND_SIDE, O_COND_K, O_SWITCH, O_VOLARM = _O["condition_side"], _O["condition_k"], _O["switch"], _O["volapuk_ordinary_arm"]
O_LKIND, O_DCROSS = _O["layout_kind"], _O["double_cross"]
O_PRESENT, O_HSIZE, O_OUT, O_NOS, O_WAITS = (_O["seat_present"], _O["seat_hand_size"], _O["seat_out"],
                                            _O["seat_nos"], _O["seat_waits_owed"])
O_ONSET, O_TOMOVE, O_DECLARED, O_FACEUP = _O["seat_on_set"], _O["seat_to_move"], _O["seat_declared"], _O["seat_face_up"]
O_CHIPS, O_HPAY = _O["seat_chips"], _O["seat_hand_payments"]
O_PASSED_ON, O_DREW_ON, O_PASSED_T, O_DREW_T = (_O["seat_passed_on"], _O["seat_drew_on"],
                                              _O["seat_passed_tiles"], _O["seat_drew_tiles"])
O_CLAIM_ARM, O_CLAIM_SEAT, O_BONE, O_BONE_DRAW = (_O["claim_arm"], _O["claim_seat"], _O["boneyard_size"],
                                                 _O["boneyard_drawable"])


# ------------------------------------------------------------- observation
def _put_chips(obs, slot, k, value, chip_scale):
    """Write chip feature ``k`` (0..9: seat_chips then seat_hand_payments) at float slot ``slot``:
    ``value / chip_scale`` there in a float32 row, ``value`` as int32 in a compact row's tail
    (encoding.COMPACT_CHIPS_AT). numba picks the body by the row's dtype when it compiles."""


@overload(_put_chips, inline="always")
def _put_chips_typed(obs, slot, k, value, chip_scale):
    if obs.dtype == types.uint8:
        def compact(obs, slot, k, value, chip_scale):
            v = np.uint32(np.int32(value))  # two's complement, little-endian bytes
            at = COMPACT_CHIPS_AT + 4 * k
            obs[at] = v & 0xFF
            obs[at + 1] = (v >> 8) & 0xFF
            obs[at + 2] = (v >> 16) & 0xFF
            obs[at + 3] = v >> 24
        return compact

    def decoded(obs, slot, k, value, chip_scale):
        obs[slot] = value / chip_scale
    return decoded


@njit(**KERNEL, inline="always")
def _write_bits(obs, start, bits):
    """A one at obs[start + i] for each set bit i of bits."""
    while bits:
        obs[start + _low_bit(bits)] = 1
        bits &= bits - 1


@njit(**KERNEL)
def encode(T, S, A, L, b, n, seat, obs, chip_scale):
    """encoding.encode_observation for one table, written into obs (zeroed here): a float32 row
    (OBSERVATION_SIZE) or a compact uint8 row (COMPACT_SIZE, encoding.py), one body for both."""
    for i in range(obs.shape[0]):
        obs[i] = 0
    phase = T[b, T_PHASE]
    obs[O_NUM_PLAYERS + n - 3] = 1
    obs[O_PHASE + phase] = 1
    _write_bits(obs, O_HAND, S[b, seat, S_HAND])
    st = T[b, T_SET_TILE]
    if st >= 0:
        obs[O_SET_TILE + st] = 1
        if T[b, T_SET_DRAWN] >= 0:
            obs[O_SET_DRAWN] = 1
    placed = T[b, T_PLACED]
    while placed:
        t = _low_bit(placed)
        placed &= placed - 1
        placer = L[b, t, L_PLACER]
        if placer >= 0:
            obs[O_LTILES + t] = 1
            obs[O_LPLACER + t * MAX_SEATS + _rel(placer, seat, n)] = 1
            obs[O_LARM + t * (MAX_ARMS + 1) + L[b, t, L_ARM]] = 1
            obs[O_LIMM + t] = L[b, t, L_IMMEDIATE]
    if phase >= P_DECLARE:
        ann = T[b, T_ANN]
        narms = SPEC[ann, SP_NARMS]
        over = _opening_over(T, A, b)
        for arm in range(narms):
            obs[O_ARM_EXISTS + arm] = 1
            obs[O_ARM_OPEN + arm * 7 + A[b, arm, A_OPEN]] = 1
            obs[O_ARM_RULE + arm * 2 + (SPEC[ann, SP_LATER + arm] if over else SPEC[ann, SP_OPEN + arm])] = 1
            obs[O_ARM_NEEDS + arm * N_NEEDS + _arm_needs(T, A, b, arm, over)] = 1
            obs[O_ARM_LOCKED + arm] = 1 if _locked(T, A, b, arm) else 0
            obs[O_ARM_DEAD + arm] = 1 if _is_dead(T, A, L, b, arm, over) else 0
            obs[O_ARM_COUNT + arm] = A[b, arm, A_COUNT]
        obs[O_LKIND + SPEC[ann, SP_KIND]] = 1
        obs[O_DCROSS] = SPEC[ann, SP_COMP]
        obs[O_ANN + ann] = 1
        obs[O_GAME + SPEC[ann, SP_GAME] - 1] = 1
        if SPEC[ann, SP_BASE] >= 0:
            obs[O_BASE + SPEC[ann, SP_BASE]] = 1
        cond = SPEC[ann, SP_COND]
        obs[O_COND + cond] = 1
        if cond != C_NONE:
            obs[O_COND_SIDE + SPEC[ann, SP_SIDE]] = 1
            if cond == C_FIRST:
                obs[O_COND_K + SPEC[ann, SP_K] - 1] = 1
        obs[O_SWITCH] = SPEC[ann, SP_SWITCH]
        if SPEC[ann, SP_VOLARM] >= 0:
            obs[O_VOLARM + SPEC[ann, SP_VOLARM]] = 1
    to_move = T[b, T_TO_MOVE]
    for s in range(n):
        r = _rel(s, seat, n)
        obs[O_PRESENT + r] = 1
        obs[O_HSIZE + r] = _popcount(S[b, s, S_HAND])
        obs[O_OUT + r] = S[b, s, S_OUT]
        obs[O_NOS + r] = 1 if T[b, T_NOS] == s else 0
        obs[O_WAITS + r] = S[b, s, S_NWAITS]
        obs[O_ONSET + r] = 1 if T[b, T_ON_SET] == s else 0
        obs[O_TOMOVE + r] = 1 if to_move == s else 0
        obs[O_DECLARED + r] = S[b, s, S_DECLARED]
        if S[b, s, S_DECLARED]:
            face_up = S[b, s, S_DEALT] & S[b, s, S_HAND] & DOUBLES_MASK
            for d in range(7):
                if (face_up >> DOUBLE_OF[d]) & 1:
                    obs[O_FACEUP + r * 7 + d] = 1
        _put_chips(obs, O_CHIPS + r, r, S[b, s, S_CHIPS] - S[b, s, S_CHIPS_EPISODE], chip_scale)
        _put_chips(obs, O_HPAY + r, MAX_SEATS + r, S[b, s, S_CHIPS] - S[b, s, S_CHIPS_HAND], chip_scale)
        _write_bits(obs, O_PASSED_ON + r * 7, S[b, s, S_PASSED_ON])
        _write_bits(obs, O_DREW_ON + r * 7, S[b, s, S_DREW_ON])
        _write_bits(obs, O_PASSED_T + r * NT, S[b, s, S_PASSED_TILES])
        _write_bits(obs, O_DREW_T + r * NT, S[b, s, S_DREW_TILES])
    prev = T[b, T_PREV_TILE]
    if prev < 0 or T[b, T_PREV_OUT] or phase == P_OVER:
        obs[O_CLAIM_ARM + MAX_ARMS + 1] = 1
    else:
        obs[O_CLAIM_ARM + L[b, prev, L_ARM]] = 1
        obs[O_CLAIM_SEAT + _rel(T[b, T_PREV_SEAT], seat, n)] = 1
    size = T[b, T_BONE_END] - T[b, T_BONE_TOP]
    obs[O_BONE] = size
    obs[O_BONE_DRAW] = max(0, size - 2)
