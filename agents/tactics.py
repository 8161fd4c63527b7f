"""Tactics: the player the rules text's "Tactics" section describes.

A heuristic agent, vectorised over the batch. Every decision is a weighted
score over the legal actions of a row; ``self.rng`` only breaks ties. The
weights are module constants (``W_*``), listed here by decision.

Set (a double from the hand, when there is a choice)
    score(s) = best announcement score after setting s (below)
             + W_CHIP * v * (n-1)           the set payment, v from each opponent
             + W_SET_PIPS * count(s)        the set tile leaves the hand
    A forced draw or a forced set (drawn tile, first-hand rule) is just taken.

Announce (each legal announcement a, for the hand left after the set)
    score(a) = W_OWN * own            own tiles placeable right after a
                                      (``features.OPENING_PLAYABLE[set, a]``)
             + W_BLOCK * LEN[a] * sum over opponents of P(he has no opening play)
                                      (hypergeometric: the unseen tiles that fit at
                                      the opening among the unseen tiles; LEN is how
                                      long the restriction lasts: line 1, condition
                                      line 1.2, cross 1.5, triangle 2)
             + W_NO_PLAY * [own == 0] (a restrictive game one cannot play in)
             + W_CROSS_NUM * [cross layout] * max(0, own - 1)
                                      (a cross on a double holding many of its number)
             + W_DC_PAIR * pairs      double-cross games: own tiles t that fit a cross
                                      arm whose compulsory tile, after t, is a double
                                      we also hold (the [5-4] then [4-4] of the text)
             + W_MAT * M[a] * (matadors held - matadors an opponent holds on average)
                                      (M[a]: share of the game played by matador
                                      matching, opening and later phase half each)
             + W_TRI_MAT * [triangle] * triangle matadors held (the [0-0] tactic)
             + game 11/12 conditions FIRST(s,k) / FHTT(s) (k=1):
               W_FIRST_K * min(k, own) - W_FIRST_OVER * max(0, k - own - 1)
               (a long condition only when we hold tiles for the condition side)
             + W_WEAK * [no doubles and no matadors in hand] for a volapuk line whose
               FIRST condition lies on its ordinary arm (the text's weak-hand advice)
             + W_T3 * [game 16] * [we hold a blank-ended tile for T3]
             + W_LATER * own tiles that only the locked arm of a condition line takes,
               once it opens (its set number under its later rule: the text's [6-2]
               on the volapuk matador side)
             - W_CHIP * expected immediate-double payments (doubles that fit a fresh
               arm, v each, times the chance an opponent holds them)

Declare: always (declaring always pays, far more than the information costs).

Immediate doubles: place the highest-valued double that fits while its v is at
least ``immediate_min_value`` (default 1, i.e. every double: the tile leaves the
hand, a double is hard to place later, and the lost turn is the turn in which
it would have been played anyway); otherwise decline.

Play (each legal placement: tile t on arm x with outward number o)
    score = W_PIPS * count(t)                     shed heavy tiles ([0-0] counts 14)
          + W_CLAIM * v   if t is a double placed next to the preceding turn's tile
                          (``claim_arm``; the set tile when the arm is empty)
          + W_DOUBLE * [t is a double]            doubles are hard to place later
          - W_MAT_KEEP * (hand size - 1) * [t is a matador, matador matching in force
                          on some arm now or after the opening]  keep matadors flexible
                          until needed (or until the last tiles)
          + sum over opponents j still in: w_j * P(j has no play after ours)
                          w = W_STUCK_NEXT for the next player, W_STUCK_REST for the
                          others, doubled for a player with one tile left. P is
                          hypergeometric over the unseen tiles he may hold: tiles he
                          passed on are excluded (hard evidence, seat_passed_tiles),
                          tiles he drew on count half (a hint, seat_drew_tiles), a
                          face-up declared double that fits makes P = 0. What fits
                          after our play is estimated from the observation: every
                          arm's current acceptance (arm_needs, arm_rule, arm_open,
                          locks), our arm's new open end, and the next stage's rules
                          when our tile ends the cross or triangle phase.
          + W_MOB * min(2, own remaining tiles that fit after the play)
    Draw only when no play is legal (never a voluntary draw); pass when forced.

Close: only with a proof from our own knowledge (D14), then always (a correct
closing earns 20 from each player still in; nobody could play anyway):
- D21: the play empties our hand and exactly one other player still holds
  tiles: always correct;
- general proof: the layout is rebuilt from the observation (announcement,
  set tile, each arm's tiles, count and open end; enough for every rule in
  ``nos_env.layout``), the play is applied, and no tile off the layout may
  have a legal placement, our own remaining tiles included. A tile may be
  ignored only if it is provably among the boneyard's last two: nothing is
  drawable any more and every other player still in has passed with that
  tile fitting (``seat_passed_tiles``: he holds none of them, for good).
  A cheap vectorised filter picks the rows worth the exact (Python) check.

Only the observation and the mask are used (``context`` is ignored, D17).
Rows with a single legal action are answered at once. ``agent.stats`` counts
closings made (D21 / general proof) and exact proofs tried. Cost: about 13 us per
row on average over whole hands (set decisions about 50-100 us, plays 7-10 us),
measured on batches of 1024 observations from ``nos_env.vector_env``.
"""

from __future__ import annotations

import numpy as np

from nos_env import encoding as E
from nos_env.announcements import ALL_ANNOUNCEMENTS, MATADOR, game_spec, is_legal_for_set_tile
from nos_env.layout import Layout, Placed, compulsory_fits, fits
from nos_env.tiles import (ALL_TILES, ALL_TILES_MASK, DOUBLE_INDEX, DOUBLES_MASK, MATADORS_MASK, NUM_TILES, TILE_BIT,
                           TILE_COUNT, TILE_DOUBLE_VALUE, TILE_HIGH, TILE_IS_DOUBLE, TILE_IS_MATADOR, TILE_LOW,
                           TRIANGLE_MATADORS_MASK, mask_from_flags, popcount, tiles_mask)

from . import features as F
from .base import Agent, BatchContext, float_observations

# ----------------------------------------------------------------- weights
# Set and announcement (units: roughly "one own tile playable").
W_CHIP = 0.2
W_SET_PIPS = 0.1
W_OWN = 1.0
W_BLOCK = 1.5
W_NO_PLAY = -2.0
W_CROSS_NUM = 0.5
W_DC_PAIR = 1.0
W_MAT = 0.75
W_TRI_MAT = 1.0
W_FIRST_K = 0.4
W_FIRST_OVER = 0.6
W_WEAK = 1.0
W_T3 = 0.5
W_LATER = 0.5
# Play (units: roughly chips).
W_PIPS = 1.0
W_CLAIM = 2.0
W_DOUBLE = 3.0
W_MAT_KEEP = 5.0
W_STUCK_NEXT = 8.0
W_STUCK_REST = 3.0
W_MOB = 2.0
IMMEDIATE_MIN_VALUE = 1

# ------------------------------------------------------------------ tables
NA = len(ALL_ANNOUNCEMENTS)
# Per-tile tables and tile-set masks come from nos_env.tiles; the matching rule from nos_env.layout.
TILE_NUM = np.stack([TILE_LOW, TILE_HIGH], axis=1)  # [28, side]: the number facing outward
BLANK_BITS = tiles_mask(t for t in ALL_TILES if t[0] == 0)  # game 16's T3 takes these


def _accepted(rule_fits) -> np.ndarray:
    """[rule (E.RULES: 0 ordinary, 1 matador), open end]: the tiles that ``rule_fits(rule, tile, end)``
    (nos_env.layout) places on an open end, as a tile set."""
    return np.array([[tiles_mask(t for t in ALL_TILES if rule_fits(rule, t, e)) for e in range(7)]
                     for rule in E.RULES], np.int64)


FIT = _accepted(fits)  # matching (section 3)
COMP = _accepted(compulsory_fits)  # the compulsory tile of a double-cross arm (section 4)
FIT_ORD, FIT_MAT = FIT
COMP_ORD, COMP_MAT = COMP

N_MATCHING, N_CROSS, N_COMP_D, N_COMP_DM, N_MATADOR, N_BLANK, N_NOTHING = range(len(E.NEEDS))
assert E.NEEDS[N_BLANK] == "blank" and E.NEEDS[N_NOTHING] == "nothing_yet"


def _acceptance_table() -> np.ndarray:
    """ACC[needs, rule, open, triangle]: the tiles an (unlocked) arm accepts now."""
    acc = np.zeros((len(E.NEEDS), 2, 7, 2), np.int64)
    for r in range(2):
        for e in range(7):
            for tri in range(2):
                acc[N_MATCHING, r, e, tri] = FIT[r, e]
                acc[N_CROSS, r, e, tri] = TRIANGLE_MATADORS_MASK if tri else FIT[r, e]
                acc[N_COMP_D, r, e, tri] = COMP_ORD[e]
                acc[N_COMP_DM, r, e, tri] = COMP_MAT[e]
                acc[N_MATADOR, r, e, tri] = MATADORS_MASK
                acc[N_BLANK, r, e, tri] = BLANK_BITS
    return acc


ACC = _acceptance_table()


def _announcement_tables():
    game = np.array([a.game for a in ALL_ANNOUNCEMENTS], np.int64)
    legal = np.zeros((NUM_TILES, NA), bool)
    pairs = np.zeros((NUM_TILES, NA, NUM_TILES), np.int64)  # doubles that are compulsory after own cross tile t
    immediate = np.zeros((NUM_TILES, NA), np.int64)  # doubles that fit a fresh arm at once
    mat_share = np.zeros(NA)
    block_len = np.ones(NA)
    cond_k = np.zeros(NA, np.int64)
    weak_ok = np.zeros(NA, bool)
    later_mat = np.zeros((NA, 4), bool)
    later_open = np.zeros((NUM_TILES, NA), np.int64)  # condition lines: what the locked arm takes later
    compulsory = np.zeros(NA, bool)
    kind = np.zeros(NA, np.int64)  # 0 line, 1 cross, 2 triangle
    for i, a in enumerate(ALL_ANNOUNCEMENTS):
        spec = game_spec(a)
        kind[i] = ("line", "cross", "triangle").index(spec.layout)
        compulsory[i] = spec.compulsory
        arms = {"line": 2, "cross": 4, "triangle": 4 if spec.t3 else 3}[spec.layout]
        later_mat[i, : len(spec.later)] = [r == MATADOR for r in spec.later]
        mat_share[i] = 0.5 * np.mean([r == MATADOR for r in spec.opening[:arms]]) + 0.5 * np.mean(
            [r == MATADOR for r in spec.later[:arms]]
        )
        if spec.layout == "cross":
            block_len[i] = 1.5
        elif spec.layout == "triangle":
            block_len[i] = 2.0
        elif a.condition is not None:
            block_len[i] = 1.2
        if a.condition is not None:
            cond_k[i] = a.condition.k if a.condition.kind == "FIRST" else 1
            weak_ok[i] = a.game == 12 and a.condition.side == a.ordinary_arm
        for s, set_tile in enumerate(ALL_TILES):
            if not is_legal_for_set_tile(a, set_tile):
                continue
            legal[s, i] = True
            layout = Layout(spec, set_tile)
            if spec.layout == "line" and a.condition is not None:
                other = 1 - a.condition.side
                end = layout.open_end(other)
                for t, tile in enumerate(ALL_TILES):
                    if tile != set_tile and fits(spec.later[other], tile, end):
                        later_open[s, i] |= 1 << t
            for d in range(7):
                dt = (d, d)
                if dt != set_tile and any(layout.immediate_outs(arm, dt) for arm in range(len(layout.arms))):
                    immediate[s, i] |= 1 << ALL_TILES.index(dt)
            if not spec.compulsory:
                continue
            for t, tile in enumerate(ALL_TILES):
                if tile == set_tile:
                    continue
                for arm in range(len(layout.arms)):
                    if spec.layout == "triangle" and arm == 3:
                        continue
                    for out in layout.outs(arm, tile, ignore_locks=True):
                        for d in range(7):
                            dt = (d, d)
                            if dt not in (tile, set_tile) and compulsory_fits(spec.later[arm], dt, out):
                                pairs[s, i, t] |= 1 << ALL_TILES.index(dt)
    return (game, legal, pairs, immediate, mat_share, block_len, cond_k, weak_ok, later_mat, compulsory, kind,
            later_open)


(ANN_GAME, ANN_LEGAL, ANN_PAIRS, ANN_IMMEDIATE, ANN_MAT_SHARE, ANN_BLOCK_LEN, ANN_COND_K, ANN_WEAK_OK,
 ANN_LATER_MAT, ANN_COMPULSORY, ANN_KIND, ANN_LATER_OPEN) = _announcement_tables()
OPEN = F.OPENING_PLAYABLE  # [28, 76]

PH = {name: i for i, name in enumerate(E.PHASES)}
_SL = E.OBSERVATION_LAYOUT


def _col(name: str) -> slice:
    start, stop, _ = _SL[name]
    return slice(start, stop)


def p_no_fit(U, p, h) -> np.ndarray:
    """P(a hand of h tiles drawn from U unseen tiles holds none of p fitting ones).

    Hypergeometric: prod_{i<h} (U-p-i)/(U-i); p may be fractional (soft evidence)."""
    U = np.asarray(U, np.float64)
    p = np.asarray(p, np.float64)
    h = np.asarray(h, np.int64)
    prob = np.ones(np.broadcast(U, p, h).shape)
    top = int(h.max()) if h.size else 0
    for i in range(top):
        num = np.maximum(U - p - i, 0.0)
        den = np.maximum(U - i, 1.0)
        prob = np.where(i < h, prob * np.minimum(num / den, 1.0), prob)
    return prob


# ------------------------------------------------------- announcement scores
def announcement_scores(hand: np.ndarray, set_tile: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Score [M, 76] of every announcement for the hand ``hand`` (bits, set tile
    excluded) after ``set_tile`` with ``n`` players; -inf where not legal."""
    hand = np.asarray(hand, np.int64)
    s = np.asarray(set_tile, np.int64)
    n = np.asarray(n, np.int64)
    h_opp = (8 - n)[:, None]
    unseen = (ALL_TILES_MASK & ~hand & ~TILE_BIT[s])[:, None]
    U = popcount(unseen)
    opening = OPEN[s]  # [M, 76]
    own = popcount(opening & hand[:, None])
    p = popcount(opening & unseen)
    score = W_OWN * own.astype(np.float64)
    score += W_LATER * popcount(ANN_LATER_OPEN[s] & ~opening & hand[:, None])
    score += W_BLOCK * ANN_BLOCK_LEN[None, :] * (n[:, None] - 1) * p_no_fit(U, p, h_opp)
    score += W_NO_PLAY * (own == 0)
    score += W_CROSS_NUM * (ANN_KIND == 1)[None, :] * np.maximum(own - 1, 0)
    # Double-cross pairs: own cross tile t whose arm then needs a double we hold.
    pairs_t = ANN_PAIRS[s]  # [M, 76, 28]
    held = ((hand[:, None] >> np.arange(NUM_TILES)) & 1).astype(bool)  # [M, 28]
    has_pair = ((pairs_t & hand[:, None, None]) != 0) & held[:, None, :]
    score += W_DC_PAIR * has_pair.sum(axis=2)
    mats = popcount(hand & MATADORS_MASK)[:, None]
    opp_mats = popcount(unseen & MATADORS_MASK) * h_opp / np.maximum(U, 1)  # expected per opponent
    score += W_MAT * ANN_MAT_SHARE[None, :] * (mats - opp_mats)
    score += W_TRI_MAT * (ANN_KIND == 2)[None, :] * popcount(hand & TRIANGLE_MATADORS_MASK)[:, None]
    k = ANN_COND_K[None, :]
    cond = W_FIRST_K * np.minimum(k, own) - W_FIRST_OVER * np.maximum(k - own - 1, 0)
    score += np.where(k > 0, cond, 0.0)
    weak = ((hand & (MATADORS_MASK | DOUBLES_MASK)) == 0)[:, None]
    score += W_WEAK * (weak & ANN_WEAK_OK[None, :])
    score += W_T3 * ((ANN_GAME == 16)[None, :] & ((hand & BLANK_BITS) != 0)[:, None])
    # Expected payments for doubles the opponents may place at once.
    imm = ANN_IMMEDIATE[s] & unseen  # [M, 76]
    v_imm = np.zeros(imm.shape)
    for d in range(7):
        v_imm += ((imm >> DOUBLE_INDEX[d]) & 1) * TILE_DOUBLE_VALUE[DOUBLE_INDEX[d]]
    p_held = np.minimum(1.0, (n[:, None] - 1) * h_opp / np.maximum(U, 1))
    score -= W_CHIP * v_imm * p_held
    return np.where(ANN_LEGAL[s], score, -np.inf)


# ------------------------------------------------------------------- agent
class TacticsAgent(Agent):
    name = "tactics"

    def __init__(self, seed: int | None = 0, immediate_min_value: int = IMMEDIATE_MIN_VALUE,
                 general_close_proof: bool = True, compiled: bool = False):
        super().__init__(seed)
        #: decide with the compiled Tactics (``kernel_params``; the same scores and choices, other
        #: tie-breaks, ``stats`` and ``scores_out`` not kept) instead of this module's numpy code
        self.compiled = bool(compiled)
        self._params = kernel_params(immediate_min_value, general_close_proof) if self.compiled else None
        self.immediate_min_value = int(immediate_min_value)
        self.general_close_proof = bool(general_close_proof)
        self.stats = {"closings_d21": 0, "closings_proved": 0, "proof_checks": 0}
        #: None, or a float64 array [B, NUM_ACTIONS] that act_batch fills with every considered
        #: action's score before the tie-break noise (-inf elsewhere), for comparing implementations
        self.scores_out = None
        self._scored = None

    # ------------------------------------------------------------------ api
    def act_batch(self, obs: np.ndarray, masks: np.ndarray, context: BatchContext | None = None) -> np.ndarray:
        obs = float_observations(obs)
        if self.compiled:
            from nos_env.fast_engine import tactics_rows

            noise = self.rng.integers(0, 2**63, len(obs), dtype=np.int64).astype(np.uint64)
            return tactics_rows(obs, np.asarray(masks, np.int8), self._params, noise=noise)
        masks = np.asarray(masks)
        B = obs.shape[0]
        action = np.full(B, -1, np.int64)
        legal = masks != 0
        nlegal = legal.sum(axis=1)
        # A row with one legal action (or none: a seat not to move) needs no thought.
        single = nlegal <= 1
        action[single] = legal[single].argmax(axis=1)
        phase = obs[:, _col("phase")].argmax(axis=1)
        todo = ~single
        for ph, fn in ((PH["set"], self._act_set), (PH["announce"], self._act_announce),
                       (PH["declare"], self._act_declare), (PH["immediate"], self._act_immediate),
                       (PH["play"], self._act_play)):
            rows = np.flatnonzero(todo & (phase == ph))
            if len(rows):
                self._scored = None
                action[rows] = fn(obs[rows], legal[rows])
                if self.scores_out is not None and self._scored is not None:
                    r, a, v = self._scored
                    self.scores_out[rows[r], a] = v
        if self.scores_out is not None:
            self.scores_out[single] = -np.inf
        assert (action >= 0).all() and legal[np.arange(B), action][nlegal > 0].all()
        return action

    def _keep_scores(self, score: np.ndarray, first_action: int = 0) -> None:
        """Remember a decision's scores [rows, actions from first_action] for ``scores_out``."""
        if self.scores_out is not None:
            r, j = np.nonzero(np.isfinite(score))
            self._scored = (r, first_action + j, score[r, j])

    def _noise(self, shape) -> np.ndarray:
        return self.rng.random(shape) * 1e-6

    # -------------------------------------------------------------- the set
    def _act_set(self, obs: np.ndarray, legal: np.ndarray) -> np.ndarray:
        R = obs.shape[0]
        hand = mask_from_flags(obs[:, _col("hand")])
        n = obs[:, _col("num_players")].argmax(axis=1) + 3
        cand = legal[:, E.SET0:E.DRAW]  # [R, 28]
        rows, tiles = np.nonzero(cand)
        best = announcement_scores(hand[rows] & ~TILE_BIT[tiles], tiles, n[rows]).max(axis=1)
        best += W_CHIP * TILE_DOUBLE_VALUE[tiles] * (n[rows] - 1) + W_SET_PIPS * TILE_COUNT[tiles]
        score = np.full((R, NUM_TILES + 1), -np.inf)
        score[rows, tiles] = best
        score[:, E.DRAW] = np.where(legal[:, E.DRAW], -1e9, -np.inf)  # the set draw is forced when legal
        self._keep_scores(score)
        score[:, :NUM_TILES] += self._noise((R, NUM_TILES))
        return score.argmax(axis=1)

    # ------------------------------------------------------------ announce
    def _act_announce(self, obs: np.ndarray, legal: np.ndarray) -> np.ndarray:
        hand = mask_from_flags(obs[:, _col("hand")])
        n = obs[:, _col("num_players")].argmax(axis=1) + 3
        s = obs[:, _col("set_tile")].argmax(axis=1)
        score = announcement_scores(hand, s, n)
        score[~legal[:, E.ANNOUNCE0:E.DECLARE]] = -np.inf
        self._keep_scores(score, E.ANNOUNCE0)
        score += self._noise(score.shape)
        return E.ANNOUNCE0 + score.argmax(axis=1)

    # ------------------------------------------------------------- declare
    def _act_declare(self, obs: np.ndarray, legal: np.ndarray) -> np.ndarray:
        return np.where(legal[:, E.DECLARE], E.DECLARE, legal.argmax(axis=1))

    # ------------------------------------------------------ immediate doubles
    def _act_immediate(self, obs: np.ndarray, legal: np.ndarray) -> np.ndarray:
        score = np.where(legal, F.IS_DOUBLE * (TILE_DOUBLE_VALUE[np.maximum(F.TILE, 0)] + 0.0), -np.inf)
        plays = F.KIND == F.PLAY
        score[:, ~plays] = -np.inf
        score[:, plays] = np.where(score[:, plays] >= self.immediate_min_value, score[:, plays], -np.inf)
        score[:, E.DECLINE] = np.where(legal[:, E.DECLINE], 0.0, -np.inf)
        self._keep_scores(score)
        score += self._noise(score.shape)
        return score.argmax(axis=1)

    # ---------------------------------------------------------------- play
    def _act_play(self, obs: np.ndarray, legal: np.ndarray) -> np.ndarray:
        out_action = np.where(legal[:, E.DRAW], E.DRAW, E.PASS).astype(np.int64)
        plays = legal[:, E.PLAY0:E.PASS:2]  # close=0 variants
        rows, j = np.nonzero(plays)
        if len(rows) == 0:
            return out_action
        a = E.PLAY0 + 2 * j
        tile, arm, side = F.TILE[a], F.ARM[a], F.SIDE[a]
        o = TILE_NUM[tile, side]
        st = _state(obs)
        post = _post_acceptance(st, rows, tile, arm, o)  # [P] tiles placeable after the play
        remaining = st["hand"][rows] & ~TILE_BIT[tile]

        score = W_PIPS * TILE_COUNT[tile].astype(np.float64)
        is_double = TILE_IS_DOUBLE[tile]
        # Claim (section 8): a double next to the preceding turn's tile.
        claim = st["claim_arm"][rows]
        on_claim = (claim == arm) | ((claim == E.MAX_ARMS) & (st["count"][rows, arm] == 0))
        score += W_CLAIM * TILE_DOUBLE_VALUE[tile] * (is_double & on_claim)
        score += W_DOUBLE * is_double
        # Matador matching in force now on some arm, or to come after the opening.
        mat_game = st["rule_mat"][rows].any(axis=1) | ANN_LATER_MAT[st["ann"][rows]].any(axis=1)
        hs = st["hand_size"][rows, 0]
        score -= W_MAT_KEEP * np.maximum(hs - 1, 0) * (TILE_IS_MATADOR[tile] & mat_game)
        # Opponents left without a play.
        unseen = st["unseen"][rows]
        for r in range(1, E.MAX_SEATS):
            alive = st["alive"][rows, r]
            if not alive.any():
                continue
            pool = unseen & ~st["passed"][rows, r]
            fit = post & pool
            p_eff = popcount(fit) - 0.5 * popcount(fit & st["drew"][rows, r])
            h = st["hand_size"][rows, r]
            prob = p_no_fit(popcount(pool), p_eff, h)
            prob = np.where((post & st["face_up"][rows, r]) != 0, 0.0, prob)
            w = np.where(st["next"][rows] == r, W_STUCK_NEXT, W_STUCK_REST) * (1.0 + (h <= 1))
            score += np.where(alive, w * prob, 0.0)
        score += W_MOB * np.minimum(popcount(post & remaining), 2)
        plain = score.copy() if self.scores_out is not None else None
        score += self._noise(score.shape)

        # Closing (D14/D21): only with a proof.
        d21 = (hs == 1) & (st["others_in"][rows] == 1)
        proved = d21.copy()
        if self.general_close_proof:
            relevant = ALL_TILES_MASK & ~st["layout"][rows] & ~TILE_BIT[tile] & ~st["exempt"][rows]
            maybe = ~d21 & ((post & relevant) == 0)
            for p in np.flatnonzero(maybe):
                self.stats["proof_checks"] += 1
                if _prove_closing(obs[rows[p]], st["exempt"][rows[p]], int(tile[p]), int(arm[p]), int(o[p])):
                    proved[p] = True
        close_ok = proved & legal[rows, a + 1]
        score = score + 1e6 * close_ok
        if plain is not None:
            c = np.flatnonzero(close_ok)
            self._scored = (np.concatenate([rows, rows[c]]), np.concatenate([a, a[c] + 1]),
                            np.concatenate([plain, plain[c] + 1e6]))
        # Best pair per row (pairs come sorted by row).
        order = np.lexsort((-score, rows))
        first = np.ones(len(order), bool)
        first[1:] = rows[order][1:] != rows[order][:-1]
        best = order[first]
        out_action[rows[best]] = a[best] + close_ok[best]
        self.stats["closings_d21"] += int((close_ok & d21)[best].sum())
        self.stats["closings_proved"] += int((close_ok & ~d21)[best].sum())
        return out_action


# ------------------------------------------------------------ observation
def _state(obs: np.ndarray) -> dict:
    """The per-row quantities the play decision needs, read from the observation."""
    R = obs.shape[0]
    st = {}
    st["hand"] = mask_from_flags(obs[:, _col("hand")])
    st["layout"] = mask_from_flags(obs[:, _col("layout_tiles")])
    st["unseen"] = ALL_TILES_MASK & ~st["hand"] & ~st["layout"]
    exists = obs[:, _col("arm_exists")] > 0.5
    st["open"] = obs[:, _col("arm_open")].reshape(R, 4, 7).argmax(axis=2)
    st["rule_mat"] = (obs[:, _col("arm_rule")].reshape(R, 4, 2)[:, :, 1] > 0.5) & exists
    st["needs"] = obs[:, _col("arm_needs")].reshape(R, 4, len(E.NEEDS)).argmax(axis=2)
    locked = obs[:, _col("arm_locked")] > 0.5
    st["count"] = np.rint(obs[:, _col("arm_count")]).astype(np.int64)
    st["tri"] = obs[:, _col("layout_kind")][:, 2] > 0.5
    st["ann"] = obs[:, _col("announcement")].argmax(axis=1)
    acc = ACC[st["needs"], st["rule_mat"].astype(np.int64), st["open"], st["tri"].astype(np.int64)[:, None]]
    acc = np.where(exists & ~locked, acc, 0) & ~st["layout"][:, None]
    st["acc"] = acc
    st["exists"] = exists
    present = obs[:, _col("seat_present")] > 0.5
    out = obs[:, _col("seat_out")] > 0.5
    alive = present & ~out
    alive[:, 0] = False
    st["alive"] = alive
    st["others_in"] = alive.sum(axis=1)
    # The next player still in the game (seat offset), 0 if none.
    nxt = np.where(alive.any(axis=1), alive.argmax(axis=1), 0)
    st["next"] = nxt
    st["hand_size"] = np.rint(obs[:, _col("seat_hand_size")]).astype(np.int64)
    st["passed"] = mask_from_flags(obs[:, _col("seat_passed_tiles")].reshape(R, 5, NUM_TILES))
    st["drew"] = mask_from_flags(obs[:, _col("seat_drew_tiles")].reshape(R, 5, NUM_TILES))
    face = obs[:, _col("seat_face_up")].reshape(R, 5, 7) > 0.5
    st["face_up"] = (face.astype(np.int64) * TILE_BIT[DOUBLE_INDEX][None, None, :]).sum(axis=2)
    st["claim_arm"] = obs[:, _col("claim_arm")].argmax(axis=1)
    drawable = obs[:, _col("boneyard_drawable")][:, 0] > 0.5
    # Tiles provably among the boneyard's last two: nothing drawable, and every
    # other player still in passed with the tile fitting (he holds none of them).
    in_all = np.full(R, ALL_TILES_MASK, np.int64)
    for r in range(1, E.MAX_SEATS):
        in_all = np.where(alive[:, r], in_all & st["passed"][:, r], in_all)
    st["exempt"] = np.where(drawable, 0, in_all & st["unseen"])
    return st


def _post_acceptance(st: dict, rows, tile, arm, o) -> np.ndarray:
    """Estimated tiles (off the layout) that some arm accepts after each play."""
    P = len(rows)
    needs = st["needs"][rows]  # [P, 4]
    acc = st["acc"][rows].copy()
    ann = st["ann"][rows]
    first_stage = (needs == N_CROSS) | (needs == N_BLANK)
    waiting = (first_stage & st["exists"][rows]).sum(axis=1)
    my_need = needs[np.arange(P), arm]
    phase_play = (my_need == N_CROSS) | (my_need == N_BLANK)
    completes = phase_play & (waiting == 1)
    game = ANN_GAME[ann]
    # The played arm, when the phase goes on: a filled cross arm waits; else its
    # new open end under the arm's rule (a compulsory double follows a cross arm's
    # first tile once the phase is over, which only ``completes`` handles).
    rule = st["rule_mat"][rows, arm].astype(np.int64)
    own_arm = np.where(phase_play, 0, FIT[rule, o])
    acc[np.arange(P), arm] = own_arm
    post = np.bitwise_or.reduce(acc, axis=1)
    if completes.any():
        c = np.flatnonzero(completes)
        opens = st["open"][rows[c]].copy()
        counts = st["count"][rows[c]].copy()
        opens[np.arange(len(c)), arm[c]] = o[c]
        counts[np.arange(len(c)), arm[c]] += 1
        later = ANN_LATER_MAT[ann[c]].astype(np.int64)  # [C, 4]
        comp = ANN_COMPULSORY[ann[c]][:, None] & (counts == 1)
        each = np.where(comp, COMP[later, opens], FIT[later, opens])
        n_arms = np.where(ANN_KIND[ann[c]] == 2, np.where(game[c] == 16, 4, 3), 4)
        n_arms = np.where(ANN_KIND[ann[c]] == 0, 2, n_arms)
        each = np.where(np.arange(4)[None, :] < n_arms[:, None], each, 0)
        whole = np.bitwise_or.reduce(each, axis=1)
        # Game 16: the triangle's last matador opens only T3, for a blank-ended tile.
        tri16 = (game[c] == 16) & (my_need[c] == N_CROSS)
        post[c] = np.where(tri16, BLANK_BITS, whole)
    return post & ~st["layout"][rows] & ~TILE_BIT[tile]


# ------------------------------------------------------------ closing proof
def rebuild_layout(obs_row: np.ndarray) -> Layout:
    """The layout as the observation shows it (only public information).

    The order of the tiles inside an arm and their outward numbers are not all
    observed, but no rule needs them: an arm's tile count, its tiles and its
    open end (kept as the last tile's outward number) decide every placement.
    """
    ann = ALL_ANNOUNCEMENTS[int(obs_row[_col("announcement")].argmax())]
    set_tile = ALL_TILES[int(obs_row[_col("set_tile")].argmax())]
    layout = Layout(game_spec(ann), set_tile)
    arm_of = obs_row[_col("layout_arm")].reshape(NUM_TILES, E.MAX_ARMS + 1)
    opens = obs_row[_col("arm_open")].reshape(E.MAX_ARMS, 7).argmax(axis=1)
    counts = np.rint(obs_row[_col("arm_count")]).astype(int)
    on = obs_row[_col("layout_tiles")] > 0.5
    for x in range(len(layout.arms)):
        tiles = [t for t in range(NUM_TILES) if on[t] and arm_of[t, x] > 0.5]
        if len(tiles) != counts[x]:
            raise ValueError(f"arm {x}: {len(tiles)} tiles but a count of {counts[x]}")
        cells = [Placed(ALL_TILES[t], 0, ALL_TILES[t][0]) for t in tiles]
        if cells:
            cells[-1] = Placed(cells[-1].tile, 0, int(opens[x]))
        layout.arms[x] = cells
    return layout


def _prove_closing(obs_row: np.ndarray, exempt: int, tile: int, arm: int, out: int) -> bool:
    """D14 from own knowledge: after the play no tile off the layout (other than
    ones provably among the boneyard's last two) has a legal placement."""
    layout = rebuild_layout(obs_row)
    layout.arms[arm].append(Placed(ALL_TILES[tile], 0, out))
    on = set(layout.tiles())
    for t, tl in enumerate(ALL_TILES):
        if tl in on or (exempt >> t) & 1:
            continue
        if layout.placements(tl):
            return False
    return True


# ------------------------------------------------------------ numba kernel
def kernel_params(immediate_min_value: int = IMMEDIATE_MIN_VALUE, general_close_proof: bool = True) -> tuple:
    """Tactics' weights and tables as the tuple the compiled Tactics takes (``FastTables.tactics_*``,
    ``nos_env.fast_engine.tactics_rows``; its layout: ``FastTables.TACTICS_PARAMS``). The kernel
    is this module written again over one observation row; ``tests/test_tactics_kernel.py``
    checks identical scores and choices on recorded positions."""
    from nos_env.fast_engine import FastTables

    values = {"IMMEDIATE_MIN_VALUE": float(immediate_min_value), "GENERAL_CLOSE_PROOF": float(general_close_proof)}
    weights = np.array([values[w] if w in values else float(globals()["W_" + w]) for w in FastTables.TACTICS_WEIGHTS])
    tables = {"weights": weights, "FIT": FIT, "COMP": COMP, "ACC": ACC, "OPEN": OPEN,
              "BLANK_BITS": np.int64(BLANK_BITS)}
    tables.update({name: globals()[name] for name in FastTables.TACTICS_PARAMS if name.startswith("ANN_")})
    params = []
    for name in FastTables.TACTICS_PARAMS:
        value = tables[name]
        if isinstance(value, np.ndarray):
            value = np.ascontiguousarray(value, np.bool_ if value.dtype == bool else
                                         (np.float64 if value.dtype.kind == "f" else np.int64))
        params.append(value)
    return tuple(params)
