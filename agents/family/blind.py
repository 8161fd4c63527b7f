"""Greedy for Blind: where to put a turned-up tile that fits both ends (BD5).

Nobody knows a tile before it is turned up (BD3), but the tiles once turned up and sent to
the bottom of a row are public (``row_seen``). A Blind decision is which arm the turned-up
tile goes on (or, with ``optional_play``, whether to decline it). Greedy:

- never declines when it can play (the first to empty his row wins, BD8);
- puts the tile where the two open numbers left fit the most tiles known to lie in its own
  row, less half the tiles known to lie in the other rows (it wants its own next tiles to
  fit and the others' not to).
"""

from __future__ import annotations

import numpy as np

from ..base import Agent, BatchContext
from .greedy import fitting_table
from .view import PASS, PLAY, view_of

OTHERS_WEIGHT = 0.5


class BlindGreedyAgent(Agent):
    name = "greedy"

    def __init__(self, rules, seed: int | None = 0):
        super().__init__(seed)
        self.rules = rules
        self.view = view_of(rules)

    def scores(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        v = self.view
        obs = v.check(obs, masks)
        B = obs.shape[0]
        score = np.zeros((B, v.num_actions))
        outward = v.outward(obs)  # [B, actions]: the number each play leaves open on its arm
        open_end = v.slice(obs, "arm_open").argmax(axis=2)  # [B, 2]
        seen = v.slice(obs, "row_seen") > 0  # [B, S, N]
        mine = seen[:, 0].astype(np.int64)
        theirs = seen[:, 1:].any(axis=1).astype(np.int64)
        fits = fitting_table(v).astype(np.int64)  # [M+1, N]
        mine_per = mine @ fits.T  # [B, M+1]: own known tiles that fit number e
        theirs_per = theirs @ fits.T
        plays = np.flatnonzero(v.KIND == PLAY)
        rows = np.arange(B)[:, None]
        o = np.maximum(outward[:, plays], 0)
        kept = open_end[:, 1 - v.ARM[plays]]  # the other arm's number stays open
        value = (mine_per[rows, o] + mine_per[rows, kept]
                 - OTHERS_WEIGHT * (theirs_per[rows, o] + theirs_per[rows, kept]))
        score[:, plays] = value
        score[:, v.KIND == PASS] = -1e6  # decline only when nothing else is legal
        return score

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, context: BatchContext | None = None) -> np.ndarray:
        score = self.scores(obs, masks)
        score += self.rng.random(score.shape) * 1e-3  # seeded tie-break
        score[np.asarray(masks) == 0] = -np.inf
        return score.argmax(axis=1).astype(np.int64)
