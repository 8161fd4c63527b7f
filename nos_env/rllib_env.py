"""RLlib multi-agent environments over the fast engine, for every registered game (the ``ray``
extra; docs/ray.md).

RLlib's current API stack (``MultiAgentEnv``, ``MultiAgentEnvRunner``, ``MultiAgentEpisode``)
sees one table as one multi-agent environment and one episode as one RLlib episode (Nos: a hand,
D20; the other games: a hand, or a match with ``game_options={"target_score": ...}``):

- ``env_config["game"]`` is any id of ``nos_env.list_games()``: Nos on ``FastTables``, every
  other game through the tables its ``vector_env`` owns, by the family's Tables API
  (``FamilyTables``, ``BlindTables``; docs/family_contract.md), so a game registered with that
  API plays here with no change (``nos_env/rllib_books.py`` keeps the bookkeeping);
- agents are the seats, ``"seat_0"`` .. ``"seat_{n-1}"``;
- the observation dict holds exactly the agent to move (one seat per table), its value a dict
  ``{"observations": float32 [D], "action_mask": float32 [A]}`` (the game's sizes: Nos 1041 and
  557) for an action-masking RLModule (``agents/rllib_module.py``);
- rewards: every step delivers the reward of *every* seat that has acted in this episode, to move
  or not (RLlib adds them to that agent's next step), so each seat's rewards over the episode add
  up to its whole reward there (Nos: chips × ``reward_scale``; the others: the family's
  ``reward`` mode, relative points by default, × ``reward_scale``). What a seat is owed before its
  first decision is held and delivered with its first step. A seat that never decides in an
  episode is not part of RLlib's episode; its rewards are counted in
  ``book.rewards_without_decision``;
- at the end of an episode every seat that acted is terminated with ``"__all__": True``;
- an action outside the mask: RLlib's own env checks and its ``random_actions`` draw from the
  whole ``Discrete(A)``, so by default (``illegal_action: "penalty"``) it is refused with a
  penalty and the same seat acts again: Nos's D16 (the offender pays 40 to every other seat),
  the other games' environment penalty (state unchanged, the offender's reward lowered by
  ``illegal_penalty`` points). The action-masking module never picks one. ``"raise"`` makes it
  an error instead.

Two ways to run it:

- :class:`NosTableEnv`: one table, a plain ``MultiAgentEnv`` (what RLlib's env checks take, and
  what RLlib's own ``num_envs_per_env_runner`` copies in a Python loop);
- :class:`NosTablesEnvRunner`: an env runner whose vector environment (:class:`NosTablesVectorEnv`)
  holds ``tables`` tables in one fast-engine batch, stepped by one kernel call per step. RLlib
  loops over its sub-environments one by one; this steps them all at once, which is what the
  fast engine is for. Pass it as ``config.env_runners(env_runner_cls=NosTablesEnvRunner)``.

("Nos" in the class names is the package's, nos-env: they play every game.) Both play the same
games: table ``b`` of a batch seeded ``s`` plays as a :class:`NosTableEnv` seeded ``s + b`` for
the same actions (tested), and for the other games as ``nos_env.env(game=...)`` reset with seed
``s + b``.
"""

from __future__ import annotations

from .extras import require

require("ray", "the RLlib environments (nos_env/rllib_env.py)", ("ray",))

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
from ray.rllib.env.multi_agent_env import MultiAgentEnv  # noqa: E402
from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner  # noqa: E402
from ray.rllib.env.vector.vector_multi_agent_env import VectorMultiAgentEnv  # noqa: E402

from .rllib_books import IDLE, Book, agent_id, check_env_config, make_book, seat_of, spaces  # noqa: E402,F401


def game_spaces(config: dict) -> tuple[gym.spaces.Dict, gym.spaces.Discrete]:
    """The observation and action spaces of one seat of the game ``env_config`` describes."""
    book = make_book(config, tables=1)
    return book.observation_space, book.action_space


class NosTableEnv(MultiAgentEnv):
    """One table of any registered game as an RLlib ``MultiAgentEnv`` (``env_config``:
    ``rllib_books.check_env_config``; ``tables`` must be 1 here)."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        c = check_env_config(dict(config or {}))
        if c["tables"] != 1:
            raise ValueError("NosTableEnv is one table; for many tables per env runner use NosTablesEnvRunner")
        # An env runner's copy k seeds seed + 1000 * worker_index + vector_index (RLlib's EnvContext).
        seed = c["seed"] + 1000 * int(getattr(config, "worker_index", 0)) + int(getattr(config, "vector_index", 0))
        self.book = make_book(c, tables=1, seed=seed)
        self.possible_agents = list(self.book.agents)
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: self.book.observation_space for a in self.possible_agents}
        self.action_spaces = {a: self.book.action_space for a in self.possible_agents}
        self._dealt = False  # a new hand waits (dealt by the engine when the last one ended)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.book.seed(seed)
        if seed is not None or not self._dealt:
            self.book.reset()
        self._dealt = False
        return self.book.observation(0), {}

    def step(self, action_dict: dict):
        if len(action_dict) != 1:
            raise ValueError(f"one action a step, for the seat to move; got {sorted(action_dict)}")
        (agent, action), = action_dict.items()
        seat = int(self.book.current_player[0])
        if agent != agent_id(seat):
            raise ValueError(f"{agent!r} is not to move; {agent_id(seat)!r} is")
        obs, rew, term, trunc, finished = self.book.step(np.array([int(action)], np.int64))
        self._dealt = bool(len(finished))
        return obs[0], rew[0], term[0], trunc[0], {}


class _TableView(MultiAgentEnv):
    """What RLlib's env runner reads of each sub-environment of :class:`NosTablesVectorEnv`:
    its agents and spaces (the stepping is the vector env's)."""

    def __init__(self, book: Book):
        super().__init__()
        self.possible_agents = list(book.agents)
        self.agents = list(book.agents)
        self.observation_spaces = {a: book.observation_space for a in self.possible_agents}
        self.action_spaces = {a: book.action_space for a in self.possible_agents}

    def reset(self, *, seed=None, options=None):  # pragma: no cover - the vector env resets
        raise RuntimeError("tables of NosTablesVectorEnv are reset by the vector env")

    def step(self, action_dict):  # pragma: no cover - the vector env steps
        raise RuntimeError("tables of NosTablesVectorEnv are stepped by the vector env")


class NosTablesVectorEnv(VectorMultiAgentEnv):
    """``tables`` tables as RLlib's vector of multi-agent envs, stepped in one engine call.

    Auto-reset is RLlib's ``next_step`` mode: a table whose hand ended gets no action at the next
    step and returns its new hand's first observation (the engine dealt it already)."""

    metadata = {"autoreset_mode": "next_step"}

    def __init__(self, config: dict | None = None, seed: int | None = None):
        super().__init__()
        c = check_env_config(dict(config or {}))
        self.book = make_book(c, seed=seed)
        self.num_envs = c["tables"]
        self.envs = [_TableView(self.book) for _ in range(self.num_envs)]
        self.single_observation_spaces = dict(self.envs[0].observation_spaces)
        self.single_action_spaces = dict(self.envs[0].action_spaces)
        self.single_observation_space = gym.spaces.Dict(self.single_observation_spaces)
        self.single_action_space = gym.spaces.Dict(self.single_action_spaces)
        self.observation_space = self.single_observation_space
        self.action_space = self.single_action_space
        self._show_new_hand = np.zeros(self.num_envs, bool)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self.book.seed(seed)
        self.book.reset()
        self._show_new_hand[:] = False
        return [self.book.observation(b) for b in range(self.num_envs)], [{} for _ in range(self.num_envs)]

    def step(self, actions: list[dict]):
        if len(actions) != self.num_envs:
            raise ValueError(f"one action dict per table ({self.num_envs}), got {len(actions)}")
        flat = np.full(self.num_envs, IDLE, np.int64)
        current = self.book.current_player
        for b, action in enumerate(actions):
            if self._show_new_hand[b]:
                continue
            if len(action) != 1:
                raise ValueError(f"table {b}: one action for the seat to move, got {sorted(action)}")
            (agent, a), = action.items()
            if agent != agent_id(int(current[b])):
                raise ValueError(f"table {b}: {agent!r} is not to move; {agent_id(int(current[b]))!r} is")
            flat[b] = int(a)
        obs, rew, term, trunc, finished = self.book.step(flat)
        self._show_new_hand[:] = False
        self._show_new_hand[finished] = True
        return obs, rew, term, trunc, [{} for _ in range(self.num_envs)]


class NosTablesEnvRunner(MultiAgentEnvRunner):
    """RLlib's multi-agent env runner with :class:`NosTablesVectorEnv` as its environment:
    ``env_config["tables"]`` tables per runner, stepped in one engine call. Runner k's tables
    are seeded from ``seed + 100_000 * k`` (k = 0 is the local runner)."""

    def make_env(self):
        if self.env is not None:
            self.env.close()
        c = dict(self.config.env_config)
        seed = int(c.get("seed", 0)) + 100_000 * int(self.worker_index)
        self.env = NosTablesVectorEnv(c, seed=seed)
        self.num_envs = self.env.num_envs
        self._needs_initial_reset = True
