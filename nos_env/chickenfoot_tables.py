"""ChickenfootTables: B tables of Chickenfoot on the numba kernels (``nos_env/games/chickenfoot/``).

The API of the family contract's ``FamilyTables`` (so the registry, the environments and the
family agents treat Chickenfoot like the other games): ``step(actions) -> (obs, points [B, 8],
terminated [B], current [B])``, ``observe``, ``observe_rows``, ``masks``, ``current_player``,
``scores``, ``winner``, ``legal_actions(b)``, snapshots, ``load_deal``, ``set_hidden`` (search),
``reference_game(b)``.

Table b seeded with ``seed + b`` (``seed_tables`` sets any seed and deals at once, as
``FamilyTables``) plays exactly ``ChickenfootGame(rules, seed=seed + b)``'s match for the same
actions. Points are minus the penalties (CK12); ``scores`` are the penalty totals.
"""

from __future__ import annotations

import numpy as np

from .family import chickenfoot_encoding as enc
from .family.chickenfoot import ChickenfootGame, find_set, make_chickenfoot_rules
from .games import chickenfoot as K
from .games.chickenfoot.observe import offsets
from .options import check_seed, is_integer
from .rng import seed_state
from .tables_base import TablesBase
from .threads import ThreadChoice, resolve

__all__ = ["ChickenfootTables"]


def _suits(tiles) -> np.ndarray:
    """uint64 [M+1, W]: the tiles carrying each number, as W-word sets."""
    out = np.zeros((tiles.max_pip + 1, tiles.words), np.uint64)
    for t, (a, b) in enumerate(tiles.tiles):
        for d in {a, b}:
            out[d, t >> 6] |= np.uint64(1 << (t & 63))
    return out


class ChickenfootTables(TablesBase):
    IDLE = K.IDLE

    def __init__(self, game: str = "chickenfoot", num_tables: int = 1, num_players: int | None = None,
                 seed: int | None = None, observation_dtype: str = "uint8", threads=None,
                 score_scale: float = 100.0, **options):
        if game != "chickenfoot":
            raise ValueError(f"ChickenfootTables plays 'chickenfoot' only, got game={game!r}")
        if not is_integer(num_tables) or num_tables < 1:
            raise ValueError(f"num_tables must be a positive integer, got {num_tables!r}")
        if isinstance(score_scale, bool) or not isinstance(score_scale, (int, float)) or not score_scale > 0:
            raise ValueError(f"score_scale must be a positive number, got {score_scale!r}")
        self.rules = rules = make_chickenfoot_rules(num_players, **options)
        self.observation_dtype = enc.check_observation_dtype(observation_dtype)
        self.observation_size = enc.observation_size(rules, self.observation_dtype)
        self.num_actions = rules.num_actions
        self.num_players = rules.num_players
        self.score_scale = float(score_scale)
        self.num_tables = self.num_envs = B = int(num_tables)
        seed = check_seed(seed)
        self.num_threads = resolve(threads)
        self._threads = ThreadChoice(self.num_threads, B)
        self._schema = K.SCHEMAS[rules.tileset]
        self._arrays = self._schema.array_names
        self.__dict__.update(self._schema.allocate(B))
        tiles = rules.tiles
        self.LOW = tiles.LOW.astype(np.int64)
        self.HIGH = tiles.HIGH.astype(np.int64)
        self.SUIT = _suits(tiles)
        self.DOUBLE_OF = tiles.DOUBLE_OF.astype(np.int64)
        self._k = rules.hand_size
        self._hands = rules.num_hands
        self._redeal = rules.missing_set == "redeal"
        self._O = offsets(rules)
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
        """Seed each of ``rows`` with its own seed and deal its new match at once (as FamilyTables)."""
        rows = self.check_rows(rows, "rows")
        if np.ndim(seeds) != 1 or len(seeds) != len(rows) or not all(is_integer(s) for s in seeds):
            raise ValueError(f"seeds must be a 1-d sequence of integers, one per row ({len(rows)}), got {seeds!r}")
        self.R[rows] = np.array([seed_state(int(s)) for s in seeds], np.uint64)
        self.reset_tables(rows)

    def _kernel_args(self):
        return (self.num_players, self._k, self._hands, self._redeal, self.LOW, self.HIGH, self.SUIT, self.DOUBLE_OF)

    def reset_tables(self, rows=None) -> None:
        """A new match at the given tables (all by default) from their streams."""
        rows = self.check_rows(rows)
        K.reset_batch(self.T, self.S, self.SSET, self.A, self.L, self.BONE, self.R, self.MASK, self.LEGAL,
                      *self._kernel_args(), rows)

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
                             + (" (the match is over: reset_tables, or IDLE with allow_idle)" if not legal else ""))
        return actions

    def step(self, actions, observe: bool = True, autoreset: bool = True, allow_idle: bool = False):
        """One decision per table. Returns ``(obs [B, D] or None, points [B, 8] int32,
        terminated [B] bool, current [B])``: points are what each seat gained (minus its
        penalties when a hand ends, CK12). With ``autoreset`` a finished table deals its next
        match at once (``current``/``obs`` are then the new match's). The arrays are reused by
        the next call: copy what you keep. Bad actions raise ValueError and change nothing."""
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
                          self.T, self.S, self.SSET, self.A, self.L, self.BONE, self.R, self.MASK, self.LEGAL,
                          self.H, self.PEN, *self._kernel_args(), actions, points, terminated, self.final_scores,
                          current, obs, observe, self._O, self.score_scale, autoreset)
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
        self._threads.run("observe", K.observe_batch, K.observe_batch_parallel, self.T, self.S, self.SSET, self.A,
                          self.L, self.num_players, seats, out, self._O, self.LOW, self.HIGH, self.score_scale)
        return out

    def observe_rows(self, rows, seats, out=None) -> np.ndarray:
        rows = self.check_rows(rows)
        seats = self._check_seats(seats, rows.shape)
        out = self._buffer(out, len(rows), "out")
        K.observe_batch(self.T[rows], self.S[rows], self.SSET[rows], self.A[rows], self.L[rows], self.num_players,
                        seats, out, self._O, self.LOW, self.HIGH, self.score_scale)
        return out

    # ------------------------------------------------------------ inspection
    @property
    def current_player(self) -> np.ndarray:
        return self.T[:, K.T_TO_MOVE].copy()

    @property
    def scores(self) -> np.ndarray:
        """int64 [B, n]: each seat's penalty total (CK12; lower is better)."""
        return -self.S[:, : self.num_players, K.S_CHIPS].astype(np.int64)

    def scores_at(self, rows: np.ndarray) -> np.ndarray:
        """``scores[rows]``, read from those rows only."""
        return -self.S[rows, : self.num_players, K.S_CHIPS].astype(np.int64)

    @property
    def winner(self) -> np.ndarray:
        """int64 [B]: the match's winner once it is over (-1: none yet, or a shared lowest total)."""
        return self.T[:, K.T_WINNER].astype(np.int64)

    @property
    def hand_number(self) -> np.ndarray:
        """int [B]: the current hand's index in the match."""
        return self.T[:, K.T_HAND_INDEX].copy()

    @property
    def episode_over(self) -> np.ndarray:
        return self.T[:, K.T_DONE] != 0

    def legal_actions(self, b: int) -> np.ndarray:
        b = self.check_table(b)
        return self.LEGAL[b, : self.T[b, K.T_NLEGAL]].astype(np.int64)

    # snapshots: clone, restore, clone_table, restore_table (TablesBase, over the schema's arrays)

    # ------------------------------------------------------- deals and the reference
    def _words(self, tiles) -> np.ndarray:
        return self.rules.tiles.to_words(sum(1 << int(t) for t in tiles))

    def load_deal(self, b: int, hands, boneyard=(), setter: int | None = None, scores=None,
                  hand_number: int = 0) -> None:
        """Start table ``b`` on a given deal of hand ``hand_number``, as
        ``ChickenfootGame.from_deal`` (checked by it first: a refused deal changes nothing)."""
        b = self.check_table(b)
        probe = ChickenfootGame.from_deal(self.rules, hands, boneyard, setter, scores, hand_number)
        deal = probe._from_deal
        n, N = self.num_players, self.rules.num_tiles
        set_number, holder = find_set(self.rules, deal["hands"], hand_number)
        for s in range(n):
            self.SSET[b, s, K.S_HAND] = self.SSET[b, s, K.S_DEALT] = self._words(deal["hands"][s])
            self.S[b, s, K.S_NHAND] = len(deal["hands"][s])
        for s in range(n, K.MAX_SEATS):
            self.SSET[b, s] = 0
        yard = deal["boneyard"]
        start = N - len(yard)
        self.BONE[b, :start] = [t for h in deal["hands"] for t in h]
        self.BONE[b, start:] = yard
        self.T[b, K.T_BONE_TOP] = self.T[b, K.T_YARD0] = start
        self.T[b, K.T_BONE_END] = N
        self.T[b, K.T_HAND_INDEX] = self.T[b, K.T_HANDS_DONE] = hand_number
        self.T[b, K.T_WINNER] = -1
        base = [0] * n if scores is None else [int(x) for x in scores]
        self.S[b, :, K.S_CHIPS] = 0
        self.S[b, :n, K.S_CHIPS] = [-x for x in base]
        self.S[b, :, K.S_CHIPS_EPISODE] = self.S[b, :, K.S_CHIPS]
        self.S[b, :, K.S_PENDING] = 0
        K.load_hand(self.T, self.S, self.SSET, self.A, self.L, self.BONE, self.R, self.MASK, self.LEGAL, b,
                    *self._kernel_args()[:4], set_number, holder, *self._kernel_args()[4:])

    def deal_of(self, b: int) -> tuple[list[list[int]], list[int]]:
        """Table b's current hand as dealt: each seat's tiles and the yard (top first)."""
        b = self.check_table(b)
        ts = self.rules.tiles
        hands = [sorted(ts.index[p] for p in ts.tiles_of(ts.from_words(self.SSET[b, s, K.S_DEALT])))
                 for s in range(self.num_players)]
        yard = [int(t) for t in self.BONE[b, self.T[b, K.T_YARD0]: self.rules.num_tiles]]
        return hands, yard

    def reference_game(self, b: int) -> ChickenfootGame:
        """Table b's current hand rebuilt in the reference engine (its deal, the scores before it,
        its decisions); earlier hands are in the scores only."""
        b = self.check_table(b)
        count = int(self.T[b, K.T_NHIST])
        if count > K.MAX_HISTORY:
            raise ValueError(f"table {b}'s hand has {count} decisions, more than the {K.MAX_HISTORY} kept")
        hands, yard = self.deal_of(b)
        before = [-int(x) for x in self.S[b, : self.num_players, K.S_CHIPS_HAND]]
        game = ChickenfootGame.from_deal(self.rules, hands, yard, scores=before,
                                         hand_number=int(self.T[b, K.T_HAND_INDEX]))
        for a in self.H[b, :count]:
            game.step(int(a))
        return game

    # ------------------------------------------------------------ search
    def hidden_tiles(self, b: int, seat: int) -> tuple[list[list[int]], list[int]]:
        """What ``seat`` cannot see at table b: the other hands' tiles and the yard (top first)."""
        b = self.check_table(b)
        ts = self.rules.tiles
        hands = [sorted(ts.index[p] for p in ts.tiles_of(ts.from_words(self.SSET[b, s, K.S_HAND])))
                 for s in range(self.num_players)]
        yard = [int(t) for t in self.BONE[b, self.T[b, K.T_BONE_TOP]: self.T[b, K.T_BONE_END]]]
        return [h if s != seat else [] for s, h in enumerate(hands)], yard

    def set_hidden(self, b: int, hands, boneyard) -> None:
        """Replace table b's hands and yard (a determinization for search): ``hands`` per seat
        (same sizes as now) and the yard (same size), together the tiles off the table. The
        deal record (DEALT) is not changed: ``reference_game`` is then no longer exact."""
        b = self.check_table(b)
        n = self.num_players
        ts = self.rules.tiles
        now = [ts.from_words(self.SSET[b, s, K.S_HAND]) for s in range(n)]
        top, end = int(self.T[b, K.T_BONE_TOP]), int(self.T[b, K.T_BONE_END])
        hands = [[int(t) for t in h] for h in hands]
        yard = [int(t) for t in boneyard]
        off_table = sorted(t for s in range(n) for t in range(ts.num_tiles) if (now[s] >> t) & 1) + \
            [int(t) for t in self.BONE[b, top:end]]
        if len(hands) != n or any(len(h) != bin(now[s]).count("1") for s, h in enumerate(hands)) \
                or len(yard) != end - top or sorted(sum(hands, []) + yard) != sorted(off_table):
            raise ValueError("set_hidden needs every seat's hand at its current size and the yard at its size, "
                             "together the tiles not on the table")
        for s in range(n):
            self.SSET[b, s, K.S_HAND] = self._words(hands[s])
        self.BONE[b, top:end] = yard
        K.refresh_mask(self.T, self.SSET, self.A, self.MASK, self.LEGAL, b, self.LOW, self.HIGH)
