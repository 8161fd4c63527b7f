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

from . import features as F
from .base import Agent, BatchContext


class GreedyAgent(Agent):
    name = "greedy"

    def scores(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """A score per (row, action); the agent takes the best legal one."""
        B = obs.shape[0]
        hand = F.hand_bits(obs)
        score = np.zeros(masks.shape, np.float64)
        kind = F.KIND[None, :]
        # Set: the double whose best announcement leaves the most tiles playable.
        set_tiles = np.arange(28)
        after_set = hand[:, None] & ~(1 << set_tiles)[None, :]  # [B, 28]
        best_count = np.zeros((B, 28))
        for s in range(28):
            best_count[:, s] = F.popcount(after_set[:, s, None] & F.OPENING_PLAYABLE[s][None, :]).max(axis=1)
        score[:, F.KIND == F.SET] = best_count
        # Announce: the most own tiles playable at the opening.
        set_tile = obs_set_tile(obs)
        playable = F.OPENING_PLAYABLE[np.maximum(set_tile, 0)]  # [B, 76]
        score[:, F.KIND == F.ANNOUNCE] = F.popcount(hand[:, None] & playable)
        score[:, F.KIND == F.DECLARE] = 1.0
        # Plays: the heaviest tile; never a closing.
        plays = (F.KIND == F.PLAY) & ~F.CLOSE
        score[:, plays] = 100.0 + F.PIPS[plays]
        score[:, (F.KIND == F.PLAY) & F.CLOSE] = -1000.0
        score[:, kind[0] == F.DRAW] = -100.0  # only when nothing else is legal
        score[:, kind[0] == F.DECLINE] = 0.0
        return score

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, context: BatchContext | None = None) -> np.ndarray:
        score = self.scores(obs, masks)
        score += self.rng.random(score.shape) * 1e-3  # seeded tie-break
        score[masks == 0] = -np.inf
        return score.argmax(axis=1).astype(np.int64)


def obs_set_tile(obs: np.ndarray) -> np.ndarray:
    from nos_env.encoding import OBSERVATION_LAYOUT

    start, stop, _ = OBSERVATION_LAYOUT["set_tile"]
    block = obs[:, start:stop]
    return np.where(block.any(axis=1), block.argmax(axis=1), -1)
