"""Greedy for the family games: one ply, by a score per legal action (docs/agents.md).

Every game:

- going out (the last tile of the hand) comes first;
- then, in the scoring games (``all_fives``, ``fives_and_threes``, ``five_up``, ``bergen``),
  the points the play scores at once, by the page's play score on the open ends after the
  play (the end count E of AF/FT/FU, Bergen's double and triple headers);
- then shedding: the heaviest tile (its pips), a double a little earlier (doubles have one
  number, so they are the tiles most often stuck in the hand), and a play that leaves open a
  number it holds many of (its other tiles carrying that number; Matador: the tiles that
  add up to seven with it), so it can follow;
- Matador: a matador ([0-0] and the tiles of seven pips) is wild and the only thing that
  goes on a blank, so it is kept while another play exists;
- a set (free opening): its highest double, else its heaviest tile, plus what the set scores;
- Chickenfoot: the [0-0] is shed as if it had its 50 penalty points (CK12);
- never a draw by choice (Matador allows one at will), a pass only when nothing else is legal.

It reads the observation (its hand, the open ends, the arms, the set tile) and the mask only.
"""

from __future__ import annotations

import numpy as np

from ..base import Agent, BatchContext
from .view import DRAW, PASS, PLAY, SET, view_of

SCORING_GAMES = ("all_fives", "fives_and_threes", "five_up", "bergen")
#: Matador's matadors (MA): [0-0] and the three tiles of seven pips.
MATADOR_TILES = ((0, 0), (1, 6), (2, 5), (3, 4))

GO_OUT = 10_000.0
POINT = 100.0  # a point scored now outweighs any shedding preference
DOUBLE_BONUS = 3.0
FOLLOW = 1.0  # per own tile that can follow the number left open
KEEP_MATADOR = 30.0
NEVER = -1e6
CHICKENFOOT_ZERO_ZERO = 50.0


def play_score(game: str, E_or_ends, *, bergen_double=None) -> np.ndarray:
    """The page's play score of an end count E (all_fives AF, fives_and_threes FT1, five_up FU)."""
    E = np.asarray(E_or_ends)
    if game == "all_fives":
        return np.where((E > 0) & (E % 5 == 0), E, 0)
    if game == "fives_and_threes":
        return np.where((E > 0) & ((E % 5 == 0) | (E % 3 == 0)), E, 0)
    if game == "five_up":
        return np.where((E > 0) & (E % 5 == 0), E // 5, 0)
    raise ValueError(f"no end-count play score for {game!r}")


def matador_mask(view) -> np.ndarray:
    """bool [N]: Matador's wild tiles (MATADOR_TILES) in this tile set."""
    index = view.index
    out = np.zeros(view.N, bool)
    out[[index[m] for m in MATADOR_TILES if m in index]] = True
    return out


def fitting_table(view) -> np.ndarray:
    """bool [M+1, N]: tile t can be placed against an open number e. Equal matching: t carries e.
    Matador (seven): t carries 7 - e, or t is a matador (wild; the only tiles a blank takes)."""
    nums = np.arange(view.M + 1)[:, None]
    if not view.seven:
        return (view.LOW[None, :] == nums) | (view.HIGH[None, :] == nums)
    want = 7 - nums
    fits = ((view.LOW[None, :] == want) | (view.HIGH[None, :] == want)) & (nums > 0)
    return fits | matador_mask(view)[None, :]


class FamilyGreedyAgent(Agent):
    name = "greedy"

    def __init__(self, rules, seed: int | None = 0):
        super().__init__(seed)
        self.rules = rules
        self.view = view_of(rules)

    # ----------------------------------------------------------------- scoring
    def immediate_points(self, obs: np.ndarray) -> np.ndarray:
        """[B, actions]: the points each play (and set) scores at once, by the page's formula on the
        open ends after it; 0 in the blocking games and for draws and passes."""
        v, game = self.view, self.rules.game
        B = obs.shape[0]
        out = np.zeros((B, v.num_actions))
        if game not in SCORING_GAMES:
            return out
        exists = v.slice(obs, "arm_exists") > 0
        nonempty = exists & (v.slice(obs, "arm_count") > 0)
        open_end = v.slice(obs, "arm_open").argmax(axis=2)
        dbl = (v.slice(obs, "arm_double_end") > 0) & nonempty
        set_block = v.slice(obs, "set_tile")
        has_set = set_block.any(axis=1)
        st = np.where(has_set, set_block.argmax(axis=1), 0)
        p, q, set_double = v.LOW[st], v.HIGH[st], v.IS_DOUBLE[st]
        outward = v.outward(obs)
        plays = np.flatnonzero(v.KIND == PLAY)
        t, a = v.TILE[plays], v.ARM[plays]
        o = outward[:, plays]  # [B, plays]
        tile_double = v.IS_DOUBLE[t][None, :]
        rows = np.arange(B)[:, None]

        def ends_after(which):
            """Open number shown by L0 / L1 after each play (the set tile's where the arm stays empty)."""
            placed = a[None, :] == which
            empty_after = ~nonempty[:, which][:, None] & ~placed
            set_number = (p if which == 0 else q)[:, None]
            return np.where(placed, o, np.where(empty_after, set_number, open_end[:, which][:, None])), empty_after

        if game == "bergen":
            x0, e0 = ends_after(0)
            x1, e1 = ends_after(1)
            d0 = np.where(a[None, :] == 0, tile_double, dbl[:, 0][:, None] & ~e0)
            d1 = np.where(a[None, :] == 1, tile_double, dbl[:, 1][:, None] & ~e1)
            score = np.where(x0 == x1, np.where(d0 | d1, 3, 2), 0)
        else:
            value = np.where(nonempty, np.where(dbl, 2 * open_end, open_end), 0)  # [B, A]
            total = value.sum(axis=1)[:, None] - value[rows, a[None, :]] + o * (1 + tile_double)
            _, e0 = ends_after(0)
            _, e1 = ends_after(1)
            set_part = np.where(set_double[:, None], np.where(e0 | e1, 2 * p[:, None], 0),
                                p[:, None] * e0 + q[:, None] * e1)
            score = play_score(game, total + np.where(has_set[:, None], set_part, 0))
        out[:, plays] = np.where(o >= 0, score, 0)
        # A set scores its own count (both arms empty): [p-q] counts p+q, a double 2d.
        sets = np.flatnonzero(v.KIND == SET)
        st_all = v.TILE[sets]
        if game == "bergen":
            out[:, sets] = np.where(v.IS_DOUBLE[st_all], 2, 0)[None, :]
        else:
            out[:, sets] = play_score(game, v.PIPS[st_all])[None, :]
        return out

    def scores(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """A score per (row, action); the agent takes the best legal one."""
        v = self.view
        obs = v.check(obs, masks)
        B = obs.shape[0]
        hand = v.slice(obs, "hand") > 0  # [B, N]
        t = np.maximum(v.TILE, 0)
        score = np.zeros((B, v.num_actions))
        plays_or_sets = (v.KIND == PLAY) | (v.KIND == SET)
        score[:, plays_or_sets] = (v.PIPS[t] + DOUBLE_BONUS * v.IS_DOUBLE[t])[plays_or_sets][None, :]
        score[:, v.KIND == SET] += 20.0 * v.IS_DOUBLE[t][v.KIND == SET][None, :]  # the highest double first
        # Follow: own tiles (other than the one played) that fit the number the play leaves open.
        outward = v.outward(obs)  # [B, actions]
        plays = np.flatnonzero(v.KIND == PLAY)
        fits = fitting_table(v)  # [M+1, N]: tile t can be placed on an open number e
        per_number = hand.astype(np.int64) @ fits.T.astype(np.int64)  # [B, M+1] own tiles that fit e
        o = outward[:, plays]
        follow = np.where(o >= 0, per_number[np.arange(B)[:, None], np.maximum(o, 0)], 0)
        follow = follow - (fits[np.maximum(o, 0), v.TILE[plays][None, :]] & (o >= 0))  # not the tile itself
        score[:, plays] += FOLLOW * follow
        if v.seven:
            score[:, plays] -= KEEP_MATADOR * matador_mask(v)[v.TILE[plays]][None, :]
        if self.rules.game == "chickenfoot":  # CK12: the [0-0] costs 50 more than its pips: shed it first
            score[:, plays] += CHICKENFOOT_ZERO_ZERO * (v.TILE[plays] == v.index[(0, 0)])[None, :]
        score += POINT * self.immediate_points(obs)
        # Going out: the play of the last tile in the hand.
        last = hand.sum(axis=1) == 1
        score[np.ix_(last, plays)] += GO_OUT
        score[:, v.KIND == DRAW] = -1000.0
        score[:, v.KIND == PASS] = -2000.0
        return score

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, context: BatchContext | None = None) -> np.ndarray:
        score = self.scores(obs, masks)
        score += self.rng.random(score.shape) * 1e-3  # seeded tie-break
        score[np.asarray(masks) == 0] = -np.inf
        return score.argmax(axis=1).astype(np.int64)
