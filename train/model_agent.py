"""Trained policies as agents: :class:`PolicyAgent` and :class:`ModelAgent`.

    agent = ModelAgent("runs/quick/model.zip")          # or make_agent("model:runs/quick/model.zip")
    actions = agent.act_batch(obs, masks)                 # the agents.base interface

They play any seat of the fast engine, the tournament harness and the AEC
environment (``agent.act(obs["observation"], obs["action_mask"])``). A policy
trained with the Tactics hint computes the hint itself, from the observation
alone, as the training environment did.

``deterministic=True`` (the default, for evaluation) plays the most probable
legal action; ``False`` samples from the policy with the agent's own seeded
generator (self-play opponents do this, for variety).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch as th

from agents.base import Agent, BatchContext, float_observations
from agents.tactics import TacticsAgent
from nos_env.encoding import NUM_ACTIONS, OBSERVATION_SIZE

from .policy import hint_size


class PolicyAgent(Agent):
    name = "model"

    def __init__(self, policy, seed: int | None = 0, deterministic: bool = True, name: str | None = None):
        super().__init__(seed)
        self.policy = policy
        self.policy.set_training_mode(False)
        self.deterministic = bool(deterministic)
        self.hint = hint_size(policy.observation_space)
        self._tactics = TacticsAgent(seed=seed) if self.hint else None
        if name:
            self.name = name

    def log_probabilities(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The policy's log-probabilities [B, 557] over each row's legal actions (-inf elsewhere);
        ``obs`` float32 or compact uint8 (decoded first)."""
        obs = np.asarray(obs)
        obs = float_observations(obs) if obs.dtype == np.uint8 else obs.astype(np.float32, copy=False)
        masks = np.asarray(masks) != 0
        if obs.ndim != 2 or obs.shape[1] != OBSERVATION_SIZE or masks.shape != (obs.shape[0], NUM_ACTIONS):
            raise ValueError(f"expected obs [B, {OBSERVATION_SIZE}] and masks [B, {NUM_ACTIONS}], "
                             f"got {obs.shape} and {masks.shape}")
        if self.hint:
            hinted = self._tactics.act_batch(obs, masks).astype(np.float32)
            obs = np.concatenate([obs, hinted[:, None]], axis=1)
        with th.no_grad():
            dist = self.policy.get_distribution(th.as_tensor(obs), action_masks=masks)
            log_p = dist.log_p if hasattr(dist, "log_p") else th.log_softmax(dist.distribution.logits, dim=1)
        log_p = log_p.numpy().astype(np.float64)
        log_p[~masks] = -np.inf
        return log_p

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, context: BatchContext | None = None) -> np.ndarray:
        log_p = self.log_probabilities(obs, masks)
        if not self.deterministic:  # Gumbel-max: a draw from the policy, from our own generator
            log_p = log_p - np.log(-np.log(self.rng.random(log_p.shape).clip(1e-300, None)))
        return log_p.argmax(axis=1).astype(np.int64)


def load_policy(path: str | Path):
    """The policy of a MaskablePPO model saved by ``python -m train``, on the CPU."""
    from sb3_contrib import MaskablePPO

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no trained model at {str(path)!r}")
    return MaskablePPO.load(path, device="cpu").policy


class ModelAgent(PolicyAgent):
    """A saved model (``.zip``) as an agent."""

    def __init__(self, path: str | Path, seed: int | None = 0, deterministic: bool = True, name: str = "model"):
        self.path = Path(path)
        super().__init__(load_policy(self.path), seed=seed, deterministic=deterministic, name=name)

    def __repr__(self) -> str:
        return f"ModelAgent({str(self.path)!r}, seed={self.seed}, deterministic={self.deterministic})"
