"""Bit helpers for tile sets in numba kernels, written once for every game.

One-word sets (a tile set of up to 63 tiles in an int32/int64 column): :func:`popcount`
and :func:`low_bit` compile to one machine instruction each (LLVM ctpop/cttz), where a
loop or a table lookup costs a dozen.

Multi-word sets (double-twelve's 91 tiles need two uint64 words, ``TileSet.words``): a set
is a 1-d uint64 array of words (a row of a state array, e.g. ``SETS[b, seat, S_HAND]``),
tile ``t`` at bit ``t % 64`` of word ``t // 64``. :func:`words_has`, :func:`words_add`,
:func:`words_remove`, :func:`words_count`, :func:`words_first` and :func:`words_next`
read and change it in place without allocating.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core.extending import intrinsic

#: Options of the helpers: cached, no reference counting (they keep no array), inlined into
#: the calling kernel.
INLINE = {"cache": True, "_nrt": False, "inline": "always"}


def _bit_codegen(name, *flags):
    """Code generator calling the LLVM bit intrinsic `name` on the argument as an int64."""

    def codegen(context, builder, sig, args):
        value = context.cast(builder, args[0], sig.args[0], types.int64)
        fn = builder.module.declare_intrinsic(name, [ir.IntType(64)] + [ir.IntType(1)] * len(flags))
        return builder.call(fn, [value] + [ir.Constant(ir.IntType(1), f) for f in flags])

    return codegen


@intrinsic
def popcount(typingctx, x):
    """The number of set bits of an integer (LLVM ctpop; a uint64 word counts all 64 bits)."""
    if isinstance(x, types.Integer):
        return types.int64(x), _bit_codegen("llvm.ctpop")


@intrinsic
def low_bit(typingctx, x):
    """The index of the lowest set bit of a non-zero integer (LLVM cttz; zero is undefined)."""
    if isinstance(x, types.Integer):
        return types.int64(x), _bit_codegen("llvm.cttz", 1)


_ONE = np.uint64(1)


@njit(**INLINE)
def words_has(words, t):
    """Whether tile t is in the set."""
    return (words[t >> 6] >> np.uint64(t & 63)) & _ONE != 0


@njit(**INLINE)
def words_add(words, t):
    words[t >> 6] |= _ONE << np.uint64(t & 63)


@njit(**INLINE)
def words_remove(words, t):
    words[t >> 6] &= ~(_ONE << np.uint64(t & 63))


@njit(**INLINE)
def words_count(words):
    """The number of tiles in the set."""
    c = 0
    for w in range(words.shape[0]):
        c += popcount(words[w])
    return c


@njit(**INLINE)
def words_first(words):
    """The lowest tile of the set, or -1 for the empty set."""
    for w in range(words.shape[0]):
        if words[w]:
            return 64 * w + low_bit(words[w])
    return -1


@njit(**INLINE)
def words_next(words, t):
    """The lowest tile of the set above tile t, or -1 (``t = words_first(s)`` then
    ``t = words_next(s, t)`` walks the set in tile order)."""
    t += 1
    w = t >> 6
    if w >= words.shape[0]:
        return -1
    rest = words[w] >> np.uint64(t & 63)
    if rest:
        return t + low_bit(rest)
    for v in range(w + 1, words.shape[0]):
        if words[v]:
            return 64 * v + low_bit(words[v])
    return -1
