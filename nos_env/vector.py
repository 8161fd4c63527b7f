"""Many tables at once on the fast engine: :func:`vector_env`.

    venv = nos_env.vector_env(num_envs=1024, num_players=4, seed=0)
    obs, masks, current = venv.reset()
    while training:
        features = nos_env.decode_compact(obs)        # float32 [B, 1041], if the policy wants floats
        actions = policy(features, masks)             # [B] action indices (encoding.py)
        obs, masks, current, rewards, terminated, infos = venv.step(actions)

Shapes (B tables, A = 557 actions, n seats):

- ``obs`` [B, D]: the observation of the seat to move at each table. By default
  the compact encoding (``observation_dtype="uint8"``, D = 1084 bytes a row: every
  feature in one byte at its float index, the chip features as int32 in the last
  40 bytes; ``encoding.py`` documents it): ``decode_compact(obs, chip_scale)`` gives
  the float32 observation [B, 1041] of the AEC environment, value for value.
  ``observation_dtype="float32"`` returns that decoded form directly (D = 1041);
- ``masks`` int8 [B, A]: its legal actions;
- ``obs`` and ``masks`` are read-only views of the engine's buffers, **valid until the
  next ``step``/``reset``** (no per-step copy: at B=4096 copying the observations costs
  as much as stepping). Copy what you keep (``obs.copy()``), or pass
  ``copy_observations=True`` to get a fresh ``obs`` array each step;
- ``current`` int32 [B]: the seat to move;
- ``rewards`` float32 [B, n]: every seat's chip change in this step, times
  ``reward_scale`` (zero-sum across a row);
- ``terminated`` bool [B]: the table's episode ended with this step.

Spaces (gymnasium conventions): ``single_observation_space`` (a Box of one row of the
chosen dtype), ``single_action_space`` (``Discrete(557)``), ``single_action_mask_space``
(``MultiBinary(557)``) and their batched forms ``observation_space``, ``action_space``
(``MultiDiscrete``) and ``action_mask_space`` for B tables.

Auto-reset: a table whose episode ends starts its next episode within the
same ``step``. Its row of ``rewards`` holds the last step's chips (the final
settlement included), ``infos["final_chips"]`` [B, n] the finished episode's
chips, and ``obs``/``masks``/``current`` already belong to the new episode.
Chips the new episode pays before its first decision (a forced set with
``auto_forced``, D12) are added to that table's next ``rewards``, so no
reward is ever lost and every episode's rewards add up to its chip change.

Threads: ``num_threads`` is ``"auto"`` (the default: serial below 256 tables; from there
serial or on every core, whichever the engine measures faster, so it falls back to one thread
beside other busy jobs) or a fixed number of threads; see ``nos_env/threads.py``. Results
never depend on it.

Seeding: table b draws from SplitMix64 seeded with ``seed + b``: it plays the
same games as ``nos_env.env()`` after ``reset(seed=seed + b)`` (and then plain
resets), on either backend.

Bad input: ``actions`` must be an integer array of shape [B] with values
0..556 (float, bool or string arrays are refused, not converted); a table
index ``b`` must be 0..B-1 (negative ones are refused, not counted from the
end); a snapshot goes back only into tables of the same player count and
shapes. Every refused call raises ValueError naming what was wrong and what is
allowed (IllegalActionError, a ValueError, for an action outside the mask, D16)
and changes nothing, the random streams included.
"""

from __future__ import annotations

import numpy as np

from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from .deal import Deal
from .encoding import COMPACT_DTYPE, NUM_ACTIONS
from .fast_engine import FastTables
from .options import TableOptions, check_bool, check_scale, check_seed


def vector_env(num_envs: int, num_players: int = 4, seed: int | None = None, **options) -> "NosVectorEnv":
    """B tables of Nos on the fast engine; options as in the AEC environment."""
    return NosVectorEnv(num_envs, num_players, seed, **options)


class NosVectorEnv:
    def __init__(
        self,
        num_envs: int,
        num_players: int = 4,
        seed: int | None = None,
        # The table options and their defaults are written once, in TableOptions (options.py);
        # FastTables checks them.
        hands_per_episode: int = TableOptions.hands_per_episode,
        first_hand_rule: bool | None = TableOptions.first_hand_rule,
        starting_chips: int = TableOptions.starting_chips,
        illegal_action: str = TableOptions.illegal_action,
        auto_forced: bool = TableOptions.auto_forced,
        reward_scale: float = 1.0,
        chip_scale: float = TableOptions.chip_scale,
        copy_observations: bool = False,
        num_threads: int | str | None = None,
        observation_dtype: str = "uint8",
    ):
        reward_scale = check_scale("reward_scale", reward_scale)
        check_bool("copy_observations", copy_observations)
        self.tables = FastTables(num_envs, num_players, seed, hands_per_episode, first_hand_rule,
                                 starting_chips, illegal_action, auto_forced, chip_scale, num_threads,
                                 observation_dtype)
        self.num_envs = B = self.tables.num_envs
        self.num_players = self.tables.num_players
        self.reward_scale = reward_scale
        self.copy_observations = bool(copy_observations)
        self.observation_dtype = self.tables.observation_dtype
        self.chip_scale = self.tables.chip_scale
        D = self.tables.observation_size
        if self.observation_dtype == COMPACT_DTYPE:
            self.single_observation_space = spaces.Box(0, 255, (D,), np.uint8)
        else:
            self.single_observation_space = spaces.Box(-np.inf, np.inf, (D,), np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.single_action_mask_space = spaces.MultiBinary(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, B)
        self.action_space = batch_space(self.single_action_space, B)
        self.action_mask_space = batch_space(self.single_action_mask_space, B)
        self._obs = np.zeros((B, D), self.observation_dtype)  # reset()'s output (step returns the engine's own buffer)
        self._needs_reset = True

    # ------------------------------------------------------------------ api
    def reset(self, seed: int | None = None):
        """Start a new episode at every table; returns (obs, masks, current)."""
        seed = check_seed(seed)  # before anything changes
        if seed is not None:
            self.tables.seed(seed)
        self.tables.reset_tables()
        self._needs_reset = False
        current = self.tables.current_player
        return self._read_only(self.tables.observe(current, self._obs)), self.masks, current

    def step(self, actions, observe: bool = True):
        """One action per table; returns (obs, masks, current, rewards, terminated, infos).

        With ``observe=False`` no observation is built and ``obs`` is None (mask-only use).
        """
        if self._needs_reset:
            raise RuntimeError("call reset() before step()")
        observe = check_bool("observe", observe)
        rewards, terminated, final_chips, current, obs = self.tables.step(actions, observe=observe)
        if obs is not None:
            obs = obs.copy() if self.copy_observations else self._read_only(obs)
        n = self.num_players
        # final_chips rows are only written for finished tables: the others are zero here (a
        # few tables finish per step, so copying their rows beats masking all B).
        finished = np.flatnonzero(terminated)
        final = np.zeros((self.num_envs, n), np.int32)
        final[finished] = final_chips[finished, :n]
        infos = {"final_chips": final, "hand_index": self.tables.hand_index}
        # Fresh arrays: rewards are small, and callers keep them in their own buffers.
        rewards = rewards[:, :n].astype(np.float32)
        if self.reward_scale != 1.0:
            rewards *= np.float32(self.reward_scale)
        return obs, self.masks, current.copy(), rewards, terminated.copy(), infos

    @staticmethod
    def _read_only(array: np.ndarray) -> np.ndarray:
        view = array.view()
        view.flags.writeable = False
        return view

    @property
    def masks(self) -> np.ndarray:
        """int8 [B, A]: the legal actions of the seat to move (a read-only view, valid until the next step)."""
        return self._read_only(self.tables.MASK)

    @property
    def current_player(self) -> np.ndarray:
        return self.tables.current_player

    def observe(self, seats) -> np.ndarray:
        """Observations [B, D] of any seat at every table (``seats`` [B]): a new array."""
        return self.tables.observe(seats)

    def load_deal(self, b: int, deal: Deal, on_set: int | None = None, chips: list[int] | None = None,
                  first_hand: bool = False) -> None:
        """Start table ``b`` from a given deal and seat on set (engine text tiles: ``Deal.from_tiles``).

        Before the first ``reset()``, every table is reset first, so the others hold real games too.
        Every argument is checked before anything changes (that reset included).
        """
        self.tables.check_load_deal(b, deal, on_set, chips, first_hand)
        if self._needs_reset:
            self.reset()
        self.tables.load_deal(b, deal, on_set, chips, first_hand)

    # ------------------------------------------------------- clone / restore
    def clone(self) -> dict:
        return self.tables.clone()

    def restore(self, snapshot: dict) -> None:
        self.tables.restore(snapshot)

    def clone_table(self, b: int) -> dict:
        return self.tables.clone_table(b)

    def restore_table(self, b: int, snapshot: dict) -> None:
        self.tables.restore_table(b, snapshot)

    # ----------------------------------------------------------- inspection
    def hand(self, b: int):
        """Table ``b``'s current hand as a reference-engine ``Hand`` (for text, records, rendering)."""
        return self.tables.reference_hand(b)

    @property
    def chips(self) -> np.ndarray:
        return self.tables.chips
