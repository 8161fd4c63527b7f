"""The family games' fast engine: B tables of one family game, stepped by the numba kernels.

:class:`FamilyTables` mirrors :class:`nos_env.fast_engine.FastTables` for the ten non-Blind
family games (``docs/rules/family.md``): it owns the state arrays (``games/family/state.py``),
the game's settings array and tile tables, and is the only way into the family kernels.
Table ``b`` seeded with seed ``s`` plays exactly ``FamilyGame(rules, seed=s)``'s game for the
same actions (``nos_env.family.engine``); :meth:`FamilyTables.reference_game` rebuilds any
table's game in the reference engine.

One compiled kernel serves every game and option: what differs is the settings array
(``CFG``, made by :func:`settings` from the rules) and the arrays' sizes, never the code.
"""

from __future__ import annotations

import numpy as np

from .family import encoding as E
from .family.engine import FamilyGame
from .family.rules import FamilyRules, make_rules, player_counts
from .games import family as K
from .games.family import state as ST
from .kernels.core import first_bad_action
from .kernels.tilesets import tile_set
from .options import check_seed, is_integer
from .rng import SplitMix64, seed_state
from .threads import ThreadChoice, resolve
from .tables_base import TablesBase

__all__ = ["FamilyTables", "settings", "tile_tables"]

_LAYOUTS = {"cross": ST.LAYOUT_CROSS, "double_nine_cross": ST.LAYOUT_DN_CROSS, "five_up": ST.LAYOUT_FIVE_UP}
_DRAW = {"none": ST.DRAW_NONE, "until_playable": ST.DRAW_UNTIL, "one": ST.DRAW_ONE, "at_will": ST.DRAW_AT_WILL}
_OPENING = {"highest_double": ST.OPEN_HIGHEST_DOUBLE, "highest_tile": ST.OPEN_HIGHEST_TILE, "free": ST.OPEN_FREE,
            "lowest_double": ST.OPEN_LOWEST_DOUBLE, "lowest_tile": ST.OPEN_LOWEST_TILE}
_PLAY_SCORE = {"all_fives": ST.SCORE_FIVES, "five_up": ST.SCORE_FIVES, "fives_and_threes": ST.SCORE_FIVES_THREES,
               "bergen": ST.SCORE_BERGEN}
#: the end award's rounding (AF7, FU6; Fives and Threes rounds nothing, FT2)
_ROUND = {"per_opponent": ST.ROUND_PER_OPPONENT, "total": ST.ROUND_TOTAL, "none": ST.ROUND_NONE}
_OBS_SLICES = {
    ST.O_NUM_PLAYERS: "num_players", ST.O_PHASE: "phase", ST.O_HAND: "hand", ST.O_ON_TABLE: "on_table",
    ST.O_PLACER: "placer", ST.O_TILE_ARM: "tile_arm", ST.O_SET_TILE: "set_tile", ST.O_ARM_EXISTS: "arm_exists",
    ST.O_ARM_OPEN: "arm_open", ST.O_ARM_COUNT: "arm_count", ST.O_ARM_PLAYABLE: "arm_playable",
    ST.O_ARM_DOUBLE_END: "arm_double_end", ST.O_SEAT_PRESENT: "seat_present", ST.O_SEAT_TO_MOVE: "seat_to_move",
    ST.O_SEAT_HAND_SIZE: "seat_hand_size", ST.O_SEAT_PARTNER: "seat_partner", ST.O_SEAT_VOID: "seat_void",
    ST.O_BONEYARD_SIZE: "boneyard_size", ST.O_BONEYARD_DRAWABLE: "boneyard_drawable",
    ST.O_SEAT_SCORE: "seat_score", ST.O_TARGET: "target",
}


def settings(rules: FamilyRules) -> np.ndarray:
    """The runtime settings array the kernels read (``state.C_*`` and the observation offsets)."""
    c = np.zeros(ST.NUM_CFG, np.int64)
    game = rules.game
    sides = 2 if rules.matching == "seven" else 1
    c[ST.C_N] = rules.num_players
    c[ST.C_NT] = rules.num_tiles
    c[ST.C_MAXPIP] = rules.max_pip
    c[ST.C_ARMS] = rules.num_arms
    c[ST.C_SEATS] = rules.max_seats
    c[ST.C_LAYOUT] = _LAYOUTS.get(game, ST.LAYOUT_LINE)
    c[ST.C_MATCH] = ST.MATCH_SEVEN if rules.matching == "seven" else ST.MATCH_EQUAL
    c[ST.C_DRAW] = _DRAW[rules.draw_rule]
    c[ST.C_CROSS_DRAW] = rules.cross_phase_draw == "one"
    c[ST.C_RESERVE] = rules.boneyard_reserve
    c[ST.C_OPENING] = _OPENING[rules.opening]
    c[ST.C_FIRST_SEAT] = -1 if rules.first_seat is None else rules.first_seat
    c[ST.C_HAND_SIZE] = rules.hand_size
    c[ST.C_BLOCKED_TOTAL] = rules.blocked_scoring == "total"
    c[ST.C_ONE_POINT] = rules.hand_scoring == "one_point"
    c[ST.C_STOCK] = rules.stock_to_winner
    c[ST.C_DBL_ONE] = rules.double_counts_one_end
    c[ST.C_ROUND] = _ROUND[rules.award_rounding] if game in ("all_fives", "five_up") else ST.ROUND_NONE
    c[ST.C_DIV] = 5 if game == "five_up" else 1
    c[ST.C_AWARD_BERGEN] = game == "bergen"
    c[ST.C_PLAY_SCORE] = _PLAY_SCORE.get(game, ST.SCORE_NONE)
    c[ST.C_TARGET] = rules.target_score or 0
    c[ST.C_EXACT] = game == "five_up"  # FU7
    c[ST.C_TEAMS] = rules.teams
    c[ST.C_TEAM_BOTH] = rules.teams and rules.team_out == "both"
    c[ST.C_POD] = rules.play_on_double
    c[ST.C_MULTI] = ({"must": ST.MULTI_MUST, "may": ST.MULTI_MAY}[rules.multi_play] if game == "fours"
                     else ST.MULTI_NONE)
    c[ST.C_SPIN_FIRST] = rules.spinners == "first"
    c[ST.C_SIDES] = sides
    c[ST.C_PLAY_IDS] = rules.num_tiles * rules.num_arms * sides
    c[ST.C_PC_INDEX] = player_counts(game).index(rules.num_players)
    c[ST.C_MATADOR_VOID] = rules.draw_rule == "at_will"
    layout = E.observation_layout(rules)
    for slot, name in _OBS_SLICES.items():
        c[slot] = layout[name][0]
    c[ST.O_TAIL] = E.compact_scores_at(rules)
    c[ST.O_FLOAT_SIZE] = next(reversed(layout.values()))[1]
    return c


def tile_tables(max_pip: int) -> tuple[np.ndarray, np.ndarray]:
    """TT [55, NUM_TT] (low, high, pips, double, F2 rank) and ACC [2, 10] uint64: the tiles that
    fit an open e under equal matching (ACC[0, e]) and Matador's sevens with its wild tiles (MA1, MA2)."""
    ts = tile_set(max_pip)
    TT = np.zeros((ST.MAX_TILES, ST.NUM_TT), np.int64)
    for t, (a, b) in enumerate(ts.tiles):
        TT[t] = (a, b, a + b, a == b, a if a == b else (a + b) * 16 + b)
    ACC = np.zeros((2, 10), np.uint64)
    matadors = sum(1 << t for t, (a, b) in enumerate(ts.tiles) if a + b == 7 or a == b == 0)
    for e in range(max_pip + 1):
        ACC[0, e] = sum(1 << t for t, (a, b) in enumerate(ts.tiles) if e in (a, b))
        seven = sum(1 << t for t, (a, b) in enumerate(ts.tiles) if e != 0 and 7 - e in (a, b))
        ACC[1, e] = seven | matadors
    return TT, ACC


class FamilyTables(TablesBase):
    """B tables of one family game (``game``, ``num_players`` and the page's options, as
    ``nos_env.family.rules.make_rules`` takes them)."""

    IDLE = K.IDLE

    def __init__(self, game: str, num_tables: int, num_players: int | None = None, seed: int | None = None,
                 observation_dtype: str = "uint8", threads=None, score_scale: float = 100.0, **options):
        if isinstance(num_tables, bool) or not is_integer(num_tables) or num_tables < 1:
            raise ValueError(f"num_tables must be a positive integer, got {num_tables!r}")
        self.rules = make_rules(game, num_players, **options)
        self.observation_dtype = np.dtype(E._check_dtype(observation_dtype))
        if isinstance(score_scale, bool) or not isinstance(score_scale, (int, float)) or not score_scale > 0:
            raise ValueError(f"score_scale must be a positive number, got {score_scale!r}")
        self.score_scale = float(score_scale)
        self.num_threads = resolve(threads)
        self.num_tables = self.num_envs = B = int(num_tables)
        self.num_players = self.rules.num_players
        self.num_actions = E.num_actions(self.rules)
        self.observation_size = E.observation_size(self.rules, self.observation_dtype.name)
        self.CFG = settings(self.rules)
        self.TT, self.ACC = tile_tables(self.rules.max_pip)
        self.schema = self._schema = ST.make_schema(self.rules.max_seats, self.rules.num_arms, self.num_actions)
        self.__dict__.update(self.schema.allocate(B))
        self.TS = self.TSET
        self.SS = self.SSET
        self._threads = ThreadChoice(self.num_threads, B)
        self._out = None
        self._obs_out = None
        self._no_obs = np.zeros((1, self.observation_size), self.observation_dtype)
        self.seed(seed)
        self.reset_tables()

    # ------------------------------------------------------------------ setup
    @property
    def array_names(self) -> tuple[str, ...]:
        return self.schema.array_names

    def seed(self, seed: int | None) -> None:
        """Table b draws from SplitMix64(seed + b) from its next reset on."""
        seed = check_seed(seed)
        if seed is None:
            seed = int(np.random.SeedSequence().entropy) & ((1 << 62) - 1)
        self.seeds = [seed + b for b in range(self.num_tables)]
        for b in range(self.num_tables):
            self.R[b] = np.uint64(seed_state(seed + b))

    def check_table(self, b: object) -> int:
        if isinstance(b, bool) or not is_integer(b) or not 0 <= b < self.num_tables:
            raise ValueError(f"a table index must be an integer 0..{self.num_tables - 1}, got {b!r}")
        return int(b)

    def check_rows(self, rows, name: str = "rows") -> np.ndarray:
        rows = np.asarray(rows)
        if rows.ndim != 1 or not (np.issubdtype(rows.dtype, np.integer) or rows.size == 0) \
                or rows.dtype == np.bool_ or ((rows < 0) | (rows >= self.num_tables)).any():
            raise ValueError(f"{name} must be a 1-d integer array of table indices 0..{self.num_tables - 1}, "
                             f"got {rows!r}")
        return rows.astype(np.int64)

    def reset_tables(self, rows=None) -> None:
        """A new episode (a match, or one hand) on the given tables (all by default)."""
        rows = np.arange(self.num_tables) if rows is None else self.check_rows(rows)
        K.reset_batch(self.T, self.S, self.TS, self.SS, self.A, self.L, self.BONE, self.R, self.MASK, self.LEGAL,
                      self.H, self.TT, self.CFG, self.ACC, rows.astype(np.int64))

    def seed_tables(self, rows, seeds) -> None:
        """Table rows[i] starts a new episode from SplitMix64(seeds[i]) (FamilyGame(rules, seed=seeds[i]))."""
        rows = self.check_rows(rows)
        seeds = list(seeds) if not isinstance(seeds, np.ndarray) else seeds.tolist()
        if len(seeds) != len(rows) or any(isinstance(s, bool) or not is_integer(s) for s in seeds):
            raise ValueError(f"seeds must be {len(rows)} integers, one per row, got {seeds!r}")
        for b, s in zip(rows.tolist(), seeds):
            self.R[b] = np.uint64(seed_state(int(s)))
            self.seeds[b] = int(s)
        self.reset_tables(rows)

    # ------------------------------------------------------------------ stepping
    def _allowed(self, low: int) -> str:
        return (f"an integer array of shape ({self.num_tables},) with values {low}..{self.num_actions - 1} "
                f"(legal ones: legal_actions(b))")

    def _refuse_outside(self, actions, b: int, low: int):
        raise ValueError(f"table {b}'s action {actions[b]} is outside {low}..{self.num_actions - 1}; "
                         f"actions must be {self._allowed(low)}")

    def check_actions(self, actions, allow_idle: bool = False) -> np.ndarray:
        low = self.IDLE if allow_idle else 0
        actions = np.asarray(actions)
        if not np.issubdtype(actions.dtype, np.integer) or actions.dtype == np.bool_:
            raise ValueError(f"actions must be {self._allowed(low)}; got dtype {actions.dtype}")
        if actions.shape != (self.num_tables,):
            raise ValueError(f"actions must be {self._allowed(low)}; got shape {actions.shape}")
        if actions.dtype != np.int64 or not (actions.flags.c_contiguous and actions.flags.writeable):
            # the range test on the caller's own array, then the kernels' one type (a plain int64 array)
            out = (actions < low) | (actions >= self.num_actions)
            if out.any():
                self._refuse_outside(actions, int(np.flatnonzero(out)[0]), low)
            actions = actions.astype(np.int64)
        b, outside = first_bad_action(self.MASK, actions, low, self.num_actions)
        if outside:
            self._refuse_outside(actions, b, low)
        if b >= 0:
            legal = ", ".join(f"{a} ({E.describe(int(a), self.rules)})" for a in self.legal_actions(b))
            if self.T[b, ST.T_TO_MOVE] < 0:
                legal = "none: the episode is over (reset the table, or step with autoreset)"
            raise ValueError(f"illegal action {int(actions[b])} at table {b} for seat {self.T[b, ST.T_TO_MOVE]}; "
                             f"legal: {legal}")
        return actions

    def step(self, actions, observe: bool = True, autoreset: bool = True, allow_idle: bool = False):
        """One action per table. Returns ``(obs [B, D] or None, points [B, S] int32,
        terminated [B] bool, current [B])``: the points each seat gained in the step (F18's
        events), whether the episode ended (with ``autoreset`` the table has already begun its
        next one, and ``current``/``obs`` belong to it). The arrays are buffers reused by the next
        call: copy what you keep. Bad actions raise ValueError naming the allowed ones, before
        any table changes."""
        actions = self.check_actions(actions, allow_idle)
        B, S = self.num_tables, self.rules.max_seats
        if self._out is None:
            self._out = (np.zeros((B, S), np.int32), np.zeros(B, np.int8), np.zeros((B, S), np.int32),
                         np.zeros(B, np.int32))
        if observe and self._obs_out is None:
            self._obs_out = np.zeros((B, self.observation_size), self.observation_dtype)
        points, terminated, self.final_scores, current = self._out
        obs = self._obs_out if observe else self._no_obs
        self._threads.run("step+obs" if observe else "step", K.step_batch, K.step_batch_parallel,
                          self.T, self.S, self.TS, self.SS, self.A, self.L, self.BONE, self.R, self.MASK,
                          self.LEGAL, self.H, self.PEN, self.TT, self.CFG, self.ACC, actions, points, terminated,
                          self.final_scores, current, obs, observe, self._compact, self.score_scale, autoreset)
        return (obs if observe else None), points, terminated.view(np.bool_), current

    @property
    def _compact(self) -> bool:
        return self.observation_dtype == np.uint8

    def _check_seats(self, seats, rows: int) -> np.ndarray:
        seats = np.asarray(seats)
        n = self.num_players
        if seats.shape != (rows,) or not np.issubdtype(seats.dtype, np.integer) or seats.dtype == np.bool_ \
                or ((seats < -1) | (seats >= n)).any():
            raise ValueError(f"seats must be an integer array of shape ({rows},) with seat numbers 0..{n - 1} "
                             f"(-1: an all-zero row), got {seats!r}")
        return seats.astype(np.int64)

    def observe(self, seats) -> np.ndarray:
        """The observation [B, D] of seats[b] at every table b (of ``observation_dtype``)."""
        return self.observe_rows(np.arange(self.num_tables), seats)

    def observe_rows(self, rows, seats) -> np.ndarray:
        """The observations of seats[i] at table rows[i] (a new array)."""
        rows = self.check_rows(rows)
        seats = self._check_seats(seats, len(rows))
        obs = np.zeros((len(rows), self.observation_size), self.observation_dtype)
        self._threads.run("observe", K.observe_batch, K.observe_batch_parallel, self.T, self.S, self.TS, self.SS,
                          self.A, self.L, self.TT, self.CFG, rows, seats, obs, self._compact, self.score_scale)
        return obs


    # ------------------------------------------------------------------ reading

    @property
    def current_player(self) -> np.ndarray:
        return self.T[:, ST.T_TO_MOVE].copy()

    @property
    def scores(self) -> np.ndarray:
        """int [B, S]: each seat's match points (teams: both partners carry the team's)."""
        return self.S[:, :, ST.S_CHIPS].copy()

    def scores_at(self, rows: np.ndarray) -> np.ndarray:
        """``scores[rows]`` read from those rows only (the vector environment asks for the tables
        that finished in a step: a few of B, every step)."""
        return self.S[rows, :, ST.S_CHIPS]

    @property
    def hand_number(self) -> np.ndarray:
        return self.T[:, ST.T_HAND_INDEX].copy()

    @property
    def episode_over(self) -> np.ndarray:
        return self.T[:, ST.T_DONE].astype(bool)

    @property
    def hand_sets(self) -> np.ndarray:
        """uint64 [B, seats, words]: each seat's hand as a bit set (tile t is bit t % 64 of word
        t // 64), a read-only view (the privileged critic reads it: train/privileged.py)."""
        view = self.SSET[:, :, ST.S_HAND, :1]  # one word holds every tile of these sets
        view.flags.writeable = False
        return view

    def boneyard_of(self, b: int) -> np.ndarray:
        """Table b's boneyard, top first (tile indices; a copy)."""
        b = self.check_table(b)
        return self.BONE[b, self.T[b, ST.T_BONE_TOP]:self.T[b, ST.T_BONE_END]].astype(np.int64)

    def legal_actions(self, b: int) -> np.ndarray:
        b = self.check_table(b)
        return self.LEGAL[b, : self.T[b, ST.T_NLEGAL]].astype(np.int64)

    @property
    def thread_stats(self) -> dict[int, int]:
        return dict(self._threads.stats)

    # ------------------------------------------------------------------ snapshots
    def clone(self) -> dict:
        return {name: getattr(self, name).copy() for name in self.array_names}

    def restore(self, snapshot: dict) -> None:
        self._check_snapshot(snapshot, lambda name: getattr(self, name).shape)
        for name in self.array_names:
            getattr(self, name)[...] = snapshot[name]

    def clone_table(self, b: int) -> dict:
        b = self.check_table(b)
        return {name: getattr(self, name)[b].copy() for name in self.array_names}

    def restore_table(self, b: int, snapshot: dict) -> None:
        b = self.check_table(b)
        self._check_snapshot(snapshot, lambda name: getattr(self, name).shape[1:])
        for name in self.array_names:
            getattr(self, name)[b] = snapshot[name]

    def _check_snapshot(self, snapshot, shape_of) -> None:
        if not isinstance(snapshot, dict) or set(snapshot) != set(self.array_names):
            raise ValueError(f"a snapshot is a dict of the arrays {', '.join(self.array_names)} "
                             f"(from clone() / clone_table() of tables of {self.rules.game})")
        for name in self.array_names:
            a, want = snapshot[name], getattr(self, name)
            if not isinstance(a, np.ndarray) or a.dtype != want.dtype or a.shape != shape_of(name):
                raise ValueError(f"snapshot array {name} must be {want.dtype} of shape {shape_of(name)}")

    # ------------------------------------------------------------------ deals
    def load_deal(self, b: int, hands, boneyard, setter=None, scores=None) -> None:
        """Table b starts the given deal (``FamilyGame.from_deal``'s arguments, checked by it first):
        hands (tile indices per seat), the boneyard top first, the setter under a free opening,
        the match scores so far. Later hands draw from SplitMix64(0), as from_deal's game does."""
        b = self.check_table(b)
        game = FamilyGame.from_deal(self.rules, hands, boneyard, setter=setter, scores=scores)
        n, N = self.num_players, self.rules.num_tiles
        hands = [sorted(int(t) for t in h) for h in hands]
        boneyard = [int(t) for t in boneyard]
        self.S[b] = 0
        self.T[b] = 0
        self.T[b, ST.T_NEXT_SETTER] = -1
        if scores is not None:
            self.S[b, :n, ST.S_CHIPS] = [int(s) for s in scores]
        for s in range(n):
            word = np.uint64(sum(1 << t for t in hands[s]))
            self.SS[b, s, ST.S_HAND, 0] = word
            self.SS[b, s, ST.S_DEALT, 0] = word
        self.SS[b, n:] = 0
        self.BONE[b] = 0
        self.MASK[b] = 0
        top = N - len(boneyard)
        self.BONE[b, top:N] = boneyard
        self.T[b, ST.T_BONE_TOP] = top
        self.T[b, ST.T_BONE_END] = N
        self.R[b] = np.uint64(seed_state(0))
        K.load_hand(self.T, self.S, self.TS, self.SS, self.A, self.L, self.BONE, self.R, self.MASK, self.LEGAL, self.H,
                    self.TT, self.CFG, self.ACC, b, -1 if setter is None else int(setter))
        assert game is not None

    def set_hidden(self, b: int, hands, boneyard) -> None:
        """For search: table b's hidden tiles replaced by a sample. ``hands[s]`` (tile indices)
        for every seat, the seat to move's hand unchanged (it is the searcher's own knowledge,
        so the legal actions stay as they are), every other hand of its current size, the
        boneyard (top first) of its current size; together with the tiles on the table they
        must be the whole set. Checked first: a bad sample changes nothing."""
        b = self.check_table(b)
        n, N = self.num_players, self.rules.num_tiles
        T = self.T[b]
        mover = int(T[ST.T_TO_MOVE])
        if mover < 0:
            raise ValueError(f"table {b}'s episode is over: nothing is hidden")
        try:
            hands = [sorted(int(t) for t in h) for h in hands]
            boneyard = [int(t) for t in boneyard]
        except (TypeError, ValueError):
            raise ValueError("hands must be one list of tile indices per seat and boneyard a list of tile indices")
        placed = int(self.TS[b, ST.T_PLACED, 0])
        table = [t for t in range(N) if (placed >> t) & 1]
        now = [[t for t in range(N) if (int(self.SS[b, s, ST.S_HAND, 0]) >> t) & 1] for s in range(n)]
        size = int(T[ST.T_BONE_END] - T[ST.T_BONE_TOP])
        if len(hands) != n or any(len(hands[s]) != len(now[s]) for s in range(n)) or len(boneyard) != size:
            raise ValueError(f"set_hidden needs {n} hands of sizes {[len(h) for h in now]} and a boneyard of {size} "
                             f"tiles")
        if hands[mover] != now[mover]:
            raise ValueError(f"the hand of seat {mover} (to move) must stay {now[mover]}")
        if sorted([t for h in hands for t in h] + boneyard + table) != list(range(N)):
            raise ValueError(f"the hands, the boneyard and the {len(table)} tiles on the table must hold every "
                             f"tile 0..{N - 1} exactly once")
        for s in range(n):
            self.SS[b, s, ST.S_HAND, 0] = np.uint64(sum(1 << t for t in hands[s]))
        self.BONE[b, T[ST.T_BONE_TOP]:T[ST.T_BONE_END]] = boneyard

    def reference_game(self, b: int) -> FamilyGame:
        """Table b's game in the reference engine: its current hand from the deal, the scores
        at the hand's start and the hand's decisions, continuing with the table's random stream."""
        b = self.check_table(b)
        n, N = self.num_players, self.rules.num_tiles
        T = self.T[b]
        hands = [[t for t in range(N) if (int(self.SS[b, s, ST.S_DEALT, 0]) >> t) & 1] for s in range(n)]
        boneyard = [int(t) for t in self.BONE[b, T[ST.T_BONE_START]:N]]
        setter = int(T[ST.T_SETTER]) if self.rules.opening == "free" else None
        scores = [int(x) for x in self.S[b, :n, ST.S_CHIPS_HAND]]
        game = FamilyGame.from_deal(self.rules, hands, boneyard, setter=setter, scores=scores)
        game.hand_number = int(T[ST.T_HAND_INDEX])
        for a in self.H[b, : T[ST.T_NHIST]]:
            game.step(int(a))
        game.rng = SplitMix64.from_state(int(self.R[b]))
        return game
