"""Many tables of a family game at once on the fast engine: :func:`vector_env`.

    venv = nos_env.vector_env(1024, game="all_fives", num_players=2, seed=0)
    obs, masks, current = venv.reset()
    while training:
        actions = policy(obs, masks)                     # [B] action indices
        obs, masks, current, rewards, terminated, infos = venv.step(actions)

The conventions of Nos's vector API (``nos_env/vector.py``), over ``FamilyTables``
(Blind: ``BlindTables``); B tables, A actions, n seats:

- ``obs`` [B, D]: the observation of the seat to move at each table; by default the
  compact form (``observation_dtype="uint8"``: ``nos_env.family.encoding.decode_compact``
  gives the float32 rows of the AEC environment), or ``"float32"`` directly;
- ``masks`` int8 [B, A]: its legal actions. ``obs`` and ``masks`` are read-only views of
  the engine's buffers, valid until the next ``step``/``reset`` (``copy_observations=True``
  copies ``obs`` every step);
- ``current`` int32 [B]: the seat to move;
- ``rewards`` float32 [B, n]: every seat's reward of this step under ``reward``
  (``"relative"``, ``"points"`` or ``"win"``, exactly as the AEC environment pays them:
  ``nos_env/family_rewards.py``);
- ``terminated`` bool [B]: the table's episode (a match, or a hand with
  ``target_score=None``) ended with this step.

Auto-reset: a finished table starts its next episode within the same step; ``obs``,
``masks`` and ``current`` already belong to it, ``rewards`` and ``terminated`` to the
step that ended the old one. Points a forced set scores before an episode's first decision
(All Fives' [5-5]) are paid with that episode's first step, as in the AEC environment, so
an episode's rewards add up to its points.

Seeding: table b is seeded with ``seed + b`` and plays the game of
``nos_env.env(game=...).reset(seed=seed + b)`` on either backend.

Bad input (wrong shape, dtype or range of ``actions``, an illegal action, an unknown
option): ValueError naming what is allowed, nothing changed.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from .family_backends import seed_and_reset, table_winners, tables_class
from .family_env import OBSERVATION_DTYPES, check_game
from .family_rewards import check_reward, pay_step, sides, win, winners_mask
from .options import check_bool, check_scale, check_seed


def vector_env(num_envs: int, game: str = "draw", num_players: int | None = None, seed: int | None = None,
               **options) -> "FamilyVectorEnv":
    """``num_envs`` tables of a family game on the fast engine; options as in the AEC environment."""
    return FamilyVectorEnv(num_envs, game, num_players, seed, **options)


class FamilyVectorEnv:
    def __init__(self, num_envs: int, game: str = "draw", num_players: int | None = None, seed: int | None = None,
                 reward: str = "relative", observation_dtype: str = "uint8", score_scale: float = 100.0,
                 copy_observations: bool = False, num_threads: int | str | None = None, **options):
        self.game = check_game(game)
        self.reward_mode = check_reward(reward)
        if not isinstance(observation_dtype, str) or observation_dtype not in OBSERVATION_DTYPES:
            raise ValueError(f"observation_dtype must be one of {list(OBSERVATION_DTYPES)}, got {observation_dtype!r}")
        self.copy_observations = check_bool("copy_observations", copy_observations)
        self.score_scale = check_scale("score_scale", score_scale)
        seed = check_seed(seed)
        self.tables = tables_class(game)(game, num_envs, num_players, seed=seed, observation_dtype=observation_dtype,
                                         threads=num_threads, score_scale=self.score_scale, **options)
        self.rules = self.tables.rules
        self.num_envs = B = int(self.tables.num_tables)
        self.num_players = n = int(self.rules.num_players)
        self.observation_dtype = observation_dtype
        self.num_actions = A = int(self.tables.num_actions)
        self._side_of = sides(n, bool(getattr(self.rules, "teams", False)))
        D = int(self.tables.observation_size)
        if observation_dtype == "uint8":
            self.single_observation_space = spaces.Box(0, 255, (D,), np.uint8)
        else:
            self.single_observation_space = spaces.Box(-np.inf, np.inf, (D,), np.float32)
        self.single_action_space = spaces.Discrete(A)
        self.single_action_mask_space = spaces.MultiBinary(A)
        self.observation_space = batch_space(self.single_observation_space, B)
        self.action_space = batch_space(self.single_action_space, B)
        self.action_mask_space = batch_space(self.single_action_mask_space, B)
        self._rows = np.arange(B, dtype=np.int64)
        self._needs_reset = True
        self._first_seed = seed

    # ------------------------------------------------------------------ api
    def reset(self, seed: int | None = None):
        """Start a new episode at every table; returns (obs, masks, current)."""
        seed = check_seed(seed)  # before anything changes
        if seed is None and self._first_seed is not None:
            seed, self._first_seed = self._first_seed, None  # the first episodes are those of vector_env(seed=...)
        if seed is not None:
            seed_and_reset(self.tables, self._rows, seed + self._rows)
        else:
            self.tables.reset_tables()
        self._needs_reset = False
        # A forced set may score (All Fives' [5-5]) before the first decision: paid with the first step.
        self._carried = np.array(self.tables.scores[:, : self.num_players], np.int64)
        current = np.array(self.tables.current_player, np.int32)
        return self._read_only(self.tables.observe(current)), self.masks, current

    def step(self, actions, observe: bool = True):
        """One action per table; returns (obs, masks, current, rewards, terminated, infos).

        With ``observe=False`` no observation is built and ``obs`` is None (mask-only use).
        """
        if self._needs_reset:
            raise RuntimeError("call reset() before step()")
        observe = check_bool("observe", observe)
        n = self.num_players
        win_mode = self.reward_mode == "win"
        # "win" needs each finished match's winner before its table starts again.
        obs, points, terminated, current = self.tables.step(actions, observe=observe and not win_mode,
                                                            autoreset=not win_mode)
        terminated = np.array(terminated, bool)
        finished = np.flatnonzero(terminated)
        rewards = np.zeros((self.num_envs, n), np.float32)  # fresh: callers keep them
        if win_mode:
            self._carried[:] = 0
            if finished.size:
                winners = np.array([winners_mask(None if w < 0 else int(w), n, self._side_of)
                                    for w in table_winners(self.tables, finished)])
                rewards[finished] = win(winners, self._side_of)
                self.tables.reset_tables(finished)
            current = np.array(self.tables.current_player, np.int32)
            obs = self.tables.observe(current) if observe else None
        else:
            # points + carried, relative or not, and carried cleared: one compiled pass (the numpy
            # expressions cost a sixth of a step at B=4096, and this part runs on one thread).
            pay_step(points, self._carried, self.reward_mode == "relative", rewards)
        if finished.size:  # the new episodes' forced sets, paid with their first step
            self._carried[finished] = self.tables.scores_at(finished)[:, :n]
        if obs is not None:
            obs = obs.copy() if self.copy_observations else self._read_only(obs)
        infos = {}
        return obs, self.masks, np.array(current, np.int32), rewards, terminated, infos

    @staticmethod
    def _read_only(array: np.ndarray) -> np.ndarray:
        view = np.asarray(array).view()
        view.flags.writeable = False
        return view

    @property
    def masks(self) -> np.ndarray:
        """int8 [B, A]: the legal actions of the seat to move (a read-only view, valid until the next step)."""
        return self._read_only(self.tables.masks)

    @property
    def current_player(self) -> np.ndarray:
        return np.array(self.tables.current_player, np.int32)

    @property
    def scores(self) -> np.ndarray:
        return np.array(self.tables.scores[:, : self.num_players])

    def observe(self, seats) -> np.ndarray:
        """Observations [B, D] of any seat at every table (``seats`` [B]): a new array."""
        return np.array(self.tables.observe(seats))

    def game_state(self, b: int):
        """Table ``b``'s game as a reference-engine object (for text, records, rendering)."""
        return self.tables.reference_game(b)

    def clone(self) -> dict:
        return self.tables.clone()

    def restore(self, snapshot) -> None:
        self.tables.restore(snapshot)
