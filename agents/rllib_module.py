"""RLlib RLModules for the seats of ``nos_env.rllib_env``, and trained RLlib modules as agents.

- :class:`MaskedPPOModule`: RLlib's default PPO torch module (an MLP encoder, actor and critic
  heads, built from ``model_config`` as any PPO module is) on the ``"observations"`` part of the
  seat's observation; the ``"action_mask"`` part sets the logits of illegal actions to the
  smallest float before any sampling, argmax or log-probability, in every forward pass
  (inference, exploration and training), so the policy never picks, nor learns from, an
  action outside the mask.
- :class:`AgentModule`: one of the project's agents (``agents.registry``: random, greedy,
  tactics, search; a family game's random, greedy, search) as a non-trainable RLModule, so the baselines sit at RLlib's tables as league
  opponents. It returns actions directly (RLlib then samples nothing).
- :class:`RLlibAgent`: a trained :class:`MaskedPPOModule` as an agent (``make_agent("rllib:PATH")``):
  PATH is a module checkpoint folder (what ``nos-train`` writes as ``runs/<name>/rllib_module``,
  or any ``.../rl_module/<module id>`` folder of an RLlib checkpoint).

Needs the ``ray`` extra; ``agents.registry`` imports this module only for ``rllib:PATH``.
"""

from __future__ import annotations

from pathlib import Path

from nos_env.extras import require

require("ray", "RLlib modules and rllib:PATH agents (agents/rllib_module.py)", ("ray", "torch"))

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModule  # noqa: E402

from nos_env.encoding import OBSERVATION_SIZE  # noqa: E402

from .base import Agent, BatchContext, float_observations  # noqa: E402

#: What an illegal action's logit becomes: far below any real logit, yet finite (softmax stays exact).
MASKED_LOGIT = torch.finfo(torch.float32).min / 2


def _split(observation_space):
    if not isinstance(observation_space, gym.spaces.Dict) or set(observation_space.spaces) != {
            "observations", "action_mask"}:
        raise ValueError(f"an action-masking module needs the Dict observation space of nos_env.rllib_env "
                         f"({{'observations', 'action_mask'}}), got {observation_space}")
    return observation_space["observations"]


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """PPO's default torch module with the seat's action mask applied to its logits."""

    def __init__(self, *args, observation_space=None, **kwargs):
        # The networks are built for the observation alone; the module itself keeps the Dict space.
        self._full_observation_space = observation_space
        super().__init__(*args, observation_space=_split(observation_space), **kwargs)

    def setup(self):
        super().setup()
        self.observation_space = self._full_observation_space

    @staticmethod
    def _unpack(batch: dict) -> tuple[dict, torch.Tensor]:
        obs = batch[Columns.OBS]
        if not isinstance(obs, dict):  # already unpacked (compute_values after _forward_train)
            return batch, batch["action_mask"]
        inner = dict(batch)
        inner[Columns.OBS] = obs["observations"]
        inner["action_mask"] = obs["action_mask"]
        return inner, obs["action_mask"]

    @staticmethod
    def _mask(out: dict, mask: torch.Tensor) -> dict:
        logits = out[Columns.ACTION_DIST_INPUTS]
        out[Columns.ACTION_DIST_INPUTS] = torch.where(mask > 0.5, logits, torch.full_like(logits, MASKED_LOGIT))
        return out

    def _forward(self, batch, **kwargs):
        inner, mask = self._unpack(batch)
        return self._mask(super()._forward(inner, **kwargs), mask)

    def _forward_train(self, batch, **kwargs):
        inner, mask = self._unpack(batch)
        return self._mask(super()._forward_train(inner, **kwargs), mask)

    def compute_values(self, batch, embeddings=None):
        inner, _ = self._unpack(batch)
        return super().compute_values(inner, embeddings)


def _numpy(x) -> np.ndarray:
    return x.detach().cpu().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)


class AgentModule(RLModule):
    """A project agent (``model_config = {"agent": name, "seed": s}``, and for a game other than
    Nos ``"game"``, ``"num_players"`` and ``"game_options"``, from which the agent gets the game's
    rules) as an RLModule that returns actions. Not trainable: keep it out of ``policies_to_train``."""

    def setup(self):
        from .registry import make_agent

        config = dict(self.model_config or {})
        self.agent_name = config.get("agent", "random")
        game = config.get("game", "nos")
        kwargs = {}
        if game != "nos":
            from .family.games import make_rules

            kwargs = {"game": game, "rules": make_rules(game, config.get("num_players"),
                                                        **dict(config.get("game_options") or {}))}
        self.agent = make_agent(self.agent_name, seed=int(config.get("seed", 0)), **kwargs)

    def _act(self, batch) -> dict:
        obs = batch[Columns.OBS]
        features = _numpy(obs["observations"]).astype(np.float32, copy=False)
        masks = (_numpy(obs["action_mask"]) > 0.5).astype(np.int8)
        return {Columns.ACTIONS: self.agent.act_batch(features, masks)}

    def _forward_inference(self, batch, **kwargs):
        return self._act(batch)

    def _forward_exploration(self, batch, **kwargs):
        return self._act(batch)

    def _forward_train(self, batch, **kwargs):
        raise NotImplementedError(f"the {self.agent_name!r} agent module is not trainable: keep it out of "
                                  f"policies_to_train")

    def get_state(self, *args, **kwargs):
        return {}

    def set_state(self, state):
        pass


def load_module(path: str | Path) -> MaskedPPOModule:
    """A trained module from its checkpoint folder, on the CPU, in evaluation mode."""
    path = Path(path)
    if not path.is_dir():
        raise FileNotFoundError(f"no RLlib module checkpoint at {str(path)!r} (a folder written by nos-train "
                                f"as runs/<name>/rllib_module, or an RLlib checkpoint's rl_module/<id> folder)")
    module = RLModule.from_checkpoint(str(path.resolve()))
    if not isinstance(module, MaskedPPOModule):
        raise ValueError(f"{path} holds a {type(module).__name__}, not a MaskedPPOModule")
    module.eval()
    return module


class RLlibAgent(Agent):
    """A :class:`MaskedPPOModule` as an agent: the most probable legal action (``deterministic``),
    or a draw from the policy with the agent's own seeded generator."""

    name = "rllib"

    def __init__(self, module, seed: int | None = 0, deterministic: bool = True, name: str | None = None):
        super().__init__(seed)
        self.module = load_module(module) if isinstance(module, (str, Path)) else module
        self.deterministic = bool(deterministic)
        if name:
            self.name = name

    def log_probabilities(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Log-probabilities [B, A] over each row's legal actions (-inf elsewhere), for the game the
        module was trained on (its observation and action sizes: Nos's 1,041 and 557, or a family
        game's). Nos's compact uint8 rows are decoded first."""
        size = int(self.module.observation_space["observations"].shape[0])
        actions = int(self.module.action_space.n)
        obs = np.asarray(obs)
        obs = float_observations(obs) if obs.dtype == np.uint8 and size == OBSERVATION_SIZE \
            else obs.astype(np.float32, copy=False)
        masks = np.asarray(masks) != 0
        if obs.ndim != 2 or obs.shape[1] != size or masks.shape != (obs.shape[0], actions):
            raise ValueError(f"expected obs [B, {size}] and masks [B, {actions}] (the module's game), "
                             f"got {obs.shape} and {masks.shape}")
        batch = {Columns.OBS: {"observations": torch.as_tensor(obs),
                               "action_mask": torch.as_tensor(masks.astype(np.float32))}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
            log_p = torch.log_softmax(logits, dim=1).numpy().astype(np.float64)
        log_p[~masks] = -np.inf
        return log_p

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, context: BatchContext | None = None) -> np.ndarray:
        log_p = self.log_probabilities(obs, masks)
        if not self.deterministic:  # Gumbel-max from our own generator
            log_p = log_p - np.log(-np.log(self.rng.random(log_p.shape).clip(1e-300, None)))
        return log_p.argmax(axis=1).astype(np.int64)
