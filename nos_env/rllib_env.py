"""RLlib multi-agent environments over the fast engine (the ``ray`` extra; docs/ray.md).

RLlib's current API stack (``MultiAgentEnv``, ``MultiAgentEnvRunner``, ``MultiAgentEpisode``)
sees one table as one multi-agent environment and one hand as one episode (D20):

- agents are the seats, ``"seat_0"`` .. ``"seat_{n-1}"``;
- the observation dict holds exactly the agent to move (one seat per table), its value a dict
  ``{"observations": float32 [1041], "action_mask": float32 [557]}`` for an action-masking
  RLModule (``agents/rllib_module.py``);
- rewards: every step delivers the chip change (times ``reward_scale``) of *every* seat that
  has acted in this hand, to move or not (RLlib adds them to that agent's next step), so each
  seat's rewards over the hand add up to its chip change. Chips paid before a seat's first
  decision (a forced set, an opponent's declared double) are held and delivered with its first
  step, as the SB3 path does (docs/training.md). A seat that never decides in a hand is not
  part of RLlib's episode (it took no action to credit); its chips are counted in
  ``chips_without_decision``;
- at the end of a hand every seat that acted is terminated with ``"__all__": True``;
- an action outside the mask follows D16's penalty by default (``illegal_action: "penalty"``:
  the offender pays 40 to every other seat and acts again), because RLlib's own env checks and
  its ``random_actions`` sampling draw from the whole ``Discrete(557)``; the action-masking
  module never picks one. ``illegal_action: "raise"`` makes it an error instead.

Two ways to run it:

- :class:`NosTableEnv`: one table, a plain ``MultiAgentEnv`` (what RLlib's env checks take, and
  what RLlib's own ``num_envs_per_env_runner`` copies in a Python loop);
- :class:`NosTablesEnvRunner`: an env runner whose vector environment (:class:`NosTablesVectorEnv`)
  holds ``tables`` tables in one fast-engine batch, stepped by one kernel call per step. RLlib
  loops over its sub-environments one by one; this steps them all at once, which is what the
  fast engine is for. Pass it as ``config.env_runners(env_runner_cls=NosTablesEnvRunner)``.

Both play the same games: table ``b`` of a batch seeded ``s`` deals as a :class:`NosTableEnv`
seeded ``s + b`` (the fast engine's seeding), for the same actions (tested).

Games: Nos. The family games' tables (``FamilyTables``, ``BlindTables``) step, score and size
their actions differently; ``game`` names them in a clear error until an adapter for them is
written (docs/ray.md).
"""

from __future__ import annotations

from typing import Any

from .extras import require

require("ray", "the RLlib environments (nos_env/rllib_env.py)", ("ray",))

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
from ray.rllib.env.multi_agent_env import MultiAgentEnv  # noqa: E402
from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner  # noqa: E402
from ray.rllib.env.vector.vector_multi_agent_env import VectorMultiAgentEnv  # noqa: E402

from . import registry  # noqa: E402
from .encoding import NUM_ACTIONS  # noqa: E402

#: The games the RLlib environment plays (their tables are FastTables).
RLLIB_GAMES = ("nos",)
IDLE = -1  # the fast engine's "leave this table as it is" action (FastTables.IDLE)


def agent_id(seat: int) -> str:
    return f"seat_{seat}"


def seat_of(agent: str) -> int:
    return int(agent.rsplit("_", 1)[1])


def spaces(observation_size: int) -> tuple[gym.spaces.Dict, gym.spaces.Discrete]:
    """One seat's observation space (observation and action mask) and action space."""
    obs = gym.spaces.Dict({
        "observations": gym.spaces.Box(-np.inf, np.inf, (observation_size,), np.float32),
        "action_mask": gym.spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
    })
    return obs, gym.spaces.Discrete(NUM_ACTIONS)


def check_env_config(config: dict) -> dict:
    """The environment's options, checked, with defaults (``env_config`` of an RLlib config)."""
    known = {"game", "num_players", "tables", "seed", "reward_scale", "auto_forced", "num_threads", "illegal_action"}
    unknown = sorted(set(config) - known)
    if unknown:
        raise ValueError(f"unknown env_config key(s) {unknown}; known: {sorted(known)}")
    out = {"game": "nos", "num_players": 4, "tables": 1, "seed": 0, "reward_scale": 0.01, "auto_forced": True,
           "num_threads": 1, "illegal_action": "penalty", **config}
    registry.game_info(out["game"])  # a clear error naming the games
    if out["game"] not in RLLIB_GAMES:
        raise ValueError(f"the RLlib environment plays {sorted(RLLIB_GAMES)}; {out['game']!r} is a registered game "
                         f"without an RLlib adapter yet (its tables step and score differently)")
    if out["num_players"] not in registry.game_info(out["game"]).player_counts:
        raise ValueError(f"num_players must be one of {registry.game_info(out['game']).player_counts} for "
                         f"{out['game']!r}, got {out['num_players']!r}")
    if isinstance(out["tables"], bool) or not isinstance(out["tables"], int) or out["tables"] < 1:
        raise ValueError(f"tables must be a positive integer, got {out['tables']!r}")
    if isinstance(out["reward_scale"], bool) or not isinstance(out["reward_scale"], (int, float)) \
            or not out["reward_scale"] > 0:
        raise ValueError(f"reward_scale must be a positive number, got {out['reward_scale']!r}")
    return out


class TableBook:
    """``tables`` tables in one fast-engine batch, and the per-seat bookkeeping that turns the
    engine's steps into RLlib's per-table multi-agent dicts."""

    def __init__(self, tables: int, game: str = "nos", num_players: int = 4, seed: int | None = 0,
                 reward_scale: float = 0.01, auto_forced: bool = True, num_threads: Any = 1,
                 illegal_action: str = "penalty"):
        venv = registry.vector_env(tables, num_players, game=game, seed=seed, auto_forced=auto_forced,
                                   observation_dtype="float32", num_threads=num_threads,
                                   illegal_action=illegal_action)
        self.engine = venv.tables
        self.num_tables = B = tables
        self.num_players = n = num_players
        self.reward_scale = float(reward_scale)
        self.agents = [agent_id(s) for s in range(n)]
        self.observation_space, self.action_space = spaces(self.engine.observation_size)
        self.acted = np.zeros((B, n), bool)  # the seat has decided in this hand
        self.pending = np.zeros((B, n), np.float64)  # chips held until the seat's first decision
        self.chips_without_decision = 0.0  # chips of seats that never decided in their hand
        self.hands_finished = 0
        self.obs = np.zeros((B, self.engine.observation_size), np.float32)

    def seed(self, seed: int | None) -> None:
        self.engine.seed(seed)

    def reset(self, tables: np.ndarray | None = None) -> None:
        """Deal a new hand at ``tables`` (all by default)."""
        tables = np.arange(self.num_tables) if tables is None else np.asarray(tables, np.int64)
        self.engine.reset_tables(tables)
        self.acted[tables] = False
        self.pending[tables] = 0.0
        current = self.engine.current_player
        self.obs[tables] = self.engine.observe(current)[tables]

    def observation(self, b: int) -> dict:
        """The obs dict of table ``b``: exactly its seat to move."""
        seat = int(self.engine.current_player[b])
        return {agent_id(seat): {"observations": self.obs[b].copy(),
                                 "action_mask": self.engine.MASK[b].astype(np.float32)}}

    def step(self, actions: np.ndarray):
        """One action per table (``IDLE`` for a table that shows its new hand instead).

        Returns per table (obs, rewards, terminateds, truncateds) dicts, and the tables whose
        hand ended (their next hand is dealt already: :meth:`observation` shows it)."""
        B, n = self.num_tables, self.num_players
        acting = actions != IDLE
        movers = self.engine.current_player.copy()
        rewards, terminated, _final, _current, obs = self.engine.step(actions, allow_idle=True)
        self.obs[acting] = obs[acting]
        chips = rewards[:, :n] * self.reward_scale
        rows = np.flatnonzero(acting)
        self.acted[rows, movers[rows]] = True
        # Seats that have decided get their chips now (to move or not); the others hold them.
        due = np.where(self.acted, chips + self.pending, 0.0)
        self.pending = np.where(self.acted, 0.0, self.pending + chips)
        out_obs, out_rew, out_term, out_trunc = [], [], [], []
        done = np.zeros(B, bool)
        done[acting] = terminated[acting]
        for b in range(B):
            if not acting[b]:
                out_obs.append(self.observation(b))
                out_rew.append({})
                out_term.append({"__all__": False})
                out_trunc.append({"__all__": False})
                continue
            seats = np.flatnonzero(self.acted[b])
            out_rew.append({agent_id(s): float(due[b, s]) for s in seats})
            out_trunc.append({"__all__": False})
            if done[b]:
                out_obs.append({})
                term = {agent_id(s): True for s in seats}
                term["__all__"] = True
                out_term.append(term)
            else:
                out_obs.append(self.observation(b))
                out_term.append({"__all__": False})
        finished = np.flatnonzero(done)
        if len(finished):
            self.chips_without_decision += float(self.pending[finished].sum())
            self.hands_finished += len(finished)
            self.acted[finished] = False
            self.pending[finished] = 0.0
        return out_obs, out_rew, out_term, out_trunc, finished


class NosTableEnv(MultiAgentEnv):
    """One table as an RLlib ``MultiAgentEnv`` (``env_config``: game, num_players, seed,
    reward_scale, auto_forced, num_threads; ``tables`` must be 1 here)."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        c = check_env_config(dict(config or {}))
        if c["tables"] != 1:
            raise ValueError("NosTableEnv is one table; for many tables per env runner use NosTablesEnvRunner")
        # An env runner's copy k seeds seed + 1000 * worker_index + vector_index (RLlib's EnvContext).
        seed = c["seed"] + 1000 * int(getattr(config, "worker_index", 0)) + int(getattr(config, "vector_index", 0))
        self.book = TableBook(1, c["game"], c["num_players"], seed, c["reward_scale"], c["auto_forced"],
                              c["num_threads"], c["illegal_action"])
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
        seat = int(self.book.engine.current_player[0])
        if agent != agent_id(seat):
            raise ValueError(f"{agent!r} is not to move; {agent_id(seat)!r} is")
        obs, rew, term, trunc, finished = self.book.step(np.array([int(action)], np.int64))
        self._dealt = bool(len(finished))
        return obs[0], rew[0], term[0], trunc[0], {}


class _TableView(MultiAgentEnv):
    """What RLlib's env runner reads of each sub-environment of :class:`NosTablesVectorEnv`:
    its agents and spaces (the stepping is the vector env's)."""

    def __init__(self, book: TableBook):
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
        self.book = TableBook(c["tables"], c["game"], c["num_players"], c["seed"] if seed is None else seed,
                              c["reward_scale"], c["auto_forced"], c["num_threads"], c["illegal_action"])
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
        current = self.book.engine.current_player
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
