"""Mexican Train's rule kernels, read beside ``nos_env/family/mexican_train.py`` (same names, same order).

Tile tables come in as arguments (``LOW``, ``HIGH``: int64 [N]; ``SUIT``: uint64 [M+1, words],
the tiles carrying each number as a bit set), so one compiled kernel serves both tile sets.
Hands, void sets and the tiles on the table are bit sets (``state.py``): the legal plays walk
a hand's bits, a blocked round or a stuck player's evidence is a few word operations.
Trains are absolute arms (seat s's train is arm s, the Mexican train arm 8); actions name
them by offset from the player to move (MT13).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...kernels import core
from ...kernels.bits import low_bit
from ...kernels.core import INLINE
from .state import (
    A_COUNT,
    A_LAST,
    A_OPEN,
    ENGINE_ARM,
    L_ARM,
    L_OWNER,
    L_PLACER,
    MEXICAN,
    NUM_ARMS,
    P_CONTINUING,
    P_DRAWN,
    P_OVER,
    P_PLAY,
    S_CHIPS,
    S_CHIPS_EPISODE,
    S_CHIPS_HAND,
    S_COUNT,
    S_HAND,
    S_MARKER,
    S_PENDING,
    S_VOID,
    T_BLOCKED,
    T_BONE_END,
    T_BONE_TOP,
    T_DEAL_HI,
    T_DEAL_LO,
    T_DONE,
    T_DRAWN,
    T_ENGINE,
    T_ENGINE_PIP,
    T_FIRST,
    T_HAND_INDEX,
    T_HANDS_LEFT,
    T_MATCH_HI,
    T_MATCH_LO,
    T_NHIST,
    T_NLEGAL,
    T_ON_TABLE,
    T_OWE,
    T_PHASE,
    T_ROUNDS,
    T_STARTER,
    T_TO_MOVE,
    T_WINNER,
)

OWE_NONE, OWE_SECOND, OWE_THIRD = 0, 1, 2


# ------------------------------------------------------------------ the rules
@njit(**INLINE)
def fits_number(LOW, HIGH, t, e):
    return LOW[t] == e or HIGH[t] == e


@njit(**INLINE)
def ends_in_double(A, LOW, HIGH, b, k):
    """MT7: the train's last tile is a double with nothing beyond (unsatisfied)."""
    last = A[b, k, A_LAST]
    return last >= 0 and LOW[last] == HIGH[last]


@njit(**INLINE)
def _arm_of(j, n):
    """Arm slot j (0..n-1 seat trains, then the Mexican one) as an absolute arm."""
    return MEXICAN if j == n else j


@njit(**INLINE)
def _doubles(A, LOW, HIGH, b, n):
    """The arms ending in an unsatisfied double, as a bit set of absolute arms."""
    out = 0
    for j in range(n + 1):
        k = _arm_of(j, n)
        if ends_in_double(A, LOW, HIGH, b, k):
            out |= 1 << k
    return out


@njit(**INLINE)
def accessible(T, S, A, LOW, HIGH, b, n, seat):
    """The trains ``seat`` may play on now (MT5, MT7, MT8) as a bit set of absolute arms; a
    seat not to move: as at the start of its turn."""
    doubles = _doubles(A, LOW, HIGH, b, n)
    moving = seat == T[b, T_TO_MOVE] and not T[b, T_DONE]
    owe = T[b, T_OWE]
    if moving and owe == OWE_THIRD:
        return doubles
    if not (moving and owe == OWE_SECOND) and doubles != 0:
        return doubles
    out = (1 << seat) | (1 << MEXICAN)
    for s in range(n):
        if S[b, s, S_MARKER]:
            out |= 1 << s
    return out


@njit(**INLINE)
def _ends_of(A, b, n, arms):
    """The open numbers of the trains in ``arms``, as a bit set of numbers."""
    out = 0
    for j in range(n + 1):
        k = _arm_of(j, n)
        if (arms >> k) & 1:
            out |= 1 << A[b, k, A_OPEN]
    return out


@njit(**INLINE)
def _suits(SUIT, numbers, w):
    """Word w of the tiles carrying any number of the bit set ``numbers``."""
    out = np.uint64(0)
    for v in range(SUIT.shape[0]):
        if (numbers >> v) & 1:
            out |= SUIT[v, w]
    return out


@njit(**INLINE)
def _double_follows(A, SSET, LOW, HIGH, SUIT, b, n, p, t):
    """MT8: after double t the player holds a tile (not t) fitting one of the unsatisfied doubles."""
    ends = _ends_of(A, b, n, _doubles(A, LOW, HIGH, b, n)) | (1 << LOW[t])
    for w in range(SSET.shape[3]):
        hand = SSET[b, p, S_HAND, w]
        if w == t >> 6:
            hand &= ~(np.uint64(1) << np.uint64(t & 63))
        if hand & _suits(SUIT, ends, w):
            return True
    return False


@njit(**INLINE)
def _add_plays(T, A, SSET, MASK, LEGAL, b, n, p, t, arms, count, LOW, HIGH, SUIT, owe):
    """Appends the legal plays of tile t (ascending train slot j: ids t*9 + j ascend)."""
    lo, hi = LOW[t], HIGH[t]
    for j in range(NUM_ARMS):
        if j == MEXICAN:
            k = MEXICAN
        elif j < n:
            k = p + j
            k = k - n if k >= n else k
        else:
            continue
        if not (arms >> k) & 1:
            continue
        e = A[b, k, A_OPEN]
        if lo != e and hi != e:
            continue
        if owe == OWE_SECOND and lo == hi and not _double_follows(A, SSET, LOW, HIGH, SUIT, b, n, p, t):
            continue  # MT8
        count = core.allow(MASK, LEGAL, b, count, t * NUM_ARMS + j)
    return count


@njit(**INLINE)
def compute_mask(T, S, A, SSET, MASK, LEGAL, b, n, LOW, HIGH, SUIT):
    """The legal actions, sorted: the plays (MT5-MT8), else DRAW, else PASS (MT6)."""
    for i in range(T[b, T_NLEGAL]):
        MASK[b, LEGAL[b, i]] = 0
    count = 0
    nt = LOW.shape[0]
    if not T[b, T_DONE]:
        p = T[b, T_TO_MOVE]
        arms = accessible(T, S, A, LOW, HIGH, b, n, p)
        owe = T[b, T_OWE]
        drawn = T[b, T_DRAWN]
        if drawn >= 0 and owe != OWE_THIRD:
            count = _add_plays(T, A, SSET, MASK, LEGAL, b, n, p, drawn, arms, count, LOW, HIGH, SUIT, owe)
        else:
            ends = _ends_of(A, b, n, arms)
            for w in range(SSET.shape[3]):  # his tiles that carry an open number, in tile order
                x = SSET[b, p, S_HAND, w] & _suits(SUIT, ends, w)
                while x:
                    t = 64 * w + low_bit(x)
                    x &= x - np.uint64(1)
                    count = _add_plays(T, A, SSET, MASK, LEGAL, b, n, p, t, arms, count, LOW, HIGH, SUIT, owe)
        if count == 0:
            if owe != OWE_THIRD and drawn < 0 and T[b, T_BONE_TOP] < T[b, T_BONE_END]:
                count = core.allow(MASK, LEGAL, b, count, 10 * nt)
            else:
                count = core.allow(MASK, LEGAL, b, count, 10 * nt + 1)
    T[b, T_NLEGAL] = count


@njit(**INLINE)
def _set_phase(T, b):
    if T[b, T_DONE]:
        T[b, T_PHASE] = P_OVER
    elif T[b, T_DRAWN] >= 0:
        T[b, T_PHASE] = P_DRAWN
    elif T[b, T_OWE] != OWE_NONE:
        T[b, T_PHASE] = P_CONTINUING
    else:
        T[b, T_PHASE] = P_PLAY


@njit(**INLINE)
def _stuck_void(T, S, A, SSET, LOW, HIGH, SUIT, b, n, p, replace):
    """MT12: F = the tiles fitting a train p may play on now; a draw sets void[p] = F, a pass adds F."""
    ends = _ends_of(A, b, n, accessible(T, S, A, LOW, HIGH, b, n, p))
    for w in range(SSET.shape[3]):
        f = _suits(SUIT, ends, w)
        SSET[b, p, S_VOID, w] = f if replace else SSET[b, p, S_VOID, w] | f


@njit(**INLINE)
def is_blocked(T, A, SSET, LOW, HIGH, SUIT, b, n):
    """MT10: an empty boneyard and no hand holding a tile that fits the unsatisfied double, or
    (none) any train's open number."""
    if T[b, T_BONE_TOP] < T[b, T_BONE_END]:
        return False
    doubles = _doubles(A, LOW, HIGH, b, n)
    if doubles == 0:
        doubles = (1 << MEXICAN) | ((1 << n) - 1)
    ends = _ends_of(A, b, n, doubles)
    for w in range(SSET.shape[3]):
        f = _suits(SUIT, ends, w)
        for s in range(n):
            if SSET[b, s, S_HAND, w] & f:
                return False
    return True


# ------------------------------------------------------------------ bit sets
@njit(**INLINE)
def _add_bit(TSET, b, which, t):
    TSET[b, which, t >> 6] |= np.uint64(1) << np.uint64(t & 63)


@njit(**INLINE)
def _hand_add(SSET, b, s, t):
    SSET[b, s, S_HAND, t >> 6] |= np.uint64(1) << np.uint64(t & 63)


@njit(**INLINE)
def _hand_remove(SSET, b, s, t):
    SSET[b, s, S_HAND, t >> 6] &= ~(np.uint64(1) << np.uint64(t & 63))


# ------------------------------------------------------------------ rounds
@njit(**INLINE)
def _place_round(T, S, A, L, SSET, TSET, BONE, b, n, k, index, starter, LOW, HIGH):
    """A dealt round (BONE holds the order): hands, trains, markers, the starter to move."""
    nt = LOW.shape[0]
    engine = T[b, T_ENGINE]
    for t in range(nt):
        L[b, t, L_OWNER] = -1
        L[b, t, L_PLACER] = -1
        L[b, t, L_ARM] = -1
    L[b, engine, L_ARM] = ENGINE_ARM
    for w in range(SSET.shape[3]):
        TSET[b, T_ON_TABLE, w] = 0
        for s in range(S.shape[1]):
            SSET[b, s, S_HAND, w] = 0
            SSET[b, s, S_VOID, w] = 0
    _add_bit(TSET, b, T_ON_TABLE, engine)
    for s in range(S.shape[1]):
        S[b, s, S_COUNT] = 0
        S[b, s, S_MARKER] = 0
        S[b, s, S_CHIPS_HAND] = S[b, s, S_CHIPS]
    for s in range(n):
        S[b, s, S_COUNT] = k
        for i in range(k):
            t = BONE[b, s * k + i]
            L[b, t, L_OWNER] = s
            _hand_add(SSET, b, s, t)
    for arm in range(NUM_ARMS):
        A[b, arm, A_OPEN] = T[b, T_ENGINE_PIP]
        A[b, arm, A_COUNT] = 0
        A[b, arm, A_LAST] = -1
    T[b, T_HAND_INDEX] = index
    T[b, T_HANDS_LEFT] = T[b, T_ROUNDS] - 1 - index
    T[b, T_STARTER] = starter
    T[b, T_TO_MOVE] = starter
    T[b, T_OWE] = OWE_NONE
    T[b, T_DRAWN] = -1
    T[b, T_BLOCKED] = 0
    T[b, T_NHIST] = 0
    T[b, T_PHASE] = P_PLAY


@njit(**INLINE)
def deal_round(T, S, A, L, SSET, TSET, BONE, R, b, n, k, index, first_seat, LOW, HIGH, DOUBLE_OF):
    """MT3: the shuffle of the tiles but the engine, then (round 0) the first starter."""
    state = R[b]
    T[b, T_DEAL_LO] = np.int32(np.uint32(state & np.uint64(0xFFFFFFFF)))
    T[b, T_DEAL_HI] = np.int32(np.uint32(state >> np.uint64(32)))
    nt = LOW.shape[0]
    top = DOUBLE_OF.shape[0] - 1  # the engine: the double (M - index), MT1
    engine = DOUBLE_OF[top - index]
    T[b, T_ENGINE] = engine
    T[b, T_ENGINE_PIP] = LOW[engine]
    i = 0
    for t in range(nt):
        if t != engine:
            BONE[b, i] = t
            i += 1
    BONE[b, nt - 1] = engine  # unused slot
    for i in range(nt - 2, 0, -1):
        j = core.below(R, b, i + 1)
        x = BONE[b, i]
        BONE[b, i] = BONE[b, j]
        BONE[b, j] = x
    T[b, T_BONE_TOP] = n * k
    T[b, T_BONE_END] = nt - 1
    if index == 0:
        T[b, T_FIRST] = first_seat if first_seat >= 0 else core.below(R, b, n)
    starter = core.after(T[b, T_FIRST], index % n, n)
    _place_round(T, S, A, L, SSET, TSET, BONE, b, n, k, index, starter, LOW, HIGH)


@njit(**INLINE)
def new_episode(T, S, A, L, SSET, TSET, BONE, R, b, n, k, rounds, first_seat, LOW, HIGH, DOUBLE_OF):
    """A new match from the table's stream (mexican_train.py's docstring)."""
    state = R[b]
    T[b, T_MATCH_LO] = np.int32(np.uint32(state & np.uint64(0xFFFFFFFF)))
    T[b, T_MATCH_HI] = np.int32(np.uint32(state >> np.uint64(32)))
    for s in range(S.shape[1]):
        S[b, s, S_CHIPS] = 0
        S[b, s, S_CHIPS_HAND] = 0
        S[b, s, S_CHIPS_EPISODE] = 0
        S[b, s, S_PENDING] = 0
    T[b, T_DONE] = 0
    T[b, T_WINNER] = -1
    T[b, T_ROUNDS] = rounds
    deal_round(T, S, A, L, SSET, TSET, BONE, R, b, n, k, 0, first_seat, LOW, HIGH, DOUBLE_OF)


@njit(**INLINE)
def _end_round(T, S, A, L, SSET, TSET, BONE, R, b, n, k, LOW, HIGH, DOUBLE_OF):
    """MT11: minus the pips left; then the next round (same step) or the match's end."""
    for t in range(LOW.shape[0]):
        s = L[b, t, L_OWNER]
        if s >= 0:
            S[b, s, S_CHIPS] -= LOW[t] + HIGH[t]
    index = T[b, T_HAND_INDEX]
    if index + 1 < T[b, T_ROUNDS]:
        deal_round(T, S, A, L, SSET, TSET, BONE, R, b, n, k, index + 1, -1, LOW, HIGH, DOUBLE_OF)
        return
    T[b, T_DONE] = 1
    T[b, T_TO_MOVE] = -1
    T[b, T_HANDS_LEFT] = 0
    best, winner = S[b, 0, S_CHIPS], 0
    for s in range(1, n):
        c = S[b, s, S_CHIPS]
        if c > best:
            best, winner = c, s
        elif c == best:
            winner = -1
    T[b, T_WINNER] = winner
    T[b, T_PHASE] = P_OVER


@njit(**INLINE)
def _end_turn(T, S, A, L, SSET, TSET, BONE, R, b, n, k, LOW, HIGH, SUIT, DOUBLE_OF):
    T[b, T_OWE] = OWE_NONE
    T[b, T_DRAWN] = -1
    T[b, T_TO_MOVE] = core.after(T[b, T_TO_MOVE], 1, n)
    if is_blocked(T, A, SSET, LOW, HIGH, SUIT, b, n):  # MT10: checked when a turn ends
        T[b, T_BLOCKED] = 1
        _end_round(T, S, A, L, SSET, TSET, BONE, R, b, n, k, LOW, HIGH, DOUBLE_OF)


@njit(**INLINE)
def _play(T, S, A, L, SSET, TSET, BONE, R, b, n, k, p, t, arm, LOW, HIGH, SUIT, DOUBLE_OF):
    L[b, t, L_OWNER] = -1
    _hand_remove(SSET, b, p, t)
    _add_bit(TSET, b, T_ON_TABLE, t)
    S[b, p, S_COUNT] -= 1
    e = A[b, arm, A_OPEN]
    A[b, arm, A_OPEN] = HIGH[t] if LOW[t] == e else LOW[t]
    A[b, arm, A_COUNT] += 1
    A[b, arm, A_LAST] = t
    L[b, t, L_PLACER] = p
    L[b, t, L_ARM] = arm
    if arm == p:
        S[b, p, S_MARKER] = 0  # MT6
    T[b, T_DRAWN] = -1
    if S[b, p, S_COUNT] == 0:  # MT10: out, at once
        _end_round(T, S, A, L, SSET, TSET, BONE, R, b, n, k, LOW, HIGH, DOUBLE_OF)
        return
    owe = T[b, T_OWE]
    if LOW[t] == HIGH[t] and owe != OWE_THIRD:
        T[b, T_OWE] = OWE_SECOND if owe == OWE_NONE else OWE_THIRD  # MT7, MT8
    else:
        _end_turn(T, S, A, L, SSET, TSET, BONE, R, b, n, k, LOW, HIGH, SUIT, DOUBLE_OF)


@njit(**INLINE)
def apply_action(T, S, A, L, SSET, TSET, BONE, R, b, n, k, a, LOW, HIGH, SUIT, DOUBLE_OF):
    """A legal decision: PLAY(t, train slot j), DRAW or PASS (k: the deal's hand size)."""
    nt = LOW.shape[0]
    p = T[b, T_TO_MOVE]
    if a < NUM_ARMS * nt:
        t = a // NUM_ARMS
        j = a - t * NUM_ARMS
        if j == MEXICAN:
            arm = MEXICAN
        else:
            arm = core.after(p, j, n)
        _play(T, S, A, L, SSET, TSET, BONE, R, b, n, k, p, t, arm, LOW, HIGH, SUIT, DOUBLE_OF)
    elif a == 10 * nt:  # DRAW
        _stuck_void(T, S, A, SSET, LOW, HIGH, SUIT, b, n, p, True)
        top = T[b, T_BONE_TOP]
        t = BONE[b, top]
        T[b, T_BONE_TOP] = top + 1
        L[b, t, L_OWNER] = p
        _hand_add(SSET, b, p, t)
        S[b, p, S_COUNT] += 1
        T[b, T_DRAWN] = t
    else:  # PASS
        _stuck_void(T, S, A, SSET, LOW, HIGH, SUIT, b, n, p, False)
        S[b, p, S_MARKER] = 1
        _end_turn(T, S, A, L, SSET, TSET, BONE, R, b, n, k, LOW, HIGH, SUIT, DOUBLE_OF)
    _set_phase(T, b)
