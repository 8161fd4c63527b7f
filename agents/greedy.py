"""Greedy: the simplest sensible player.

- sets and announces by a simple count of the tiles it can play: the set
  tile and announcement that leave the most of its own tiles placeable at
  the opening (``features.OPENING_PLAYABLE``);
- plays its heaviest playable tile (and places doubles at once when it can);
- never draws by choice, never closes;
- always declares when eligible.
"""

from __future__ import annotations

import numpy as np

from nos_env.tiles import popcount

from . import features as F
from .base import Agent, BatchContext, float_observations


class GreedyAgent(Agent):
    name = "greedy"

    def scores(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """A score per (row, action); the agent takes the best legal one."""
        score = np.zeros(masks.shape, np.float64)
        # Plays: the heaviest tile; never a closing. Doubles placed at once count as plays.
        plays = (F.KIND == F.PLAY) & ~F.CLOSE
        score[:, plays] = 100.0 + F.PIPS[plays]
        score[:, (F.KIND == F.PLAY) & F.CLOSE] = -1000.0
        score[:, F.KIND == F.DRAW] = -100.0  # only when nothing else is legal
        score[:, F.KIND == F.DECLARE] = 1.0
        # Set and announce are rare: score them only for the rows that face them.
        setting = np.flatnonzero(masks[:, F.KIND == F.SET].any(axis=1))
        if len(setting):
            hand = F.hand_bits(obs[setting])
            for s in range(28):
                after = hand & ~(1 << s)
                score[setting, s] = popcount(after[:, None] & F.OPENING_PLAYABLE[s][None, :]).max(axis=1)
        announcing = np.flatnonzero(masks[:, F.KIND == F.ANNOUNCE].any(axis=1))
        if len(announcing):
            hand = F.hand_bits(obs[announcing])
            playable = F.OPENING_PLAYABLE[np.maximum(obs_set_tile(obs[announcing]), 0)]  # [rows, 76]
            score[np.ix_(announcing, np.flatnonzero(F.KIND == F.ANNOUNCE))] = popcount(hand[:, None] & playable)
        return score

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, context: BatchContext | None = None) -> np.ndarray:
        score = self.scores(float_observations(obs), masks)
        score += self.rng.random(score.shape) * 1e-3  # seeded tie-break
        score[masks == 0] = -np.inf
        return score.argmax(axis=1).astype(np.int64)


def obs_set_tile(obs: np.ndarray) -> np.ndarray:
    from nos_env.encoding import OBSERVATION_LAYOUT

    start, stop, _ = OBSERVATION_LAYOUT["set_tile"]
    block = obs[:, start:stop]
    return np.where(block.any(axis=1), block.argmax(axis=1), -1)
