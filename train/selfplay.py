"""A stable-baselines3 VecEnv for self-play on the fast engine: :class:`SelfPlayVecEnv`.

Each of the ``num_envs`` tables seats one learner; the other seats are played,
batched, by opponents drawn from an :class:`OpponentPool` (baseline agents and
frozen snapshots of the learner). One ``step`` is one learner decision at every
table:

1. the learner's actions are applied;
2. the opponents are stepped, tables in parallel (a table whose learner is to
   move waits, ``FastTables.IDLE``), until the learner is to move again at
   every table;
3. the reward is the learner's own chip change over that span, times
   ``reward_scale``: its own seat's payments only, never an opponent's.

Steps 1 and 2 go through the shared play loop (``agents.play_loop.PlayLoop``, the one
tournaments and the announcement research use), with the learner's rows left idle.

Episodes are one hand (or ``hands_per_episode`` hands, a session). When a
table's episode ends inside a span, ``dones[b]`` is True, the reward holds the
learner's chips up to and including the final settlement, ``infos[b]`` holds
``terminal_observation`` (the learner's view of the finished hand),
``episode`` (``r``: the learner's chip change in the episode, unscaled; ``l``:
its decisions) and ``final_chips``; the table has already started its next
episode, and the observation is the learner's first decision there. Chips paid
in the new episode before that decision (opponents' declarations, a forced set)
are the next step's reward, so every episode's rewards add up to the learner's
chip change in it. (A learner that makes no decision in a whole episode, which
needs a hand closed before its first turn, about 1 hand in 3,000, still has
its chips counted: they join the next step's reward, and the episode is
listed in ``infos[b]["later_episodes"]``.)

Learner seat: a fixed seat, or ``"rotate"``: table b's k-th episode seats the
learner at (b + k) mod n, so every seat, the one on set included, is played.

Observations are the learner's, as the AEC environment encodes them
(``nos_env.encoding``, 1,041 floats). With ``tactics_hint`` the index of the
Tactics agent's choice in the same position is appended as one more float
(see ``agents.policy.NosPolicy``; in a terminal observation it is 0). A family game's
``greedy_hint`` appends its Greedy agent's choice the same way (``hint_source`` names the
rules it is computed for; the policy is given them), and with ``action_points`` (a scoring
game) each action's immediate points after it (``agents.policy.action_points``: one float per
action, 0 where illegal; 0 in a terminal observation). With ``closing_features`` (Nos, with
``tactics_hint``) each play's closing features follow (``agents.policy.closing_features``: 4 x 224
floats, zeros in a terminal observation; 6 x 224 with ``settlement_features``, the final
count's). With ``privileged_critic`` (a family game on ``FamilyTables``) the other seats' hands
follow, for the critic only
(``train/privileged.py``; the policy is told their size). ``action_masks()`` (and so
``env_method("action_masks")``, as sb3-contrib's MaskablePPO asks) returns the
batch's masks, bool [B, 557].

Family games (issue 15; ``game="draw"`` etc. with ``game_options``): the tables are
``FamilyTables``, the observation and action sizes are the game's, the opponents are the
family agents (``agents/family/``), an episode is one hand unless ``game_options`` gives a
``target_score``, and the reward is the learner's *relative* points: its points gained minus
the mean of the other seats' (the family's scores are not zero-sum, and a hand is won by
out-scoring the others), times ``reward_scale``. ``infos[b]["points"]`` holds each seat's
points in the finished episode.

Seeding: table b's deals come from SplitMix64 seeded with ``seed + b``, as in
``nos_env.vector_env``; the opponent draws are seeded from ``seed`` too, and
``VecEnv.seed(s)`` followed by ``reset()`` reseeds the tables, the pool and
every opponent's own generator, so the same seed and the same learner actions
give the same games.
"""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from agents.base import Agent
from agents.play_loop import PlayLoop
from nos_env.encoding import NUM_ACTIONS, OBSERVATION_SIZE
from nos_env.fast_engine import FastTables

#: A guard against a loop that never returns to the learner (a bug, never a game).
MAX_OPPONENT_STEPS = 10_000


class OpponentPool:
    """Agents that play the learner's opponents, with sampling weights.

    ``add(agent, weight)`` puts an agent in the pool; every new episode of a
    table draws an agent for each opponent seat, independently, with
    probability proportional to the weights. ``set_weight`` changes a weight
    (to retire an old snapshot, give it 0).
    """

    def __init__(self, seed: int = 0):
        self.agents: list[Agent] = []
        self.labels: list[str] = []
        self.weights: list[float] = []
        self.rng = np.random.default_rng([seed, 0x5E1F])

    def add(self, agent: Agent, weight: float = 1.0, label: str | None = None) -> int:
        if weight < 0:
            raise ValueError(f"an opponent's weight must be >= 0, got {weight}")
        self.agents.append(agent)
        self.labels.append(label or getattr(agent, "name", type(agent).__name__))
        self.weights.append(float(weight))
        return len(self.agents) - 1

    def set_weight(self, index: int, weight: float) -> None:
        if weight < 0:
            raise ValueError(f"an opponent's weight must be >= 0, got {weight}")
        self.weights[index] = float(weight)

    def probabilities(self) -> np.ndarray:
        w = np.asarray(self.weights, np.float64)
        if len(w) == 0 or w.sum() <= 0:
            raise ValueError("the opponent pool has no agent with a positive weight")
        return w / w.sum()

    def draw(self, size) -> np.ndarray:
        return self.rng.choice(len(self.agents), size=size, p=self.probabilities())

    def __len__(self) -> int:
        return len(self.agents)


class SelfPlayVecEnv(VecEnv):
    def __init__(
        self,
        num_envs: int,
        opponents: OpponentPool,
        num_players: int = 4,
        seed: int = 0,
        learner_seat: int | str = "rotate",
        reward_scale: float = 0.01,
        tactics_hint: bool = False,
        greedy_hint: bool = False,
        action_points: bool = False,
        action_features: bool = False,
        closing_features: bool = False,
        settlement_features: bool = False,
        privileged_critic: bool = False,
        game: str = "nos",
        game_options: dict | None = None,
        **table_options,
    ):
        if not isinstance(opponents, OpponentPool):
            raise TypeError("opponents must be an OpponentPool")
        opponents.probabilities()  # fails early on an empty pool
        if learner_seat != "rotate" and not (isinstance(learner_seat, (int, np.integer))
                                             and 0 <= learner_seat < num_players):
            raise ValueError(f"learner_seat must be 'rotate' or a seat 0..{num_players - 1}, got {learner_seat!r}")
        if not reward_scale > 0:
            raise ValueError(f"reward_scale must be positive, got {reward_scale}")
        self.game = game
        self.family = game != "nos"
        if self.family:
            from agents.family.games import tables_class
            from agents.tournament import family_options

            if tactics_hint:
                raise ValueError(f"the Tactics hint is Nos's, not {game}'s (a family game's is greedy_hint)")
            self.tables = tables_class(game)(game, num_envs, num_players=num_players, seed=seed,
                                       observation_dtype="float32", **family_options(game, game_options),
                                       **table_options)
            self.tables.seed_tables(np.arange(num_envs), seed + np.arange(num_envs))
            obs_size, num_actions = int(self.tables.observation_size), int(self.tables.num_actions)
        else:
            if game_options:
                raise ValueError("game_options are for the family games")
            if greedy_hint:
                raise ValueError("greedy_hint is a family game's; Nos's hint is tactics_hint")
            self.tables = FastTables(num_envs, num_players, seed, observation_dtype="float32", **table_options)
            obs_size, num_actions = OBSERVATION_SIZE, NUM_ACTIONS
        self.pool = opponents
        self.n = self.tables.num_players
        self.learner_seat_mode = learner_seat
        self.reward_scale = float(reward_scale)
        self.tactics_hint = bool(tactics_hint)
        self.greedy_hint = bool(greedy_hint)
        self.hint_agent = None
        #: The rules the Greedy hint is computed for, as the policy saves them (agents.policy.hint_agent).
        self.hint_source = None
        if self.tactics_hint:
            from agents.tactics import TacticsAgent

            self.hint_agent = TacticsAgent(seed=seed + 7919, compiled=True)  # the hint at engine speed
        if self.greedy_hint:
            from agents.family.games import table_options
            from agents.policy import hint_agent

            self.hint_source = {"game": game, "num_players": int(self.tables.num_players),
                                "options": table_options(self.tables.rules)}
            self.hint_agent = hint_agent(self.hint_source, seed=seed + 7919)
        #: Floats of each action's immediate points behind the hint (agents.policy.action_points), 0 without them.
        self.points_size = 0
        if action_points:
            from agents.policy import check_action_points

            check_action_points(action_points, self.hint_source)  # a clear error: needs the Greedy hint of a scoring game
            self.points_size = num_actions
        #: Floats of each action's features behind the points (agents.policy.action_features), 0 without them.
        self.features_size = 0
        if action_features:
            from agents.policy import check_action_features, features_per_action

            check_action_features(action_features, self.hint_source)  # a clear error: needs the Greedy hint of Blind
            self.features_size = num_actions * features_per_action(self.hint_source)
        #: Floats of each play's closing features behind the hint (agents.policy.closing_features), 0 without them.
        self.closing_size = 0
        #: Whether the settlement features follow the closing features (agents.policy.closing_features).
        self.settlement_features = bool(settlement_features)
        if closing_features or settlement_features:
            from agents.policy import check_closing_features, closing_size

            # a clear error: Nos's plays, with the Tactics hint; the settlement features behind the closing ones
            check_closing_features(closing_features, None, self.tactics_hint and not self.family, settlement_features)
            self.closing_size = closing_size(self.settlement_features)
        self.render_mode = None
        #: Floats of the critic-only tail (train/privileged.py): the other seats' hands, 0 without it.
        self.privileged_size = 0
        if privileged_critic:
            from .privileged import privileged_size

            self.privileged_size = privileged_size(self.tables)
        size = (obs_size + (1 if self.hint_agent is not None else 0) + self.points_size + self.features_size
                + self.closing_size
                + self.privileged_size)
        observation_space = spaces.Box(-np.inf, np.inf, (size,), np.float32)
        super().__init__(int(num_envs), observation_space, spaces.Discrete(num_actions))
        B = self.num_envs
        self.learner = np.zeros(B, np.int64)  # the learner's seat at each table
        self.opponent_of = np.zeros((B, self.n), np.int64)  # pool index per seat (learner's seat unused)
        self.episodes = np.zeros(B, np.int64)  # finished episodes per table
        # The opponents play through the shared loop; the learner's rows wait (IDLE). Its obs is the
        # seat to move's view at every table, the learner's where the learner is to move.
        self._loop = PlayLoop(self.tables, self.pool.agents, self.opponent_of, rest="idle", autoreset=False)
        self._carry = np.zeros(B, np.float64)  # chips owed to the next step (after an end in a span)
        self._episode_chips = np.zeros(B, np.float64)
        self._episode_points = np.zeros((B, self.n), np.int64)  # family games: every seat's points
        self._episode_decisions = np.zeros(B, np.int64)
        self._actions = None
        self._started = False

    # ------------------------------------------------------------ episodes
    def _begin(self, rows: np.ndarray) -> None:
        """Seat the learner and draw the opponents for the episodes just started at ``rows``."""
        if self.learner_seat_mode == "rotate":
            self.learner[rows] = (rows + self.episodes[rows]) % self.n
        else:
            self.learner[rows] = int(self.learner_seat_mode)
        self.opponent_of[rows] = self.pool.draw((len(rows), self.n))
        self._episode_chips[rows] = 0.0
        self._episode_points[rows] = 0
        self._episode_decisions[rows] = 0

    def _finish(self, rows: np.ndarray, infos: list[dict], final_chips: np.ndarray) -> None:
        """Episodes ended at ``rows`` (tables not reset yet): fill their infos, start the next ones."""
        terminal = self.tables.observe_rows(rows, self.learner[rows])
        starting = None if self.family else self.tables.episode_start_chips[rows]
        for i, b in enumerate(rows):
            ended = {"terminal_observation": self._with_privileged(self._with_hint_rows(terminal[i : i + 1], None),
                                                                   rows[i : i + 1])[0],
                     "episode": {"r": float(self._episode_chips[b]), "l": int(self._episode_decisions[b])},
                     "learner_seat": int(self.learner[b])}
            if self.family:
                ended["points"] = self._episode_points[b].copy()
            else:
                ended["final_chips"] = final_chips[b, : self.n].copy()
                ended["chips"] = (final_chips[b, : self.n] - starting[i]).copy()
            if "episode" in infos[b]:
                # A second end in one span: a hand without a learner decision (closed before its
                # turn). The step reports the first; later ones are listed, not lost.
                infos[b].setdefault("later_episodes", []).append(ended)
            else:
                infos[b].update(ended)
        self.episodes[rows] += 1
        self.tables.reset_tables(rows)
        self._begin(rows)
        self._loop.refresh(rows)

    def _with_hint_rows(self, obs: np.ndarray, masks: np.ndarray | None) -> np.ndarray:
        if self.hint_agent is None:
            return obs
        hint = np.zeros((obs.shape[0], 1 + self.points_size + self.features_size + self.closing_size), np.float32)
        if masks is not None:
            hint[:, 0] = self.hint_agent.act_batch(obs, masks)
            if self.points_size:  # each action's immediate points, from the same observation
                from agents.policy import action_points

                hint[:, 1 : 1 + self.points_size] = action_points(self.hint_agent, obs, masks)
            at = 1 + self.points_size
            if self.features_size:  # each action's features, from the same observation
                from agents.policy import action_features

                hint[:, at : at + self.features_size] = action_features(self.hint_agent, obs, masks)
            at += self.features_size
            if self.closing_size:  # each play's closing features, from the same observation and mask
                from agents.policy import closing_features

                hint[:, at : at + self.closing_size] = closing_features(obs, masks, self.settlement_features)
        return np.concatenate([obs, hint], axis=1)

    def _with_privileged(self, obs: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The critic-only tail behind the observation, for the learner's seat at ``rows``."""
        if not self.privileged_size:
            return obs
        from .privileged import privileged_features

        return np.concatenate([obs, privileged_features(self.tables, rows, self.learner[rows])], axis=1)

    def _play_opponents(self, infos: list[dict], done: np.ndarray) -> None:
        """Step the opponents until the learner is to move at every table."""
        learner = self.learner

        def ask():
            waiting = self.tables.current_player != learner
            self._ended_before = done.copy()
            return waiting if waiting.any() else None

        def after(step) -> None:
            self._account(step.rewards, self._ended_before)
            ended = np.flatnonzero(step.terminated)
            if len(ended):
                done[ended] = True
                self._finish(ended, infos, step.final_chips)

        try:
            self._loop.run(ask, after, max_steps=MAX_OPPONENT_STEPS)
        except RuntimeError as exc:
            raise RuntimeError("opponents made more than MAX_OPPONENT_STEPS decisions in one span") from exc

    def _account(self, rewards: np.ndarray, ended_before: np.ndarray) -> None:
        """Credit the learner's own seat: to this step, or to the next after an end in this span."""
        mine = rewards[np.arange(self.num_envs), self.learner].astype(np.float64)
        if self.family:  # relative points: own minus the mean of the others' (see the module)
            gained = np.asarray(rewards)[:, : self.n]
            self._episode_points += np.where(ended_before[:, None], 0, gained)
            mine = mine - (gained.sum(axis=1) - mine) / (self.n - 1)
        self._span += np.where(ended_before, 0.0, mine)
        self._carry += np.where(ended_before, mine, 0.0)
        self._episode_chips += mine

    # ------------------------------------------------------------- VecEnv
    def reset(self):
        seed = self._seeds[0] if self._seeds[0] is not None else None
        if seed is not None:
            if self.family:
                self.tables.seed_tables(np.arange(self.num_envs), seed + np.arange(self.num_envs))
            else:
                self.tables.seed(seed)
            self.pool.rng = np.random.default_rng([seed, 0x5E1F])
            for i, agent in enumerate(self.pool.agents):
                agent.rng = np.random.default_rng([seed, 0xA6E, i])
            if self.hint_agent is not None:
                self.hint_agent.rng = np.random.default_rng([seed, 0x41A7])
        self._reset_seeds()
        self.tables.reset_tables()
        self.episodes[:] = 0
        rows = np.arange(self.num_envs)
        self._begin(rows)
        self._loop.refresh()
        self._carry[:] = 0.0
        self._span = np.zeros(self.num_envs, np.float64)
        infos = [{} for _ in range(self.num_envs)]
        done = np.zeros(self.num_envs, bool)
        self._play_opponents(infos, done)
        # Chips paid before the learner's first decision are its first step's reward.
        self._carry += self._span
        self._started = True
        self.reset_infos = infos
        return self._observation()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(-1)

    def step_wait(self):
        if not self._started:
            raise RuntimeError("call reset() before step()")
        B = self.num_envs
        infos: list[dict[str, Any]] = [{} for _ in range(B)]
        done = np.zeros(B, bool)
        self._span = self._carry.copy()
        self._carry[:] = 0.0
        self._episode_decisions += 1
        step = self._loop.step(self._actions, allow_idle=False)  # the learner acts at every table
        self._account(step.rewards, done)
        ended = np.flatnonzero(step.terminated)
        if len(ended):
            done[ended] = True
            self._finish(ended, infos, step.final_chips)
        self._play_opponents(infos, done)
        reward = (self._span * self.reward_scale).astype(np.float32)
        return self._observation(), reward, done, infos

    def _observation(self) -> np.ndarray:
        rows = np.arange(self.num_envs)
        return self._with_privileged(self._with_hint_rows(self._loop.obs.copy(), self.tables.masks), rows)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions at every table, bool [B, 557]."""
        return self.tables.masks.astype(bool)

    def close(self) -> None:
        pass

    # ----------------------------------------------- VecEnv attribute plumbing
    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        if method_name == "action_masks":
            return list(result[list(self._get_indices(indices))])
        return [result for _ in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]
