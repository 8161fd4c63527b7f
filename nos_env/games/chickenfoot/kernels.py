"""Chickenfoot's rule kernels, read beside ``nos_env/family/chickenfoot.py`` (same names, same order).

Tile tables come in as arguments (``LOW``, ``HIGH``: int64 [N]; ``SUIT``: uint64 [M+1, W],
the tiles carrying each number as a set; ``DOUBLE_OF``: int64 [M+1]), so one compiled kernel
serves both tile sets. Hands and the void evidence are W-word tile sets (``kernels/bits.py``).
Which toes are open on a number is kept as a bit set per number (``T_OPENS + d``), so the
legal plays of a tile are one OR of two columns.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...kernels import core
from ...kernels.bits import low_bit, words_add, words_has, words_remove
from ...kernels.core import INLINE
from .state import (
    A_COUNT, A_LAST, A_OPEN, L_ARM, L_PLACER, P_DRAWN, P_OVER, P_PLAY, S_CHIPS, S_CHIPS_EPISODE, S_CHIPS_HAND,
    S_DEALT, S_HAND, S_NHAND, S_PENDING, S_VOID, T_BLOCKED, T_BONE_END, T_BONE_TOP, T_DONE, T_DRAWN, T_FOOT_K,
    T_FOOT_LEFT, T_FOOT_NEW, T_FOOT_NUM, T_HAND_INDEX, T_HANDS_DONE, T_NHIST, T_NLEGAL, T_NTOES, T_OPENS, T_PHASE,
    T_SET_NUM, T_SET_TILE, T_SETTER, T_TO_MOVE, T_WINNER, T_YARD0,
)

#: CK12
ZERO_ZERO_PENALTY = 50
_ONE = np.uint64(1)


# ------------------------------------------------------------------ the rules
@njit(**INLINE)
def foot_toe(T, b):
    """CK6/CK7: the toe to fill next (-1: no foot pending). The set's six in order; a later
    double's straight toe, then its two new ones."""
    left = T[b, T_FOOT_LEFT]
    if left == 0:
        return -1
    k = T[b, T_FOOT_K]
    if k < 0:
        return 6 - left
    if left == 3:
        return k
    return T[b, T_FOOT_NEW] + (2 - left)


@njit(**INLINE)
def fitting_word(T, SUIT, b, w):
    """Word w of F (CK15): every tile that fits a place open now."""
    if T[b, T_FOOT_LEFT] > 0:
        return SUIT[T[b, T_FOOT_NUM], w]
    f = np.uint64(0)
    for d in range(SUIT.shape[0]):
        if T[b, T_OPENS + d] != 0:
            f |= SUIT[d, w]
    return f


@njit(**INLINE)
def _toes_for(T, LOW, HIGH, b, t):
    """The toes (a bit set) tile t may go on now."""
    if T[b, T_FOOT_LEFT] > 0:
        if LOW[t] == T[b, T_FOOT_NUM] or HIGH[t] == T[b, T_FOOT_NUM]:
            return 1 << foot_toe(T, b)
        return 0
    return T[b, T_OPENS + LOW[t]] | T[b, T_OPENS + HIGH[t]]


@njit(**INLINE)
def _blocked(T, SSET, SUIT, b, n):
    """CK11: the yard is empty and no tile in any hand fits a place open now."""
    if T[b, T_BONE_TOP] < T[b, T_BONE_END]:
        return False
    for w in range(SSET.shape[3]):
        f = fitting_word(T, SUIT, b, w)
        for s in range(n):
            if SSET[b, s, S_HAND, w] & f:
                return False
    return True


@njit(**INLINE)
def _hand_penalty(SSET, LOW, HIGH, b, s):
    """CK12: the pips in hand, +50 with the [0-0] (tile 0)."""
    pen = 0
    for w in range(SSET.shape[3]):
        word = SSET[b, s, S_HAND, w]
        while word:
            t = 64 * w + low_bit(word)
            pen += LOW[t] + HIGH[t]
            word &= word - _ONE
    if SSET[b, s, S_HAND, 0] & _ONE:
        pen += ZERO_ZERO_PENALTY
    return pen


@njit(**INLINE)
def _next(T, b, n):
    T[b, T_TO_MOVE] = core.after(T[b, T_TO_MOVE], 1, n)
    T[b, T_DRAWN] = 0
    T[b, T_PHASE] = P_PLAY


# ------------------------------------------------------------------ a hand
@njit(**INLINE)
def open_hand(T, S, SSET, A, L, b, n, set_number, setter, LOW, HIGH, SUIT, DOUBLE_OF):
    """From the dealt hands (SSET HAND = DEALT) and the yard (BONE from T_BONE_TOP): CK4's set
    placed by its holder, CK6's six toes waiting for its number, the seat to his left to move."""
    nt = LOW.shape[0]
    for t in range(nt):
        L[b, t, L_PLACER] = -1
        L[b, t, L_ARM] = -1
    for s in range(n):
        for w in range(SSET.shape[3]):
            SSET[b, s, S_VOID, w] = 0
        S[b, s, S_CHIPS_HAND] = S[b, s, S_CHIPS]
    t = DOUBLE_OF[set_number]
    words_remove(SSET[b, setter, S_HAND], t)
    S[b, setter, S_NHAND] -= 1
    L[b, t, L_PLACER] = setter
    L[b, t, L_ARM] = A.shape[1]
    T[b, T_SET_TILE] = t
    T[b, T_SET_NUM] = set_number
    T[b, T_SETTER] = setter
    for d in range(SUIT.shape[0]):
        T[b, T_OPENS + d] = 0
    for k in range(A.shape[1]):
        A[b, k, A_OPEN] = 0
        A[b, k, A_COUNT] = 0
        A[b, k, A_LAST] = -1
    for k in range(6):
        A[b, k, A_OPEN] = set_number
    T[b, T_OPENS + set_number] = 63
    T[b, T_NTOES] = 6
    T[b, T_FOOT_LEFT] = 6
    T[b, T_FOOT_NUM] = set_number
    T[b, T_FOOT_K] = -1
    T[b, T_FOOT_NEW] = 0
    T[b, T_TO_MOVE] = core.after(setter, 1, n)
    T[b, T_DRAWN] = 0
    T[b, T_BLOCKED] = 0
    T[b, T_NHIST] = 0
    T[b, T_PHASE] = P_PLAY
    if _blocked(T, SSET, SUIT, b, n):  # F13: checked after the set too
        T[b, T_BLOCKED] = 1
        return True
    return False


@njit(**INLINE)
def _find_set(T, BONE, b, n, k, hand_index, redeal, M, DOUBLE_OF):
    """CK4/CK5: (set number, holder) of the dealt hands, or (-1, -1): deal again."""
    d = M - hand_index if hand_index <= M else hand_index - M
    low = d if redeal else 0
    for c in range(d, low - 1, -1):
        t = DOUBLE_OF[c]
        for i in range(n * k):
            if BONE[b, i] == t:
                return c, i // k
    return -1, -1


@njit(**INLINE)
def deal_hand(T, S, SSET, A, L, BONE, R, b, n, k, hand_index, redeal, LOW, HIGH, SUIT, DOUBLE_OF):
    """CK3/CK5: shuffle, deal k tiles a seat, until the hand's set can be placed; then open it.
    Returns whether the hand is over at once (blocked)."""
    nt = LOW.shape[0]
    M = SUIT.shape[0] - 1
    while True:
        for i in range(nt):
            BONE[b, i] = i
        for i in range(nt - 1, 0, -1):
            j = core.below(R, b, i + 1)
            x = BONE[b, i]
            BONE[b, i] = BONE[b, j]
            BONE[b, j] = x
        c, holder = _find_set(T, BONE, b, n, k, hand_index, redeal, M, DOUBLE_OF)
        if c >= 0:
            break
    for s in range(n):
        for w in range(SSET.shape[3]):
            SSET[b, s, S_HAND, w] = 0
            SSET[b, s, S_DEALT, w] = 0
        for i in range(k):
            t = BONE[b, s * k + i]
            words_add(SSET[b, s, S_HAND], t)
            words_add(SSET[b, s, S_DEALT], t)
        S[b, s, S_NHAND] = k
    T[b, T_BONE_TOP] = n * k
    T[b, T_BONE_END] = nt
    T[b, T_YARD0] = n * k
    T[b, T_HAND_INDEX] = hand_index
    return open_hand(T, S, SSET, A, L, b, n, c, holder, LOW, HIGH, SUIT, DOUBLE_OF)


@njit(**INLINE)
def settle(T, S, SSET, A, L, BONE, R, b, n, k, num_hands, redeal, LOW, HIGH, SUIT, DOUBLE_OF):
    """A finished hand (T_PHASE == P_OVER) is scored (CK12); the match ends after its last hand
    (CK13), else the next hand is dealt at once (contract choice 6)."""
    while T[b, T_PHASE] == P_OVER and not T[b, T_DONE]:
        for s in range(n):
            S[b, s, S_CHIPS] -= _hand_penalty(SSET, LOW, HIGH, b, s)
        T[b, T_HANDS_DONE] += 1
        if T[b, T_HANDS_DONE] >= num_hands:
            T[b, T_DONE] = 1
            T[b, T_TO_MOVE] = -1
            best, winner = -(1 << 30), -1
            for s in range(n):  # CK13: the lowest total (the highest chips); shared: nobody
                c = S[b, s, S_CHIPS]
                if c > best:
                    best, winner = c, s
                elif c == best:
                    winner = -1
            T[b, T_WINNER] = winner
            return
        if deal_hand(T, S, SSET, A, L, BONE, R, b, n, k, T[b, T_HANDS_DONE], redeal, LOW, HIGH, SUIT, DOUBLE_OF):
            T[b, T_PHASE] = P_OVER


@njit(**INLINE)
def new_episode(T, S, SSET, A, L, BONE, R, b, n, k, num_hands, redeal, LOW, HIGH, SUIT, DOUBLE_OF):
    """A new match from the table's stream (the module docstring of chickenfoot.py)."""
    for s in range(S.shape[1]):
        S[b, s, S_CHIPS] = 0
        S[b, s, S_CHIPS_HAND] = 0
        S[b, s, S_CHIPS_EPISODE] = 0
        S[b, s, S_PENDING] = 0
        S[b, s, S_NHAND] = 0
        for w in range(SSET.shape[3]):
            SSET[b, s, S_HAND, w] = 0
            SSET[b, s, S_DEALT, w] = 0
            SSET[b, s, S_VOID, w] = 0
    T[b, T_DONE] = 0
    T[b, T_WINNER] = -1
    T[b, T_HANDS_DONE] = 0
    if deal_hand(T, S, SSET, A, L, BONE, R, b, n, k, 0, redeal, LOW, HIGH, SUIT, DOUBLE_OF):
        T[b, T_PHASE] = P_OVER
        settle(T, S, SSET, A, L, BONE, R, b, n, k, num_hands, redeal, LOW, HIGH, SUIT, DOUBLE_OF)


@njit(**INLINE)
def compute_mask(T, SSET, A, MASK, LEGAL, b, LOW, HIGH):
    """CK8: the plays (sorted: tile, then toe), else DRAW (not drawn yet, yard not empty), else PASS."""
    for i in range(T[b, T_NLEGAL]):
        MASK[b, LEGAL[b, i]] = 0
    count = 0
    if not T[b, T_DONE]:
        p = T[b, T_TO_MOVE]
        na = A.shape[1]
        nt = LOW.shape[0]
        for w in range(SSET.shape[3]):
            word = SSET[b, p, S_HAND, w]
            while word:
                t = 64 * w + low_bit(word)
                word &= word - _ONE
                toes = _toes_for(T, LOW, HIGH, b, t)
                while toes:
                    kk = low_bit(toes)
                    toes &= toes - 1
                    count = core.allow(MASK, LEGAL, b, count, t * na + kk)
        if count == 0:
            if not T[b, T_DRAWN] and T[b, T_BONE_TOP] < T[b, T_BONE_END]:
                count = core.allow(MASK, LEGAL, b, count, nt * na + nt)
            else:
                count = core.allow(MASK, LEGAL, b, count, nt * na + nt + 1)
    T[b, T_NLEGAL] = count


@njit(**INLINE)
def apply_action(T, S, SSET, A, L, BONE, b, n, a, LOW, HIGH, SUIT):
    """A legal action of the seat to move (``ChickenfootHand.apply``). Marks a finished hand
    with T_PHASE = P_OVER (``settle`` scores it)."""
    p = T[b, T_TO_MOVE]
    na = A.shape[1]
    nt = LOW.shape[0]
    W = SSET.shape[3]
    if a == nt * na + nt:  # DRAW (CK8); CK15: a stuck draw, void = F
        for w in range(W):
            SSET[b, p, S_VOID, w] = fitting_word(T, SUIT, b, w)
        t = BONE[b, T[b, T_BONE_TOP]]
        T[b, T_BONE_TOP] += 1
        words_add(SSET[b, p, S_HAND], t)
        S[b, p, S_NHAND] += 1
        T[b, T_DRAWN] = 1
        T[b, T_PHASE] = P_DRAWN
    elif a == nt * na + nt + 1:  # PASS; CK15: void |= F
        for w in range(W):
            SSET[b, p, S_VOID, w] |= fitting_word(T, SUIT, b, w)
        _next(T, b, n)
    else:
        t = a // na
        k = a - t * na
        words_remove(SSET[b, p, S_HAND], t)
        S[b, p, S_NHAND] -= 1
        lo, hi = LOW[t], HIGH[t]
        old = A[b, k, A_OPEN]
        new = hi if old == lo else lo
        T[b, T_OPENS + old] &= ~(1 << k)
        T[b, T_OPENS + new] |= 1 << k
        A[b, k, A_OPEN] = new
        A[b, k, A_COUNT] += 1
        A[b, k, A_LAST] = t
        L[b, t, L_PLACER] = p
        L[b, t, L_ARM] = k
        if T[b, T_FOOT_LEFT] > 0:
            T[b, T_FOOT_LEFT] -= 1
        elif lo == hi:  # CK7: toe k goes on beyond the double, two new toes
            nw = T[b, T_NTOES]
            for j in range(nw, nw + 2):
                A[b, j, A_OPEN] = lo
                A[b, j, A_COUNT] = 0
                A[b, j, A_LAST] = -1
                T[b, T_OPENS + lo] |= 1 << j
            T[b, T_NTOES] = nw + 2
            T[b, T_FOOT_LEFT] = 3
            T[b, T_FOOT_NUM] = lo
            T[b, T_FOOT_K] = k
            T[b, T_FOOT_NEW] = nw
        if S[b, p, S_NHAND] == 0:  # he went out
            T[b, T_PHASE] = P_OVER
            return
        _next(T, b, n)
    if _blocked(T, SSET, SUIT, b, n):
        T[b, T_BLOCKED] = 1
        T[b, T_PHASE] = P_OVER
