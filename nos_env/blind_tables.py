"""BlindTables: B tables of Blind on the numba kernels (``nos_env/games/blind/``).

The API of the family contract's ``FamilyTables`` (so the registry can treat Blind like
the other games): ``step(actions) -> (obs, points [B, 5], terminated [B], current [B])``,
``observe``, ``observe_rows``, ``masks``, ``current_player``, ``scores``,
``legal_actions(b)``, snapshots, ``load_deal``, ``reference_game(b)``, and for search
``hidden_tiles(b)``/``set_hidden(b, tiles)`` (a determinization of the never-seen tiles).

Table b seeded with ``seed + b`` (``seed_tables`` sets any seed) plays the games of
``BlindGame(rules, seed=seed + b, skip_decisionless=True)`` followed by plain ``reset()``s:
a deal that is played out without a single decision (about 10 to 30 % of deals without
``optional_play``, see ``nos_env/family/blind.py``) is dealt again at once from the same
stream, so every table always has a seat to decide; ``skipped`` counts those deals.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .family import blind_encoding as enc
from .family.blind import BlindGame, make_blind_rules
from .games import blind as K
from .games.blind.observe import offsets
from .options import check_seed, is_integer
from .rng import seed_state
from .threads import ThreadChoice, resolve
from .tables_base import TablesBase

__all__ = ["BlindTables"]


@njit(cache=True)
def _start_loaded(T, S, A, L, MASK, LEGAL, b, n, starter, optional, LOW, HIGH):
    K.start_game(T, S, A, L, b, n, T[b, K.T_BONE_TOP] // n, starter, optional, LOW, HIGH)
    K.compute_mask(T, A, MASK, LEGAL, b, optional, LOW, HIGH)


class BlindTables(TablesBase):
    IDLE = K.IDLE

    def __init__(self, game: str = "blind", num_tables: int = 1, num_players: int | None = None,
                 seed: int | None = None, observation_dtype: str = "uint8", threads=None,
                 score_scale: float = 100.0, **options):
        if game != "blind":
            raise ValueError(f"BlindTables plays 'blind' only, got game={game!r}")
        if not is_integer(num_tables) or num_tables < 1:
            raise ValueError(f"num_tables must be a positive integer, got {num_tables!r}")
        if isinstance(score_scale, bool) or not isinstance(score_scale, (int, float)) or not score_scale > 0:
            raise ValueError(f"score_scale must be a positive number, got {score_scale!r}")
        self.rules = make_blind_rules(num_players, **options)
        self.observation_dtype = enc.check_observation_dtype(observation_dtype)
        self.observation_size = enc.observation_size(self.rules, self.observation_dtype)
        self.num_actions = self.rules.num_actions
        self.num_players = self.rules.num_players
        self.score_scale = float(score_scale)
        self.num_tables = self.num_envs = B = int(num_tables)
        seed = check_seed(seed)
        self.num_threads = resolve(threads)
        self._threads = ThreadChoice(self.num_threads, B)
        self._schema = K.SCHEMAS[self.rules.tileset]
        self._arrays = self._schema.array_names
        self.__dict__.update(self._schema.allocate(B))
        self.LOW = self.rules.tiles.LOW.astype(np.int64)
        self.HIGH = self.rules.tiles.HIGH.astype(np.int64)
        self._O = offsets(self.rules)
        self._first = -1 if self.rules.first_seat is None else self.rules.first_seat
        self._optional = bool(self.rules.optional_play)
        self._out = None
        self._obs_out = None
        self._no_obs = np.zeros((1, self.observation_size), self.observation_dtype)
        self.seed(seed)
        self.reset_tables()

    # ------------------------------------------------------------- seeding
    def seed(self, seed: int | None) -> None:
        """Table b's stream is SplitMix64(seed + b); takes effect at the next deal."""
        seed = check_seed(seed)
        if seed is None:
            seed = int(np.random.SeedSequence().entropy) & ((1 << 62) - 1)
        for b in range(self.num_tables):
            self.R[b] = np.uint64(seed_state(seed + b))

    def check_table(self, b: object) -> int:
        if not is_integer(b) or not 0 <= b < self.num_tables:
            raise ValueError(f"a table index must be an integer 0..{self.num_tables - 1}, got {b!r}")
        return int(b)

    def check_rows(self, rows: object = None, name: str = "rows") -> np.ndarray:
        if rows is None:
            return np.arange(self.num_tables, dtype=np.int64)
        arr = np.asarray(rows)
        if arr.dtype == np.bool_ and arr.shape == (self.num_tables,):
            return np.flatnonzero(arr).astype(np.int64)
        if arr.ndim != 1 or not (np.issubdtype(arr.dtype, np.integer) or arr.size == 0) \
                or ((arr < 0) | (arr >= self.num_tables)).any():
            raise ValueError(f"{name} must be None (every table), a 1-d integer array of table indices "
                             f"0..{self.num_tables - 1} or a bool mask of shape ({self.num_tables},); got {rows!r}")
        return arr.astype(np.int64)

    def seed_tables(self, rows, seeds) -> None:
        """Seed each of ``rows`` with its own seed; takes effect at the next deal (reset_tables)."""
        rows = self.check_rows(rows, "rows")
        if np.ndim(seeds) != 1 or len(seeds) != len(rows) or not all(is_integer(s) for s in seeds):
            raise ValueError(f"seeds must be a 1-d sequence of integers, one per row ({len(rows)}), got {seeds!r}")
        self.R[rows] = np.array([seed_state(int(s)) for s in seeds], np.uint64)

    def reset_tables(self, rows=None) -> None:
        """A new game at the given tables (all by default) from their streams."""
        rows = self.check_rows(rows)
        K.reset_batch(self.T, self.S, self.A, self.L, self.BONE, self.R, self.MASK, self.LEGAL, self.num_players,
                      self._first, self._optional, self.LOW, self.HIGH, rows)

    # -------------------------------------------------------------- stepping
    def check_actions(self, actions, allow_idle: bool = False) -> np.ndarray:
        low = K.IDLE if allow_idle else 0
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
        b = K.first_illegal(self.MASK, actions)
        if b >= 0:
            legal = ", ".join(f"{a} ({enc.describe(int(a), self.rules)})" for a in self.legal_actions(b))
            raise ValueError(f"table {b}'s action {int(actions[b])} is not legal; legal there: {legal or 'none'}"
                             + (" (the game is over: reset_tables, or IDLE with allow_idle)" if not legal else ""))
        return actions

    def step(self, actions, observe: bool = True, autoreset: bool = True, allow_idle: bool = False):
        """One decision per table. Returns ``(obs [B, D] or None, points [B, 5] int32,
        terminated [B] bool, current [B])``: points are what each seat gained (1 for the
        winner when a game ends, BD8). With ``autoreset`` a finished table deals its next game
        at once (``current``/``obs`` are then the new game's). The arrays are reused by the
        next call: copy what you keep. Bad actions raise ValueError and change nothing."""
        actions = self.check_actions(actions, allow_idle)
        B = self.num_tables
        if self._out is None:
            self._out = (np.zeros((B, K.MAX_SEATS), np.int32), np.zeros(B, np.int8),
                         np.zeros((B, K.MAX_SEATS), np.int32), np.full(B, -1, np.int32))
        if observe and self._obs_out is None:
            self._obs_out = np.zeros((B, self.observation_size), self.observation_dtype)
        points, terminated, self.final_scores, current = self._out
        obs = self._obs_out if observe else self._no_obs
        self._threads.run("step+obs" if observe else "step", K.step_batch, K.step_batch_parallel,
                          self.T, self.S, self.A, self.L, self.BONE, self.R, self.MASK, self.LEGAL, self.H, self.PEN,
                          self.num_players, actions, self._first, self._optional, self.LOW, self.HIGH,
                          points, terminated, self.final_scores, current, obs, observe, self._O, self.score_scale,
                          autoreset)
        return (obs if observe else None), points, terminated.view(np.bool_), current

    def _buffer(self, given, rows: int, name: str) -> np.ndarray:
        shape, dtype = (rows, self.observation_size), np.dtype(self.observation_dtype)
        if given is None:
            return np.zeros(shape, dtype)
        if not isinstance(given, np.ndarray) or given.shape != shape or given.dtype != dtype \
                or not given.flags.c_contiguous or not given.flags.writeable:
            raise ValueError(f"{name} must be a writable C-contiguous {dtype} array of shape {shape} or None")
        return given

    def _check_seats(self, seats, shape) -> np.ndarray:
        seats = np.asarray(seats)
        if seats.shape != shape or not (np.issubdtype(seats.dtype, np.integer) or seats.size == 0) \
                or ((seats < -1) | (seats >= self.num_players)).any():
            raise ValueError(f"seats must be an integer array of shape {shape} with seats 0..{self.num_players - 1} "
                             f"(-1: nobody, an all-zero row); got {seats!r}")
        return seats.astype(np.int64)

    def observe(self, seats, out=None) -> np.ndarray:
        """Seat ``seats[b]``'s observation at every table b, [B, D] of observation_dtype."""
        seats = self._check_seats(seats, (self.num_tables,))
        out = self._buffer(out, self.num_tables, "out")
        self._threads.run("observe", K.observe_batch, K.observe_batch_parallel, self.T, self.S, self.A, self.L,
                          self.num_players, seats, out, self._O, self.LOW, self.HIGH, self.score_scale)
        return out

    def observe_rows(self, rows, seats, out=None) -> np.ndarray:
        rows = self.check_rows(rows)
        seats = self._check_seats(seats, rows.shape)
        out = self._buffer(out, len(rows), "out")
        K.observe_batch(self.T[rows], self.S[rows], self.A[rows], self.L[rows], self.num_players, seats, out,
                        self._O, self.LOW, self.HIGH, self.score_scale)
        return out


    # ------------------------------------------------------------ inspection

    @property
    def current_player(self) -> np.ndarray:
        return self.T[:, K.T_TO_MOVE].copy()

    @property
    def scores(self) -> np.ndarray:
        """int64 [B, n]: each seat's score in the current game (1 for its winner once over)."""
        return self.S[:, : self.num_players, K.S_CHIPS].astype(np.int64)

    def scores_at(self, rows: np.ndarray) -> np.ndarray:
        """``scores[rows]``, read from those rows only."""
        return self.S[rows, : self.num_players, K.S_CHIPS].astype(np.int64)

    @property
    def skipped(self) -> np.ndarray:
        """int64 [B]: deals played out without a decision and dealt again, at each table."""
        return self.T[:, K.T_SKIPPED].astype(np.int64)

    @property
    def winner(self) -> np.ndarray:
        """int64 [B]: the winner of each table's game once it is over (-1: none yet, or a
        blocked game with a shared lowest count, F15). After an autoreset step the table holds
        its next game: read ``final_scores`` then."""
        return self.T[:, K.T_WINNER].astype(np.int64)

    @property
    def hand_number(self) -> np.ndarray:
        """int [B]: always 0 (Blind is one hand, BD8); as FamilyTables.hand_number."""
        return self.T[:, K.T_HAND_INDEX].copy()

    @property
    def episode_over(self) -> np.ndarray:
        return self.T[:, K.T_DONE] != 0

    def legal_actions(self, b: int) -> np.ndarray:
        b = self.check_table(b)
        return self.LEGAL[b, : self.T[b, K.T_NLEGAL]].astype(np.int64)

    # snapshots: clone, restore, clone_table, restore_table (TablesBase, over the schema's arrays)

    # ------------------------------------------------------- deals and the reference
    def load_deal(self, b: int, hands, boneyard=(), setter: int | None = None, scores=None) -> None:
        """Start table ``b`` on given rows (front first) and set-aside tiles, as
        ``BlindGame.from_deal`` (checked by it first: a refused deal changes nothing). A deal
        loaded here is played as it is, even without a decision (the table is then over)."""
        b = self.check_table(b)
        probe = BlindGame.from_deal(self.rules, hands, boneyard, setter, scores)
        n, k = self.num_players, self.rules.hand_size
        order = [t for row in probe.dealt for t in row] + probe.aside
        for t in range(self.rules.num_tiles):
            self.L[b, t] = (-1, 0, 0, -1, -1)
        for i, t in enumerate(order):
            self.BONE[b, i] = t
        for s in range(n):
            self.S[b, s, K.S_HEAD] = 0
            self.S[b, s, K.S_LEN] = k
            for i, t in enumerate(probe.dealt[s]):
                self.S[b, s, K.S_ROW + i] = t
                self.L[b, t, K.L_OWNER] = s
                self.L[b, t, K.L_POS] = i
        self.T[b, K.T_BONE_TOP] = n * k
        self.T[b, K.T_BONE_END] = self.rules.num_tiles
        self.T[b, K.T_DEAL_LO] = self.T[b, K.T_DEAL_HI] = 0
        _start_loaded(self.T, self.S, self.A, self.L, self.MASK, self.LEGAL, b, n, probe.starter, self._optional,
                      self.LOW, self.HIGH)
        if scores is not None:
            self.S[b, :n, K.S_CHIPS] += np.asarray(scores, np.int32)

    def hidden_tiles(self, b: int) -> list[int]:
        """Table b's tiles never turned up, in slot order (``BlindGame.hidden_tiles``)."""
        return self.reference_game(b).hidden_tiles()

    def set_hidden(self, b: int, tiles) -> None:
        """Put ``tiles`` (an order of ``hidden_tiles(b)``) into table b's hidden slots: a
        determinization for search (``BlindGame.with_hidden``, which checks it first: an order
        that does not fit what everyone saw is refused and nothing changes)."""
        b = self.check_table(b)
        game = self.reference_game(b)
        hidden = game.hidden_tiles()
        other = game.with_hidden(tiles)  # checked: raises before anything changes
        n, k = self.num_players, self.rules.hand_size
        new = other.hidden_tiles()
        in_rows = len(hidden) - len(game.aside)
        # each hidden slot's seat and buffer index, all read before any is written (an
        # unseen tile never moved: its index is its place as dealt)
        slots = [(int(self.L[b, t, K.L_OWNER]), int(self.L[b, t, K.L_POS])) for t in hidden[:in_rows]]
        for (s, i), new_t in zip(slots, new[:in_rows]):
            self.S[b, s, K.S_ROW + i] = new_t
            self.BONE[b, s * k + i] = new_t
            self.L[b, new_t, K.L_OWNER], self.L[b, new_t, K.L_POS] = s, i
        for j, new_t in enumerate(new[in_rows:]):
            self.BONE[b, n * k + j] = new_t
            self.L[b, new_t, K.L_OWNER], self.L[b, new_t, K.L_POS] = -1, 0

    def deal_of(self, b: int) -> tuple[list[list[int]], list[int], int]:
        """Table b's current game as dealt: the rows (tile indices, front first), the
        set-aside tiles and the starter."""
        b = self.check_table(b)
        n, k = self.num_players, self.T[b, K.T_BONE_TOP] // self.num_players
        order = [int(t) for t in self.BONE[b, : self.rules.num_tiles]]
        return [order[s * k:(s + 1) * k] for s in range(n)], order[n * k:], int(self.T[b, K.T_STARTER])

    def reference_game(self, b: int) -> BlindGame:
        """Table b's current game rebuilt in the reference engine (its deal and decisions)."""
        b = self.check_table(b)
        count = int(self.T[b, K.T_NHIST])
        if count > K.MAX_HISTORY:
            raise ValueError(f"table {b}'s game has {count} decisions, more than the {K.MAX_HISTORY} kept")
        rows, aside, starter = self.deal_of(b)
        game = BlindGame.from_deal(self.rules, rows, aside, setter=starter)
        lo, hi = int(self.T[b, K.T_DEAL_LO]) & 0xFFFFFFFF, int(self.T[b, K.T_DEAL_HI]) & 0xFFFFFFFF
        game.stream_state = (hi << 32) | lo
        for a in self.H[b, :count]:
            game.step(int(a))
        return game
