"""Greedy for Mexican Train: one ply, by a score per legal action (docs/agents.md).

Mexican Train is scored by the pips left in hand (MT11), and a player who cannot play draws
and opens his train to everyone (MT6). Greedy, on the observation and the mask only:

- going out (the last tile in hand) comes first;
- then shedding: the heaviest tile (its pips);
- a double only with a tile to follow it (MT7: otherwise he must draw and may have to mark
  his train), and then a little earlier than its pips say (it sheds two tiles in one turn);
- on his own train, a play that leaves open a number he holds more of (his train stays his
  to play on); a play on his own marked train a little earlier (it takes the marker off);
- elsewhere (the Mexican train, marked trains), a play that keeps his own train's number
  open for the tiles that follow it;
- never a draw or a pass while a play is legal (the rules forbid it anyway, MT6).
"""

from __future__ import annotations

import numpy as np

from ..base import Agent, BatchContext
from .greedy import fitting_table
from .view import DRAW, PASS, PLAY, view_of

GO_OUT = 10_000.0
FOLLOW = 1.0  # per own tile (not the one played) carrying the number the play leaves open
DOUBLE_WITH_FOLLOW = 4.0
DOUBLE_ALONE = -15.0
UNMARK = 3.0
MEXICAN = 8


class MexicanTrainGreedyAgent(Agent):
    name = "greedy"

    def __init__(self, rules, seed: int | None = 0):
        super().__init__(seed)
        self.rules = rules
        self.view = view_of(rules)

    def scores(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        v = self.view
        obs = v.check(obs, masks)
        B = obs.shape[0]
        hand = v.slice(obs, "hand") > 0  # [B, N]
        marked = v.slice(obs, "arm_marked") > 0  # [B, 9]
        score = np.zeros((B, v.num_actions))
        plays = np.flatnonzero(v.KIND == PLAY)
        t, arm = v.TILE[plays], v.ARM[plays]
        outward = v.outward(obs)[:, plays]  # [B, plays]: the number each play leaves open
        o = np.maximum(outward, 0)
        fits = fitting_table(v)  # [M+1, N]
        per_number = hand.astype(np.int64) @ fits.T.astype(np.int64)  # [B, M+1] own tiles carrying e
        rows = np.arange(B)[:, None]
        follow = per_number[rows, o] - fits[o, t[None, :]]  # own tiles other than the one played
        double = v.IS_DOUBLE[t][None, :]
        value = v.PIPS[t][None, :].astype(np.float64) + np.zeros((B, 1))
        value += np.where(double, np.where(follow > 0, DOUBLE_WITH_FOLLOW, DOUBLE_ALONE), 0.0)
        own = (arm == 0)[None, :]
        value += np.where(own, FOLLOW * follow, 0.0)
        value += np.where(own & marked[:, :1], UNMARK, 0.0)
        # elsewhere: how many of his tiles still fit his own train's open number
        own_open = v.slice(obs, "arm_open")[:, 0].argmax(axis=1)  # [B]
        keep = per_number[np.arange(B), own_open][:, None] - fits[own_open[:, None], t[None, :]]
        value += np.where(~own, 0.5 * FOLLOW * keep, 0.0)
        last = hand.sum(axis=1) == 1
        value[last] += GO_OUT
        score[:, plays] = value
        score[:, v.KIND == DRAW] = -1000.0
        score[:, v.KIND == PASS] = -2000.0
        return score

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, context: BatchContext | None = None) -> np.ndarray:
        score = self.scores(obs, masks)
        score += self.rng.random(score.shape) * 1e-3  # seeded tie-break
        score[np.asarray(masks) == 0] = -np.inf
        return score.argmax(axis=1).astype(np.int64)
