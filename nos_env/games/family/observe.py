"""The family games' observation kernel: ``nos_env.family.encoding.encode`` for one table.

One body writes both forms (the contract's "Observation"): the float32 vector, and the
compact one (every feature one byte at its float index, the scores as little-endian int32
in the 4-byte aligned tail). The slices' offsets come from the game's layout
(``encoding.observation_layout(rules)``) through the settings array (``CFG[O_*]``), so one
compiled kernel serves every game.
"""

from __future__ import annotations

from numba import njit

from ...kernels.bits import low_bit
from ...kernels.core import INLINE, KERNEL, rel
from .kernels import U1, _all_tiles, _drawable, _normal_arms
from .state import (
    A_COUNT, A_DBL_END, A_OPEN, C_ARMS, C_MAXPIP, C_MULTI, C_N, C_NT, C_PC_INDEX, C_SEATS, C_TARGET,
    C_TEAMS, L_ARM, L_PLACER, MULTI_NONE, O_ARM_COUNT, O_ARM_DOUBLE_END, O_ARM_EXISTS, O_ARM_OPEN,
    O_ARM_PLAYABLE, O_BONEYARD_DRAWABLE, O_BONEYARD_SIZE, O_HAND, O_NUM_PLAYERS, O_ON_TABLE, O_PHASE, O_PLACER,
    O_SEAT_HAND_SIZE, O_SEAT_PARTNER, O_SEAT_PRESENT, O_SEAT_SCORE, O_SEAT_TO_MOVE, O_SEAT_VOID, O_SET_TILE,
    O_TAIL, O_TARGET, O_TILE_ARM, P_SET, S_CHIPS, S_HAND, S_VOID, SET_ARM, T_BONE_END, T_BONE_TOP, T_DRAWN,
    T_EXTRA, T_NARMS, T_PHASE, T_PLACED, T_PLACED_TURN, T_SET_TILE, T_TO_MOVE,
)
from ...kernels.bits import popcount

# phase one-hot (the reference engine's OPENING, PLAY, DRAWN, CONTINUING)
PH_OPENING, PH_PLAY, PH_DRAWN, PH_CONTINUING = range(4)


@njit(**INLINE)
def phase_of(T, CFG, b):
    if T[b, T_PHASE] == P_SET:
        return PH_OPENING
    if T[b, T_EXTRA] >= 0 or (CFG[C_MULTI] != MULTI_NONE and T[b, T_PLACED_TURN]):
        return PH_CONTINUING
    if T[b, T_DRAWN]:
        return PH_DRAWN
    return PH_PLAY


@njit(**INLINE)
def _tail(obs, CFG, k, value, compact, scale):
    """An int32 tail feature k (seat scores, then the target): 4 bytes in the compact form,
    value / scale in the float form."""
    if compact:
        at = CFG[O_TAIL] + 4 * k
        v = value & 0xFFFFFFFF
        obs[at] = v & 255
        obs[at + 1] = (v >> 8) & 255
        obs[at + 2] = (v >> 16) & 255
        obs[at + 3] = (v >> 24) & 255
    else:
        i = CFG[O_SEAT_SCORE] + k if k < CFG[C_SEATS] else CFG[O_TARGET]
        obs[i] = value / scale


@njit(**KERNEL)
def encode(T, S, TS, SS, A, L, TT, CFG, b, seat, obs, compact, scale):
    """The observation of ``seat`` at table b into ``obs`` (a row; float32 or compact uint8)."""
    for i in range(obs.shape[0]):
        obs[i] = 0
    n = CFG[C_N]
    N = CFG[C_NT]
    nA = CFG[C_ARMS]
    Sx = CFG[C_SEATS]
    M1 = CFG[C_MAXPIP] + 1
    obs[CFG[O_NUM_PLAYERS] + CFG[C_PC_INDEX]] = 1
    obs[CFG[O_PHASE] + phase_of(T, CFG, b)] = 1
    h = SS[b, seat, S_HAND, 0]
    while h:
        t = low_bit(h)
        h &= h - U1
        obs[CFG[O_HAND] + t] = 1
    p = TS[b, T_PLACED, 0]
    o_on, o_pl, o_ta = CFG[O_ON_TABLE], CFG[O_PLACER], CFG[O_TILE_ARM]
    while p:
        t = low_bit(p)
        p &= p - U1
        obs[o_on + t] = 1
        obs[o_pl + t * Sx + rel(L[b, t, L_PLACER], seat, n)] = 1
        arm = L[b, t, L_ARM]
        obs[o_ta + t * (nA + 1) + (nA if arm == SET_ARM else arm)] = 1
    st = T[b, T_SET_TILE]
    if st >= 0:
        obs[CFG[O_SET_TILE] + st] = 1
    playable = _normal_arms(T, A, CFG, b)
    for a in range(T[b, T_NARMS]):
        obs[CFG[O_ARM_EXISTS] + a] = 1
        obs[CFG[O_ARM_OPEN] + a * M1 + A[b, a, A_OPEN]] = 1
        obs[CFG[O_ARM_COUNT] + a] = A[b, a, A_COUNT]
        if (playable >> a) & 1:
            obs[CFG[O_ARM_PLAYABLE] + a] = 1
        if A[b, a, A_COUNT] > 0 and A[b, a, A_DBL_END]:
            obs[CFG[O_ARM_DOUBLE_END] + a] = 1
    mover = T[b, T_TO_MOVE]
    o_void = CFG[O_SEAT_VOID]
    for s in range(n):
        r = rel(s, seat, n)
        obs[CFG[O_SEAT_PRESENT] + r] = 1
        if s == mover:
            obs[CFG[O_SEAT_TO_MOVE] + r] = 1
        obs[CFG[O_SEAT_HAND_SIZE] + r] = popcount(SS[b, s, S_HAND, 0])
        if CFG[C_TEAMS] and r == 2:
            obs[CFG[O_SEAT_PARTNER] + r] = 1
        v = SS[b, s, S_VOID, 0] & _all_tiles(CFG)
        while v:
            t = low_bit(v)
            v &= v - U1
            obs[o_void + r * N + t] = 1
    size = T[b, T_BONE_END] - T[b, T_BONE_TOP]
    obs[CFG[O_BONEYARD_SIZE]] = size
    if _drawable(T, CFG, b):
        obs[CFG[O_BONEYARD_DRAWABLE]] = 1
    for s in range(n):
        _tail(obs, CFG, rel(s, seat, n), S[b, s, S_CHIPS], compact, scale)
    _tail(obs, CFG, Sx, CFG[C_TARGET], compact, scale)
