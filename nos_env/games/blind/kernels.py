"""Blind's rule kernels, read beside ``nos_env/family/blind.py`` (same names, same order).

Tile tables come in as arguments (``LOW``, ``HIGH``: int64 [N]), so one compiled kernel
serves both tile sets; a row is a circular buffer of capacity k = ⌊N/n⌋ (``state.py``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...kernels import core
from ...kernels.core import INLINE
from .state import (
    A_COUNT,
    A_LAST,
    A_OPEN,
    L_ARM,
    L_OWNER,
    L_PLACER,
    L_POS,
    L_SEEN,
    P_CONTINUING,
    P_OVER,
    P_PLAY,
    S_CHIPS,
    S_CHIPS_EPISODE,
    S_CHIPS_HAND,
    S_HEAD,
    S_LEN,
    S_PENDING,
    S_ROW,
    T_BLOCKED,
    T_BONE_END,
    T_BONE_TOP,
    T_DEAL_HI,
    T_DEAL_LO,
    T_DONE,
    T_HAND_INDEX,
    T_NHIST,
    T_NLEGAL,
    T_PHASE,
    T_PLAYED,
    T_SET_TILE,
    T_STARTER,
    T_TO_MOVE,
    T_TURNED,
    T_WINNER,
)


# ------------------------------------------------------------------- rows
@njit(**INLINE)
def _front(S, b, s):
    return S[b, s, S_ROW + S[b, s, S_HEAD]]


@njit(**INLINE)
def _pop_front(S, L, b, s, k):
    t = S[b, s, S_ROW + S[b, s, S_HEAD]]
    h = S[b, s, S_HEAD] + 1
    S[b, s, S_HEAD] = 0 if h == k else h
    S[b, s, S_LEN] -= 1
    L[b, t, L_OWNER] = -1
    return t


@njit(**INLINE)
def _to_back(S, L, b, s, k):
    """The front tile goes to the bottom of the row (BD5)."""
    head = S[b, s, S_HEAD]
    t = S[b, s, S_ROW + head]
    at = head + S[b, s, S_LEN]
    at = at - k if at >= k else at
    S[b, s, S_ROW + at] = t
    L[b, t, L_POS] = at
    h = head + 1
    S[b, s, S_HEAD] = 0 if h == k else h


# ------------------------------------------------------------------ rules
@njit(**INLINE)
def fits(A, LOW, HIGH, b, t, arm):
    """Equal matching (BD6)."""
    e = A[b, arm, A_OPEN]
    return e == LOW[t] or e == HIGH[t]


@njit(**INLINE)
def _blocked(A, L, LOW, HIGH, b):
    """BD7: no tile in any row fits either open end."""
    e0, e1 = A[b, 0, A_OPEN], A[b, 1, A_OPEN]
    for t in range(LOW.shape[0]):
        if L[b, t, L_OWNER] >= 0:
            lo, hi = LOW[t], HIGH[t]
            if lo == e0 or hi == e0 or lo == e1 or hi == e1:
                return False
    return True


@njit(**INLINE)
def _finish(T, S, b, winner):
    T[b, T_DONE] = 1
    T[b, T_WINNER] = winner
    T[b, T_TO_MOVE] = -1
    T[b, T_TURNED] = -1
    T[b, T_PLAYED] = 0
    T[b, T_PHASE] = P_OVER
    if winner >= 0:  # BD8
        S[b, winner, S_CHIPS] += 1


@njit(**INLINE)
def _finish_blocked(T, S, b, n, LOW, HIGH):
    """BD7/F15: the unique lowest count wins; a shared lowest count: nobody."""
    T[b, T_BLOCKED] = 1
    best, winner = 1 << 30, -1
    for s in range(n):
        c = 0
        head, length = S[b, s, S_HEAD], S[b, s, S_LEN]
        cap = T[b, T_BONE_TOP] // n  # the row capacity k
        for i in range(length):
            at = head + i
            at = at - cap if at >= cap else at
            t = S[b, s, S_ROW + at]
            c += LOW[t] + HIGH[t]
        if c < best:
            best, winner = c, s
        elif c == best:
            winner = -1
    _finish(T, S, b, winner)


@njit(**INLINE)
def finish_if_blocked(T, S, A, L, b, n, LOW, HIGH):
    if _blocked(A, L, LOW, HIGH, b):
        _finish_blocked(T, S, b, n, LOW, HIGH)
        return True
    return False


@njit(**INLINE)
def _play(T, S, A, L, b, n, k, p, t, arm, LOW, HIGH):
    _pop_front(S, L, b, p, k)
    e = A[b, arm, A_OPEN]
    A[b, arm, A_OPEN] = HIGH[t] if e == LOW[t] else LOW[t]
    A[b, arm, A_COUNT] += 1
    A[b, arm, A_LAST] = t
    L[b, t, L_PLACER] = p
    L[b, t, L_ARM] = arm
    T[b, T_PLAYED] = 1
    T[b, T_TURNED] = -1
    if S[b, p, S_LEN] == 0:  # rule 4: the last tile of his row: he wins
        _finish(T, S, b, p)
    else:
        finish_if_blocked(T, S, A, L, b, n, LOW, HIGH)


@njit(**INLINE)
def _next_player(T, b, n):
    T[b, T_TO_MOVE] = core.after(T[b, T_TO_MOVE], 1, n)
    T[b, T_PLAYED] = 0


@njit(**INLINE)
def _advance(T, S, A, L, b, n, k, optional, LOW, HIGH):
    """Turns tiles up (F12) until a decision or the end (rule 3, BD5)."""
    while not T[b, T_DONE]:
        p = T[b, T_TO_MOVE]
        t = _front(S, b, p)
        L[b, t, L_SEEN] = 1
        f0 = fits(A, LOW, HIGH, b, t, 0)
        f1 = fits(A, LOW, HIGH, b, t, 1)
        if not f0 and not f1:
            _to_back(S, L, b, p, k)
            _next_player(T, b, n)
        elif f0 != f1 and not optional:
            _play(T, S, A, L, b, n, k, p, t, 0 if f0 else 1, LOW, HIGH)
        else:
            T[b, T_TURNED] = t
            T[b, T_PHASE] = P_CONTINUING if T[b, T_PLAYED] else P_PLAY
            return


@njit(**INLINE)
def compute_mask(T, A, MASK, LEGAL, b, optional, LOW, HIGH):
    """The legal actions, sorted: PLAY(t, L0), PLAY(t, L1) where t fits, DECLINE last."""
    for i in range(T[b, T_NLEGAL]):
        MASK[b, LEGAL[b, i]] = 0
    count = 0
    t = T[b, T_TURNED]
    if not T[b, T_DONE] and t >= 0:
        for arm in range(2):
            if fits(A, LOW, HIGH, b, t, arm):
                count = core.allow(MASK, LEGAL, b, count, 2 * t + arm)
        if optional:
            count = core.allow(MASK, LEGAL, b, count, 3 * LOW.shape[0] + 1)
    T[b, T_NLEGAL] = count


@njit(**INLINE)
def start_game(T, S, A, L, b, n, k, starter, optional, LOW, HIGH):
    """From dealt rows (S) and tiles (L OWNER/POS): BD4's set, then play up to a decision."""
    for s in range(S.shape[1]):
        S[b, s, S_CHIPS] = 0
        S[b, s, S_CHIPS_HAND] = 0
        S[b, s, S_CHIPS_EPISODE] = 0
        S[b, s, S_PENDING] = 0
    T[b, T_DONE] = 0
    T[b, T_WINNER] = -1
    T[b, T_BLOCKED] = 0
    T[b, T_HAND_INDEX] = 0
    T[b, T_NHIST] = 0
    T[b, T_STARTER] = starter
    t = _pop_front(S, L, b, starter, k)
    L[b, t, L_SEEN] = 1
    L[b, t, L_PLACER] = starter
    L[b, t, L_ARM] = 2
    T[b, T_SET_TILE] = t
    for arm in range(2):
        A[b, arm, A_COUNT] = 0
        A[b, arm, A_LAST] = t
    A[b, 0, A_OPEN] = LOW[t]  # L0 is the low side (BD4)
    A[b, 1, A_OPEN] = HIGH[t]
    T[b, T_TO_MOVE] = core.after(starter, 1, n)
    T[b, T_PLAYED] = 0
    T[b, T_TURNED] = -1
    T[b, T_PHASE] = P_PLAY
    if not finish_if_blocked(T, S, A, L, b, n, LOW, HIGH):
        _advance(T, S, A, L, b, n, k, optional, LOW, HIGH)


@njit(**INLINE)
def new_episode(T, S, A, L, BONE, R, b, n, first_seat, optional, LOW, HIGH):
    """The random stream's order (blind.py's docstring): the deal, then the starter."""
    state = R[b]
    T[b, T_DEAL_LO] = np.int32(np.uint32(state & np.uint64(0xFFFFFFFF)))
    T[b, T_DEAL_HI] = np.int32(np.uint32(state >> np.uint64(32)))
    nt = LOW.shape[0]
    k = nt // n
    for i in range(nt):
        BONE[b, i] = i
    for i in range(nt - 1, 0, -1):
        j = core.below(R, b, i + 1)
        x = BONE[b, i]
        BONE[b, i] = BONE[b, j]
        BONE[b, j] = x
    for t in range(nt):
        L[b, t, L_OWNER] = -1
        L[b, t, L_POS] = 0
        L[b, t, L_SEEN] = 0
        L[b, t, L_PLACER] = -1
        L[b, t, L_ARM] = -1
    for s in range(n):
        S[b, s, S_HEAD] = 0
        S[b, s, S_LEN] = k
        for i in range(k):
            t = BONE[b, s * k + i]
            S[b, s, S_ROW + i] = t
            L[b, t, L_OWNER] = s
            L[b, t, L_POS] = i
    T[b, T_BONE_TOP] = n * k  # the set-aside tiles (BD2)
    T[b, T_BONE_END] = nt
    starter = first_seat if first_seat >= 0 else core.below(R, b, n)
    start_game(T, S, A, L, b, n, k, starter, optional, LOW, HIGH)


@njit(**INLINE)
def apply_action(T, S, A, L, b, n, a, optional, LOW, HIGH):
    """A legal decision: PLAY(turned tile, arm) or DECLINE (BD5), then on to the next decision."""
    k = T[b, T_BONE_TOP] // n
    p = T[b, T_TO_MOVE]
    t = T[b, T_TURNED]
    if a == 3 * LOW.shape[0] + 1:
        _to_back(S, L, b, p, k)
        T[b, T_TURNED] = -1
        _next_player(T, b, n)
    else:
        _play(T, S, A, L, b, n, k, p, t, a & 1, LOW, HIGH)
    _advance(T, S, A, L, b, n, k, optional, LOW, HIGH)
