"""The family games' rule kernels: one set of functions for the ten non-Blind games.

They follow ``docs/rules/family.md`` (F1..F24) and the game pages, function for function
like the reference engine (``nos_env/family/``): dealing and opening (F3, F4, F19), the
legal actions (F6, F8..F10, F23; CR4's cross phase, MA2's matadors, FO3's turns), placing a
tile on the layout (F7; DN3's and FU3's spinners), drawing and passing with the public
evidence of F24 (the contract's seat_void rule), the end of a hand (F13..F17, F20) and the
match (F18). What differs between games is read from the runtime settings ``CFG`` (``C_*``
in ``state.py``), so one compiled kernel serves every game and option.

Arrays (one row per table ``b``): ``T``, ``S``, ``TS`` (= TSET), ``SS`` (= SSET), ``A``, ``L``,
``BONE``, ``R``, ``MASK``, ``LEGAL`` as the schema declares them; ``TT`` the tile table of
the game's set (``TT_*`` columns), ``ACC[m, e]`` the tiles that fit an open ``e`` under
matching ``m`` (uint64 words: equal matching, and Matador's sevens with the wild matadors).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...kernels import core
from ...kernels.bits import low_bit, popcount
from ...kernels.core import INLINE, KERNEL, after
from .state import (
    A_COUNT, A_DBL_END, A_FROM, A_LAST, A_OPEN, C_ARMS, C_AWARD_BERGEN, C_BLOCKED_TOTAL, C_CROSS_DRAW, C_DBL_ONE,
    C_DIV, C_DRAW, C_EXACT, C_FIRST_SEAT, C_HAND_SIZE, C_LAYOUT, C_MATADOR_VOID, C_MATCH, C_MULTI, C_N, C_NT,
    C_ONE_POINT, C_OPENING, C_PLAY_IDS, C_PLAY_SCORE, C_POD, C_RESERVE, C_ROUND, C_SIDES, C_SPIN_FIRST, C_STOCK,
    C_TARGET, C_TEAM_BOTH, C_TEAMS, DRAW_AT_WILL, DRAW_NONE, DRAW_ONE, END_BLOCKED, END_NONE, END_OUT,
    L_ARM, L_PLACER, L_SPINS, LAYOUT_CROSS, LAYOUT_DN_CROSS, LAYOUT_FIVE_UP, MATCH_SEVEN, MULTI_MAY, MULTI_NONE,
    OPEN_FREE, OPEN_HIGHEST_DOUBLE, OPEN_HIGHEST_TILE, OPEN_LOWEST_DOUBLE, OPEN_LOWEST_TILE, P_NEXT, P_OVER, P_PLAY, P_SET,
    ROUND_PER_OPPONENT, ROUND_TOTAL, S_CHIPS, S_CHIPS_EPISODE, S_CHIPS_HAND, S_DEALT, S_HAND, S_LAST_PLACE, S_VOID,
    SCORE_BERGEN, SCORE_FIVES, SCORE_FIVES_THREES, SCORE_NONE, SET_ARM, T_BONE_END, T_BONE_START, T_BONE_TOP, T_CLOCK,
    T_CROSS_DONE, T_DONE, T_DRAWN, T_END, T_EXTRA, T_EXTRA_ARMS, T_FIRST_DOUBLE, T_HAND_INDEX, T_HANDS_LEFT,
    T_LAST_PLACER, T_NARMS, T_NEXT_SETTER, T_NLEGAL, T_PHASE, T_PLACED, T_PLACED_TURN, T_SET_TILE, T_SETTER,
    T_TO_MOVE, T_WINNER, TT_DOUBLE, TT_HIGH, TT_LOW, TT_PIPS, TT_RANK,
)

U0 = np.uint64(0)
U1 = np.uint64(1)


# ------------------------------------------------------------------ tile sets
@njit(**INLINE)
def _bit(t):
    return U1 << np.uint64(t)


@njit(**INLINE)
def _all_tiles(CFG):
    return (U1 << np.uint64(CFG[C_NT])) - U1


@njit(**INLINE)
def _has(word, t):
    return (word >> np.uint64(t)) & U1 != U0


@njit(**INLINE)
def _doubles(TT, CFG):
    d = U0
    for t in range(CFG[C_NT]):
        if TT[t, TT_DOUBLE]:
            d |= _bit(t)
    return d


# ------------------------------------------------------------------ the layout
@njit(**INLINE)
def _crossing(T, CFG, b):
    """CR4: the cross phase (Cross, Double-Nine Cross) until every arm of the set holds a tile."""
    lay = CFG[C_LAYOUT]
    return (lay == LAYOUT_CROSS or lay == LAYOUT_DN_CROSS) and T[b, T_CROSS_DONE] == 0


@njit(**INLINE)
def _normal_arms(T, A, CFG, b):
    """The arms that take a tile now (a bit per arm): every arm that exists, except in the
    cross phase, where only the empty arms of the spinner do (CR4)."""
    m = 0
    cross = _crossing(T, CFG, b)
    for a in range(T[b, T_NARMS]):
        if cross and A[b, a, A_COUNT] > 0:
            continue
        m |= 1 << a
    return m


@njit(**INLINE)
def _playable_arms(T, A, CFG, b):
    """The arms the mover may play on: F23's extra play goes only on the arms its double ends."""
    if T[b, T_EXTRA] >= 0:
        return T[b, T_EXTRA_ARMS]
    return _normal_arms(T, A, CFG, b)


@njit(**INLINE)
def _fits(A, CFG, ACC, b, arms):
    """Every tile (of the whole set) that fits one of the arms."""
    f = U0
    m = CFG[C_MATCH]
    while arms:
        a = low_bit(arms)
        arms &= arms - 1
        f |= ACC[m, A[b, a, A_OPEN]]
    return f


@njit(**INLINE)
def _drawable(T, CFG, b):
    """F11: a draw is possible at all (not Block) while the boneyard holds more than the reserve."""
    return CFG[C_DRAW] != DRAW_NONE and T[b, T_BONE_END] - T[b, T_BONE_TOP] > CFG[C_RESERVE]


@njit(**INLINE)
def _draw_rule(T, CFG, b):
    """F9's draw rule now: CR5's ``cross_phase_draw="one"`` in the cross phase, else the game's."""
    if CFG[C_CROSS_DRAW] and _crossing(T, CFG, b):
        return DRAW_ONE
    return CFG[C_DRAW]


@njit(**INLINE)
def _new_arm(A, b, a, open_, from_):
    A[b, a, A_OPEN] = open_
    A[b, a, A_COUNT] = 0
    A[b, a, A_LAST] = -1
    A[b, a, A_DBL_END] = 0
    A[b, a, A_FROM] = from_


@njit(**INLINE)
def _spin(T, A, L, b, d, e):
    """A double becomes a spinner: its two crosswise arms take the next two numbers (F7)."""
    m = T[b, T_NARMS]
    _new_arm(A, b, m, e, d)
    _new_arm(A, b, m + 1, e, d)
    T[b, T_NARMS] = m + 2
    L[b, d, L_SPINS] = 1


@njit(**INLINE)
def _placed_by(T, S, TS, SS, L, b, seat, t, arm):
    SS[b, seat, S_HAND, 0] &= ~_bit(t)
    TS[b, T_PLACED, 0] |= _bit(t)
    L[b, t, L_PLACER] = seat
    L[b, t, L_ARM] = arm
    T[b, T_CLOCK] += 1
    S[b, seat, S_LAST_PLACE] = T[b, T_CLOCK]
    T[b, T_LAST_PLACER] = seat


@njit(**KERNEL)
def _set(T, S, TS, SS, A, L, TT, CFG, b, seat, t):
    """The set tile (F4): a line's L0/L1 on its two sides, a spinner's C0..C3 (Cross)."""
    _placed_by(T, S, TS, SS, L, b, seat, t, SET_ARM)
    T[b, T_SET_TILE] = t
    T[b, T_SETTER] = seat
    lay = CFG[C_LAYOUT]
    if lay == LAYOUT_CROSS or lay == LAYOUT_DN_CROSS:
        for a in range(4):
            _new_arm(A, b, a, TT[t, TT_LOW], -1)
        T[b, T_NARMS] = 4
    else:
        _new_arm(A, b, 0, TT[t, TT_LOW], -1)
        _new_arm(A, b, 1, TT[t, TT_HIGH], -1)
        T[b, T_NARMS] = 2
    if TT[t, TT_DOUBLE] and T[b, T_FIRST_DOUBLE] < 0:
        T[b, T_FIRST_DOUBLE] = t
    T[b, T_PHASE] = P_PLAY


@njit(**INLINE)
def _place(T, S, TS, SS, A, L, TT, CFG, b, seat, t, arm, side):
    """PLAY(t, arm[, side]): the tile against the arm's open end, its other number outward
    (F6; MA2: under sevens the side names the outward number). Returns the arms that end
    in the tile if it is a double (for F23's extra play), else 0."""
    e = A[b, arm, A_OPEN]
    lo = TT[t, TT_LOW]
    hi = TT[t, TT_HIGH]
    dbl = TT[t, TT_DOUBLE]
    if CFG[C_MATCH] == MATCH_SEVEN:
        out = hi if side else lo
    else:
        out = hi if lo == e else lo
    before = A[b, arm, A_LAST]
    was_empty = A[b, arm, A_COUNT] == 0
    crossing = _crossing(T, CFG, b)
    A[b, arm, A_OPEN] = out
    A[b, arm, A_COUNT] += 1
    A[b, arm, A_LAST] = t
    A[b, arm, A_DBL_END] = dbl
    _placed_by(T, S, TS, SS, L, b, seat, t, arm)
    ends = (1 << arm) if dbl else 0
    lay = CFG[C_LAYOUT]
    if lay == LAYOUT_CROSS or lay == LAYOUT_DN_CROSS:
        if crossing:
            done = True
            for a in range(4):
                if A[b, a, A_COUNT] == 0:
                    done = False
            if done:
                T[b, T_CROSS_DONE] = 1
        elif lay == LAYOUT_DN_CROSS and dbl:
            # DN3: every double after the cross phase opens two new arms at once
            m = T[b, T_NARMS]
            _spin(T, A, L, b, t, lo)
            ends |= (1 << m) | (1 << (m + 1))
    elif lay == LAYOUT_FIVE_UP:
        # FU3: the tile it lies against spins once a tile lies on it
        against = before
        if was_empty:
            against = T[b, T_SET_TILE] if arm < 2 else -1  # a crosswise arm's spinner already spins
        if against >= 0 and TT[against, TT_DOUBLE] and L[b, against, L_SPINS] == 0:
            if CFG[C_SPIN_FIRST] == 0 or T[b, T_FIRST_DOUBLE] == against:
                _spin(T, A, L, b, against, TT[against, TT_LOW])
    if dbl and T[b, T_FIRST_DOUBLE] < 0:
        T[b, T_FIRST_DOUBLE] = t
    return ends


# ------------------------------------------------------------------ scores
@njit(**INLINE)
def _team_mate(CFG, seat):
    return seat ^ 2 if CFG[C_TEAMS] else -1


@njit(**KERNEL)
def _add_points(T, S, CFG, b, seat, x):
    """Points to a seat (teams: to both partners). F18: the match ends the moment a total
    reaches the target; FU7: under an exact target a score that would pass it is not taken."""
    if x <= 0:
        return
    target = CFG[C_TARGET]
    total = S[b, seat, S_CHIPS] + x
    if CFG[C_EXACT] and target > 0 and total > target:
        return
    S[b, seat, S_CHIPS] = total
    mate = _team_mate(CFG, seat)
    if mate >= 0:
        S[b, mate, S_CHIPS] = total
    if target > 0 and total >= target:
        T[b, T_DONE] = 1
        T[b, T_PHASE] = P_OVER
        T[b, T_WINNER] = seat


@njit(**INLINE)
def _end_count(T, A, TT, b):
    """AF4/FU4: the ends' count E: every non-empty arm's open end (twice for a double across
    its end), and the set tile's sides while L0 or L1 is empty."""
    E = 0
    for a in range(T[b, T_NARMS]):
        if A[b, a, A_COUNT] > 0:
            E += A[b, a, A_OPEN] * (2 if A[b, a, A_DBL_END] else 1)
    s = T[b, T_SET_TILE]
    e0 = A[b, 0, A_COUNT] == 0
    e1 = A[b, 1, A_COUNT] == 0
    if TT[s, TT_DOUBLE]:
        if e0 or e1:
            E += 2 * TT[s, TT_LOW]
    else:
        if e0:
            E += TT[s, TT_LOW]
        if e1:
            E += TT[s, TT_HIGH]
    return E


@njit(**INLINE)
def _play_score(T, A, TT, CFG, b):
    """The points of a placement (SET or PLAY): AF's, FT's and FU's s(E), Bergen's headers (BE3)."""
    kind = CFG[C_PLAY_SCORE]
    if kind == SCORE_NONE:
        return 0
    if kind == SCORE_BERGEN:
        if A[b, 0, A_OPEN] != A[b, 1, A_OPEN]:
            return 0
        if (A[b, 0, A_COUNT] > 0 and A[b, 0, A_DBL_END]) or (A[b, 1, A_COUNT] > 0 and A[b, 1, A_DBL_END]):
            return 3
        return 2
    E = _end_count(T, A, TT, b)
    if E <= 0:
        return 0
    if E % 5 == 0 or (kind == SCORE_FIVES_THREES and E % 3 == 0):
        return E // CFG[C_DIV]
    return 0


@njit(**INLINE)
def _count(SS, TT, CFG, b, seat):
    """F14: the pips of a hand ([0-0] counts 0; a double d with double_counts_one_end)."""
    c = 0
    h = SS[b, seat, S_HAND, 0]
    while h:
        t = low_bit(h)
        h &= h - U1
        c += TT[t, TT_LOW] if (CFG[C_DBL_ONE] and TT[t, TT_DOUBLE]) else TT[t, TT_PIPS]
    return c


@njit(**INLINE)
def _round5(x):
    """AF8: the nearest multiple of five, remainders 1, 2 down and 3, 4 up."""
    return 5 * ((x + 2) // 5)


@njit(**KERNEL)
def _bergen_blocked_winner(SS, TT, CFG, b, n):
    """BE5: one double-free player wins; several: the lowest count among them (BE6: none on a
    tie); none: the holder of the lowest double."""
    free = 0
    w = -1
    low = 1 << 30
    tie = False
    for s in range(n):
        h = SS[b, s, S_HAND, 0]
        has_double = False
        while h:
            t = low_bit(h)
            h &= h - U1
            if TT[t, TT_DOUBLE]:
                has_double = True
        if not has_double:
            free += 1
            c = _count(SS, TT, CFG, b, s)
            if c < low:
                low, w, tie = c, s, False
            elif c == low:
                tie = True
    if free > 0:
        return -1 if tie else w
    best = 1 << 30
    for s in range(n):
        h = SS[b, s, S_HAND, 0]
        while h:
            t = low_bit(h)
            h &= h - U1
            if TT[t, TT_DOUBLE] and TT[t, TT_LOW] < best:
                best, w = TT[t, TT_LOW], s
    return w


@njit(**KERNEL)
def _end_hand(T, S, SS, BONE, TT, CFG, b, kind, out_seat):
    """F13..F17, F20: the hand is over; the winner scores; F19's next setter; F18: the match
    goes on with a new hand, or the episode ends."""
    n = CFG[C_N]
    T[b, T_END] = kind
    w = -1
    award = 0
    blocked = kind == END_BLOCKED
    k = 1 if (blocked and CFG[C_BLOCKED_TOTAL] == 0) else 0
    if CFG[C_TEAMS]:
        ca = _count(SS, TT, CFG, b, 0) + _count(SS, TT, CFG, b, 2)
        cb = _count(SS, TT, CFG, b, 1) + _count(SS, TT, CFG, b, 3)
        if not blocked:
            w = out_seat
        elif ca < cb:
            w = 0 if S[b, 0, S_LAST_PLACE] >= S[b, 2, S_LAST_PLACE] else 2
        elif cb < ca:
            w = 1 if S[b, 1, S_LAST_PLACE] >= S[b, 3, S_LAST_PLACE] else 3
        if w >= 0:
            cw = ca if (w & 1) == 0 else cb
            cl = cb if (w & 1) == 0 else ca
            award = cl - k * cw
            if CFG[C_ROUND] != 0:
                award = _round5(award)
    else:
        if not blocked:
            w = out_seat
        elif CFG[C_AWARD_BERGEN]:
            w = _bergen_blocked_winner(SS, TT, CFG, b, n)
        else:
            low = 1 << 30
            tie = False
            for s in range(n):
                c = _count(SS, TT, CFG, b, s)
                if c < low:
                    low, w, tie = c, s, False
                elif c == low:
                    tie = True
            if tie:
                w = -1
        if w >= 0:
            cw = _count(SS, TT, CFG, b, w)
            total = 0
            for s in range(n):
                if s != w:
                    d = _count(SS, TT, CFG, b, s) - k * cw
                    total += _round5(d) if CFG[C_ROUND] == ROUND_PER_OPPONENT else d
            award = _round5(total) if CFG[C_ROUND] == ROUND_TOTAL else total
    if w >= 0:
        if CFG[C_AWARD_BERGEN] or CFG[C_ONE_POINT]:
            award = 1
        else:
            award = award // CFG[C_DIV]
            if CFG[C_STOCK]:
                for i in range(T[b, T_BONE_TOP], T[b, T_BONE_END]):
                    award += TT[BONE[b, i], TT_PIPS]
        _add_points(T, S, CFG, b, w, award)
    T[b, T_WINNER] = w
    # F19: the winner of this hand (teams: the partner who went out, or the winning team's
    # last placer), else the last placer, sets the next one under a free opening
    T[b, T_NEXT_SETTER] = w if w >= 0 else T[b, T_LAST_PLACER]
    if T[b, T_DONE]:
        return
    if CFG[C_TARGET] == 0:  # a single hand is the episode
        T[b, T_DONE] = 1
        T[b, T_PHASE] = P_OVER
        return
    T[b, T_PHASE] = P_NEXT  # settle() deals the next hand (no call back into start_hand from here)


# ------------------------------------------------------------------ turns
@njit(**INLINE)
def _next_turn(T, SS, CFG, b, seat):
    """F5: the turn passes clockwise to the next player who holds tiles (F20's out partner is skipped)."""
    n = CFG[C_N]
    for i in range(1, n + 1):
        s = after(seat, i, n)
        if SS[b, s, S_HAND, 0] != U0:
            T[b, T_TO_MOVE] = s
            break
    T[b, T_DRAWN] = 0
    T[b, T_PLACED_TURN] = 0
    T[b, T_EXTRA] = -1


@njit(**INLINE)
def _after_placement(T, S, TS, SS, A, L, BONE, R, TT, CFG, ACC, b, seat, t, ends, was_extra):
    """After SET or PLAY: the play's score, going out (F13, F20), F23's extra play, FO3's turn
    that goes on while a tile fits (FO6: else it ends by itself, public evidence), else the
    next player."""
    pts = _play_score(T, A, TT, CFG, b)
    if pts:
        _add_points(T, S, CFG, b, seat, pts)
        if T[b, T_DONE]:
            return
    hand = SS[b, seat, S_HAND, 0]
    if hand == U0:
        mate = _team_mate(CFG, seat)
        if not (CFG[C_TEAM_BOTH] and mate >= 0 and SS[b, mate, S_HAND, 0] != U0):
            _end_hand(T, S, SS, BONE, TT, CFG, b, END_OUT, seat)
            return
        _next_turn(T, SS, CFG, b, seat)
        return
    # (a finished hand keeps the flags of its last turn: the observation's phase reads them)
    T[b, T_EXTRA] = -1
    T[b, T_PLACED_TURN] = 1
    if CFG[C_POD] and TT[t, TT_DOUBLE] and not was_extra:
        # F23: one more tile on the arms this double ends, or PASS: a decision even when no
        # tile of his fits there (then PASS is his only action)
        T[b, T_EXTRA] = t
        T[b, T_EXTRA_ARMS] = ends
        return
    if CFG[C_MULTI] != MULTI_NONE:
        f = _fits(A, CFG, ACC, b, _normal_arms(T, A, CFG, b))
        if hand & f:
            return
        SS[b, seat, S_VOID, 0] |= f & _all_tiles(CFG)
    _next_turn(T, SS, CFG, b, seat)


@njit(**INLINE)
def _draw(T, SS, A, BONE, CFG, ACC, b, seat):
    """DRAW: the boneyard's top tile to the mover's hand; the same player moves again. A stuck
    draw tells the others he holds nothing that fits (F24); Matador's draw at will does not."""
    if CFG[C_MATADOR_VOID]:
        SS[b, seat, S_VOID, 0] = U0
    else:
        SS[b, seat, S_VOID, 0] = _fits(A, CFG, ACC, b, _normal_arms(T, A, CFG, b)) & _all_tiles(CFG)
    t = BONE[b, T[b, T_BONE_TOP]]
    T[b, T_BONE_TOP] += 1
    SS[b, seat, S_HAND, 0] |= _bit(t)
    T[b, T_DRAWN] = 1


@njit(**INLINE)
def _pass(T, SS, A, CFG, ACC, b, seat):
    """PASS: a stuck player's (F10, public evidence), or the end of F23's extra play or of a
    Fours turn under ``multi_play="may"`` (no evidence)."""
    if not (T[b, T_EXTRA] >= 0 or (CFG[C_MULTI] == MULTI_MAY and T[b, T_PLACED_TURN])):
        SS[b, seat, S_VOID, 0] |= _fits(A, CFG, ACC, b, _normal_arms(T, A, CFG, b)) & _all_tiles(CFG)
    _next_turn(T, SS, CFG, b, seat)


@njit(**INLINE)
def apply_action(T, S, TS, SS, A, L, BONE, R, TT, CFG, ACC, b, a):
    """One legal action of the seat to move (the contract's action ids)."""
    seat = T[b, T_TO_MOVE]
    P = CFG[C_PLAY_IDS]
    N = CFG[C_NT]
    if a < P:
        side = 0
        q = a
        if CFG[C_SIDES] == 2:
            side = a & 1
            q = a >> 1
        t = q // CFG[C_ARMS]
        arm = q - t * CFG[C_ARMS]
        was_extra = T[b, T_EXTRA] >= 0
        ends = _place(T, S, TS, SS, A, L, TT, CFG, b, seat, t, arm, side)
        _after_placement(T, S, TS, SS, A, L, BONE, R, TT, CFG, ACC, b, seat, t, ends, was_extra)
    elif a < P + N:
        _place_set(T, S, TS, SS, A, L, BONE, R, TT, CFG, ACC, b, seat, a - P)
    elif a == P + N:
        _draw(T, SS, A, BONE, CFG, ACC, b, seat)
    else:
        _pass(T, SS, A, CFG, ACC, b, seat)


@njit(**KERNEL)
def _place_set(T, S, TS, SS, A, L, BONE, R, TT, CFG, ACC, b, seat, t):
    _set(T, S, TS, SS, A, L, TT, CFG, b, seat, t)
    ends = 0
    if TT[t, TT_DOUBLE]:  # F23: a set double's extra tile goes on the set's empty arms
        ends = (1 << T[b, T_NARMS]) - 1
    _after_placement(T, S, TS, SS, A, L, BONE, R, TT, CFG, ACC, b, seat, t, ends, False)


# ------------------------------------------------------------------ dealing
@njit(**KERNEL)
def _deal(T, SS, BONE, R, CFG, TT, b):
    """F3 (the contract's order): Fisher-Yates from the top over 0..N-1; seat s takes
    order[s*k:(s+1)*k], the rest is the boneyard, order[n*k] its top. Returns whether some
    hand holds a double."""
    N = CFG[C_NT]
    n = CFG[C_N]
    k = CFG[C_HAND_SIZE]
    for i in range(N):
        BONE[b, i] = i
    for i in range(N - 1, 0, -1):
        j = core.below(R, b, i + 1)
        x = BONE[b, i]
        BONE[b, i] = BONE[b, j]
        BONE[b, j] = x
    any_double = False
    for s in range(n):
        h = U0
        for i in range(s * k, (s + 1) * k):
            t = BONE[b, i]
            h |= _bit(t)
            if TT[t, TT_DOUBLE]:
                any_double = True
        SS[b, s, S_HAND, 0] = h
        SS[b, s, S_DEALT, 0] = h
        SS[b, s, S_VOID, 0] = U0
    T[b, T_BONE_TOP] = n * k
    T[b, T_BONE_END] = N
    return any_double


@njit(**KERNEL)
def _ranked_opening(SS, TT, CFG, b, lowest, doubles_only):
    """F4 / BE2: (seat, tile) of the highest (or lowest) double held, else, unless
    doubles_only, of the highest (lowest) single (F2); (-1, -1) if none."""
    n = CFG[C_N]
    best_seat = -1
    best_tile = -1
    best = 0
    for pass_doubles in (1, 0):
        if pass_doubles == 0 and (best_seat >= 0 or doubles_only):
            break
        for s in range(n):
            h = SS[b, s, S_HAND, 0]
            while h:
                t = low_bit(h)
                h &= h - U1
                if TT[t, TT_DOUBLE] != pass_doubles:
                    continue
                r = -TT[t, TT_RANK] if lowest else TT[t, TT_RANK]
                if best_seat < 0 or r > best:
                    best, best_seat, best_tile = r, s, t
    return best_seat, best_tile


@njit(**KERNEL)
def start_hand(T, S, TS, SS, A, L, BONE, R, TT, CFG, ACC, b):
    """A new hand: the deal (again while a double opening finds no double, F4), then the opening."""
    opening = CFG[C_OPENING]
    while True:
        has_double = _deal(T, SS, BONE, R, CFG, TT, b)
        if has_double or not (opening == OPEN_HIGHEST_DOUBLE or opening == OPEN_LOWEST_DOUBLE):
            break
    setter = -1
    if opening == OPEN_FREE:  # F4: the first hand's setter by lot (or first_seat), later F19
        setter = T[b, T_NEXT_SETTER]
        if T[b, T_HAND_INDEX] == 0 or setter < 0:
            setter = CFG[C_FIRST_SEAT] if CFG[C_FIRST_SEAT] >= 0 else core.below(R, b, CFG[C_N])
    open_hand(T, S, TS, SS, A, L, BONE, R, TT, CFG, ACC, b, setter)


@njit(**KERNEL)
def open_hand(T, S, TS, SS, A, L, BONE, R, TT, CFG, ACC, b, setter):
    """The dealt hand begins: the layout cleared, then the opening (F4, F19): a forced set
    placed by the engine (F12), or the free setter's SET."""
    n = CFG[C_N]
    opening = CFG[C_OPENING]
    for t in range(L.shape[1]):
        L[b, t, L_PLACER] = -1
        L[b, t, L_ARM] = -1
        L[b, t, L_SPINS] = 0
    for a in range(A.shape[1]):
        _new_arm(A, b, a, 0, -1)
    TS[b, T_PLACED, 0] = U0
    for s in range(n):
        S[b, s, S_CHIPS_HAND] = S[b, s, S_CHIPS]
        S[b, s, S_LAST_PLACE] = 0
        SS[b, s, S_VOID, 0] = U0
    T[b, T_BONE_START] = T[b, T_BONE_TOP]
    T[b, T_NARMS] = 0
    T[b, T_CROSS_DONE] = 0
    T[b, T_DRAWN] = 0
    T[b, T_PLACED_TURN] = 0
    T[b, T_EXTRA] = -1
    T[b, T_EXTRA_ARMS] = 0
    T[b, T_FIRST_DOUBLE] = -1
    T[b, T_END] = END_NONE
    T[b, T_WINNER] = -1
    T[b, T_SET_TILE] = -1
    T[b, T_LAST_PLACER] = -1
    T[b, T_CLOCK] = 0
    T[b, T_PHASE] = P_SET
    if opening == OPEN_FREE:
        T[b, T_SETTER] = setter
        T[b, T_TO_MOVE] = setter
        return
    lowest = opening == OPEN_LOWEST_DOUBLE or opening == OPEN_LOWEST_TILE
    only = opening == OPEN_HIGHEST_DOUBLE or opening == OPEN_LOWEST_DOUBLE
    seat, t = _ranked_opening(SS, TT, CFG, b, lowest, only)
    T[b, T_TO_MOVE] = seat
    _place_set(T, S, TS, SS, A, L, BONE, R, TT, CFG, ACC, b, seat, t)


@njit(**KERNEL)
def new_episode(T, S, TS, SS, A, L, BONE, R, TT, CFG, ACC, b):
    """A new episode: scores zero, the first hand (F18: a match, or one hand)."""
    for s in range(S.shape[1]):
        for c in range(S.shape[2]):
            S[b, s, c] = 0
        SS[b, s, S_HAND, 0] = U0
        SS[b, s, S_DEALT, 0] = U0
        SS[b, s, S_VOID, 0] = U0
    T[b, T_DONE] = 0
    T[b, T_HAND_INDEX] = 0
    T[b, T_HANDS_LEFT] = 0
    T[b, T_NEXT_SETTER] = -1
    start_hand(T, S, TS, SS, A, L, BONE, R, TT, CFG, ACC, b)


@njit(**INLINE)
def _blocked(T, SS, A, CFG, ACC, b):
    """F13: no player holding tiles has a tile that fits an arm that takes tiles now, and
    nothing can be drawn."""
    if _drawable(T, CFG, b):
        return False
    held = U0
    for s in range(CFG[C_N]):
        held |= SS[b, s, S_HAND, 0]
    return held & _fits(A, CFG, ACC, b, _normal_arms(T, A, CFG, b)) == U0


@njit(**INLINE)
def settle(T, S, TS, SS, A, L, BONE, R, MASK, LEGAL, TT, CFG, ACC, b):
    """After an action: a blocked hand ends at once (F13), a finished hand's successor is dealt
    (F18), and the mover's legal actions are listed."""
    while True:
        if T[b, T_PHASE] == P_NEXT:
            T[b, T_HAND_INDEX] += 1
            start_hand(T, S, TS, SS, A, L, BONE, R, TT, CFG, ACC, b)
            continue
        if T[b, T_PHASE] == P_PLAY and _blocked(T, SS, A, CFG, ACC, b):
            _end_hand(T, S, SS, BONE, TT, CFG, b, END_BLOCKED, -1)
            continue
        break
    compute_mask(T, SS, A, MASK, LEGAL, TT, CFG, ACC, b)


@njit(**INLINE)
def compute_mask(T, SS, A, MASK, LEGAL, TT, CFG, ACC, b):
    """The legal actions of the seat to move, in index order (F4, F6, F8..F10, F23, MA2, MA5, FO3)."""
    for i in range(T[b, T_NLEGAL]):
        MASK[b, LEGAL[b, i]] = 0
    count = 0
    if T[b, T_DONE]:
        T[b, T_TO_MOVE] = -1
        T[b, T_NLEGAL] = 0
        return
    seat = T[b, T_TO_MOVE]
    hand = SS[b, seat, S_HAND, 0]
    P = CFG[C_PLAY_IDS]
    N = CFG[C_NT]
    if T[b, T_PHASE] == P_SET:
        h = hand
        while h:
            t = low_bit(h)
            h &= h - U1
            count = core.allow(MASK, LEGAL, b, count, P + t)
        T[b, T_NLEGAL] = count
        return
    arms = _playable_arms(T, A, CFG, b)
    m = CFG[C_MATCH]
    nA = CFG[C_ARMS]
    fitting = hand & _fits(A, CFG, ACC, b, arms)
    h = fitting
    sevens = CFG[C_SIDES] == 2
    while h:
        t = low_bit(h)
        h &= h - U1
        rest = arms
        while rest:
            a = low_bit(rest)
            rest &= rest - 1
            e = A[b, a, A_OPEN]
            if not _has(ACC[m, e], t):
                continue
            if sevens:
                base = (t * nA + a) * 2
                lo = TT[t, TT_LOW]
                hi = TT[t, TT_HIGH]
                if lo + hi == 7 or (lo == 0 and hi == 0):  # a matador: either number outward (MA2)
                    count = core.allow(MASK, LEGAL, b, count, base)
                    if lo != hi:
                        count = core.allow(MASK, LEGAL, b, count, base + 1)
                else:  # by sevens: the number x with x + e = 7 lies against e, the other is outward
                    count = core.allow(MASK, LEGAL, b, count, base + (1 if lo + e == 7 and lo != hi else 0))
            else:
                count = core.allow(MASK, LEGAL, b, count, t * nA + a)
    can_play = fitting != U0
    if T[b, T_EXTRA] >= 0 or (CFG[C_MULTI] != MULTI_NONE and T[b, T_PLACED_TURN]):
        # F23's extra play / a Fours turn after its first tile: no draw; PASS ends the turn
        # where the page allows it (FO3 "must": never, the turn ends by itself)
        if T[b, T_EXTRA] >= 0 or CFG[C_MULTI] == MULTI_MAY:
            count = core.allow(MASK, LEGAL, b, count, P + N + 1)
        T[b, T_NLEGAL] = count
        return
    rule = _draw_rule(T, CFG, b)
    drawable = _drawable(T, CFG, b)
    if rule == DRAW_AT_WILL:
        can_draw = drawable
    elif can_play or rule == DRAW_NONE:
        can_draw = False
    elif rule == DRAW_ONE:
        can_draw = drawable and T[b, T_DRAWN] == 0
    else:
        can_draw = drawable
    if can_draw:
        count = core.allow(MASK, LEGAL, b, count, P + N)
    if not can_play and not can_draw:
        count = core.allow(MASK, LEGAL, b, count, P + N + 1)
    T[b, T_NLEGAL] = count
