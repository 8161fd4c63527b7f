"""Mexican Train's observation kernel: ``mexican_train_encoding.encode`` for one table, over arrays.

The layout depends on the tile set, so its offsets come in as a small int64 array
(:func:`offsets`: each slice's start in ``FIELDS`` order, then the compact tail's start and
M + 1); the indices into it (``O_*``) are constants numba folds.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from llvmlite import ir
from numba.core.extending import intrinsic, overload

from ...family.mexican_train_encoding import FIELDS, compact_tail_at, observation_layout
from ...kernels.core import INLINE, KERNEL, rel as _rel
from .kernels import accessible, ends_in_double
from .state import (
    A_COUNT,
    A_OPEN,
    MAX_SEATS,
    MEXICAN,
    S_CHIPS,
    S_COUNT,
    S_HAND,
    S_VOID,
    S_MARKER,
    T_BONE_END,
    T_BONE_TOP,
    T_DONE,
    T_ENGINE,
    T_HANDS_LEFT,
    T_ON_TABLE,
    T_PHASE,
    T_TO_MOVE,
)

(O_NUM_PLAYERS, O_PHASE, O_HAND, O_ON_TABLE, O_SET_TILE, O_ARM_EXISTS, O_ARM_OPEN, O_ARM_COUNT, O_ARM_PLAYABLE,
 O_ARM_DOUBLE_END, O_ARM_MARKED, O_PRESENT, O_TO_MOVE, O_HSIZE, O_VOID, O_BONEYARD, O_ROUNDS_LEFT, O_SCORE,
 O_TARGET) = range(len(FIELDS))
O_TAIL_AT, O_M1 = len(FIELDS), len(FIELDS) + 1


def offsets(rules) -> np.ndarray:
    layout = observation_layout(rules)
    assert tuple(layout) == FIELDS
    return np.array([layout[f][0] for f in FIELDS] + [compact_tail_at(rules), rules.max_pip + 1], np.int64)


def _put_score(obs, slot, k, value, scale, tail_at):
    """Tail value k: value / scale in a float32 row, the int32 in a compact row's tail."""


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


#: EXPAND[byte, i]: bit i of byte (the 8 slot values a byte of a bit set stands for);
#: EXPAND8[byte]: the same 8 bytes as one uint64 (little-endian), stored at once in a compact row
EXPAND = np.array([[(x >> i) & 1 for i in range(8)] for x in range(256)], np.uint8)
EXPAND8 = EXPAND.view(np.uint64).ravel().copy()


def _write_bits(obs, at, word, count):
    """Slots at..at+count-1 of obs = bits 0..count-1 of word (count <= 64)."""


@overload(_write_bits, inline="always")
def _write_bits_typed(obs, at, word, count):
    if obs.dtype == types.uint8:
        def compact(obs, at, word, count):
            full = count >> 3
            for j in range(full):  # 8 slots with one unaligned 64-bit store
                row = (word >> np.uint64(8 * j)) & np.uint64(0xFF)
                _store8(obs, at + 8 * j, EXPAND8[row])
            for i in range(8 * full, count):
                obs[at + i] = (word >> np.uint64(i)) & np.uint64(1)
        return compact

    def decoded(obs, at, word, count):
        for i in range(count):
            obs[at + i] = (word >> np.uint64(i)) & np.uint64(1)
    return decoded


@intrinsic
def _store8(typingctx, arr, at, value):
    """An unaligned little-endian 64-bit store of value at byte at of a uint8 array."""
    sig = types.void(arr, types.int64, types.uint64)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = builder.gep(ary.data, [args[1]])
        dst = builder.bitcast(ptr, ir.PointerType(ir.IntType(64)))
        store = builder.store(args[2], dst)
        store.align = 1
        return context.get_dummy_value()
    return sig, codegen


@njit(**KERNEL)
def encode(T, S, A, SSET, TSET, b, n, seat, obs, O, LOW, HIGH, scale):
    """mexican_train_encoding.encode for one table into obs (zeroed here), float32 or compact uint8."""
    o_hand, o_on_table, o_void, o_score = O[O_HAND], O[O_ON_TABLE], O[O_VOID], O[O_SCORE]
    tail_at, m1 = O[O_TAIL_AT], O[O_M1]
    obs[:] = 0
    nt = LOW.shape[0]
    obs[O[O_NUM_PLAYERS] + n - 2] = 1
    to_move = T[b, T_TO_MOVE]
    if not T[b, T_DONE] and to_move == seat:
        obs[O[O_PHASE] + T[b, T_PHASE]] = 1
    # The bit sets written a byte of bits at a time from a table of their 8 slot values
    # (branch-free, 8 slots per lookup: the void rows are the bulk of the observation).
    for w in range(SSET.shape[3]):
        count = min(64, nt - 64 * w)
        _write_bits(obs, o_hand + 64 * w, SSET[b, seat, S_HAND, w], count)
        _write_bits(obs, o_on_table + 64 * w, TSET[b, T_ON_TABLE, w], count)
        for s in range(n):
            _write_bits(obs, o_void + _rel(s, seat, n) * nt + 64 * w, SSET[b, s, S_VOID, w], count)
    obs[O[O_SET_TILE] + T[b, T_ENGINE]] = 1
    arms = accessible(T, S, A, LOW, HIGH, b, n, seat)
    o_exists, o_open, o_count = O[O_ARM_EXISTS], O[O_ARM_OPEN], O[O_ARM_COUNT]
    o_playable, o_double, o_marked = O[O_ARM_PLAYABLE], O[O_ARM_DOUBLE_END], O[O_ARM_MARKED]
    for i in range(n + 1):
        if i == n:
            k = MEXICAN
            j = MEXICAN
        else:
            k = i
            j = _rel(i, seat, n)
        obs[o_exists + j] = 1
        obs[o_open + j * m1 + A[b, k, A_OPEN]] = 1
        obs[o_count + j] = A[b, k, A_COUNT]
        if (arms >> k) & 1:
            obs[o_playable + j] = 1
        if ends_in_double(A, LOW, HIGH, b, k):
            obs[o_double + j] = 1
        if k != MEXICAN and S[b, k, S_MARKER]:
            obs[o_marked + j] = 1
    o_present, o_to_move, o_hsize = O[O_PRESENT], O[O_TO_MOVE], O[O_HSIZE]
    for s in range(n):
        r = _rel(s, seat, n)
        obs[o_present + r] = 1
        if not T[b, T_DONE] and to_move == s:
            obs[o_to_move + r] = 1
        obs[o_hsize + r] = S[b, s, S_COUNT]
        _put_score(obs, o_score + r, r, S[b, s, S_CHIPS], scale, tail_at)
    obs[O[O_BONEYARD]] = T[b, T_BONE_END] - T[b, T_BONE_TOP]
    obs[O[O_ROUNDS_LEFT]] = T[b, T_HANDS_LEFT]
