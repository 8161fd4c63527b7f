"""The bookkeeping behind the RLlib environments (``nos_env/rllib_env.py``): B tables of any
registered game in one fast-engine batch, turned into RLlib's per-table multi-agent dicts.

RLlib's ``MultiAgentEpisode`` wants, per table and step, the observations of exactly the agents
that act next and the rewards of any agents; it adds a waiting agent's rewards to its next step.
A *book* owns the tables and keeps what that needs:

- ``acted`` [B, n]: the seat has decided in this episode. RLlib credits rewards to an agent's
  actions, so a seat that has not acted yet cannot be paid: its rewards are held in
  ``pending`` and delivered with its first step. Every seat that has acted is paid every step,
  to move or not, so each seat's rewards over an episode add up to its whole reward there;
- a seat that never decides in an episode (Nos: all its moves forced, D12; Blind: every tile it
  turned up played itself, BD5) is not in RLlib's episode; what it was owed is counted in
  ``rewards_without_decision`` (in reward units) so nothing disappears unseen.

Two books, one per table API:

- :class:`NosBook`: Nos on ``FastTables``; rewards are chips (D16's penalty for an action
  outside the mask is the engine's, ``illegal_action``);
- :class:`GameBook`: every other registered game, through whatever tables its ``vector_env``
  owns (``FamilyTables``, ``BlindTables``, or a later game's), using only the Tables API of
  ``docs/family_contract.md`` ("Fast engine API"): ``step(actions, observe, autoreset,
  allow_idle)``, ``observe_rows``, ``masks``, ``current_player``, ``scores``,
  ``reset_tables``, ``seed_tables``, ``num_actions``, ``observation_size``. Rewards are the
  family's reward modes (``nos_env/family_rewards.py``, exactly as its ``vector_env`` pays them),
  points a forced set scores before the first decision are paid with the first step (contract,
  "The environments" 1), and an episode is one hand unless ``target_score`` is given (as the
  project's tournaments and SB3 training play the family games).

A book needs no Ray; the RLlib classes wrap it.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from . import registry
from .encoding import NUM_ACTIONS
from .family_backends import seed_and_reset, table_winners
from .family.rules import one_hand_options
from .family_rewards import REWARDS, relative, sides, win, winners_mask

IDLE = -1  # every table API's "leave this table as it is" action (FastTables.IDLE, FamilyTables.IDLE)

#: env_config keys every game takes, and the ones only Nos or only the other games take.
COMMON_KEYS = ("game", "num_players", "tables", "seed", "reward_scale", "num_threads", "illegal_action")
NOS_KEYS = ("auto_forced",)
GAME_KEYS = ("game_options", "reward", "score_scale", "illegal_penalty")
#: What ``illegal_action`` may be: D16's penalty for Nos, the environment's penalty for the others
#: (the action is refused, the state stays, the offender is charged ``illegal_penalty`` points and
#: acts again), or an error.
ILLEGAL_ACTIONS = ("penalty", "raise")


def agent_id(seat: int) -> str:
    return f"seat_{seat}"


def seat_of(agent: str) -> int:
    return int(agent.rsplit("_", 1)[1])


def spaces(observation_size: int, num_actions: int = NUM_ACTIONS) -> tuple[gym.spaces.Dict, gym.spaces.Discrete]:
    """One seat's observation space (float32 observation and action mask) and action space."""
    obs = gym.spaces.Dict({
        "observations": gym.spaces.Box(-np.inf, np.inf, (observation_size,), np.float32),
        "action_mask": gym.spaces.Box(0.0, 1.0, (num_actions,), np.float32),
    })
    return obs, gym.spaces.Discrete(num_actions)


def _positive_number(name: str, value) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"{name} must be a positive number, got {value!r}")


def check_env_config(config: dict) -> dict:
    """The environment's options (``env_config`` of an RLlib config), checked, with defaults.

    Every game: ``game`` (a registered id, default "nos"), ``num_players`` (4, or the game's
    smallest count without 4), ``tables`` (1), ``seed`` (0), ``reward_scale`` (Nos 0.01 per chip,
    else 1.0 per point), ``num_threads`` (1), ``illegal_action`` ("penalty"). Nos also
    ``auto_forced`` (D12, true); the other games ``game_options`` (the rules page's options;
    ``target_score`` None unless given), ``reward`` ("relative", "points" or "win"),
    ``score_scale`` (100.0, the observation's score divisor) and ``illegal_penalty`` (10 points).
    """
    config = dict(config)
    game = config.get("game", "nos")
    info = registry.game_info(game)  # a clear error naming the games
    known = COMMON_KEYS + (NOS_KEYS if game == "nos" else GAME_KEYS)
    unknown = sorted(set(config) - set(known))
    if unknown:
        other = [k for k in unknown if k in NOS_KEYS + GAME_KEYS]
        raise ValueError(f"unknown env_config key(s) {unknown} for {game!r}; known: {sorted(known)}"
                         + (f" ({other} are for {'Nos' if game != 'nos' else 'the other games'})" if other else ""))
    counts = tuple(info.player_counts)
    out = {"game": game, "num_players": 4 if 4 in counts else counts[0], "tables": 1, "seed": 0,
           "reward_scale": 0.01 if game == "nos" else 1.0, "num_threads": 1, "illegal_action": "penalty"}
    out.update({"auto_forced": True} if game == "nos" else
               {"game_options": {}, "reward": "relative", "score_scale": 100.0, "illegal_penalty": 10.0})
    out.update(config)
    if out["num_players"] not in counts:
        raise ValueError(f"num_players must be one of {counts} for {game!r}, got {out['num_players']!r}")
    if isinstance(out["tables"], bool) or not isinstance(out["tables"], int) or out["tables"] < 1:
        raise ValueError(f"tables must be a positive integer, got {out['tables']!r}")
    _positive_number("reward_scale", out["reward_scale"])
    if out["illegal_action"] not in ILLEGAL_ACTIONS:
        raise ValueError(f"illegal_action must be one of {list(ILLEGAL_ACTIONS)}, got {out['illegal_action']!r}")
    if game != "nos":
        if not isinstance(out["game_options"], dict):
            raise ValueError(f"game_options must be a mapping of the rules page's options, got {out['game_options']!r}")
        if out["reward"] not in REWARDS:
            raise ValueError(f"reward must be one of {list(REWARDS)}, got {out['reward']!r}")
        _positive_number("illegal_penalty", out["illegal_penalty"])
    return out


def make_book(config: dict, tables: int | None = None, seed: int | None = None) -> "Book":
    """The book ``env_config`` describes (checked), with ``tables`` and ``seed`` overriding it."""
    c = check_env_config(config)
    tables = c["tables"] if tables is None else tables
    seed = c["seed"] if seed is None else seed
    common = dict(game=c["game"], num_players=c["num_players"], seed=seed, reward_scale=c["reward_scale"],
                  num_threads=c["num_threads"], illegal_action=c["illegal_action"])
    if c["game"] == "nos":
        return NosBook(tables, auto_forced=c["auto_forced"], **common)
    return GameBook(tables, game_options=c["game_options"], reward=c["reward"], score_scale=c["score_scale"],
                    illegal_penalty=c["illegal_penalty"], **common)


class Book:
    """What both books share: the spaces, the seats' ``acted``/``pending`` accounts, and the
    per-table dicts RLlib reads. Subclasses own ``engine`` (the tables) and its stepping."""

    def _setup(self, engine, tables: int, num_players: int, reward_scale: float, num_actions: int) -> None:
        self.engine = engine
        self.num_tables = B = tables
        self.num_players = n = num_players
        self.reward_scale = float(reward_scale)
        self.agents = [agent_id(s) for s in range(n)]
        self.observation_size = int(engine.observation_size)
        self.num_actions = int(num_actions)
        self.observation_space, self.action_space = spaces(self.observation_size, self.num_actions)
        self.acted = np.zeros((B, n), bool)  # the seat has decided in this episode
        self.pending = np.zeros((B, n), np.float64)  # rewards held until the seat's first decision
        self.rewards_without_decision = 0.0  # rewards of seats that never decided in their episode
        self.episodes_finished = 0
        self.obs = np.zeros((B, self.observation_size), np.float32)

    @property
    def current_player(self) -> np.ndarray:
        return self.engine.current_player

    def observation(self, b: int) -> dict:
        """The obs dict of table ``b``: exactly its seat to move."""
        seat = int(self.engine.current_player[b])
        return {agent_id(seat): {"observations": self.obs[b].copy(),
                                 "action_mask": self.engine.masks[b].astype(np.float32)}}

    def _clear(self, rows: np.ndarray) -> None:
        self.acted[rows] = False
        self.pending[rows] = 0.0

    def _dicts(self, acting: np.ndarray, movers: np.ndarray, rewards: np.ndarray, done: np.ndarray):
        """RLlib's dicts of one step: ``acting`` [B] tables that took an action (the others show
        their new episode), ``movers`` [B] who acted, ``rewards`` [B, n] every seat's reward of the
        step, ``done`` [B] the episode ended (the next one is dealt already)."""
        rows = np.flatnonzero(acting)
        self.acted[rows, movers[rows]] = True
        # Seats that have decided get their rewards now (to move or not); the others hold them.
        due = np.where(self.acted, rewards + self.pending, 0.0)
        self.pending = np.where(self.acted, 0.0, self.pending + rewards)
        out_obs, out_rew, out_term, out_trunc = [], [], [], []
        for b in range(self.num_tables):
            out_trunc.append({"__all__": False})
            if not acting[b]:
                out_obs.append(self.observation(b))
                out_rew.append({})
                out_term.append({"__all__": False})
                continue
            seats = np.flatnonzero(self.acted[b])
            out_rew.append({agent_id(s): float(due[b, s]) for s in seats})
            if done[b]:
                out_obs.append({})
                term = {agent_id(s): True for s in seats}
                term["__all__"] = True
                out_term.append(term)
            else:
                out_obs.append(self.observation(b))
                out_term.append({"__all__": False})
        finished = np.flatnonzero(done & acting)
        if len(finished):
            self.rewards_without_decision += float(self.pending[finished].sum())
            self.episodes_finished += len(finished)
            self._clear(finished)
        return out_obs, out_rew, out_term, out_trunc, finished


class NosBook(Book):
    """Nos's tables: one hand is one episode (D20), rewards are chips × ``reward_scale``."""

    def __init__(self, tables: int, game: str = "nos", num_players: int = 4, seed: int | None = 0,
                 reward_scale: float = 0.01, auto_forced: bool = True, num_threads: Any = 1,
                 illegal_action: str = "penalty"):
        venv = registry.vector_env(tables, num_players, game=game, seed=seed, auto_forced=auto_forced,
                                   observation_dtype="float32", num_threads=num_threads,
                                   illegal_action=illegal_action)
        self._setup(venv.tables, tables, num_players, reward_scale, NUM_ACTIONS)

    @property
    def chips_without_decision(self) -> float:
        """Chips (not reward units) of seats that never decided in their hand."""
        return self.rewards_without_decision / self.reward_scale

    def seed(self, seed: int | None) -> None:
        self.engine.seed(seed)

    def reset(self, tables: np.ndarray | None = None) -> None:
        """Deal a new hand at ``tables`` (all by default)."""
        tables = np.arange(self.num_tables) if tables is None else np.asarray(tables, np.int64)
        self.engine.reset_tables(tables)
        self._clear(tables)
        self.obs[tables] = self.engine.observe(self.engine.current_player)[tables]

    def step(self, actions: np.ndarray):
        """One action per table (``IDLE`` for a table that shows its new hand instead). Returns
        per table (obs, rewards, terminateds, truncateds) dicts, and the tables whose hand ended
        (their next hand is dealt already: :meth:`observation` shows it)."""
        acting = actions != IDLE
        movers = self.engine.current_player.copy()
        rewards, terminated, _final, _current, obs = self.engine.step(actions, allow_idle=True)
        self.obs[acting] = obs[acting]
        chips = rewards[:, : self.num_players] * self.reward_scale
        return self._dicts(acting, movers, chips, np.asarray(terminated, bool) & acting)


class GameBook(Book):
    """Any other registered game, through its ``vector_env``'s tables (the family's Tables API)."""

    def __init__(self, tables: int, game: str, num_players: int | None = None, seed: int | None = 0,
                 reward_scale: float = 1.0, game_options: dict | None = None, reward: str = "relative",
                 score_scale: float = 100.0, num_threads: Any = 1, illegal_action: str = "penalty",
                 illegal_penalty: float = 10.0):
        # one hand an episode unless a match is asked for, as tournaments play
        options = {**one_hand_options(game), **dict(game_options or {})}
        # The registry builds the game's tables (and checks its options); the book steps them itself,
        # because RLlib's next_step reset needs tables that wait (IDLE) while others move.
        venv = registry.vector_env(tables, game=game, num_players=num_players, seed=None, reward=reward,
                                   observation_dtype="float32", score_scale=score_scale,
                                   num_threads=num_threads, **options)
        self.game = game
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.rules = venv.tables.rules
        self._setup(venv.tables, tables, int(self.rules.num_players), reward_scale, venv.tables.num_actions)
        self._side_of = sides(self.num_players, bool(getattr(self.rules, "teams", False)))
        self._carried = np.zeros((tables, self.num_players), np.int64)  # a forced set's points, paid with step 1
        self._rows = np.arange(tables, dtype=np.int64)
        self._next_seed = seed  # table b's first episode is the AEC game of seed + b

    def seed(self, seed: int | None) -> None:
        """The next :meth:`reset` starts table b from ``seed + b`` (the AEC environment's seed + b)."""
        self._next_seed = seed

    def reset(self, tables: np.ndarray | None = None) -> None:
        """A new episode at ``tables`` (all by default): seeded after :meth:`seed` or at the start,
        else the next of each table's stream."""
        rows = self._rows if tables is None else np.asarray(tables, np.int64)
        if self._next_seed is not None:
            seed_and_reset(self.engine, rows, self._next_seed + rows)
            self._next_seed = None
        else:
            self.engine.reset_tables(rows)
        self._clear(rows)
        self._carried[rows] = self.engine.scores[rows, : self.num_players]
        self._observe(rows)

    def _observe(self, rows: np.ndarray) -> None:
        if len(rows):
            self.obs[rows] = self.engine.observe_rows(rows, np.asarray(self.engine.current_player)[rows])

    def _winners(self, rows: np.ndarray) -> np.ndarray:
        """Each finished table's winning seat (-1: none), before it is reset."""
        if hasattr(type(self.engine), "winner"):  # a tables class that names it (BlindTables)
            return np.asarray(self.engine.winner[rows], np.int64)
        return table_winners(self.engine, rows)

    def step(self, actions: np.ndarray):
        """As :meth:`NosBook.step`. An action outside the mask is refused with the environment's
        penalty (``illegal_action="penalty"``: state unchanged, the offender charged
        ``illegal_penalty`` points, the same seat to move) or raises the tables' ValueError,
        before anything changes (``"raise"``)."""
        n, B = self.num_players, self.num_tables
        actions = np.asarray(actions, np.int64)
        if actions.shape != (B,):
            raise ValueError(f"actions must have shape ({B},), got {actions.shape}")
        acting = actions != IDLE
        movers = np.array(self.engine.current_player, np.int64)
        flat = actions.copy()
        refused = np.zeros(B, bool)
        if self.illegal_action == "penalty":
            rows = np.flatnonzero(acting & (actions >= 0) & (actions < self.num_actions))
            refused[rows] = self.engine.masks[rows, actions[rows]] == 0
            flat[refused] = IDLE
        win_mode = self.reward_mode == "win"
        # "win" reads each finished table's winner before its next episode is dealt.
        _, points, terminated, _ = self.engine.step(flat, observe=False, autoreset=not win_mode, allow_idle=True)
        stepped = flat != IDLE
        points = np.where(stepped[:, None], np.asarray(points)[:, :n] + self._carried, 0)
        self._carried[stepped] = 0
        done = np.asarray(terminated, bool) & stepped
        finished = np.flatnonzero(done)
        if win_mode:
            rewards = np.zeros((B, n), np.float64)
            if finished.size:
                winners = np.array([winners_mask(None if w < 0 else int(w), n, self._side_of)
                                    for w in self._winners(finished)])
                rewards[finished] = win(winners, self._side_of)
                self.engine.reset_tables(finished)
        elif self.reward_mode == "points":
            rewards = points.astype(np.float64)
        else:
            rewards = relative(points).astype(np.float64)
        rewards *= self.reward_scale
        rewards[refused, movers[refused]] -= self.illegal_penalty * self.reward_scale
        if finished.size:  # the new episodes' forced sets, paid with their first step
            self._carried[finished] = self.engine.scores[finished, :n]
        self._observe(np.flatnonzero(stepped))
        return self._dicts(acting, movers, rewards, done)
