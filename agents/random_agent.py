"""Random: uniform over the legal actions."""

from __future__ import annotations

import numpy as np

from .base import Agent, BatchContext, random_legal


class RandomAgent(Agent):
    name = "random"

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, context: BatchContext | None = None) -> np.ndarray:
        return random_legal(masks, self.rng)
