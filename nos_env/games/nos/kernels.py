"""Nos's rule kernels: setting, announcing, declaring, playing, closing and paying, over arrays.

These functions are the reference engine (``engine.py``, ``layout.py``) written again over
the struct-of-arrays state of ``state.py``, so numba can compile them. Function names follow
the reference (``_outs`` is ``Layout.outs``, ``_close`` is ``Hand._close``, ...) so the two
can be read side by side; ``tests/test_fast_engine.py`` steps both with the same actions and
compares every mask, reward and observation. The observation is ``observe.py``, the batch
loops ``batch.py``; what every game shares (random streams, legal-action lists, the bit
helpers) comes from ``nos_env.kernels``.

Chips (``S_CHIPS`` ...) and the per-reason nets (``S_PAY``) are int32: the range checks of
``options.py`` keep every value and every difference of them inside it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...announcements import ALL_ANNOUNCEMENTS, MATADOR, game_spec, is_legal_for_set_tile
from ...encoding import (
    ANNOUNCE0,
    CONDITIONS,
    DECLARE,
    DECLINE,
    DRAW,
    MAX_ARMS,
    NEEDS,
    NO_DECLARE,
    NUM_ACTIONS,
    PASS,
    SET0,
    play_index,
    play_parts,
)
from ...engine import CLOSE_PAYMENT, DECLARED_DOUBLES, NOS_PAYMENT, WRONG_CLOSE_PAYMENT
from ...kernels.bits import low_bit as _low_bit, popcount as _popcount
from ...kernels.core import INLINE, KERNEL, after as _after, allow as _allow, below as _below
from ...tiles import (
    ALL_TILES,
    DOUBLE_INDEX,
    DOUBLES_MASK,
    MATADORS_MASK,
    TILE_COUNT,
    TILE_DOUBLE_VALUE,
    TILE_HIGH,
    TILE_IS_DOUBLE,
    TILE_LOW,
    TRIANGLE_MATADORS,
)
from .state import *  # noqa: F403 (the schema's column constants, phases, reasons, F_*)

# The action encoding's play-index formula, compiled as encoding.py defines it (one definition).
_play_index = njit(**INLINE)(play_index)
_play_parts = njit(**INLINE)(play_parts)

# ------------------------------------------------------------------ tables
# Per-tile tables, from tiles.py (one place; the tile order and pips from kernels/tilesets.py).
TA, TB, IS_DOUBLE = TILE_LOW, TILE_HIGH, TILE_IS_DOUBLE
COUNT_VALUE = TILE_COUNT  # section 1: [0-0] counts 14
DOUBLE_VALUE = TILE_DOUBLE_VALUE  # sections 2, 6, 8: [0-0] is 7; 0 for a non-double
DOUBLE_OF = DOUBLE_INDEX  # tile index of [d-d]
# DECLARED[n, doubles]: what each other player pays (0: not eligible)
DECLARED = np.zeros((6, 8), np.int64)
for (_n, _d), _amount in DECLARED_DOUBLES.items():
    DECLARED[_n, _d] = _amount

LINE, CROSS, TRIANGLE = 0, 1, 2
ORD, MAT = 0, 1
C_NONE, C_FHTT, C_FIRST = 0, 1, 2
END_OUT, END_CLOSE, END_BLOCKED = 0, 1, 2

# Per-announcement spec (games.game_spec) as small integers (int8 keeps the table in a few cache lines).
SP_GAME, SP_KIND, SP_NARMS, SP_COMP, SP_COND, SP_SIDE, SP_K, SP_SWITCH, SP_ORDER17, SP_T3 = range(10)
SP_BASE, SP_VOLARM, SP_OPEN, SP_LATER = 10, 11, 12, 16  # opening/later rules: 4 columns each
NSP = 20
SPEC = np.zeros((len(ALL_ANNOUNCEMENTS), NSP), np.int8)
ANN_OK = np.zeros((NT, len(ALL_ANNOUNCEMENTS)), np.bool_)
for _i, _a in enumerate(ALL_ANNOUNCEMENTS):
    _s = game_spec(_a)
    _kind = ("line", "cross", "triangle").index(_s.layout)
    _cond = _s.condition
    SPEC[_i, SP_GAME] = _a.game
    SPEC[_i, SP_KIND] = _kind
    SPEC[_i, SP_NARMS] = 2 if _kind == LINE else 4
    SPEC[_i, SP_COMP] = _s.compulsory
    SPEC[_i, SP_COND] = CONDITIONS.index(_cond.kind) if _cond else C_NONE
    SPEC[_i, SP_SIDE] = _cond.side if _cond else 0
    SPEC[_i, SP_K] = _cond.k if _cond else 0
    SPEC[_i, SP_SWITCH] = _a.switch
    SPEC[_i, SP_ORDER17] = _s.order17
    SPEC[_i, SP_T3] = _s.t3
    SPEC[_i, SP_BASE] = -1 if _a.base is None else (1 if _a.base == MATADOR else 0)
    SPEC[_i, SP_VOLARM] = -1 if _a.ordinary_arm is None else _a.ordinary_arm
    for _arm in range(4):
        _r = _arm if _arm < len(_s.opening) else 0
        SPEC[_i, SP_OPEN + _arm] = int(_s.opening[_r] == MATADOR)
        SPEC[_i, SP_LATER + _arm] = int(_s.later[_r] == MATADOR)
    for _t in range(NT):
        ANN_OK[_t, _i] = is_legal_for_set_tile(_a, ALL_TILES[_t])

N_NEEDS = len(NEEDS)
NEED_MATCHING, NEED_CROSS, NEED_COMP_DOUBLE, NEED_DOUBLE_OR_MAT, NEED_MATADOR, NEED_BLANK, NEED_NOTHING = range(7)
assert NEEDS[NEED_BLANK] == "blank" and NEEDS[NEED_NOTHING] == "nothing_yet"

# What an arm accepts, by "arm code": 0..13 matching by rule r at open e (r*7+e), 14..27 the
# compulsory tile (14+r*7+e), 28 a triangle matador, 29 game 16's blank on T3. ACCEPT is the
# 28-bit set of tiles, SIDES[code, tile] the outward choices as bits (1: lower number out, 2: higher).
CODE_COMPULSORY, CODE_TRIANGLE, CODE_BLANK, NUM_CODES = 14, 28, 29, 30
SIDES = np.zeros((NUM_CODES, NT), np.int8)
ACCEPT = np.zeros(NUM_CODES, np.int64)


def _side_bits(tile, outs):
    return sum(1 << (0 if o == tile[0] else 1) for o in outs)


def _build_accept_tables():
    from ...layout import compulsory_fits, fits

    for r, rule in enumerate(("ordinary", "matador")):
        for e in range(7):
            for i, tile in enumerate(ALL_TILES):
                SIDES[r * 7 + e, i] = _side_bits(tile, fits(rule, tile, e))
                SIDES[CODE_COMPULSORY + r * 7 + e, i] = _side_bits(tile, compulsory_fits(rule, tile, e))
    for i, tile in enumerate(ALL_TILES):
        SIDES[CODE_TRIANGLE, i] = 3 if tile in TRIANGLE_MATADORS else 0
        SIDES[CODE_BLANK, i] = _side_bits(tile, [tile[1]]) if tile[0] == 0 else 0
    for code in range(NUM_CODES):
        ACCEPT[code] = sum(1 << i for i in range(NT) if SIDES[code, i])


_build_accept_tables()


# ------------------------------------------------------------------- layout
@njit(**KERNEL, inline="always")
def _cond_fulfilled(T, A, b):
    ann = T[b, T_ANN]
    cond = SPEC[ann, SP_COND]
    if cond == C_NONE:
        return True
    side = SPEC[ann, SP_SIDE]
    here = A[b, side, A_COUNT]
    if cond == C_FHTT:
        return here > 0 and A[b, 1 - side, A_COUNT] > 0
    return here >= SPEC[ann, SP_K]


@njit(**KERNEL, inline="always")
def _opening_over(T, A, b):
    kind = SPEC[T[b, T_ANN], SP_KIND]
    if kind == CROSS:
        return A[b, 0, A_COUNT] > 0 and A[b, 1, A_COUNT] > 0 and A[b, 2, A_COUNT] > 0 and A[b, 3, A_COUNT] > 0
    if kind == TRIANGLE:
        done = A[b, 0, A_COUNT] > 0 and A[b, 1, A_COUNT] > 0 and A[b, 2, A_COUNT] > 0
        return done and (SPEC[T[b, T_ANN], SP_T3] == 0 or A[b, 3, A_COUNT] > 0)
    return _cond_fulfilled(T, A, b)


@njit(**KERNEL, inline="always")
def _locked(T, A, b, arm):
    ann = T[b, T_ANN]
    cond = SPEC[ann, SP_COND]
    if cond != C_NONE:
        side = SPEC[ann, SP_SIDE]
        here = A[b, side, A_COUNT]
        there = A[b, 1 - side, A_COUNT]
        if cond == C_FHTT:
            if arm == side:
                return here > 0 and there == 0
            return here == 0
        return arm != side and here < SPEC[ann, SP_K]
    if SPEC[ann, SP_ORDER17] and A[b, arm, A_COUNT] == 0:
        if arm == 2:
            return A[b, 0, A_COUNT] == 0
        if arm == 1 or arm == 3:
            return A[b, 0, A_COUNT] == 0 or A[b, 2, A_COUNT] == 0
    return False


@njit(**KERNEL)
def _arm_code(T, A, b, arm, ignore_locks):
    """Layout.outs, per arm: which ACCEPT/SIDES row applies now (-1: the arm takes nothing)."""
    return _arm_code_at(T, A, b, arm, ignore_locks, _opening_over(T, A, b))


@njit(**KERNEL, inline="always")
def _arm_code_at(T, A, b, arm, ignore_locks, over):
    """_arm_code with the layout's opening_over() already known (it is the same for every arm)."""
    if not ignore_locks and _locked(T, A, b, arm):
        return -1
    ann = T[b, T_ANN]
    kind = SPEC[ann, SP_KIND]
    cells = A[b, arm, A_COUNT]
    e = A[b, arm, A_OPEN]
    if kind == LINE:
        return (SPEC[ann, SP_LATER + arm] if over else SPEC[ann, SP_OPEN + arm]) * 7 + e
    if kind == CROSS:
        if not (A[b, 0, A_COUNT] > 0 and A[b, 1, A_COUNT] > 0 and A[b, 2, A_COUNT] > 0 and A[b, 3, A_COUNT] > 0):
            return -1 if cells else SPEC[ann, SP_OPEN + arm] * 7 + e
        return _after_opening_code(T, A, b, arm, e)
    if not (A[b, 0, A_COUNT] > 0 and A[b, 1, A_COUNT] > 0 and A[b, 2, A_COUNT] > 0):
        return CODE_TRIANGLE if (arm < 3 and cells == 0) else -1
    t3 = SPEC[ann, SP_T3]
    if t3 and A[b, 3, A_COUNT] == 0:
        return CODE_BLANK if arm == 3 else -1
    if arm == 3 and not t3:
        return -1
    return _after_opening_code(T, A, b, arm, e)


@njit(**KERNEL, inline="always")
def _after_opening_code(T, A, b, arm, e):
    ann = T[b, T_ANN]
    rule = SPEC[ann, SP_LATER + arm]
    if SPEC[ann, SP_COMP] and A[b, arm, A_COUNT] == 1:
        return CODE_COMPULSORY + rule * 7 + e
    return rule * 7 + e


@njit(**KERNEL)
def _outs(T, A, b, arm, t, ignore_locks):
    """Layout.outs: the outward choices of tile t on arm now, as bits."""
    code = _arm_code(T, A, b, arm, ignore_locks)
    return 0 if code < 0 else SIDES[code, t]


@njit(**KERNEL, inline="always")
def _accepted_anywhere(T, A, b):
    """The tiles some arm accepts now (locks included), as a 28-bit set."""
    narms = SPEC[T[b, T_ANN], SP_NARMS]
    over = _opening_over(T, A, b)
    tiles = 0
    for arm in range(narms):
        code = _arm_code_at(T, A, b, arm, False, over)
        if code >= 0:
            tiles |= ACCEPT[code]
    return tiles


@njit(**KERNEL, inline="always")
def _is_dead(T, A, L, b, arm, over):
    ann = T[b, T_ANN]
    if not SPEC[ann, SP_COMP] or A[b, arm, A_COUNT] != 1 or not over:
        return False
    if SPEC[ann, SP_KIND] == TRIANGLE and arm == 3:
        return False
    end = A[b, arm, A_OPEN]
    if SPEC[ann, SP_LATER + arm] == ORD:
        return L[b, DOUBLE_OF[end], L_PLACER] >= 0
    need = 7 - end
    gone = need > 6 or L[b, DOUBLE_OF[need], L_PLACER] >= 0
    if not gone:
        return False
    return (T[b, T_PLACED] & MATADORS_MASK) == MATADORS_MASK


@njit(**KERNEL, inline="always")
def _arm_needs(T, A, b, arm, over):
    ann = T[b, T_ANN]
    kind = SPEC[ann, SP_KIND]
    cells = A[b, arm, A_COUNT]
    if kind == CROSS and not over:
        return NEED_NOTHING if cells else NEED_CROSS
    if kind == TRIANGLE:
        t3 = SPEC[ann, SP_T3]
        if not (A[b, 0, A_COUNT] > 0 and A[b, 1, A_COUNT] > 0 and A[b, 2, A_COUNT] > 0):
            return NEED_CROSS if (arm < 3 and cells == 0) else NEED_NOTHING
        if arm == 3:
            if not t3:
                return NEED_NOTHING
            if cells == 0:
                return NEED_BLANK
        elif t3 and A[b, 3, A_COUNT] == 0:
            return NEED_NOTHING
    rule = SPEC[ann, SP_LATER + arm] if over else SPEC[ann, SP_OPEN + arm]
    if SPEC[ann, SP_COMP] and cells == 1 and kind != LINE:
        return NEED_COMP_DOUBLE if rule == ORD else NEED_DOUBLE_OR_MAT
    if rule == MAT and A[b, arm, A_OPEN] == 0:
        return NEED_MATADOR
    return NEED_MATCHING


# ----------------------------------------------------------------- payments
@njit(**KERNEL, inline="always")
def _pay(S, b, payer, payee, amount, reason):
    S[b, payer, S_CHIPS] -= amount
    S[b, payee, S_CHIPS] += amount
    S[b, payer, S_PAY + reason] -= amount  # this episode's net chips by reason
    S[b, payee, S_PAY + reason] += amount


@njit(**KERNEL, inline="always")
def _holders(S, b, n):
    c = 0
    for s in range(n):
        if S[b, s, S_HAND] != 0:
            c += 1
    return c


@njit(**KERNEL, inline="always")
def _next_in_game(S, b, n, seat):
    for i in range(1, n + 1):
        s = _after(seat, i, n)
        if S[b, s, S_OUT] == 0:
            return s
    return -1


# ------------------------------------------------------------- legal masks
@njit(**KERNEL, inline="always")
def compute_mask(T, S, A, MASK, LEGAL, b, n):
    """Hand.legal_actions as a mask row and as a sorted list (LEGAL[b, :count]); returns (and
    keeps in T_NLEGAL) the number of legal actions."""
    count = _compute_mask(T, S, A, MASK, LEGAL, b, n)
    T[b, T_NLEGAL] = count
    return count


@njit(**KERNEL, inline="always")
def _pack_code(code, arm):
    return (code + 1) << (8 * arm)  # +1: a zero byte means the arm takes nothing


@njit(**KERNEL, inline="always")
def _unpack_code(codes, arm):
    return ((codes >> (8 * arm)) & 255) - 1


@njit(**KERNEL, inline="always")
def _compute_mask(T, S, A, MASK, LEGAL, b, n):
    # Actions are appended in index order (SET0 < DRAW < ANNOUNCE0 < ... < DECLINE < PLAY0 < PASS,
    # plays by tile, then arm, side and close), so LEGAL stays sorted.
    for i in range(NUM_ACTIONS):
        MASK[b, i] = 0
    phase = T[b, T_PHASE]
    seat = T[b, T_TO_MOVE]
    if phase == P_OVER:
        return 0
    count = 0
    if phase == P_SET:
        hand = S[b, seat, S_HAND]
        if T[b, T_FIRST_HAND]:
            for d in range(6, -1, -1):
                if (hand >> DOUBLE_OF[d]) & 1:
                    return _allow(MASK, LEGAL, b, 0, SET0 + DOUBLE_OF[d])
        if T[b, T_SET_DRAWN] >= 0:
            return _allow(MASK, LEGAL, b, 0, SET0 + T[b, T_SET_DRAWN])
        for d in range(7):
            if (hand >> DOUBLE_OF[d]) & 1:
                count = _allow(MASK, LEGAL, b, count, SET0 + DOUBLE_OF[d])
        if count == 0:
            count = _allow(MASK, LEGAL, b, 0, DRAW)
        return count
    if phase == P_ANNOUNCE:
        st = T[b, T_SET_TILE]
        for i in range(ANN_OK.shape[1]):
            if ANN_OK[st, i]:
                count = _allow(MASK, LEGAL, b, count, ANNOUNCE0 + i)
        return count
    if phase == P_DECLARE:  # D25: no-declare is the one action of a seat that cannot declare
        if DECLARED[n, _popcount(S[b, seat, S_DEALT] & DOUBLES_MASK)] > 0:
            count = _allow(MASK, LEGAL, b, 0, DECLARE)
        return _allow(MASK, LEGAL, b, count, NO_DECLARE)
    narms = SPEC[T[b, T_ANN], SP_NARMS]
    hand = S[b, seat, S_HAND]
    over = _opening_over(T, A, b)
    # Each arm's code in a byte of `codes` (_pack_code/_unpack_code): no array to allocate.
    codes = 0
    fits = 0
    if phase == P_IMMEDIATE:
        count = _allow(MASK, LEGAL, b, 0, DECLINE)
        for arm in range(narms):
            if A[b, arm, A_COUNT] == 0:
                code = _arm_code_at(T, A, b, arm, True, over)
                if code >= 0:
                    codes |= _pack_code(code, arm)
                    fits |= ACCEPT[code]
        fit = fits & hand & DOUBLES_MASK
        while fit:
            t = _low_bit(fit)
            fit &= fit - 1
            for arm in range(narms):
                code = _unpack_code(codes, arm)
                if code >= 0 and (ACCEPT[code] >> t) & 1:
                    count = _allow(MASK, LEGAL, b, count, _play_index(t, arm, 0, 0))
        return count
    can_draw = T[b, T_BONE_END] - T[b, T_BONE_TOP] > 2
    if can_draw:
        count = _allow(MASK, LEGAL, b, 0, DRAW)
    for arm in range(narms):
        code = _arm_code_at(T, A, b, arm, False, over)
        if code >= 0:
            codes |= _pack_code(code, arm)
            fits |= ACCEPT[code]
    fit = fits & hand
    plays = fit != 0
    while fit:
        t = _low_bit(fit)
        fit &= fit - 1
        for arm in range(narms):
            code = _unpack_code(codes, arm)
            if code < 0:
                continue
            bits = SIDES[code, t]
            for side in range(2):
                if (bits >> side) & 1:
                    count = _allow(MASK, LEGAL, b, count, _play_index(t, arm, side, 0))
                    count = _allow(MASK, LEGAL, b, count, _play_index(t, arm, side, 1))
    if not plays and not can_draw:
        count = _allow(MASK, LEGAL, b, 0, PASS)
    return count


# -------------------------------------------------------------- the hand
@njit(**KERNEL)
def _deal(T, S, L, BONE, R, b, n):
    # The shuffle runs in the table's own BONE row (no array to allocate); the boneyard is
    # then moved to its front.
    order = BONE[b]
    for i in range(NT):
        order[i] = i
    for i in range(NT - 1, 0, -1):
        j = _below(R, b, i + 1)
        tmp = order[i]
        order[i] = order[j]
        order[j] = tmp
    k = 8 - n
    for s in range(MAX_SEATS):
        S[b, s, S_HAND] = 0
    for s in range(n):
        for i in range(k):
            S[b, s, S_HAND] |= 1 << order[s * k + i]
        S[b, s, S_DEALT] = S[b, s, S_HAND]
    for i in range(NT - n * k):
        order[i] = order[n * k + i]
    T[b, T_BONE_TOP] = 0
    T[b, T_BONE_END] = NT - n * k


@njit(**KERNEL)
def start_hand(T, S, A, L, b, n, on_set, first_hand):
    """A new hand on the deal already in S_HAND/S_DEALT/BONE (chips carried)."""
    T[b, T_PHASE] = P_SET
    T[b, T_TO_MOVE] = on_set
    T[b, T_ON_SET] = on_set
    T[b, T_FIRST_HAND] = first_hand
    T[b, T_SET_TILE] = -1
    T[b, T_SET_DRAWN] = -1
    T[b, T_ANN] = 0
    T[b, T_PREV_TILE] = -1
    T[b, T_PREV_SEAT] = -1
    T[b, T_PREV_OUT] = 0
    T[b, T_PASSES] = 0
    T[b, T_NOS] = -1
    T[b, T_END] = -1
    T[b, T_QPOS] = 0
    T[b, T_PLACED] = 0
    T[b, T_NHIST] = 0
    for s in range(MAX_SEATS):
        for f in (S_DECLARED, S_OUT, S_NWAITS, S_PASSED_ON, S_DREW_ON, S_PASSED_TILES, S_DREW_TILES, S_COUNT):
            S[b, s, f] = 0
        S[b, s, S_WAIT0] = -1
        S[b, s, S_WAIT1] = -1
        S[b, s, S_CHIPS_HAND] = S[b, s, S_CHIPS]
    for arm in range(MAX_ARMS):
        A[b, arm, A_COUNT] = 0
        A[b, arm, A_OPEN] = 0
        A[b, arm, A_LAST] = -1
    for t in range(NT):
        L[b, t, L_PLACER] = -1
        L[b, t, L_ARM] = -1
        L[b, t, L_IMMEDIATE] = 0


@njit(**KERNEL)
def _highest_double_holder(S, b, n):
    for d in range(6, -1, -1):
        for s in range(n):
            if (S[b, s, S_HAND] >> DOUBLE_OF[d]) & 1:
                return s
    return -1


@njit(**KERNEL)
def new_episode(T, S, A, L, BONE, R, b, n, hands, first_rule, chips):
    """Session start: chips reset, first hand by the first-hand rule or D20."""
    for s in range(MAX_SEATS):
        S[b, s, S_CHIPS] = chips if s < n else 0
        S[b, s, S_CHIPS_EPISODE] = S[b, s, S_CHIPS]
        for r in range(len(REASONS)):
            S[b, s, S_PAY + r] = 0
    T[b, T_CLOSE_RIGHT] = 0
    T[b, T_CLOSE_WRONG] = 0
    T[b, T_HANDS_LEFT] = hands - 1
    T[b, T_HAND_INDEX] = 0
    T[b, T_DONE] = 0
    if first_rule:
        while True:
            _deal(T, S, L, BONE, R, b, n)
            holder = _highest_double_holder(S, b, n)
            if holder >= 0:
                break
        start_hand(T, S, A, L, b, n, holder, 1)
    else:
        _deal(T, S, L, BONE, R, b, n)
        start_hand(T, S, A, L, b, n, _below(R, b, n), 0)


@njit(**KERNEL)
def _next_declarer(T, S, A, b, n):
    on_set = T[b, T_ON_SET]
    # D9, D25: every player is asked, from left of the setter, the setter last.
    if T[b, T_QPOS] < n:
        T[b, T_QPOS] += 1
        T[b, T_TO_MOVE] = _after(on_set, T[b, T_QPOS], n)
        return
    T[b, T_PHASE] = P_IMMEDIATE
    T[b, T_QPOS] = 1
    _next_immediate(T, S, A, b, n)


@njit(**KERNEL)
def _next_immediate(T, S, A, b, n):
    # D25: every player but the setter is asked, whatever he holds, again after each double.
    on_set = T[b, T_ON_SET]
    if T[b, T_QPOS] <= n - 1:
        T[b, T_TO_MOVE] = _after(on_set, T[b, T_QPOS], n)
        return
    T[b, T_PHASE] = P_PLAY
    T[b, T_TO_MOVE] = _next_in_game(S, b, n, on_set)
    _begin_turn(T, S, A, b, n)


@njit(**KERNEL)
def _begin_turn(T, S, A, b, n):
    while T[b, T_PHASE] == P_PLAY:
        seat = T[b, T_TO_MOVE]
        k = -1
        for i in range(S[b, seat, S_NWAITS]):
            if not _locked(T, A, b, S[b, seat, S_WAIT0 + i]):
                k = i
                break
        if k < 0:
            return
        if k == 0:
            S[b, seat, S_WAIT0] = S[b, seat, S_WAIT1]
        S[b, seat, S_WAIT1] = -1
        S[b, seat, S_NWAITS] -= 1
        T[b, T_PREV_TILE] = -1  # a wait breaks the claim (section 8) and a run of passes (D23)
        T[b, T_PASSES] = 0
        T[b, T_TO_MOVE] = _next_in_game(S, b, n, seat)


@njit(**KERNEL, inline="always")
def _goes_out(T, S, b, n, seat):
    S[b, seat, S_OUT] = 1
    if T[b, T_NOS] < 0:
        T[b, T_NOS] = seat
        for s in range(n):
            if s != seat:
                _pay(S, b, s, seat, NOS_PAYMENT, R_NOS)


@njit(**KERNEL, inline="always")
def _place_tile(T, A, L, b, seat, t, arm, out, immediate):
    T[b, T_PLACED] |= 1 << t
    L[b, t, L_PLACER] = seat
    L[b, t, L_ARM] = arm
    L[b, t, L_IMMEDIATE] = immediate
    A[b, arm, A_COUNT] += 1
    A[b, arm, A_OPEN] = out
    A[b, arm, A_LAST] = t


@njit(**KERNEL, inline="always")
def _public_fits(T, A, L, b):
    """Hand.public_fits: (open numbers as bits, tiles as bits) that fit now."""
    narms = SPEC[T[b, T_ANN], SP_NARMS]
    unplaced = ~T[b, T_PLACED]
    over = _opening_over(T, A, b)
    numbers = 0
    tiles = 0
    for arm in range(narms):
        code = _arm_code_at(T, A, b, arm, False, over)
        if code >= 0:
            fit = ACCEPT[code] & unplaced
            if fit:
                numbers |= 1 << A[b, arm, A_OPEN]
                tiles |= fit
    return numbers, tiles


@njit(**KERNEL, inline="always")
def _closing_is_correct(T, S, A, BONE, b, n):
    candidates = 0
    for s in range(n):
        candidates |= S[b, s, S_HAND]
    for i in range(T[b, T_BONE_TOP], T[b, T_BONE_END] - 2):
        candidates |= 1 << BONE[b, i]
    return (_accepted_anywhere(T, A, b) & candidates) == 0


@njit(**KERNEL)
def _end_hand(T, S, b, n, reason):
    T[b, T_END] = reason
    T[b, T_PHASE] = P_OVER
    T[b, T_TO_MOVE] = -1
    for s in range(n):
        c = 0
        hand = S[b, s, S_HAND]
        for t in range(NT):
            if (hand >> t) & 1:
                c += COUNT_VALUE[t]
        S[b, s, S_COUNT] = c
    for i in range(n):
        for j in range(i + 1, n):
            ci = S[b, i, S_COUNT]
            cj = S[b, j, S_COUNT]
            if ci > cj:
                _pay(S, b, i, j, ci - cj, R_SETTLEMENT)
            elif cj > ci:
                _pay(S, b, j, i, cj - ci, R_SETTLEMENT)


@njit(**KERNEL)
def _close(T, S, A, BONE, b, n, closer):
    if _holders(S, b, n) == 1:
        T[b, T_CLOSE_RIGHT] += 1
        for s in range(n):  # D21
            if S[b, s, S_HAND] != 0:
                _pay(S, b, s, closer, CLOSE_PAYMENT, R_CLOSE)
        _end_hand(T, S, b, n, END_CLOSE)
        return
    if _closing_is_correct(T, S, A, BONE, b, n):
        for s in range(n):
            if S[b, s, S_HAND] != 0 and s != closer:
                _pay(S, b, s, closer, CLOSE_PAYMENT, R_CLOSE)
        T[b, T_CLOSE_RIGHT] += 1
        drawer = _next_in_game(S, b, n, closer)
        drawn = T[b, T_BONE_END] - T[b, T_BONE_TOP] - 2
        for i in range(max(0, drawn)):
            S[b, drawer, S_HAND] |= 1 << BONE[b, T[b, T_BONE_TOP]]
            T[b, T_BONE_TOP] += 1
        _end_hand(T, S, b, n, END_CLOSE)
        return
    T[b, T_CLOSE_WRONG] += 1
    for s in range(n):
        if s != closer:
            _pay(S, b, closer, s, WRONG_CLOSE_PAYMENT, R_WRONG_CLOSE)


@njit(**KERNEL)
def _place(T, S, A, L, BONE, b, n, seat, t, arm, out, close):
    """Hand._place: a tile in normal play, its double claim, nos, closing, the end."""
    cells = A[b, arm, A_COUNT]
    touched = A[b, arm, A_LAST] if cells > 0 else T[b, T_SET_TILE]
    S[b, seat, S_HAND] &= ~(1 << t)
    _place_tile(T, A, L, b, seat, t, arm, out, 0)
    prev = T[b, T_PREV_TILE]
    if IS_DOUBLE[t] and prev >= 0 and prev == touched and T[b, T_PREV_OUT] == 0:
        _pay(S, b, T[b, T_PREV_SEAT], seat, DOUBLE_VALUE[t], R_DOUBLE)
    went_out = S[b, seat, S_HAND] == 0
    if went_out:
        _goes_out(T, S, b, n, seat)
    T[b, T_PREV_TILE] = t
    T[b, T_PREV_SEAT] = seat
    T[b, T_PREV_OUT] = 1 if went_out else 0
    T[b, T_PASSES] = 0
    if close:
        _close(T, S, A, BONE, b, n, seat)
        if T[b, T_PHASE] == P_OVER:
            return
    if _holders(S, b, n) <= 1:
        _end_hand(T, S, b, n, END_OUT)
        return
    T[b, T_TO_MOVE] = _next_in_game(S, b, n, seat)
    _begin_turn(T, S, A, b, n)


@njit(**KERNEL)
def apply_action(T, S, A, L, BONE, b, n, action):
    """Hand._apply for a legal action index."""
    phase = T[b, T_PHASE]
    seat = T[b, T_TO_MOVE]
    if phase == P_SET:
        if action == DRAW:
            t = BONE[b, T[b, T_BONE_TOP]]
            T[b, T_BONE_TOP] += 1
            S[b, seat, S_HAND] |= 1 << t
            T[b, T_SET_DRAWN] = t
            return
        t = action - SET0
        S[b, seat, S_HAND] &= ~(1 << t)
        T[b, T_SET_TILE] = t
        T[b, T_PLACED] = 1 << t
        L[b, t, L_PLACER] = seat
        L[b, t, L_ARM] = MAX_ARMS
        T[b, T_PREV_TILE] = t  # the set tile counts as the setter's turn (section 8)
        T[b, T_PREV_SEAT] = seat
        T[b, T_PREV_OUT] = 0
        if T[b, T_SET_DRAWN] < 0:
            amount = DOUBLE_VALUE[t]
            for s in range(n):
                if s != seat:
                    _pay(S, b, s, seat, amount, R_SET)
        elif IS_DOUBLE[t]:
            amount = 14 if t == 0 else 2 * TA[t]  # D19
            for s in range(n):
                if s != seat:
                    _pay(S, b, s, seat, amount, R_SET)
        else:
            for s in range(n):
                if s != seat:
                    _pay(S, b, seat, s, TA[t] + TB[t], R_SET)
        T[b, T_PHASE] = P_ANNOUNCE
        return
    if phase == P_ANNOUNCE:
        ann = action - ANNOUNCE0
        T[b, T_ANN] = ann
        st = T[b, T_SET_TILE]
        for arm in range(MAX_ARMS):
            A[b, arm, A_COUNT] = 0
            A[b, arm, A_LAST] = -1
            A[b, arm, A_OPEN] = TA[st]
        if SPEC[ann, SP_KIND] == LINE:
            A[b, 1, A_OPEN] = TB[st]
        T[b, T_PHASE] = P_DECLARE
        T[b, T_QPOS] = 0
        _next_declarer(T, S, A, b, n)
        return
    if phase == P_DECLARE:
        if action == DECLARE:
            S[b, seat, S_DECLARED] = 1
            amount = DECLARED[n, _popcount(S[b, seat, S_DEALT] & DOUBLES_MASK)]
            for s in range(n):
                if s != seat:
                    _pay(S, b, s, seat, amount, R_DECLARED)
        _next_declarer(T, S, A, b, n)
        return
    if phase == P_IMMEDIATE:
        if action == DECLINE:
            T[b, T_QPOS] += 1
        else:
            t, arm, _, _ = _play_parts(action)
            S[b, seat, S_HAND] &= ~(1 << t)
            _place_tile(T, A, L, b, seat, t, arm, TA[t], 1)
            _pay(S, b, T[b, T_ON_SET], seat, DOUBLE_VALUE[t], R_IMMEDIATE)
            S[b, seat, S_WAIT0 + S[b, seat, S_NWAITS]] = arm
            S[b, seat, S_NWAITS] += 1
            if S[b, seat, S_HAND] == 0:
                _goes_out(T, S, b, n, seat)
        _next_immediate(T, S, A, b, n)
        return
    # normal play
    if action == DRAW:
        numbers, tiles = _public_fits(T, A, L, b)
        S[b, seat, S_DREW_ON] |= numbers
        S[b, seat, S_DREW_TILES] |= tiles
        S[b, seat, S_HAND] |= 1 << BONE[b, T[b, T_BONE_TOP]]
        T[b, T_BONE_TOP] += 1
        return
    if action == PASS:
        numbers, tiles = _public_fits(T, A, L, b)
        S[b, seat, S_PASSED_ON] |= numbers
        S[b, seat, S_PASSED_TILES] |= tiles
        T[b, T_PREV_TILE] = -1
        T[b, T_PASSES] += 1
        if T[b, T_PASSES] >= _holders(S, b, n):
            _end_hand(T, S, b, n, END_BLOCKED)
            return
        T[b, T_TO_MOVE] = _next_in_game(S, b, n, seat)
        _begin_turn(T, S, A, b, n)
        return
    t, arm, side, close = _play_parts(action)
    out = TB[t] if side else TA[t]
    _place(T, S, A, L, BONE, b, n, seat, t, arm, out, close)


@njit(**KERNEL)
def _next_session_hand(T, S, A, L, BONE, R, b, n):
    """Session.start_hand for a later hand: the loser sets (D2: ties at random)."""
    top = -1
    for s in range(n):
        if S[b, s, S_COUNT] > top:
            top = S[b, s, S_COUNT]
    tied = 0
    for s in range(n):
        if S[b, s, S_COUNT] == top:
            tied += 1
    pick = 0 if tied == 1 else _below(R, b, tied)
    loser = -1
    for s in range(n):
        if S[b, s, S_COUNT] == top:
            if pick == 0:
                loser = s
                break
            pick -= 1
    T[b, T_HANDS_LEFT] -= 1
    T[b, T_HAND_INDEX] += 1
    _deal(T, S, L, BONE, R, b, n)
    start_hand(T, S, A, L, b, n, loser, 0)


@njit(**KERNEL)
def settle(T, S, A, L, BONE, R, MASK, LEGAL, b, n, auto):
    """After a change: D12 forced decisions, the session's next hand, the mask."""
    while True:
        count = compute_mask(T, S, A, MASK, LEGAL, b, n)
        if T[b, T_PHASE] == P_OVER:
            if T[b, T_HANDS_LEFT] > 0:
                _next_session_hand(T, S, A, L, BONE, R, b, n)
                continue
            T[b, T_DONE] = 1
            return
        if not auto or count != 1:
            return
        apply_action(T, S, A, L, BONE, b, n, LEGAL[b, 0])
