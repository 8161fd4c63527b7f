"""SchemaTables: what the Tables of a game with its own kernels (Blind, Chickenfoot, Mexican Train) share.

Those games do not fit ``FamilyTables``' parameterised kernels, so each has a kernels package
(``nos_env/games/<game>/``: ``SCHEMAS``, ``IDLE``, ``MAX_SEATS``, ``T_TO_MOVE``, ``T_NLEGAL``,
``reset_batch``, ``step_batch[_parallel]``, ``observe_batch[_parallel]``, ``first_illegal``) and
an encoding (``check_observation_dtype``, ``observation_size``, ``describe``). Around them the
Tables classes are the same: checking the constructor's arguments, seeding, checking table
indices, rows, actions and seats, the step's reused output buffers, observing. That is written
once here; a game's class names its modules and supplies the kernels' argument lists:

- ``game``, ``K``, ``enc``, ``make_rules``: its id, kernels, encoding and rules factory;
- ``over``: what a table without a legal action has finished (``"game"`` or ``"match"``),
  for the error message;
- ``_set_up(rules)``: the constants its kernels take (tile tables, option flags);
- ``_reset_args()``, ``_step_args(actions)``: the kernels' arguments before ``rows`` and
  before the output buffers;
- ``_observed``: the names of the state arrays ``observe_batch`` reads, in its order.

Table b seeded with ``seed + b`` draws from SplitMix64(seed + b) (``seed``); ``seed_tables``
seeds rows one by one and, where ``deals_on_seed`` (as ``FamilyTables``), deals them at once.
"""

from __future__ import annotations

import numpy as np

from .options import check_seed, is_integer
from .rng import seed_state
from .tables_base import TablesBase
from .threads import ThreadChoice, resolve

__all__ = ["SchemaTables"]


class SchemaTables(TablesBase):
    game: str
    K = None
    enc = None
    make_rules = None
    over = "game"
    deals_on_seed = True
    _observed: tuple[str, ...] = ()

    def __init__(self, game: str | None = None, num_tables: int = 1, num_players: int | None = None,
                 seed: int | None = None, observation_dtype: str = "uint8", threads=None,
                 score_scale: float = 100.0, **options):
        game = self.game if game is None else game
        if game != self.game:
            raise ValueError(f"{type(self).__name__} plays {self.game!r} only, got game={game!r}")
        if not is_integer(num_tables) or num_tables < 1:
            raise ValueError(f"num_tables must be a positive integer, got {num_tables!r}")
        if isinstance(score_scale, bool) or not isinstance(score_scale, (int, float)) or not score_scale > 0:
            raise ValueError(f"score_scale must be a positive number, got {score_scale!r}")
        self.rules = rules = type(self).make_rules(num_players, **options)
        self.observation_dtype = self.enc.check_observation_dtype(observation_dtype)
        self.observation_size = self.enc.observation_size(rules, self.observation_dtype)
        self.num_actions = rules.num_actions
        self.num_players = rules.num_players
        self.score_scale = float(score_scale)
        self.num_tables = self.num_envs = B = int(num_tables)
        seed = check_seed(seed)
        self.num_threads = resolve(threads)
        self._threads = ThreadChoice(self.num_threads, B)
        self._schema = self.K.SCHEMAS[rules.tileset]
        self._arrays = self._schema.array_names
        self.__dict__.update(self._schema.allocate(B))
        self.LOW = rules.tiles.LOW.astype(np.int64)
        self.HIGH = rules.tiles.HIGH.astype(np.int64)
        self._set_up(rules)
        self._out = None  # step()'s output buffers, made on first use and reused
        self._obs_out = None
        self._no_obs = np.zeros((1, self.observation_size), self.observation_dtype)
        self.seed(seed)
        self.reset_tables()

    def _set_up(self, rules) -> None:
        """The game's constants for its kernels (a subclass's)."""

    # ------------------------------------------------------------- seeding (seed: TablesBase)
    def seed_tables(self, rows, seeds) -> None:
        """Seed each of ``rows`` with its own seed (table rows[i] plays the game of
        ``seed=seeds[i]``): dealt at once where ``deals_on_seed``, else at its next deal."""
        rows = self.check_rows(rows, "rows")
        seeds = seeds.tolist() if isinstance(seeds, np.ndarray) else list(seeds) if np.ndim(seeds) == 1 else None
        if seeds is None or len(seeds) != len(rows) or not all(is_integer(s) for s in seeds):
            raise ValueError(f"seeds must be a 1-d sequence of integers, one per row ({len(rows)}), got {seeds!r}")
        self.R[rows] = np.array([seed_state(int(s)) for s in seeds], np.uint64)
        if self.deals_on_seed:
            self.reset_tables(rows)

    def reset_tables(self, rows=None) -> None:
        """A new game (or match) at the given tables (all by default) from their streams."""
        rows = self.check_rows(rows)
        self.K.reset_batch(*self._reset_args(), rows)

    # -------------------------------------------------------------- checking
    # check_table, check_rows: TablesBase
    def check_actions(self, actions, allow_idle: bool = False) -> np.ndarray:
        low = self.K.IDLE if allow_idle else 0
        allowed = (f"an integer array of shape ({self.num_tables},) with values {low}..{self.num_actions - 1} "
                   f"(legal ones)")
        actions = np.asarray(actions)
        if not np.issubdtype(actions.dtype, np.integer) or actions.shape != (self.num_tables,):
            raise ValueError(f"actions must be {allowed}; got {actions.dtype} {actions.shape}")
        bad = np.flatnonzero((actions < low) | (actions >= self.num_actions))
        if bad.size:
            b = int(bad[0])
            raise ValueError(f"table {b}'s action {actions[b]} is outside {low}..{self.num_actions - 1}; "
                             f"actions must be {allowed}")
        actions = actions.astype(np.int64)
        b = self.K.first_illegal(self.MASK, actions)
        if b >= 0:
            legal = ", ".join(f"{a} ({self.enc.describe(int(a), self.rules)})" for a in self.legal_actions(b))
            raise ValueError(f"table {b}'s action {int(actions[b])} is not legal; legal there: {legal or 'none'}"
                             + (f" (the {self.over} is over: reset_tables, or IDLE with allow_idle)"
                                if not legal else ""))
        return actions

    def _check_seats(self, seats, shape) -> np.ndarray:
        seats = np.asarray(seats)
        if seats.shape != shape or not (np.issubdtype(seats.dtype, np.integer) or seats.size == 0) \
                or ((seats < -1) | (seats >= self.num_players)).any():
            raise ValueError(f"seats must be an integer array of shape {shape} with seats 0..{self.num_players - 1} "
                             f"(-1: nobody, an all-zero row); got {seats!r}")
        return seats.astype(np.int64)

    def _buffer(self, given, rows: int, name: str) -> np.ndarray:
        shape, dtype = (rows, self.observation_size), np.dtype(self.observation_dtype)
        if given is None:
            return np.zeros(shape, dtype)
        if not isinstance(given, np.ndarray) or given.shape != shape or given.dtype != dtype \
                or not given.flags.c_contiguous or not given.flags.writeable:
            raise ValueError(f"{name} must be a writable C-contiguous {dtype} array of shape {shape} or None")
        return given

    # -------------------------------------------------------------- stepping
    def step(self, actions, observe: bool = True, autoreset: bool = True, allow_idle: bool = False):
        """One decision per table. Returns ``(obs [B, D] or None, points [B, MAX_SEATS] int32,
        terminated [B] bool, current [B])``: points are what each seat gained (the game's
        rules page says when; the class docstring too). With ``autoreset`` a finished table
        deals its next game at once (``current``/``obs`` are then the new game's, and
        ``final_scores`` holds the finished one's). The arrays are reused by the next call:
        copy what you keep. Bad actions raise ValueError and change nothing."""
        actions = self.check_actions(actions, allow_idle)
        B = self.num_tables
        if self._out is None:
            self._out = (np.zeros((B, self.K.MAX_SEATS), np.int32), np.zeros(B, np.int8),
                         np.zeros((B, self.K.MAX_SEATS), np.int32), np.full(B, -1, np.int32))
        if observe and self._obs_out is None:
            self._obs_out = np.zeros((B, self.observation_size), self.observation_dtype)
        points, terminated, self.final_scores, current = self._out
        obs = self._obs_out if observe else self._no_obs
        self._threads.run("step+obs" if observe else "step", self.K.step_batch, self.K.step_batch_parallel,
                          *self._step_args(actions), points, terminated, self.final_scores, current, obs, observe,
                          self._O, self.score_scale, autoreset)
        return (obs if observe else None), points, terminated.view(np.bool_), current

    # -------------------------------------------------------------- observing
    def observe(self, seats, out=None) -> np.ndarray:
        """Seat ``seats[b]``'s observation at every table b, [B, D] of observation_dtype."""
        seats = self._check_seats(seats, (self.num_tables,))
        out = self._buffer(out, self.num_tables, "out")
        self._threads.run("observe", self.K.observe_batch, self.K.observe_batch_parallel,
                          *(getattr(self, name) for name in self._observed), self.num_players, seats, out, self._O,
                          self.LOW, self.HIGH, self.score_scale)
        return out

    def observe_rows(self, rows, seats, out=None) -> np.ndarray:
        """Seat ``seats[i]``'s observation at table ``rows[i]``, [len(rows), D]."""
        rows = self.check_rows(rows)
        seats = self._check_seats(seats, rows.shape)
        out = self._buffer(out, len(rows), "out")
        self.K.observe_batch(*(getattr(self, name)[rows] for name in self._observed), self.num_players, seats, out,
                             self._O, self.LOW, self.HIGH, self.score_scale)
        return out

    # ------------------------------------------------------------ inspection
    @property
    def current_player(self) -> np.ndarray:
        return self.T[:, self.K.T_TO_MOVE].copy()

    @property
    def episode_over(self) -> np.ndarray:
        return self.T[:, self.K.T_DONE] != 0

    def legal_actions(self, b: int) -> np.ndarray:
        b = self.check_table(b)
        return self.LEGAL[b, : self.T[b, self.K.T_NLEGAL]].astype(np.int64)
