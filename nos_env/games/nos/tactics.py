"""The Tactics agent (``agents/tactics.py``) written again over one observation row, for numba.

Why here: Search's rollouts and the training hint ask Tactics for a decision at every
step of thousands of tables; the Python agent costs about 13 us a row plus an
observation batch, and the rollouts of one searched decision run a few hundred
steps. This module decides from one float32 observation row (``encoding.py``) in
a compiled loop, and :func:`tactics_playout` rolls tables to the end of their hand
with Tactics at every seat without leaving numba (encode, decide, apply, settle).

The function bodies follow ``agents/tactics.py`` line for line: the same quantities read
from the observation (``_state``), the same estimate of what the layout accepts after a
play (``_post_acceptance``), the same scores added in the same order (so the floats are
the same bits), and the closing proof (D14) from the observation alone: the arms' counts
and open ends rebuilt into a one-table layout, the play added, and every tile off the
layout that is not provably among the boneyard's last two checked against what some arm
accepts (``kernels._accepted_anywhere``, the engine's own rule, which the differential
keeps equal to ``layout.py``). ``tests/test_tactics_kernel.py`` checks identical scores
and choices against the Python agent on recorded positions of real games.

The weights and lookup tables are Tactics' own: ``agents.tactics.kernel_params()``
builds the tuple ``P`` (layout: ``PARAMS`` below) and passes it in, so Tactics stays
defined in one place (imports flow downward: this layer never imports ``agents``).

Ties: the Python agent adds seeded noise of at most 1e-6 to every score; here the noise
comes from a SplitMix64 stream per table (``noise[b]``, advanced per draw). With a
noise scale of 0 the first best action (in action order) is taken, as the Python agent
does with its noise switched off.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...encoding import (ANNOUNCE0, DECLARE, DECLINE, DRAW, MAX_ARMS, MAX_SEATS, NUM_ACTIONS, OBSERVATION_LAYOUT,
                         OBSERVATION_SIZE, PASS, PHASES, PLAY0, play_parts)
from ...kernels.bits import popcount as _popcount
from ...kernels.core import KERNEL, U_GAMMA, U_M1, U_M2

#: Like the rule kernels, but with reference counting: the decisions keep a few small work arrays.
ALLOC = {"cache": True}
from ...tiles import (ALL_TILES, ALL_TILES_MASK, DOUBLE_INDEX, DOUBLES_MASK, MATADORS_MASK, NUM_TILES,
                      TILE_COUNT, TILE_DOUBLE_VALUE, TILE_HIGH, TILE_IS_DOUBLE, TILE_IS_MATADOR, TILE_LOW,
                      TRIANGLE_MATADORS_MASK)
from . import kernels as RK
from .kernels import apply_action, settle
from .observe import encode
from .state import A_COUNT, A_OPEN, NUM_A, NUM_T, P_OVER, T_ANN, T_DONE, T_NLEGAL, T_PHASE, T_TO_MOVE

#: The names of the weights, in the order of ``P[0]`` (agents/tactics.py's W_* without the prefix).
WEIGHTS = ("CHIP", "SET_PIPS", "OWN", "BLOCK", "NO_PLAY", "CROSS_NUM", "DC_PAIR", "MAT", "TRI_MAT", "FIRST_K",
           "FIRST_OVER", "WEAK", "T3", "LATER", "PIPS", "CLAIM", "DOUBLE", "MAT_KEEP", "STUCK_NEXT", "STUCK_REST",
           "MOB", "IMMEDIATE_MIN_VALUE", "GENERAL_CLOSE_PROOF")
(W_CHIP, W_SET_PIPS, W_OWN, W_BLOCK, W_NO_PLAY, W_CROSS_NUM, W_DC_PAIR, W_MAT, W_TRI_MAT, W_FIRST_K, W_FIRST_OVER,
 W_WEAK, W_T3, W_LATER, W_PIPS, W_CLAIM, W_DOUBLE, W_MAT_KEEP, W_STUCK_NEXT, W_STUCK_REST, W_MOB, W_IMM_MIN,
 W_PROOF) = range(len(WEIGHTS))
#: The tuple P: the weights (float64, WEIGHTS order), then agents/tactics.py's tables by these names.
PARAMS = ("weights", "FIT", "COMP", "ACC", "ANN_GAME", "ANN_LEGAL", "ANN_PAIRS", "ANN_IMMEDIATE", "ANN_MAT_SHARE",
          "ANN_BLOCK_LEN", "ANN_COND_K", "ANN_WEAK_OK", "ANN_LATER_MAT", "ANN_COMPULSORY", "ANN_KIND",
          "ANN_LATER_OPEN", "OPEN", "BLANK_BITS")

# Observation offsets, as constants numba folds in.
_O = {name: start for name, (start, _, _) in OBSERVATION_LAYOUT.items()}
O_NP, O_PHASE, O_HAND, O_LTILES = _O["num_players"], _O["phase"], _O["hand"], _O["layout_tiles"]
O_SET_TILE, O_EXISTS, O_OPEN, O_RULE = _O["set_tile"], _O["arm_exists"], _O["arm_open"], _O["arm_rule"]
O_NEEDS, O_LOCKED, O_COUNT, O_KIND, O_ANN = (_O["arm_needs"], _O["arm_locked"], _O["arm_count"], _O["layout_kind"],
                                             _O["announcement"])
O_PRESENT, O_HSIZE, O_OUT, O_FACE = _O["seat_present"], _O["seat_hand_size"], _O["seat_out"], _O["seat_face_up"]
O_PASSED, O_DREW, O_CLAIM, O_DRAWABLE = (_O["seat_passed_tiles"], _O["seat_drew_tiles"], _O["claim_arm"],
                                         _O["boneyard_drawable"])
N_NEEDS = OBSERVATION_LAYOUT["arm_needs"][2][1]
N_CLAIM = OBSERVATION_LAYOUT["claim_arm"][2][0]
PH_SET, PH_ANNOUNCE, PH_DECLARE, PH_IMMEDIATE, PH_PLAY = (PHASES.index(p) for p in
                                                         ("set", "announce", "declare", "immediate", "play"))
N_MATCHING, N_CROSS, N_BLANK = 0, 1, 5
NA = OBSERVATION_LAYOUT["announcement"][2][0]
WORK = 59  # _act_play's work space: 6 values per arm, 7 per seat offset
MEMO = 2 * NUM_TILES + 1  # p_eff = 0, 1/2, ..., 28
FWORK = max(NA, MAX_SEATS * MEMO)  # float work space: announcement scores, or _act_play's memo

# Per action and per tile, as agents/features.py and agents/tactics.py have them.
_plays = np.arange(PLAY0, PASS)
ACT_TILE = np.full(NUM_ACTIONS, -1, np.int64)
ACT_ARM = np.full(NUM_ACTIONS, -1, np.int64)
ACT_SIDE = np.zeros(NUM_ACTIONS, np.int64)
ACT_TILE[PLAY0:PASS], ACT_ARM[PLAY0:PASS], ACT_SIDE[PLAY0:PASS], _ = play_parts(_plays)
TILE_NUM = np.stack([TILE_LOW, TILE_HIGH], axis=1).astype(np.int64)
TILE_BIT = (np.int64(1) << np.arange(NUM_TILES)).astype(np.int64)
COUNT = TILE_COUNT.astype(np.int64)
DVALUE = TILE_DOUBLE_VALUE.astype(np.int64)
IS_DBL = TILE_IS_DOUBLE.astype(np.bool_)
IS_MAT = TILE_IS_MATADOR.astype(np.bool_)
DBL_OF = DOUBLE_INDEX.astype(np.int64)
assert PLAY0 == DECLINE + 1 and DRAW == 28 and ANNOUNCE0 == DRAW + 1
assert N_CLAIM == MAX_ARMS + 2 and len(ALL_TILES) == NUM_TILES


# ------------------------------------------------------------------ helpers
@njit(**KERNEL, inline="always")
def _argmax(obs, start, size):
    """np.argmax of obs[start:start+size]: the first largest."""
    best = 0
    top = obs[start]
    for i in range(1, size):
        if obs[start + i] > top:
            top = obs[start + i]
            best = i
    return best


@njit(**KERNEL, inline="always")
def _bits(obs, start):
    """tiles.mask_from_flags of obs[start:start+28]."""
    m = 0
    for t in range(NUM_TILES):
        m |= np.int64(obs[start + t] > 0.5) << t  # (no branch: the loop vectorises)
    return m


@njit(**KERNEL, inline="always")
def _rint(x):
    return np.int64(x + 0.5)  # counts and sizes: small non-negative whole numbers


@njit(**KERNEL, inline="always")
def _p_no_fit(U, p, h):
    """agents.tactics.p_no_fit for one hand, the same float operations in the same order."""
    prob = 1.0
    for i in range(h):
        num = max(U - p - i, 0.0)
        den = max(U - i, 1.0)
        prob = prob * min(num / den, 1.0)
    return prob


@njit(**KERNEL, inline="always")
def _noise(noise, b, scale):
    """A uniform draw in [0, scale) from table b's SplitMix64 stream (0 with scale 0)."""
    if scale == 0.0:
        return 0.0
    s = noise[b] + U_GAMMA
    noise[b] = s
    z = (s ^ (s >> np.uint64(30))) * U_M1
    z = (z ^ (z >> np.uint64(27))) * U_M2
    z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)) * (1.0 / 9007199254740992.0) * scale


# ------------------------------------------------------------ announcements
@njit(**ALLOC)
def announcement_scores(P, hand, s, n, out):
    """agents.tactics.announcement_scores for one hand: out[76], -inf where not legal."""
    w = P[0]
    ANN_GAME, ANN_LEGAL, ANN_PAIRS, ANN_IMMEDIATE, ANN_MAT_SHARE = P[4], P[5], P[6], P[7], P[8]
    ANN_BLOCK_LEN, ANN_COND_K, ANN_WEAK_OK, ANN_KIND, ANN_LATER_OPEN, OPEN, BLANK_BITS = (P[9], P[10], P[11], P[14],
                                                                                          P[15], P[16], P[17])
    h_opp = 8 - n
    unseen = ALL_TILES_MASK & ~hand & ~TILE_BIT[s]
    U = _popcount(unseen)
    mats = _popcount(hand & MATADORS_MASK)
    opp_mats = _popcount(unseen & MATADORS_MASK) * h_opp / max(U, 1)
    tri_mats = _popcount(hand & TRIANGLE_MATADORS_MASK)
    weak = (hand & (MATADORS_MASK | DOUBLES_MASK)) == 0
    blank = (hand & BLANK_BITS) != 0
    imm_v = 0.0
    p_held = min(1.0, (n - 1) * h_opp / max(U, 1))
    for a in range(NA):
        if not ANN_LEGAL[s, a]:
            out[a] = -np.inf
            continue
        opening = OPEN[s, a]
        own = _popcount(opening & hand)
        p = _popcount(opening & unseen)
        score = w[W_OWN] * own
        score += w[W_LATER] * _popcount(ANN_LATER_OPEN[s, a] & ~opening & hand)
        score += w[W_BLOCK] * ANN_BLOCK_LEN[a] * (n - 1) * _p_no_fit(float(U), float(p), h_opp)
        score += w[W_NO_PLAY] * (1.0 if own == 0 else 0.0)
        score += (w[W_CROSS_NUM] if ANN_KIND[a] == 1 else 0.0) * max(own - 1, 0)
        pairs = 0
        for t in range(NUM_TILES):
            if (hand >> t) & 1 and (ANN_PAIRS[s, a, t] & hand) != 0:
                pairs += 1
        score += w[W_DC_PAIR] * pairs
        score += w[W_MAT] * ANN_MAT_SHARE[a] * (mats - opp_mats)
        score += (w[W_TRI_MAT] if ANN_KIND[a] == 2 else 0.0) * tri_mats
        k = ANN_COND_K[a]
        if k > 0:
            score += w[W_FIRST_K] * min(k, own) - w[W_FIRST_OVER] * max(k - own - 1, 0)
        else:
            score += 0.0
        score += w[W_WEAK] * (1.0 if (weak and ANN_WEAK_OK[a]) else 0.0)
        score += w[W_T3] * (1.0 if (ANN_GAME[a] == 16 and blank) else 0.0)
        imm = ANN_IMMEDIATE[s, a] & unseen
        imm_v = 0.0
        for d in range(7):
            imm_v += ((imm >> DBL_OF[d]) & 1) * DVALUE[DBL_OF[d]]
        score -= w[W_CHIP] * imm_v * p_held
        out[a] = score


# -------------------------------------------------------------- decisions
@njit(**ALLOC)
def _act_set(P, obs, mask, noise, b, scale, scores, ann):
    w = P[0]
    hand = _bits(obs, O_HAND)
    n = _argmax(obs, O_NP, 3) + 3
    best_a = -1
    top = -np.inf
    for t in range(NUM_TILES):
        sc = -np.inf
        if mask[t]:
            announcement_scores(P, hand & ~TILE_BIT[t], t, n, ann)
            sc = ann[:NA].max()
            sc += w[W_CHIP] * DVALUE[t] * (n - 1) + w[W_SET_PIPS] * COUNT[t]
            scores[t] = sc
        sc += _noise(noise, b, scale)
        if best_a < 0 or sc > top:
            best_a, top = t, sc
    sc = -1e9 if mask[DRAW] else -np.inf
    if mask[DRAW]:
        scores[DRAW] = sc
    if sc > top:
        best_a = DRAW
    return best_a


@njit(**ALLOC)
def _act_announce(P, obs, mask, noise, b, scale, scores, ann):
    hand = _bits(obs, O_HAND)
    n = _argmax(obs, O_NP, 3) + 3
    s = _argmax(obs, O_SET_TILE, NUM_TILES)
    announcement_scores(P, hand, s, n, ann)
    best_a = 0
    top = -np.inf
    for a in range(NA):
        sc = ann[a] + _noise(noise, b, scale)
        if not mask[ANNOUNCE0 + a]:
            sc = -np.inf
        else:
            scores[ANNOUNCE0 + a] = ann[a]
        if a == 0 or sc > top:
            best_a, top = a, sc
    return ANNOUNCE0 + best_a


@njit(**ALLOC, inline="always")
def _act_immediate(P, obs, legal, nl, noise, b, scale, scores):
    w = P[0]
    best_a = legal[0]
    top = -np.inf
    for i in range(nl):  # legal actions in action order (np.argmax: the first best)
        a = legal[i]
        sc = -np.inf
        if a == DECLINE:
            sc = 0.0
        elif PLAY0 <= a < PASS:
            v = (DVALUE[ACT_TILE[a]] + 0.0) if IS_DBL[ACT_TILE[a]] else 0.0
            if v >= w[W_IMM_MIN]:
                sc = v
        if sc > -np.inf:
            scores[a] = sc
        sc += _noise(noise, b, scale)
        if sc > top:
            best_a, top = a, sc
    return best_a


@njit(**ALLOC)
def accepted_after(obs, arm, out):
    """The tiles some arm accepts (locks included) after a play on ``arm`` with outward number
    ``out``, from the observation alone: the announcement and each arm's count and open end
    are all that the rules read (``kernels._accepted_anywhere``)."""
    T1 = np.zeros((1, NUM_T), np.int32)
    A1 = np.zeros((1, MAX_ARMS, NUM_A), np.int32)
    T1[0, T_ANN] = _argmax(obs, O_ANN, NA)
    for x in range(MAX_ARMS):
        A1[0, x, A_COUNT] = _rint(obs[O_COUNT + x])
        A1[0, x, A_OPEN] = _argmax(obs, O_OPEN + 7 * x, 7)
    A1[0, arm, A_COUNT] += 1
    A1[0, arm, A_OPEN] = out
    return RK._accepted_anywhere(T1, A1, 0)


@njit(**ALLOC)
def accepted_after_rows(obs, actions, out):
    """accepted_after for each observation row and legal play action (either closing variant)."""
    for i in range(obs.shape[0]):
        a = actions[i]
        out[i] = accepted_after(obs[i], ACT_ARM[a], TILE_NUM[ACT_TILE[a], ACT_SIDE[a]])


@njit(**ALLOC)
def _prove_closing(P, obs, layout, exempt, tile, arm, out):
    """agents.tactics._prove_closing: after the play no tile off the layout (other than ones
    provably among the boneyard's last two) has a legal placement."""
    off = ALL_TILES_MASK & ~(layout | TILE_BIT[tile]) & ~exempt
    return (accepted_after(obs, arm, out) & off) == 0


@njit(**ALLOC, inline="always")
def _act_play(P, obs, mask, legal, nl, noise, b, scale, scores, wk, memo):
    w = P[0]
    FIT, COMP, ACC, ANN_GAME = P[1], P[2], P[3], P[4]
    ANN_LATER_MAT, ANN_COMPULSORY, ANN_KIND, BLANK_BITS = P[12], P[13], P[14], P[17]
    fallback = DRAW if mask[DRAW] else PASS
    # ---- the row's state (agents.tactics._state)
    hand = _bits(obs, O_HAND)
    layout = _bits(obs, O_LTILES)
    unseen = ALL_TILES_MASK & ~hand & ~layout
    tri = 1 if obs[O_KIND + 2] > 0.5 else 0
    ann = _argmax(obs, O_ANN, NA)
    # Work space (no allocation per decision): per arm, then per seat offset.
    for i in range(WORK):
        wk[i] = 0
    exists, opens, rule_mat = wk[0:4], wk[4:8], wk[8:12]
    needs, count, acc = wk[12:16], wk[16:20], wk[20:24]
    alive, sizes, passed, drew, face_up = wk[24:29], wk[29:34], wk[34:39], wk[39:44], wk[44:49]
    pools, pool_sizes = wk[49:54], wk[54:59]  # per offset: the unseen tiles he may hold, how many
    any_mat = False
    for x in range(MAX_ARMS):
        exists[x] = 1 if obs[O_EXISTS + x] > 0.5 else 0
        opens[x] = _argmax(obs, O_OPEN + 7 * x, 7)
        rule_mat[x] = 1 if (obs[O_RULE + 2 * x + 1] > 0.5 and exists[x] == 1) else 0
        any_mat = any_mat or rule_mat[x] == 1
        needs[x] = _argmax(obs, O_NEEDS + N_NEEDS * x, N_NEEDS)
        count[x] = _rint(obs[O_COUNT + x])
        if exists[x] == 1 and not obs[O_LOCKED + x] > 0.5:
            acc[x] = ACC[needs[x], rule_mat[x], opens[x], tri] & ~layout
    others_in = 0
    nxt = 0
    for r in range(MAX_SEATS):
        sizes[r] = _rint(obs[O_HSIZE + r])
        passed[r] = _bits(obs, O_PASSED + NUM_TILES * r)
        drew[r] = _bits(obs, O_DREW + NUM_TILES * r)
        for d in range(7):
            if obs[O_FACE + 7 * r + d] > 0.5:
                face_up[r] += TILE_BIT[DBL_OF[d]]
        if r > 0 and obs[O_PRESENT + r] > 0.5 and not obs[O_OUT + r] > 0.5:
            alive[r] = 1
            others_in += 1
            if nxt == 0:
                nxt = r
    claim = _argmax(obs, O_CLAIM, N_CLAIM)
    drawable = obs[O_DRAWABLE] > 0.5
    in_all = ALL_TILES_MASK
    for r in range(1, MAX_SEATS):
        if alive[r] == 1:
            in_all &= passed[r]
    exempt = 0 if drawable else in_all & unseen
    for r in range(1, MAX_SEATS):
        pools[r] = unseen & ~passed[r]
        pool_sizes[r] = _popcount(pools[r])
    # p_no_fit depends on the play only through p_eff (a multiple of 1/2): remembered per offset
    for i in range(MAX_SEATS * MEMO):
        memo[i] = -1.0
    later = ANN_LATER_MAT[ann]
    mat_game = any_mat or later[0] or later[1] or later[2] or later[3]
    hs = sizes[0]
    game = ANN_GAME[ann]
    waiting = 0
    for x in range(MAX_ARMS):
        if (needs[x] == N_CROSS or needs[x] == N_BLANK) and exists[x] == 1:
            waiting += 1
    d21 = hs == 1 and others_in == 1
    # ---- every legal play (close=0 variant), in action order
    best_a = -1
    top = -np.inf
    for i in range(nl):  # the legal plays (close=0 variants), in action order
        a = legal[i]
        if a < PLAY0 or a >= PASS or (a - PLAY0) & 1:
            continue
        tile, arm = ACT_TILE[a], ACT_ARM[a]
        o = TILE_NUM[tile, ACT_SIDE[a]]
        # _post_acceptance
        my_need = needs[arm]
        phase_play = my_need == N_CROSS or my_need == N_BLANK
        post = 0
        for x in range(MAX_ARMS):
            if x == arm:
                post |= 0 if phase_play else FIT[rule_mat[arm], o]
            else:
                post |= acc[x]
        if phase_play and waiting == 1:
            if game == 16 and my_need == N_CROSS:
                post = BLANK_BITS
            else:
                kind = ANN_KIND[ann]
                n_arms = (4 if game == 16 else 3) if kind == 2 else 4
                if kind == 0:
                    n_arms = 2
                whole = 0
                for x in range(n_arms):
                    e = o if x == arm else opens[x]
                    c = count[x] + (1 if x == arm else 0)
                    lm = 1 if later[x] else 0
                    whole |= COMP[lm, e] if (ANN_COMPULSORY[ann] and c == 1) else FIT[lm, e]
                post = whole
        post &= ~layout & ~TILE_BIT[tile]
        remaining = hand & ~TILE_BIT[tile]
        # the score
        score = w[W_PIPS] * COUNT[tile]
        on_claim = claim == arm or (claim == MAX_ARMS and count[arm] == 0)
        score += w[W_CLAIM] * DVALUE[tile] * (1.0 if (IS_DBL[tile] and on_claim) else 0.0)
        score += w[W_DOUBLE] * (1.0 if IS_DBL[tile] else 0.0)
        score -= w[W_MAT_KEEP] * max(hs - 1, 0) * (1.0 if (IS_MAT[tile] and mat_game) else 0.0)
        for r in range(1, MAX_SEATS):
            if alive[r] == 0:
                continue
            fit = post & pools[r]
            p_eff = _popcount(fit) - 0.5 * _popcount(fit & drew[r])
            h = sizes[r]
            slot = r * MEMO + np.int64(2.0 * p_eff)
            prob = memo[slot]
            if prob < 0.0:
                prob = _p_no_fit(float(pool_sizes[r]), p_eff, h)
                memo[slot] = prob
            if (post & face_up[r]) != 0:
                prob = 0.0
            wr = (w[W_STUCK_NEXT] if nxt == r else w[W_STUCK_REST]) * (1.0 + (1.0 if h <= 1 else 0.0))
            score += wr * prob
        score += w[W_MOB] * min(_popcount(post & remaining), 2)
        scores[a] = score
        score += _noise(noise, b, scale)
        # closing (D14/D21): only with a proof
        proved = d21
        if not d21 and w[W_PROOF] != 0.0 and mask[a + 1]:
            relevant = ALL_TILES_MASK & ~layout & ~TILE_BIT[tile] & ~exempt
            if (post & relevant) == 0:
                proved = _prove_closing(P, obs, layout, exempt, tile, arm, o)
        close_ok = proved and mask[a + 1] != 0
        if close_ok:
            scores[a + 1] = scores[a] + 1e6
            score += 1e6
        if best_a < 0 or score > top:
            best_a, top = a + (1 if close_ok else 0), score
    return fallback if best_a < 0 else best_a


@njit(**ALLOC, inline="always")
def decide(P, obs, mask, legal, nl, noise, b, scale, scores, wk, ann, keep):
    """Tactics' action for one observation row, its mask (int8 [557]) and its legal actions
    (``legal[:nl]``, in action order). With ``keep``, ``scores`` [557] gets each considered
    action's score without noise (-inf elsewhere; a proved closing: its play's score plus 1e6);
    rows with one legal action (or none) are answered at once."""
    if keep:
        for a in range(NUM_ACTIONS):
            scores[a] = -np.inf
    if nl <= 1:
        return legal[0] if nl == 1 else 0
    phase = _argmax(obs, O_PHASE, len(PHASES))
    if phase == PH_SET:
        return _act_set(P, obs, mask, noise, b, scale, scores, ann)
    if phase == PH_ANNOUNCE:
        return _act_announce(P, obs, mask, noise, b, scale, scores, ann)
    if phase == PH_DECLARE:
        return DECLARE if mask[DECLARE] else legal[0]
    if phase == PH_IMMEDIATE:
        return _act_immediate(P, obs, legal, nl, noise, b, scale, scores)
    return _act_play(P, obs, mask, legal, nl, noise, b, scale, scores, wk, ann)


@njit(**ALLOC)
def decide_rows(P, obs, masks, noise, scale, out, scores):
    """decide() for each row of observations obs [R, OBSERVATION_SIZE] float32 and masks [R, 557]."""
    wk = np.zeros(WORK, np.int64)
    ann = np.empty(FWORK, np.float64)
    legal = np.zeros(NUM_ACTIONS, np.int64)
    for i in range(obs.shape[0]):
        nl = 0
        for a in range(NUM_ACTIONS):
            if masks[i, a]:
                legal[nl] = a
                nl += 1
        out[i] = decide(P, obs[i], masks[i], legal, nl, noise, i, scale, scores[i], wk, ann, True)


# ------------------------------------------------------------------- tables
@njit(**ALLOC)
def tactics_tables(T, S, A, L, MASK, LEGAL, n, rows, P, noise, scale, out):
    """Tactics' action for the seat to move at each of ``rows`` (observed here, float32)."""
    obs = np.zeros(OBSERVATION_SIZE, np.float32)
    scores = np.empty(NUM_ACTIONS, np.float64)
    wk = np.zeros(WORK, np.int64)
    ann = np.empty(FWORK, np.float64)
    for i in range(rows.shape[0]):
        b = rows[i]
        seat = T[b, T_TO_MOVE]
        if seat < 0:
            out[i] = -1
            continue
        encode(T, S, A, L, b, n, seat, obs, 1.0)
        out[i] = decide(P, obs, MASK[b], LEGAL[b], T[b, T_NLEGAL], noise, b, scale, scores, wk, ann, False)


@njit(**ALLOC)
def tactics_playout(T, S, A, L, BONE, R, MASK, LEGAL, n, auto, P, noise, scale, max_steps):
    """Roll every table forward with Tactics at every seat until its episode is over (T_DONE;
    the tables are made with one hand an episode and no autoreset, as Search's scratch tables).
    Returns the number of decisions taken, or -1 - b if table b needed more than ``max_steps``."""
    obs = np.zeros(OBSERVATION_SIZE, np.float32)
    scores = np.empty(NUM_ACTIONS, np.float64)
    wk = np.zeros(WORK, np.int64)
    ann = np.empty(FWORK, np.float64)
    steps = 0
    for b in range(T.shape[0]):
        k = 0
        while T[b, T_DONE] == 0 and T[b, T_PHASE] != P_OVER:
            if k == max_steps:
                return -1 - b
            seat = T[b, T_TO_MOVE]
            encode(T, S, A, L, b, n, seat, obs, 1.0)
            a = decide(P, obs, MASK[b], LEGAL[b], T[b, T_NLEGAL], noise, b, scale, scores, wk, ann, False)
            apply_action(T, S, A, L, BONE, b, n, a)
            settle(T, S, A, L, BONE, R, MASK, LEGAL, b, n, auto)
            k += 1
        steps += k
    return steps
