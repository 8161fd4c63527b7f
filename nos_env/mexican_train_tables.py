"""MexicanTrainTables: B tables of Mexican Train on the numba kernels (``nos_env/games/mexican_train/``).

The API of the family contract's ``FamilyTables`` (so the registry, the environments and
the agents treat Mexican Train like the other games): ``step(actions) -> (obs, points
[B, 8], terminated [B], current [B])``, ``observe``, ``observe_rows``, ``masks``,
``current_player``, ``scores`` (minus the pip totals, MT11), ``winner``,
``legal_actions(b)``, snapshots, ``load_deal``, ``reference_game(b)``.

Table b seeded with ``seed + b`` (``seed_tables`` sets any seed and deals at once, as
``FamilyTables``) plays exactly ``MexicanTrainGame(rules, seed=seed + b)``'s match, and
with autoreset continues with the matches of plain ``reset()``s of that game.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .family import mexican_train_encoding as enc
from .family.mexican_train import MexicanTrainGame, make_mexican_train_rules
from .games import mexican_train as K
from .games.mexican_train.kernels import _place_round
from .games.mexican_train.observe import offsets
from .options import check_seed, is_integer
from .rng import SplitMix64, seed_state
from .tables_base import TablesBase
from .threads import ThreadChoice, resolve

__all__ = ["MexicanTrainTables"]


class MexicanTrainTables(TablesBase):
    IDLE = K.IDLE

    def __init__(self, game: str = "mexican_train", num_tables: int = 1, num_players: int | None = None,
                 seed: int | None = None, observation_dtype: str = "uint8", threads=None,
                 score_scale: float = 100.0, **options):
        if game != "mexican_train":
            raise ValueError(f"MexicanTrainTables plays 'mexican_train' only, got game={game!r}")
        if not is_integer(num_tables) or num_tables < 1:
            raise ValueError(f"num_tables must be a positive integer, got {num_tables!r}")
        if isinstance(score_scale, bool) or not isinstance(score_scale, (int, float)) or not score_scale > 0:
            raise ValueError(f"score_scale must be a positive number, got {score_scale!r}")
        self.rules = make_mexican_train_rules(num_players, **options)
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
        tiles = self.rules.tiles
        self.LOW = tiles.LOW.astype(np.int64)
        self.HIGH = tiles.HIGH.astype(np.int64)
        self.DOUBLE_OF = tiles.DOUBLE_OF.astype(np.int64)
        #: SUIT[v]: the tiles carrying number v, as a bit set of words
        self.SUIT = np.array([tiles.to_words(sum(1 << t for t in range(tiles.num_tiles) if v in tiles.tiles[t]))
                              for v in range(tiles.max_pip + 1)], np.uint64)
        self._O = offsets(self.rules)
        self._k = self.rules.hand_size
        self._rounds = self.rules.num_rounds
        self._first = -1 if self.rules.first_seat is None else self.rules.first_seat
        self._out = None
        self._obs_out = None
        self._no_obs = np.zeros((1, self.observation_size), self.observation_dtype)
        if seed is None:
            seed = int(np.random.SeedSequence().entropy) & ((1 << 62) - 1)
        self.seed_tables(np.arange(B), [seed + b for b in range(B)])

    # ------------------------------------------------------------- seeding
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
        """Table rows[i] starts a new match from SplitMix64(seeds[i]) (``MexicanTrainGame(rules, seed=seeds[i])``)."""
        rows = self.check_rows(rows, "rows")
        seeds = seeds.tolist() if isinstance(seeds, np.ndarray) else list(seeds) if np.ndim(seeds) == 1 else None
        if seeds is None or len(seeds) != len(rows) or not all(is_integer(s) for s in seeds):
            raise ValueError(f"seeds must be a 1-d sequence of integers, one per row ({len(rows)}), got {seeds!r}")
        self.R[rows] = np.array([seed_state(int(s)) for s in seeds], np.uint64)
        self.reset_tables(rows)

    def reset_tables(self, rows=None) -> None:
        """A new match at the given tables (all by default) from their streams."""
        rows = self.check_rows(rows)
        K.reset_batch(self.T, self.S, self.A, self.L, self.SSET, self.TSET, self.BONE, self.R, self.MASK, self.LEGAL,
                      self.num_players, self._k, self._rounds, self._first, self.LOW, self.HIGH, self.SUIT,
                      self.DOUBLE_OF, rows)

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
        """One decision per table. Returns ``(obs [B, D] or None, points [B, 8] int32,
        terminated [B] bool, current [B])``: points are what each seat gained (MT11: minus its
        pips left, when a round ends). With ``autoreset`` a finished match deals its next one
        at once (``current``/``obs`` are then the new match's). The arrays are reused by the
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
                          self.T, self.S, self.A, self.L, self.SSET, self.TSET, self.BONE, self.R, self.MASK,
                          self.LEGAL, self.H, self.PEN, self.num_players, self._k, actions, self._rounds, self._first,
                          self.LOW, self.HIGH, self.SUIT, self.DOUBLE_OF, points, terminated, self.final_scores,
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
        self._threads.run("observe", K.observe_batch, K.observe_batch_parallel, self.T, self.S, self.A, self.SSET,
                          self.TSET, self.num_players, seats, out, self._O, self.LOW, self.HIGH, self.score_scale)
        return out

    def observe_rows(self, rows, seats, out=None) -> np.ndarray:
        rows = self.check_rows(rows)
        seats = self._check_seats(seats, rows.shape)
        out = self._buffer(out, len(rows), "out")
        K.observe_batch(self.T[rows], self.S[rows], self.A[rows], self.SSET[rows], self.TSET[rows], self.num_players,
                        seats, out,
                        self._O, self.LOW, self.HIGH, self.score_scale)
        return out


    # ------------------------------------------------------------ inspection

    @property
    def current_player(self) -> np.ndarray:
        return self.T[:, K.T_TO_MOVE].copy()

    @property
    def scores(self) -> np.ndarray:
        """int64 [B, n]: each seat's match score, minus its pip total so far (MT11)."""
        return self.S[:, : self.num_players, K.S_CHIPS].astype(np.int64)

    def scores_at(self, rows: np.ndarray) -> np.ndarray:
        """``scores[rows]``, read from those rows only."""
        return self.S[rows, : self.num_players, K.S_CHIPS].astype(np.int64)

    @property
    def winner(self) -> np.ndarray:
        """int64 [B]: the winner of each table's match once it is over (-1: none yet, or an
        equal lowest total, MT11). After an autoreset step the table holds its next match."""
        return self.T[:, K.T_WINNER].astype(np.int64)

    @property
    def hand_number(self) -> np.ndarray:
        """int [B]: the round being played (0-based; MT1)."""
        return self.T[:, K.T_HAND_INDEX].copy()

    @property
    def episode_over(self) -> np.ndarray:
        return self.T[:, K.T_DONE] != 0

    def legal_actions(self, b: int) -> np.ndarray:
        b = self.check_table(b)
        return self.LEGAL[b, : self.T[b, K.T_NLEGAL]].astype(np.int64)

    # snapshots: clone, restore, clone_table, restore_table (TablesBase, over the schema's arrays)

    # ------------------------------------------------------- deals and the reference
    def load_deal(self, b: int, hands, boneyard, setter: int | None = None, scores=None,
                  round_index: int = 0) -> None:
        """Start table ``b`` on given hands (k tiles each, MT2) and boneyard (top first) for round
        ``round_index``, as ``MexicanTrainGame.from_deal`` (checked by it first: a refused deal
        changes nothing). Later rounds are dealt from the table's stream."""
        b = self.check_table(b)
        probe = MexicanTrainGame.from_deal(self.rules, hands, boneyard, setter, scores, round_index)
        n, k = self.num_players, self._k
        if any(len(h) != k for h in probe.hand.dealt):
            raise ValueError(f"load_deal takes hands of {k} tiles each ({n} players, {self.rules.tileset}, MT2)")
        _load(self.T, self.S, self.A, self.L, self.SSET, self.TSET, self.BONE, self.MASK, self.LEGAL, b, n, k,
              self._rounds,
              probe.hand.engine, int(probe.hand.engine_pip), probe.first_starter, probe.hand.starter, round_index,
              np.array([t for s in range(n) for t in _as_list(hands[s], self.rules)] + list(probe.hand.boneyard),
                       np.int64),
              np.array(probe.scores, np.int64), self.LOW, self.HIGH, self.SUIT)

    def set_hidden(self, b: int, hands, boneyard) -> None:
        """For search: table b's hidden tiles replaced by a sample. ``hands[s]`` (tile indices) for
        every seat, the seat to move's hand unchanged, every other hand of its current size, the
        boneyard (top first) of its current size; with the tiles on the table they must be the
        whole set. Checked first: a bad sample changes nothing. (``reference_game`` reads the
        deal, so it no longer describes a table changed here.)"""
        b = self.check_table(b)
        n, N = self.num_players, self.rules.num_tiles
        mover = int(self.T[b, K.T_TO_MOVE])
        if mover < 0:
            raise ValueError(f"table {b}'s match is over: nothing is hidden")
        try:
            hands = [sorted(int(t) for t in h) for h in hands]
            boneyard = [int(t) for t in boneyard]
        except (TypeError, ValueError):
            raise ValueError("hands must be one list of tile indices per seat and boneyard a list of tile indices")
        tiles = self.rules.tiles
        now = [[t for t in range(N) if self.L[b, t, K.L_OWNER] == s] for s in range(n)]
        table = tiles.tiles_of(tiles.from_words(self.TSET[b, K.T_ON_TABLE]))
        top, end = int(self.T[b, K.T_BONE_TOP]), int(self.T[b, K.T_BONE_END])
        if len(hands) != n or any(len(hands[s]) != len(now[s]) for s in range(n)) or len(boneyard) != end - top:
            raise ValueError(f"set_hidden needs {n} hands of sizes {[len(h) for h in now]} and a boneyard of "
                             f"{end - top} tiles")
        if hands[mover] != now[mover]:
            raise ValueError(f"the hand of seat {mover} (to move) must stay {now[mover]}")
        if sorted([t for h in hands for t in h] + boneyard + [tiles.index[x] for x in table]) != list(range(N)):
            raise ValueError(f"the hands, the boneyard and the {len(table)} tiles on the table must hold every "
                             f"tile 0..{N - 1} exactly once")
        for s in range(n):
            self.SSET[b, s, K.S_HAND] = tiles.to_words(sum(1 << t for t in hands[s]))
            for t in hands[s]:
                self.L[b, t, K.L_OWNER] = s
        for t in boneyard:
            self.L[b, t, K.L_OWNER] = -1
        self.BONE[b, top:end] = boneyard

    def deal_of(self, b: int) -> tuple[list[list[int]], list[int], int]:
        """Table b's current round as dealt: the hands, the boneyard (top first) and the starter."""
        b = self.check_table(b)
        n, k, nt = self.num_players, self._k, self.rules.num_tiles
        order = [int(t) for t in self.BONE[b, : nt - 1]]
        return [order[s * k:(s + 1) * k] for s in range(n)], order[n * k:], int(self.T[b, K.T_STARTER])

    def reference_game(self, b: int) -> MexicanTrainGame:
        """Table b's match at its current round, rebuilt in the reference engine (the round's deal,
        the scores at its start and its decisions); its stream goes on from the table's."""
        b = self.check_table(b)
        count = int(self.T[b, K.T_NHIST])
        if count > K.MAX_HISTORY:
            raise ValueError(f"table {b}'s round has {count} decisions, more than the {K.MAX_HISTORY} kept")
        hands, boneyard, starter = self.deal_of(b)
        n = self.num_players
        index = int(self.T[b, K.T_HAND_INDEX])
        game = MexicanTrainGame.from_deal(self.rules, hands, boneyard, setter=starter,
                                          scores=[int(x) for x in self.S[b, :n, K.S_CHIPS_HAND]],
                                          round_index=index)
        game.first_starter = int(self.T[b, K.T_FIRST])
        for a in self.H[b, :count]:
            game.step(int(a))
        game.rng = SplitMix64.from_state(int(self.R[b]))
        if index == 0:
            lo, hi = int(self.T[b, K.T_MATCH_LO]) & 0xFFFFFFFF, int(self.T[b, K.T_MATCH_HI]) & 0xFFFFFFFF
            game.stream_state = (hi << 32) | lo
            game.seed = None
        return game


def _as_list(hand, rules):
    from .family.mexican_train import tile_index

    return [tile_index(t, rules) for t in hand]


@njit(cache=True)
def _load(T, S, A, L, SSET, TSET, BONE, MASK, LEGAL, b, n, k, rounds, engine, engine_pip, first, starter, index, order,
          scores, LOW, HIGH, SUIT):
    nt = LOW.shape[0]
    for i in range(order.shape[0]):
        BONE[b, i] = order[i]
    BONE[b, nt - 1] = engine
    T[b, K.T_DONE] = 0
    T[b, K.T_WINNER] = -1
    T[b, K.T_ROUNDS] = rounds
    T[b, K.T_ENGINE] = engine
    T[b, K.T_ENGINE_PIP] = engine_pip
    T[b, K.T_FIRST] = first
    T[b, K.T_BONE_TOP] = n * k
    T[b, K.T_BONE_END] = nt - 1
    T[b, K.T_DEAL_LO] = 0
    T[b, K.T_DEAL_HI] = 0
    T[b, K.T_MATCH_LO] = 0
    T[b, K.T_MATCH_HI] = 0
    for s in range(S.shape[1]):
        S[b, s, K.S_CHIPS] = scores[s] if s < n else 0
        S[b, s, K.S_CHIPS_EPISODE] = 0
        S[b, s, K.S_PENDING] = 0
    _place_round(T, S, A, L, SSET, TSET, BONE, b, n, k, index, starter, LOW, HIGH)
    K.compute_mask(T, S, A, SSET, MASK, LEGAL, b, n, LOW, HIGH, SUIT)
