"""numba kernels of the fast engine: B tables stepped, masked and observed at once.

These functions are the reference engine (``engine.py``, ``layout.py``) and
the encoder (``encoding.py``) written again over struct-of-arrays state, so
numba can compile them. Function names follow the reference (``_outs`` is
``Layout.outs``, ``_close`` is ``Hand._close``, ...) so the two can be read
side by side; ``tests/test_fast_engine.py`` steps both with the same actions
and compares every mask, reward and observation.

State of table b (all int32 unless noted):

- ``T[b, T_*]``: per-table scalars (phase, seat to move, set tile, ...);
- ``S[b, seat, S_*]``: per-seat fields; tile sets are 28-bit masks;
- ``A[b, arm, A_*]``: tile count, open number, last tile of each arm;
- ``L[b, tile, L_*]`` (int8): who placed the tile (-1: not on the layout),
  its arm (4: the set tile), whether it was placed at once;
- ``BONE[b, i]`` (int8): the boneyard order, read from ``T_BONE_TOP``;
- ``R[b]`` (uint64): the table's SplitMix64 state (``rng.py``);
- ``MASK[b, a]`` (int8): the legal actions of the seat to move;
- ``LEGAL[b, i]`` (int16): the same actions as a sorted list, ``T_NLEGAL`` of them;
- ``H[b, i]`` (int16): the legal decisions of the current hand (``T_NHIST`` of them);
- ``PEN[b, k]`` (int64): D16 penalties taken in the current hand after its first k legal
  decisions (a penalty changes only chips, so where it came and how many is all there is
  to keep); ``PEN[b, PEN_DIRTY]`` is 1 once the hand has any, so a new hand clears the row
  only then. Without the penalty option PEN has one column, never read or written.

Chips (``S_CHIPS`` ...) and the per-reason nets (``S_PAY``) are int32: the range checks of
``options.py`` keep every value and every difference of them inside it.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core.extending import intrinsic, overload

from .encoding import (
    ANNOUNCE0,
    COMPACT_CHIPS_AT,
    CONDITIONS,
    DECLARE,
    DECLINE,
    DRAW,
    MAX_ARMS,
    MAX_SEATS,
    NEEDS,
    NO_DECLARE,
    NUM_ACTIONS,
    OBSERVATION_LAYOUT,
    PASS,
    PLAY0,
    SET0,
)
from .engine import CLOSE_PAYMENT, DECLARED_DOUBLES, NOS_PAYMENT, PENALTY_PAYMENT, WRONG_CLOSE_PAYMENT
from .announcements import ALL_ANNOUNCEMENTS, MATADOR, game_spec, is_legal_for_set_tile
from .rng import GAMMA
from .tiles import ALL_TILES, MATADORS, TRIANGLE_MATADORS, count_value

#: Options of every serial kernel. The kernels never allocate or keep an array, so numba's
#: reference counting would only add calls for each array argument at every inlined helper
#: (about 40 in ``encode`` alone); ``_nrt=False`` compiles them without it.
KERNEL = {"cache": True, "_nrt": False}

# ------------------------------------------------------------------ tables
NT = 28
TA = np.array([t[0] for t in ALL_TILES], np.int64)
TB = np.array([t[1] for t in ALL_TILES], np.int64)
IS_DOUBLE = np.array([t[0] == t[1] for t in ALL_TILES], np.bool_)
IS_MATADOR = np.array([t in MATADORS for t in ALL_TILES], np.bool_)
IS_TRIANGLE = np.array([t in TRIANGLE_MATADORS for t in ALL_TILES], np.bool_)
COUNT_VALUE = np.array([count_value(t) for t in ALL_TILES], np.int64)
DOUBLE_VALUE = np.array([(7 if t == (0, 0) else t[0]) if t[0] == t[1] else 0 for t in ALL_TILES], np.int64)
DOUBLE_OF = np.array([ALL_TILES.index((d, d)) for d in range(7)], np.int64)  # tile index of [d-d]
DOUBLES_MASK = sum(1 << ALL_TILES.index((d, d)) for d in range(7))
MATADORS_MASK = sum(1 << ALL_TILES.index(t) for t in MATADORS)
# DECLARED[n, doubles]: what each other player pays (0: not eligible)
DECLARED = np.zeros((6, 8), np.int64)
for (_n, _d), _amount in DECLARED_DOUBLES.items():
    DECLARED[_n, _d] = _amount

# Phases, as engine.PHASES.
P_SET, P_ANNOUNCE, P_DECLARE, P_IMMEDIATE, P_PLAY, P_OVER = range(6)
LINE, CROSS, TRIANGLE = 0, 1, 2
ORD, MAT = 0, 1
C_NONE, C_FHTT, C_FIRST = 0, 1, 2
END_OUT, END_CLOSE, END_BLOCKED = 0, 1, 2

# Per-announcement spec (games.game_spec) as small integers (int8 keeps the table in a few cache lines).
SP_GAME, SP_KIND, SP_NARMS, SP_COMP, SP_COND, SP_SIDE, SP_K, SP_SWITCH, SP_ORDER17, SP_T3 = range(10)
SP_BASE, SP_VOLARM, SP_OPEN, SP_LATER = 10, 11, 12, 16  # opening/later rules: 4 columns each
NSP = 20
SPEC = np.zeros((len(ALL_ANNOUNCEMENTS), NSP), np.int8)
ANN_OK = np.zeros((28, len(ALL_ANNOUNCEMENTS)), np.bool_)
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
    for _t in range(28):
        ANN_OK[_t, _i] = is_legal_for_set_tile(_a, ALL_TILES[_t])

# State columns.
(T_PHASE, T_TO_MOVE, T_ON_SET, T_FIRST_HAND, T_SET_TILE, T_SET_DRAWN, T_ANN, T_BONE_TOP, T_BONE_END,
 T_PREV_TILE, T_PREV_SEAT, T_PREV_OUT, T_PASSES, T_NOS, T_END, T_QPOS, T_HANDS_LEFT, T_HAND_INDEX,
 T_DONE, T_PLACED, T_NHIST, T_NLEGAL, T_CLOSE_RIGHT, T_CLOSE_WRONG) = range(24)
NUM_T = 24
#: Legal decisions kept per hand (for rebuilding it in the reference engine); a hand has
#: at most about 180. T_NHIST beyond it marks an overflow. Penalised attempts (D16) are not
#: decisions: they are counted in PEN, so a hand of any length fits.
MAX_HISTORY = 256
#: PEN's last column: the row holds counts of the current hand (cleared at the next hand).
PEN_DIRTY = MAX_HISTORY + 1
PEN_COLUMNS = MAX_HISTORY + 2
#: The action value that leaves a table untouched for one ``step_batch`` call (self-play
#: steps only the tables whose seat to move is an opponent).
IDLE = -1
(S_HAND, S_DEALT, S_DECLARED, S_OUT, S_NWAITS, S_WAIT0, S_WAIT1, S_PASSED_ON, S_DREW_ON,
 S_PASSED_TILES, S_DREW_TILES, S_CHIPS, S_CHIPS_HAND, S_CHIPS_EPISODE, S_COUNT, S_PENDING) = range(16)
#: Payment reasons, as in the reference ledger; S[b, seat, S_PAY + reason] is this episode's net.
REASONS = ("set", "declared", "immediate", "double", "nos", "close", "wrong_close", "settlement", "penalty")
R_SET, R_DECLARED, R_IMMEDIATE, R_DOUBLE, R_NOS, R_CLOSE, R_WRONG_CLOSE, R_SETTLEMENT, R_PENALTY = range(9)
S_PAY = 16
NUM_S = S_PAY + len(REASONS)
#: What step_batch reports for a finished episode: its last hand's announcement, setter and
#: end, the episode's correct and wrong closings, and every seat's net chips by reason.
F_ANN, F_ON_SET, F_END, F_CLOSE_RIGHT, F_CLOSE_WRONG, F_PAY = range(6)
NUM_F = F_PAY + 5 * len(REASONS)
A_COUNT, A_OPEN, A_LAST = range(3)
NUM_A = 3
L_PLACER, L_ARM, L_IMMEDIATE = range(3)

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
N_NEEDS = len(NEEDS)
NEED_MATCHING, NEED_CROSS, NEED_COMP_DOUBLE, NEED_DOUBLE_OR_MAT, NEED_MATADOR, NEED_BLANK, NEED_NOTHING = range(7)
assert NEEDS[NEED_BLANK] == "blank" and NEEDS[NEED_NOTHING] == "nothing_yet"

# What an arm accepts, by "arm code": 0..13 matching by rule r at open e (r*7+e), 14..27 the
# compulsory tile (14+r*7+e), 28 a triangle matador, 29 game 16's blank on T3. ACCEPT is the
# 28-bit set of tiles, SIDES[code, tile] the outward choices as bits (1: lower number out, 2: higher).
CODE_COMPULSORY, CODE_TRIANGLE, CODE_BLANK, NUM_CODES = 14, 28, 29, 30
SIDES = np.zeros((NUM_CODES, 28), np.int8)
ACCEPT = np.zeros(NUM_CODES, np.int64)


def _side_bits(tile, outs):
    return sum(1 << (0 if o == tile[0] else 1) for o in outs)


def _build_accept_tables():
    from .layout import compulsory_fits, fits

    for r, rule in enumerate(("ordinary", "matador")):
        for e in range(7):
            for i, tile in enumerate(ALL_TILES):
                SIDES[r * 7 + e, i] = _side_bits(tile, fits(rule, tile, e))
                SIDES[CODE_COMPULSORY + r * 7 + e, i] = _side_bits(tile, compulsory_fits(rule, tile, e))
    for i, tile in enumerate(ALL_TILES):
        SIDES[CODE_TRIANGLE, i] = 3 if tile in TRIANGLE_MATADORS else 0
        SIDES[CODE_BLANK, i] = _side_bits(tile, [tile[1]]) if tile[0] == 0 else 0
    for code in range(NUM_CODES):
        ACCEPT[code] = sum(1 << i for i in range(28) if SIDES[code, i])


_build_accept_tables()

U_GAMMA = np.uint64(GAMMA)
U_M1 = np.uint64(0xBF58476D1CE4E5B9)
U_M2 = np.uint64(0x94D049BB133111EB)


# ------------------------------------------------------------------- random
@njit(**KERNEL, inline="always")
def _next_u64(R, b):
    s = R[b] + U_GAMMA
    R[b] = s
    z = (s ^ (s >> np.uint64(30))) * U_M1
    z = (z ^ (z >> np.uint64(27))) * U_M2
    return z ^ (z >> np.uint64(31))


@njit(**KERNEL, inline="always")
def _below(R, b, n):
    return np.int64((_next_u64(R, b) >> np.uint64(32)) % np.uint64(n))


# One machine instruction each, where a loop or a table lookup would cost a dozen.
def _bit_codegen(name, *flags):
    """Code generator calling the LLVM bit intrinsic `name` on the argument as an int64."""

    def codegen(context, builder, sig, args):
        value = context.cast(builder, args[0], sig.args[0], types.int64)
        fn = builder.module.declare_intrinsic(name, [ir.IntType(64)] + [ir.IntType(1)] * len(flags))
        return builder.call(fn, [value] + [ir.Constant(ir.IntType(1), f) for f in flags])

    return codegen


@intrinsic
def _popcount(typingctx, x):
    """The number of set bits of a non-negative integer (LLVM ctpop)."""
    if isinstance(x, types.Integer):
        return types.int64(x), _bit_codegen("llvm.ctpop")


@intrinsic
def _low_bit(typingctx, x):
    """The index of the lowest set bit of a non-zero integer (LLVM cttz; zero is undefined)."""
    if isinstance(x, types.Integer):
        return types.int64(x), _bit_codegen("llvm.cttz", 1)


@njit(**KERNEL, inline="always")
def _rel(s, seat, n):
    """(s - seat) % n for seats 0..n-1, without a division."""
    r = s - seat
    return r + n if r < 0 else r


@njit(**KERNEL, inline="always")
def _after(seat, i, n):
    """(seat + i) % n for 0 <= i <= n, without a division."""
    s = seat + i
    return s - n if s >= n else s


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
def _play_index(t, arm, side, close):
    return PLAY0 + ((t * MAX_ARMS + arm) * 2 + side) * 2 + close


@njit(**KERNEL, inline="always")
def _allow(MASK, LEGAL, b, count, action):
    """Marks action legal and appends it to the table's list; returns the new count."""
    MASK[b, action] = 1
    LEGAL[b, count] = action
    return count + 1


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
            rest = (action - PLAY0) // 4
            arm = rest % MAX_ARMS
            t = rest // MAX_ARMS
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
    rest, close = divmod(action - PLAY0, 2)
    rest, side = divmod(rest, 2)
    t, arm = divmod(rest, MAX_ARMS)
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


# ------------------------------------------------------------- batch entry points
@njit(**KERNEL)
def _reset_one(T, S, A, L, BONE, R, MASK, LEGAL, b, n, hands, first_rule, chips, auto):
    new_episode(T, S, A, L, BONE, R, b, n, hands, first_rule, chips)
    settle(T, S, A, L, BONE, R, MASK, LEGAL, b, n, auto)
    for s in range(n):
        S[b, s, S_PENDING] = S[b, s, S_CHIPS] - S[b, s, S_CHIPS_EPISODE]


@njit(**KERNEL)
def reset_batch(T, S, A, L, BONE, R, MASK, LEGAL, n, hands, first_rule, chips, auto, tables):
    for i in range(tables.shape[0]):
        _reset_one(T, S, A, L, BONE, R, MASK, LEGAL, tables[i], n, hands, first_rule, chips, auto)


@njit(**KERNEL)
def first_beyond(S, n, guard):
    """The first table with a seat's chips beyond +-guard, or -1 (penalty mode's check, options.py)."""
    for b in range(S.shape[0]):
        for s in range(n):
            if S[b, s, S_CHIPS] > guard or S[b, s, S_CHIPS] < -guard:
                return b
    return -1


@njit(**KERNEL)
def first_illegal(MASK, actions):
    """The first table whose action is not legal, or -1 (IDLE tables are skipped)."""
    for b in range(MASK.shape[0]):
        if actions[b] != IDLE and MASK[b, actions[b]] == 0:
            return b
    return -1


@njit(**KERNEL)
def _clear_penalties(PEN, b):
    """A new hand's penalty counts start at zero (a row is written only when it has any; without
    the penalty option PEN has a single, unused column)."""
    if PEN.shape[1] == PEN_COLUMNS and PEN[b, PEN_DIRTY]:
        for k in range(PEN_COLUMNS):
            PEN[b, k] = 0


@njit(**KERNEL)
def _penalise(T, S, PEN, b, n):
    """D16 penalty option: 40 to every other player, the same seat again. A finished table
    (autoreset off) has nobody to move and takes no penalty. A call of its own, so
    _step_one's legal-action path stays as it was."""
    seat = T[b, T_TO_MOVE]
    if seat < 0:
        return
    for s in range(n):
        if s != seat:
            _pay(S, b, seat, s, PENALTY_PAYMENT, R_PENALTY)
    # Counted where it came, not kept as a decision: the history stays bounded.
    k = T[b, T_NHIST]
    if k <= MAX_HISTORY:
        PEN[b, k] += 1
    PEN[b, PEN_DIRTY] = 1


@njit(**KERNEL)
def _step_one(T, S, A, L, BONE, R, MASK, LEGAL, H, PEN, b, n, a, auto, penalty, hands, first_rule, chips,
              rewards, terminated, final_chips, final_stats, current, autoreset):
    if a == IDLE:  # the table waits: nothing changes, nothing is paid, its obs row is not written
        for s in range(MAX_SEATS):
            rewards[b, s] = 0
        terminated[b] = 0
        current[b] = T[b, T_TO_MOVE]
        return
    for s in range(MAX_SEATS):
        rewards[b, s] = S[b, s, S_CHIPS]
    if MASK[b, a] == 0:
        if penalty:
            _penalise(T, S, PEN, b, n)
    else:
        hand_index = T[b, T_HAND_INDEX]
        apply_action(T, S, A, L, BONE, b, n, a)
        settle(T, S, A, L, BONE, R, MASK, LEGAL, b, n, auto)
        # The decision joins the hand's history, the one that ends the hand included; when a new
        # hand of the session has started, its history starts empty instead.
        if T[b, T_HAND_INDEX] == hand_index:
            k = T[b, T_NHIST]
            if k < MAX_HISTORY:
                H[b, k] = a
            T[b, T_NHIST] = k + 1
        else:
            _clear_penalties(PEN, b)
    for s in range(MAX_SEATS):
        rewards[b, s] = S[b, s, S_CHIPS] - rewards[b, s] + S[b, s, S_PENDING]
        S[b, s, S_PENDING] = 0
    terminated[b] = T[b, T_DONE]
    if T[b, T_DONE]:
        for s in range(MAX_SEATS):
            final_chips[b, s] = S[b, s, S_CHIPS]
        final_stats[b, F_ANN] = T[b, T_ANN]
        final_stats[b, F_ON_SET] = T[b, T_ON_SET]
        final_stats[b, F_END] = T[b, T_END]
        final_stats[b, F_CLOSE_RIGHT] = T[b, T_CLOSE_RIGHT]
        final_stats[b, F_CLOSE_WRONG] = T[b, T_CLOSE_WRONG]
        for s in range(MAX_SEATS):
            for r in range(len(REASONS)):
                final_stats[b, F_PAY + s * len(REASONS) + r] = S[b, s, S_PAY + r]
    if T[b, T_DONE] and autoreset:
        _reset_one(T, S, A, L, BONE, R, MASK, LEGAL, b, n, hands, first_rule, chips, auto)
        _clear_penalties(PEN, b)
    current[b] = T[b, T_TO_MOVE]


@njit(**KERNEL)
def _observe_row(T, S, A, L, b, n, seat, obs, chip_scale):
    if seat >= 0:
        encode(T, S, A, L, b, n, seat, obs[b], chip_scale)
    else:  # a finished table without autoreset: nobody is to move
        for i in range(obs.shape[1]):
            obs[b, i] = 0


@njit(**KERNEL)
def step_batch(T, S, A, L, BONE, R, MASK, LEGAL, H, PEN, n, actions, auto, penalty, hands, first_rule, chips,
               rewards, terminated, final_chips, final_stats, current, obs, observe, chip_scale, autoreset):
    """One action per table (serial). Rewards are chip changes; a finished episode is reported
    in ``terminated`` with its final rewards and chips, then (with ``autoreset``) the table
    starts its next episode, whose own opening payments (a D12 forced set) wait in
    S_PENDING for the table's next step."""
    for b in range(T.shape[0]):
        _step_one(T, S, A, L, BONE, R, MASK, LEGAL, H, PEN, b, n, actions[b], auto, penalty, hands, first_rule, chips,
                  rewards, terminated, final_chips, final_stats, current, autoreset)
    if observe:
        for b in range(T.shape[0]):
            if actions[b] != IDLE:
                _observe_row(T, S, A, L, b, n, current[b], obs, chip_scale)


@njit(cache=True, parallel=True)
def step_batch_parallel(T, S, A, L, BONE, R, MASK, LEGAL, H, PEN, n, actions, auto, penalty, hands, first_rule, chips,
                        rewards, terminated, final_chips, final_stats, current, obs, observe, chip_scale,
                        autoreset):
    """step_batch over all cores: tables are independent. The observations are a second pass:
    interleaving their 4 KB rows with the steps pushes the state out of the caches (about 5%)."""
    for b in prange(T.shape[0]):
        _step_one(T, S, A, L, BONE, R, MASK, LEGAL, H, PEN, b, n, actions[b], auto, penalty, hands, first_rule, chips,
                  rewards, terminated, final_chips, final_stats, current, autoreset)
    if observe:
        for b in prange(T.shape[0]):
            if actions[b] != IDLE:
                _observe_row(T, S, A, L, b, n, current[b], obs, chip_scale)


@njit(**KERNEL)
def observe_batch(T, S, A, L, n, seats, obs, chip_scale):
    for b in range(T.shape[0]):
        encode(T, S, A, L, b, n, seats[b], obs[b], chip_scale)


@njit(cache=True, parallel=True)
def observe_batch_parallel(T, S, A, L, n, seats, obs, chip_scale):
    for b in prange(T.shape[0]):
        encode(T, S, A, L, b, n, seats[b], obs[b], chip_scale)


# ------------------------------------------------------------- batched random policy
@njit(**KERNEL, inline="always")
def _sample_one(T, LEGAL, R, out, b):
    count = T[b, T_NLEGAL]
    out[b] = LEGAL[b, _below(R, b, count)] if count > 0 else IDLE  # a finished table waits


@njit(cache=True, parallel=True)
def sample_legal(T, LEGAL, R, out):
    """A uniformly random legal action per table, from the policy's own streams R (uint64 [B])."""
    for b in prange(LEGAL.shape[0]):
        _sample_one(T, LEGAL, R, out, b)


@njit(**KERNEL)
def sample_legal_serial(T, LEGAL, R, out):
    """``sample_legal`` on the calling thread only (the same draws)."""
    for b in range(LEGAL.shape[0]):
        _sample_one(T, LEGAL, R, out, b)
