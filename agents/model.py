"""Trained policies as agents: :class:`PolicyAgent`, :class:`ModelAgent` and :class:`EnsembleAgent`
(several saved models of one game playing as one: ``ensemble:A.zip,B.zip``).

    agent = ModelAgent("runs/quick/model.zip")          # or make_agent("model:runs/quick/model.zip")
    actions = agent.act_batch(obs, masks)                 # the agents.base interface

They play any seat of the fast engine, the tournament harness and the AEC
environment (``agent.act(obs["observation"], obs["action_mask"])``). A policy
trained with the Tactics hint (Nos) or with its game's Greedy hint (a family game, the
policy's ``hint_source``) computes the hint itself, from the observation alone, as the
training environment did, and so does a policy that reads each action's immediate points
(its ``action_points``, :func:`agents.policy.action_points`), one that reads features per
action (its ``action_features``, :func:`agents.policy.action_features`: Blind), and a Nos policy that
reads each play's closing features (its ``closing_features``, :func:`agents.policy.closing_features`).
A policy trained with a privileged critic (``train/privileged.py``) plays without the other hands:
only its critic read them, and zeros stand in for them.

``deterministic=True`` (the default, for evaluation) plays the most probable
legal action; ``False`` samples from the policy with the agent's own seeded
generator (self-play opponents do this, for variety).

This module (it was ``train/model_agent.py``) and :mod:`agents.policy` are all a saved model
needs to play, so ``agents`` never imports ``train``. Importing it needs the ``train`` extra
(torch, sb3-contrib); :func:`agents.registry.make_agent` imports it only for ``model:PATH``.

Models saved before the policy moved here pickle its old path, ``train.policy.NosPolicy``;
:func:`load_model` gives them this module's :class:`~agents.policy.NosPolicy` instead, so they load
without ``train`` (and ``train/`` keeps no alias).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from nos_env.extras import require

require("train", "a trained model as an agent (agents/model.py)", ("torch", "stable_baselines3", "sb3_contrib"))

import numpy as np  # noqa: E402  (after the check above, so a missing extra is named, not a traceback)
import torch as th  # noqa: E402


from .base import Agent, BatchContext, float_observations  # noqa: E402
from .policy import NosPolicy, action_features, action_points, closing_features, hint_agent, hint_size  # noqa: E402
from .tactics import TacticsAgent  # noqa: E402

#: Modules that held NosPolicy when older models were saved (a model pickles its policy's path).
MOVED_POLICY_MODULES = ("train.policy",)


def choose(log_p: np.ndarray, deterministic: bool, rng: np.random.Generator) -> np.ndarray:
    """Each row's most probable action, or (``deterministic=False``) a draw from ``log_p`` by
    Gumbel-max with ``rng``, the agent's own generator."""
    if not deterministic:
        log_p = log_p - np.log(-np.log(rng.random(log_p.shape).clip(1e-300, None)))
    return log_p.argmax(axis=1).astype(np.int64)


class PolicyAgent(Agent):
    name = "model"

    def __init__(self, policy, seed: int | None = 0, deterministic: bool = True, name: str | None = None):
        super().__init__(seed)
        self.policy = policy
        self.policy.set_training_mode(False)
        self.deterministic = bool(deterministic)
        self.last_hints = None
        source = getattr(policy, "hint_source", None)
        self.closing = int(getattr(policy, "closing", 0))  # the closing features behind the hint (their count)
        self.settlement = bool(getattr(policy, "settlement_features", False))  # and the settlement ones in it
        beyond = int(getattr(policy, "privileged", 0)) + self.closing  # Nos: the floats behind the hint but the points
        self.hint = 1 if source is not None else hint_size(policy.observation_space, policy.action_space, beyond)
        self.points = int(getattr(policy, "points", 0))  # the action points behind the hint (their count)
        self.features = int(getattr(policy, "features", 0))  # the per-action features behind them (actions * K)
        # The hint's agent: the family game's Greedy (hint_source), else Nos's Tactics.
        self._hinter = None
        if source is not None:
            self._hinter = hint_agent(source, seed=seed)
        elif self.hint:
            self._hinter = TacticsAgent(seed=seed)
        if name:
            self.name = name

    @property
    def observation_size(self) -> int:
        """The seat's observation the policy plays from (Nos's 1,041 floats, or a family game's): its
        input less what it computes itself (hint, points, features, closing) or never reads (privileged)."""
        return (int(self.policy.observation_space.shape[0]) - self.hint - self.points - self.features - self.closing
                - int(getattr(self.policy, "privileged", 0)))

    @property
    def num_actions(self) -> int:
        return int(self.policy.action_space.n)

    def inputs(self, obs: np.ndarray, masks: np.ndarray, hints: np.ndarray | None = None) -> np.ndarray:
        """The policy's input rows, float32 [B, its observation space]: the seat's observation
        (``obs`` float32 or compact uint8, decoded first) and what the policy computes behind it, as
        the training environment appended it: the hint (``hints``, the hint agent's actions [B], if
        given, else this agent's hint agent decides), points, per-action features, closing features,
        and zeros for a privileged critic's tail."""
        obs = np.asarray(obs)
        obs = float_observations(obs) if obs.dtype == np.uint8 else obs.astype(np.float32, copy=False)
        masks = np.asarray(masks) != 0
        # A privileged critic's tail (train/privileged.py): the other hands, seen in training by the
        # critic only. No logit reads it, so a player fills zeros.
        privileged = int(getattr(self.policy, "privileged", 0))
        size, actions = self.observation_size, self.num_actions
        if obs.ndim != 2 or obs.shape[1] != size or masks.shape != (obs.shape[0], actions):
            raise ValueError(f"expected obs [B, {size}] and masks [B, {actions}] (the model's game), "
                             f"got {obs.shape} and {masks.shape}")
        if hints is not None and np.shape(hints) != (obs.shape[0],):
            raise ValueError(f"expected hints [B] = [{obs.shape[0]}] (one action a row), got {np.shape(hints)}")
        if self.hint:
            hinted = (self._hinter.act_batch(obs, masks) if hints is None else np.asarray(hints)).astype(np.float32)
            #: the hint actions of the last call, [B] (its hint agent breaks ties by its own noise, so
            #: whoever records what this policy saw must take them from here)
            self.last_hints = hinted.astype(np.int64)
            tail = [hinted[:, None]]
            if self.points:  # computed from the same observation, as the training env did
                tail.append(action_points(self._hinter, obs, masks))
            if self.features:  # likewise
                tail.append(action_features(self._hinter, obs, masks))
            if self.closing:  # each play's closing features, from the same observation and mask
                tail.append(closing_features(obs, masks, settlement=self.settlement))
            obs = np.concatenate([obs, *tail], axis=1)
        if privileged:
            obs = np.concatenate([obs, np.zeros((obs.shape[0], privileged), np.float32)], axis=1)
        return obs

    def log_probabilities(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The policy's log-probabilities [B, 557] over each row's legal actions (-inf elsewhere);
        ``obs`` float32 or compact uint8 (decoded first)."""
        obs = self.inputs(obs, masks)
        masks = np.asarray(masks) != 0
        with th.no_grad():
            dist = self.policy.get_distribution(th.as_tensor(obs), action_masks=masks)
            log_p = dist.log_p if hasattr(dist, "log_p") else th.log_softmax(dist.distribution.logits, dim=1)
        log_p = log_p.numpy().astype(np.float64)
        log_p[~masks] = -np.inf
        return log_p

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, context: BatchContext | None = None) -> np.ndarray:
        return choose(self.log_probabilities(obs, masks), self.deterministic, self.rng)


def _saved_policy_module(path: Path) -> str | None:
    """The module a saved model's policy class was pickled from (SB3 writes it beside the pickle)."""
    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data"))
        return data["policy_class"]["__module__"]
    except (OSError, KeyError, TypeError, ValueError, zipfile.BadZipFile):
        return None  # not a model SB3 could read either: MaskablePPO.load names the problem


def _checked_model_path(path: str | Path) -> Path:
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no trained model at {str(path)!r}")
    return path


def _moved_policy(path: Path) -> dict:
    """custom_objects for SB3's loaders: the moved NosPolicy for a model that pickled its old path."""
    return {"policy_class": NosPolicy} if _saved_policy_module(path) in MOVED_POLICY_MODULES else {}


def load_model(path: str | Path, **kwargs):
    """A whole MaskablePPO model saved by ``python -m train`` (``kwargs`` go to ``MaskablePPO.load``),
    e.g. to go on training it (``train/trainer.py`` resumes runs with it).

    A model saved while NosPolicy was ``train.policy.NosPolicy`` is given ``agents.policy.NosPolicy``
    (the same class, moved). Its rollout buffer class is ``train.buffer``'s, so this imports ``train``;
    to play, :func:`load_policy` needs neither.
    """
    from sb3_contrib import MaskablePPO

    path = _checked_model_path(path)
    kwargs["custom_objects"] = {**(kwargs.get("custom_objects") or {}), **_moved_policy(path)}
    return MaskablePPO.load(path, **kwargs)


def load_policy(path: str | Path):
    """The policy of a MaskablePPO model saved by ``python -m train``, on the CPU, ready to play.

    Only the policy is built, as ``MaskablePPO.load`` builds it (its class, spaces and keyword
    arguments as saved, then its weights, strictly): no rollout buffer, which a saved model names
    by its ``train.buffer`` class and which playing never uses, so ``train`` is not imported.
    """
    from stable_baselines3.common.save_util import load_from_zip_file

    path = _checked_model_path(path)
    custom = {"rollout_buffer_class": None, **_moved_policy(path)}
    data, params, _ = load_from_zip_file(path, device="cpu", custom_objects=custom)
    # A constant learning rate: the policy's optimizer is built but never steps when it only plays.
    policy = data["policy_class"](data["observation_space"], data["action_space"], lambda _: 0.0,
                                  **data["policy_kwargs"])
    policy.load_state_dict(params["policy"])
    return policy.to("cpu")


class ModelAgent(PolicyAgent):
    """A saved model (``.zip``) as an agent."""

    def __init__(self, path: str | Path, seed: int | None = 0, deterministic: bool = True, name: str = "model"):
        self.path = Path(path)
        super().__init__(load_policy(self.path), seed=seed, deterministic=deterministic, name=name)

    def __repr__(self) -> str:
        return f"ModelAgent({str(self.path)!r}, seed={self.seed}, deterministic={self.deterministic})"


class EnsembleAgent(Agent):
    """Several saved models of one game as one agent (``ensemble:A.zip,B.zip``): each legal action's
    log-probability is the mean of the members' (a product of the members' policies, renormalised
    over the legal actions), and the agent plays its most probable action or, with
    ``deterministic=False``, draws from it with its own generator.

    Each member computes its own inputs (hint, points, features, closing) from the seat's observation,
    so members trained with different inputs combine, as long as they play the same game: the same
    observation and action sizes (checked here).
    """

    name = "ensemble"

    def __init__(self, paths, seed: int | None = 0, deterministic: bool = True, name: str = "ensemble"):
        super().__init__(seed)
        self.paths = [Path(p) for p in paths]
        if len(self.paths) < 2:
            raise ValueError(f"an ensemble needs at least 2 models, got {len(self.paths)}: "
                             f"{[str(p) for p in self.paths]}")
        # The members' own hint generators share the agent's seed: each decides ties as a ModelAgent would.
        self.members = [ModelAgent(p, seed=seed) for p in self.paths]
        games = {(m.observation_size, m.num_actions) for m in self.members}
        if len(games) > 1:
            sizes = ", ".join(f"{p} (observation {m.observation_size}, actions {m.num_actions})"
                              for p, m in zip(self.paths, self.members))
            raise ValueError(f"an ensemble's models must play one game (the same observation and action sizes); "
                             f"got {sizes}")
        self.deterministic = bool(deterministic)
        self.name = name

    @property
    def observation_size(self) -> int:
        return self.members[0].observation_size

    @property
    def num_actions(self) -> int:
        return self.members[0].num_actions

    def log_probabilities(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The ensemble's log-probabilities [B, actions] over each row's legal actions (-inf elsewhere)."""
        mean = np.mean([m.log_probabilities(obs, masks) for m in self.members], axis=0)
        legal = np.isfinite(mean)
        top = np.where(legal, mean, -np.inf).max(axis=1, keepdims=True)
        norm = top + np.log(np.where(legal, np.exp(mean - top), 0.0).sum(axis=1, keepdims=True))
        return np.where(legal, mean - norm, -np.inf)

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, context: BatchContext | None = None) -> np.ndarray:
        return choose(self.log_probabilities(obs, masks), self.deterministic, self.rng)

    def __repr__(self) -> str:
        return (f"EnsembleAgent({[str(p) for p in self.paths]!r}, seed={self.seed}, "
                f"deterministic={self.deterministic})")
