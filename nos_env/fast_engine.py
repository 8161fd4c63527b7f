"""The fast engine: B tables in numpy arrays, stepped by the numba kernels.

:class:`FastTables` owns the state arrays (declared by ``games/nos/state.py``) and the
options; it is what :func:`nos_env.vector_env` and the AEC environment's
``backend="fast"`` use. It speaks action indices (``encoding.py``); text
forms go through the reference engine, which can rebuild any table's hand
(:meth:`FastTables.reference_hand`) because the two engines play the same
games.

Threads: ``num_threads`` chooses how many threads the kernels run on (``threads.py``):
``"auto"`` by default, which stays serial beside other busy jobs instead of collapsing.

Seeding: table ``b`` draws from SplitMix64 seeded with ``seed + b``
(``rng.py``), so it plays the same games as ``nos_env.env()`` reset with
``seed=seed + b`` followed by plain resets, in either backend.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from .games import nos as K
from .games.nos import closing as KC
from .games.nos import tactics as KT
from .games.nos.state import SCHEMA
from .kernels.core import fresh_record_table
from .deal import Deal, check_num_players
from .encoding import NUM_ACTIONS, check_observation_dtype, index_to_action, legal_mask, observation_size
from .engine import PHASES, WRONG_CLOSE_PAYMENT, Hand
from .options import (CHIP_GUARD, Options, TableOptions, check_chips, check_chips_in_guard, check_seed,
                      is_integer)
from .rng import seed_state
from .threads import PARALLEL_FROM, ThreadChoice, resolve
from .tables_base import TablesBase
from .tiles import ALL_TILES, TILE_INDEX

ARRAYS = SCHEMA.array_names  # ("T", "S", "A", "L", "BONE", "R", "MASK", "LEGAL", "H", "PEN")
__all__ = ["ARRAYS", "CLOSING_FEATURES", "CLOSING_PLAYS", "PARALLEL_FROM", "EpisodeStats", "FastTables",
           "accepted_after_plays", "closing_features", "SETTLEMENT_FEATURES", "tactics_rows"]


class FastTables(TablesBase):
    def __init__(
        self,
        num_envs: int,
        num_players: int = 4,
        seed: int | None = None,
        # The table options and their defaults are written once, in TableOptions (options.py).
        hands_per_episode: int = TableOptions.hands_per_episode,
        first_hand_rule: bool | None = TableOptions.first_hand_rule,
        starting_chips: int = TableOptions.starting_chips,
        illegal_action: str = TableOptions.illegal_action,
        auto_forced: bool = TableOptions.auto_forced,
        chip_scale: float = TableOptions.chip_scale,
        num_threads: int | str | None = None,
        observation_dtype: str = "uint8",
    ):
        if not is_integer(num_envs) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        options = TableOptions(hands_per_episode, first_hand_rule, starting_chips, illegal_action, auto_forced,
                               chip_scale)
        seed = check_seed(seed)
        #: uint8: the compact encoding (encoding.COMPACT_SIZE bytes a row, the default);
        #: float32: the decoded one (OBSERVATION_SIZE values a row). Both from the same kernel.
        self.observation_dtype = check_observation_dtype(observation_dtype)
        self.observation_size = observation_size(self.observation_dtype)
        #: "auto" or a number of threads (``threads.py``); None at construction means the process default
        self.num_threads = resolve(num_threads)
        self.num_envs = B = int(num_envs)
        self.num_players = check_num_players(num_players)
        #: the checked options (TableOptions); the attributes below are their values
        self.table_options = options
        self.hands_per_episode = options.hands_per_episode
        self.first_hand_rule = options.first_hand_rule
        self.starting_chips = options.starting_chips
        self.penalty = options.penalty
        self.auto_forced = options.auto_forced
        self.chip_scale = options.chip_scale
        # The state arrays (T, S, A, L, BONE, R, MASK, LEGAL, H, PEN), as Nos's schema declares
        # them (games/nos/state.py): LEGAL is the legal actions as a sorted list per table
        # (T_NLEGAL of them), which sampling and forced moves read instead of scanning 557 mask
        # bytes; H and PEN the current hand's legal decisions and where its D16 penalties came,
        # for rebuilding it in the reference engine (reference_hand). PEN has one unused column in
        # raise mode instead of 258 (8 MiB less at B=4096).
        self.__dict__.update(SCHEMA.allocate(B, penalty=self.penalty))
        self._threads = ThreadChoice(self.num_threads, B)
        self._out = None  # output buffers of step(), made on first use
        self._obs_out = None
        # never written (observe=False); of the same dtype, so no second compilation
        self._no_obs = np.zeros((1, self.observation_size), self.observation_dtype)
        self.seed(seed)

    @property
    def engine_options(self) -> Options:
        return Options(auto_forced=self.auto_forced, illegal="penalty" if self.penalty else "raise")

    # ---------------------------------------------------------------- running
    def reset_tables(self, tables: np.ndarray | None = None) -> None:
        """Start a new episode (session) on the given tables (all by default)."""
        if tables is None:
            tables = np.arange(self.num_envs)
        tables = np.asarray(tables)
        if tables.ndim != 1 or not (np.issubdtype(tables.dtype, np.integer) or tables.size == 0) \
                or ((tables < 0) | (tables >= self.num_envs)).any():
            raise ValueError(f"tables must be a 1-d integer array of table indices 0..{self.num_envs - 1}, "
                             f"got {tables!r}")
        tables = tables.astype(np.int64)
        K.reset_batch(self.T, self.S, self.A, self.L, self.BONE, self.R, self.MASK, self.LEGAL, self.H, self.num_players,
                      self.hands_per_episode, self.first_hand_rule, self.starting_chips, self.auto_forced, tables)
        self.PEN[tables] = 0

    def check_load_deal(self, b: int, deal: Deal, on_set: int | None = None, chips: list[int] | None = None,
                        first_hand: bool = False) -> Hand:
        """load_deal's arguments checked (nothing changes): the hand it would start."""
        b = self.check_table(b)
        n = self.num_players
        if not isinstance(deal, Deal):
            raise ValueError(f"deal must be a Deal (Deal.from_tiles or Deal.random), got {type(deal).__name__}")
        if deal.num_players != n:
            raise ValueError(f"the deal is for {deal.num_players} players, the tables for {n}")
        # An episode starts here: chips within +-CHIP_LIMIT (options.py), as everywhere.
        chips = check_chips([self.starting_chips] * n if chips is None else chips, n)
        return Hand(deal, on_set=on_set, chips=chips, first_hand=first_hand)  # checks seat, first hand

    def load_deal(self, b: int, deal: Deal, on_set: int | None = None, chips: list[int] | None = None,
                  first_hand: bool = False) -> None:
        """Start table ``b``'s episode on a given deal (as ``engine.Hand`` does; chips default to
        the tables' starting chips); later hands of a session come from the table's random
        stream. Every argument is checked before the table changes."""
        probe = self.check_load_deal(b, deal, on_set, chips, first_hand)
        b, n = int(b), self.num_players
        S, T = self.S, self.T
        self.PEN[b] = 0
        for s in range(K.MAX_SEATS):
            S[b, s, :] = 0
        for s in range(n):
            mask = 0
            for t in deal.hands[s]:
                mask |= 1 << TILE_INDEX[t]
            S[b, s, K.S_HAND] = S[b, s, K.S_DEALT] = mask
            S[b, s, K.S_CHIPS] = S[b, s, K.S_CHIPS_EPISODE] = probe.chips_start[s]
        for i, t in enumerate(deal.boneyard):
            self.BONE[b, i] = TILE_INDEX[t]
        T[b, K.T_BONE_TOP] = 0
        T[b, K.T_BONE_END] = len(deal.boneyard)
        T[b, K.T_HANDS_LEFT] = self.hands_per_episode - 1
        T[b, K.T_HAND_INDEX] = 0
        T[b, K.T_DONE] = 0
        T[b, K.T_CLOSE_RIGHT] = 0  # per-episode counters (S, payments by reason included, is zeroed above)
        T[b, K.T_CLOSE_WRONG] = 0
        K.start_hand(self.T, self.S, self.A, self.L, b, n, probe.on_set, int(probe.first_hand))
        K.settle(self.T, self.S, self.A, self.L, self.BONE, self.R, self.MASK, self.LEGAL, b, n, self.auto_forced)
        fresh_record_table(self.T, self.LEGAL, self.H, b)
        self.S[b, :n, K.S_PENDING] = self.S[b, :n, K.S_CHIPS] - self.S[b, :n, K.S_CHIPS_EPISODE]

    def check_actions(self, actions: np.ndarray, allow_idle: bool = False) -> np.ndarray:
        """The actions as int64 [B], if each is an action index (D16: in raise mode, a legal one)."""
        low = K.IDLE if allow_idle else 0
        actions = np.asarray(actions)
        # No conversion: float, bool or string actions are refused, not rounded or parsed.
        if not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be {self._allowed_actions(low)}; got dtype {actions.dtype}")
        if actions.shape != (self.num_envs,):
            raise ValueError(f"actions must be {self._allowed_actions(low)}; got shape {actions.shape}")
        if ((actions < low) | (actions >= NUM_ACTIONS)).any():
            bad = int(np.flatnonzero((actions < low) | (actions >= NUM_ACTIONS))[0])
            raise ValueError(f"table {bad}'s action {actions[bad]} is outside {low}..{NUM_ACTIONS - 1}; "
                             f"actions must be {self._allowed_actions(low)}")
        actions = actions.astype(np.int64)
        if self.penalty:
            # D16 penalties are unbounded: refuse to step once chips near the int64 edge (options.py).
            b = K.first_beyond(self.S, self.num_players, CHIP_GUARD)
            if b >= 0:
                check_chips_in_guard([int(c) for c in self.S[b, : self.num_players, K.S_CHIPS]],
                                     f"penalty mode, table {b}")
        else:
            b = K.first_illegal(self.MASK, actions)
            if b >= 0:
                from .engine import IllegalActionError

                hand = self.reference_hand(b)
                text = f"{int(actions[b])} ({index_to_action(int(actions[b]), hand)}) at table {b}"
                raise IllegalActionError(text, hand.legal_action_texts(), hand.to_move, hand.phase)
        return actions

    def _allowed_actions(self, low: int) -> str:
        return (f"an integer array of shape ({self.num_envs},) (one action index per table) with values "
                f"{low}..{NUM_ACTIONS - 1}")

    def step(self, actions, observe: bool = True, autoreset: bool = True, allow_idle: bool = False):
        """Apply one action per table.

        With ``allow_idle`` an action of ``FastTables.IDLE`` (-1) leaves its table as it
        is: zero rewards, not terminated, ``current`` unchanged and its ``obs`` row not written
        (it keeps the row of the table's last step, zeros before the first).

        Returns ``(rewards [B, 5] int chips, terminated [B] bool, final_chips [B, 5],
        current [B], obs [B, D] or None)``; ``obs`` is of ``observation_dtype`` (compact uint8 by
        default: ``encoding.decode_compact`` reads it as float32). With ``autoreset`` a finished table starts
        its next episode at once: ``current`` and ``obs`` then belong to the new one,
        ``final_chips`` holds the finished episode's chips, and chips the new episode
        pays before its first decision (D12) come with the table's next step.
        ``final_chips`` rows are written only for tables that finished in this call (other
        rows keep older values). For finished tables, :meth:`episode_stats` gives the episode's
        announcement, setter, end, closings and net chips by reason, by name.

        The returned arrays are buffers reused by the next call (writing a fresh
        observation batch every step costs more than stepping): copy what you keep.
        """
        actions = self.check_actions(actions, allow_idle)
        B = self.num_envs
        if self._out is None:
            self._out = (np.empty((B, K.MAX_SEATS), np.int32), np.zeros(B, np.int8),
                         np.zeros((B, K.MAX_SEATS), np.int32), np.empty(B, np.int32),
                         np.zeros((B, K.NUM_F), np.int32))
        if observe and self._obs_out is None:
            self._obs_out = np.zeros((B, self.observation_size), self.observation_dtype)
        rewards, terminated, final_chips, current, self.final_stats = self._out
        obs = self._obs_out if observe else self._no_obs
        self._threads.run("step+obs" if observe else "step", K.step_batch, K.step_batch_parallel,
                          self.T, self.S, self.A, self.L, self.BONE, self.R, self.MASK, self.LEGAL, self.H, self.PEN,
                          self.num_players, actions, self.auto_forced, self.penalty, self.hands_per_episode,
                          self.first_hand_rule, self.starting_chips, rewards, terminated, final_chips,
                          self.final_stats, current, obs, observe, self.chip_scale, autoreset)
        return rewards, terminated.view(np.bool_), final_chips, current, (obs if observe else None)

    def observe(self, seats, obs: np.ndarray | None = None) -> np.ndarray:
        """The observation [B, D] of ``seats[b]`` at every table b, of ``observation_dtype``
        (written into ``obs`` if given: C-contiguous, writable, of that dtype and shape)."""
        seats = np.asarray(seats)
        if seats.shape != (self.num_envs,) or not np.issubdtype(seats.dtype, np.integer) \
                or ((seats < 0) | (seats >= self.num_players)).any():
            raise ValueError(f"seats must be an integer array of shape ({self.num_envs},) with seat numbers "
                             f"0..{self.num_players - 1}, got {seats!r}")
        seats = seats.astype(np.int64)
        obs = self._observation_buffer(obs, self.num_envs, "obs")
        self._threads.run("observe", K.observe_batch, K.observe_batch_parallel,
                          self.T, self.S, self.A, self.L, self.num_players, seats, obs, self.chip_scale)
        return obs

    def _observation_buffer(self, given: np.ndarray | None, rows: int, name: str) -> np.ndarray:
        """``given`` if it can hold ``rows`` observations of ``observation_dtype``, a new zeroed array
        if None; anything else is refused, naming the dtype and shape wanted."""
        shape, dtype = (rows, self.observation_size), self.observation_dtype
        if given is None:
            return np.zeros(shape, dtype)
        if not isinstance(given, np.ndarray) or given.shape != shape or given.dtype != dtype \
                or not given.flags.c_contiguous or not given.flags.writeable:
            raise ValueError(f"{name} must be a writable C-contiguous {dtype} array of shape {shape} "
                             f"(observation_dtype={dtype.name!r}) or None")
        return given


    @property
    def thread_stats(self) -> dict[int, int]:
        """Kernel calls so far by the number of threads they ran on, e.g. ``{1: 40, 2: 9000}``."""
        return dict(self._threads.stats)

    # ----------------------------------------------------------- inspection
    def legal_actions(self, b: int) -> np.ndarray:
        """Table ``b``'s legal action indices, sorted (the engine's own list, copied)."""
        b = self.check_table(b)
        return self.LEGAL[b, : self.T[b, K.T_NLEGAL]].astype(np.int64)

    @property
    def current_player(self) -> np.ndarray:
        return self.T[:, K.T_TO_MOVE].copy()

    @property
    def chips(self) -> np.ndarray:
        return self.S[:, : self.num_players, K.S_CHIPS].copy()

    def deal_of(self, b: int) -> Deal:
        b = self.check_table(b)
        n = self.num_players
        hands = [[ALL_TILES[t] for t in range(K.NT) if (int(self.S[b, s, K.S_DEALT]) >> t) & 1] for s in range(n)]
        boneyard = [ALL_TILES[int(t)] for t in self.BONE[b, : self.T[b, K.T_BONE_END]]]
        return Deal.from_tiles(hands, boneyard)

    def reference_hand(self, b: int) -> Hand:
        """Table ``b``'s current hand rebuilt in the reference engine (same deal, same decisions).

        D16 penalties are replayed where they came, as many as there were; the fast engine
        keeps only their count (a penalty's effect does not depend on the action tried), so
        each is replayed as the lowest illegal action index at that point: chips, ledger and
        position are exact, the text of a penalised attempt may differ from the one tried.
        """
        b = self.check_table(b)
        n = self.num_players
        hand = Hand(self.deal_of(b), on_set=int(self.T[b, K.T_ON_SET]),
                    chips=[int(c) for c in self.S[b, :n, K.S_CHIPS_HAND]],
                    first_hand=bool(self.T[b, K.T_FIRST_HAND]), options=self.engine_options)
        count = int(self.T[b, K.T_NHIST])
        if count > K.MAX_HISTORY:
            raise RuntimeError(f"table {b}'s hand has {count} decisions, more than the {K.MAX_HISTORY} kept")
        for k in range(count + 1):
            penalties = int(self.PEN[b, k]) if self.penalty else 0
            if penalties:
                legal = set(legal_mask(hand).nonzero()[0].tolist())
                illegal = index_to_action(next(i for i in range(NUM_ACTIONS) if i not in legal), hand)
                for _ in range(penalties):
                    hand.step(illegal)
            if k < count:
                hand.step(index_to_action(int(self.H[b, k]), hand))
        return hand

    # ------------------------------------------------------- clone / restore
    def __getstate__(self):  # the threads' timings belong to this process and its machine
        state = dict(self.__dict__)
        del state["_threads"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._threads = ThreadChoice(self.num_threads, self.num_envs)

    def clone(self) -> dict:
        """A snapshot of every table (arrays copied), for search."""
        return {name: getattr(self, name).copy() for name in ARRAYS}

    def restore(self, snapshot: dict) -> None:
        """Put a clone() back (checked first: a refused snapshot changes nothing)."""
        self._check_snapshot(snapshot, lambda name: getattr(self, name).shape, "clone()")
        for name in ARRAYS:
            getattr(self, name)[...] = snapshot[name]

    def clone_table(self, b: int) -> dict:
        b = self.check_table(b)
        return {name: getattr(self, name)[b].copy() for name in ARRAYS}

    def restore_table(self, b: int, snapshot: dict) -> None:
        """Put a single-table snapshot (from any table of a batch with the same player count and
        options) into table ``b`` (checked first: a refused snapshot changes nothing)."""
        b = self.check_table(b)
        self._check_snapshot(snapshot, lambda name: getattr(self, name).shape[1:], "clone_table()")
        for name in ARRAYS:
            getattr(self, name)[b] = snapshot[name]

    def _check_snapshot(self, snapshot, shape_of, made_by: str, exact_deal: bool = True) -> None:
        if not isinstance(snapshot, dict) or set(snapshot) != set(ARRAYS):
            keys = sorted(snapshot) if isinstance(snapshot, dict) else type(snapshot).__name__
            raise ValueError(f"a snapshot must be a dict from {made_by} with keys {', '.join(ARRAYS)}; got {keys}")
        for name in ARRAYS:
            want, got = getattr(self, name), snapshot[name]
            # (a table's R is a numpy scalar, which has a shape and dtype too)
            if not isinstance(got, (np.ndarray, np.generic)) or got.shape != shape_of(name) \
                    or got.dtype != want.dtype:
                shown = f"{got.dtype} {got.shape}" if isinstance(got, (np.ndarray, np.generic)) else type(got).__name__
                why = " (PEN's width depends on illegal_action)" if name == "PEN" else ""
                raise ValueError(f"snapshot array {name} must be {want.dtype} of shape {shape_of(name)} "
                                 f"(as {made_by} makes it for these tables){why}, got {shown}")
        # Every array has the same shape for 3, 4 and 5 players: the deal tells them apart. A
        # table that has started holds 8-n dealt tiles at each of its n seats and none beyond.
        n = self.num_players
        dealt = np.bitwise_count(snapshot["S"][..., K.S_DEALT].astype(np.uint32)).reshape(-1, K.MAX_SEATS)
        fresh = (dealt == 0).all(axis=1)  # never reset: all zeros, fits any batch
        # (without exact_deal, dealt tiles at exactly the first n seats: a search's determinized
        # tables may hold any dealt sets, only the player count is checked)
        held = (dealt[:, :n] == 8 - n) if exact_deal else (dealt[:, :n] > 0)
        ok = fresh | (held.all(axis=1) & (dealt[:, n:] == 0).all(axis=1))
        if not ok.all():
            row = dealt[int(np.flatnonzero(~ok)[0])]
            seats = int((row > 0).sum())
            got = f"a {seats}-player table" if seats in (3, 4, 5) and (row[:seats] == 8 - seats).all() \
                else f"no table of any player count (dealt tiles per seat: {row.tolist()})"
            raise ValueError(f"the snapshot is of {got}, these tables are for {n} players")

    @property
    def nbytes(self) -> int:
        return SCHEMA.nbytes(self.num_envs, self.penalty)

    # =====================================================================================
    # Public accessors: the only way in for consumers (agents/, train/, benchmarks/; issue 14).
    # Outside nos_env nothing reads the state arrays (T, S, ...) or imports the kernels:
    # everything a tournament, a research run, self-play or a search needs is here, by name.
    # Each accessor checks its input first (a refused call changes nothing) and returns a copy
    # or a read-only view; a view stays valid until the next call that changes the tables
    # (step, reset_tables, load_deal, restore*, set_hidden, set_random_state, seed*).
    # =====================================================================================

    #: The action that leaves a table as it is for one ``step(..., allow_idle=True)``: zero
    #: rewards, not terminated, its observation row not written (self-play steps only the
    #: tables whose seat to move is an opponent).
    IDLE = K.IDLE
    #: Phase names; :attr:`phase` holds their indices ("over": the hand has ended).
    PHASES = PHASES
    #: Payment reasons, the last axis of :attr:`EpisodeStats.net_by_reason`.
    REASONS = K.REASONS


    @property
    def phase(self) -> np.ndarray:
        """Each table's phase as an index into :attr:`PHASES`, int64 [B] (a copy)."""
        return self.T[:, K.T_PHASE].astype(np.int64)

    @property
    def episode_over(self) -> np.ndarray:
        """bool [B]: the table's episode has ended and it waits (a step without autoreset ended
        it); ``current_player`` is -1 there and only ``reset_tables`` starts it again."""
        return self.T[:, K.T_DONE] != 0

    @property
    def hand_index(self) -> np.ndarray:
        """int64 [B]: which hand of its episode each table plays (0 for the first)."""
        return self.T[:, K.T_HAND_INDEX].astype(np.int64)

    @property
    def set_tile(self) -> np.ndarray:
        """int64 [B]: the tile index (``tiles.ALL_TILES``) set in each table's hand, -1 before the set."""
        return self.T[:, K.T_SET_TILE].astype(np.int64)

    @property
    def episode_start_chips(self) -> np.ndarray:
        """int64 [B, n]: each seat's chips when the table's episode began (``chips`` is now)."""
        return self.S[:, : self.num_players, K.S_CHIPS_EPISODE].astype(np.int64)

    @property
    def hand_start_chips(self) -> np.ndarray:
        """int64 [B, n]: each seat's chips when the table's current hand began."""
        return self.S[:, : self.num_players, K.S_CHIPS_HAND].astype(np.int64)

    @property
    def dealt_tiles(self) -> np.ndarray:
        """int64 [B, n]: each seat's dealt tiles in the current hand, as sets (bit t: ``ALL_TILES[t]``)."""
        return self.S[:, : self.num_players, K.S_DEALT].astype(np.int64)

    @property
    def hands(self) -> np.ndarray:
        """int64 [B, n]: each seat's hand now, as sets (bit t: ``ALL_TILES[t]``). Hidden
        information: for a critic that sees every hand during training (train/privileged.py),
        never for an agent's decision."""
        return self.S[:, : self.num_players, K.S_HAND].astype(np.int64)

    @property
    def boneyard_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(top, end), int64 [B] each: the tiles still in each boneyard are columns ``top`` to
        ``end - 1`` of :meth:`boneyard_order`, the next draw takes column ``top`` (while more than
        two are left, the rules' section 7) and the last two are never drawn."""
        return self.T[:, K.T_BONE_TOP].astype(np.int64), self.T[:, K.T_BONE_END].astype(np.int64)

    def boneyard_order(self, size: int | None = None) -> np.ndarray:
        """int64 [B, size]: each table's boneyard as dealt, tile indices top first (``size``
        defaults to the tiles a deal leaves in the boneyard for these player counts)."""
        full = K.NT - self.num_players * (8 - self.num_players)
        size = full if size is None else size
        if not is_integer(size) or not 0 <= size <= full:
            raise ValueError(f"size must be an integer 0..{full} (the boneyard of a {self.num_players}-player "
                             f"deal), got {size!r}")
        return self.BONE[:, : int(size)].astype(np.int64)

    def observe_rows(self, rows, seats, out: np.ndarray | None = None) -> np.ndarray:
        """The observation of ``seats[i]`` at table ``rows[i]``, [R, D] of ``observation_dtype``
        (``encoding.py``), written into ``out`` if given (that dtype and shape, C-contiguous, writable).
        A seat of -1 (nobody: a finished table waiting) gives an all-zero row."""
        rows = self.check_rows(rows)
        seats = np.asarray(seats)
        if seats.shape != rows.shape or not (np.issubdtype(seats.dtype, np.integer) or seats.size == 0) \
                or ((seats < -1) | (seats >= self.num_players)).any():
            raise ValueError(f"seats must be an integer array with one seat 0..{self.num_players - 1} (or -1) per "
                             f"row, shape {rows.shape}; got {seats!r}")
        out = self._observation_buffer(out, len(rows), "out")
        seats = seats.astype(np.int64)
        nobody = seats < 0
        # The kernel encodes whole batches: the chosen rows are gathered (copies), encoded, and
        # nobody's rows zeroed afterwards (encode needs a real seat).
        K.observe_batch(self.T[rows], self.S[rows], self.A[rows], self.L[rows], self.num_players,
                          np.maximum(seats, 0), out, self.chip_scale)
        out[nobody] = 0
        return out

    def episode_stats(self, rows) -> "EpisodeStats":
        """Statistics of the episodes that finished at ``rows`` (tables whose ``terminated`` was True
        in the last ``step``; a row keeps its values until the table finishes again), by name."""
        rows = self.check_rows(rows)
        if self._out is None:
            raise RuntimeError("no episode has finished yet: episode_stats reads what step() reported")
        stats = self.final_stats[rows]
        n, reasons = self.num_players, len(K.REASONS)
        return EpisodeStats(
            num_players=n,
            announcement=stats[:, K.F_ANN].astype(np.int64),
            setter=stats[:, K.F_ON_SET].astype(np.int64),
            end=stats[:, K.F_END].astype(np.int64),
            close_right=stats[:, K.F_CLOSE_RIGHT].astype(np.int64),
            close_wrong=stats[:, K.F_CLOSE_WRONG].astype(np.int64),
            net_by_reason=stats[:, K.F_PAY:].reshape(len(rows), K.MAX_SEATS, reasons)[:, :n].astype(np.int64),
        )

    def seed_tables(self, tables, seeds) -> None:
        """Seed the random stream of each of ``tables`` with its own ``seeds[i]`` (SplitMix64 seeded
        as ``rng.seed_state``): tables given the same seed deal the same hands from then on
        (duplicate tournaments). Takes effect at the tables' next deal."""
        tables = self.check_rows(tables, "tables")
        if np.ndim(seeds) != 1 or len(seeds) != len(tables) or not all(is_integer(s) for s in seeds):
            raise ValueError(f"seeds must be a 1-d sequence of integers, one per table ({len(tables)}), got {seeds!r}")
        states = np.array([seed_state(int(s)) for s in seeds], np.uint64)
        self.R[tables] = states

    def set_random_state(self, states, tables=None) -> None:
        """Set the raw SplitMix64 state (uint64) of each of ``tables`` (all by default)."""
        tables = self.check_rows(tables, "tables")
        states = np.asarray(states)
        if states.dtype != np.uint64 or states.shape != tables.shape:
            raise ValueError(f"states must be a uint64 array of shape {tables.shape} (one per table), got "
                             f"{states.dtype} {states.shape}")
        self.R[tables] = states

    # ------------------------------------------------------ search: rollouts from a position
    def rollout_snapshot(self, b: int) -> dict:
        """``clone_table(b)`` made the start of rollouts: the current hand is the episode's last
        (the table waits when it ends), its history, pending payments and final counts cleared."""
        snap = self.clone_table(b)
        _make_rollout_start(snap["T"], snap["S"], snap["H"])
        return snap

    def copy_rollout_starts(self, source: "FastTables", source_rows, rows) -> None:
        """Tables ``rows`` of this batch become rollout starts of ``source``'s tables ``source_rows``
        (``rows[i]`` gets what ``restore_table(rows[i], source.rollout_snapshot(source_rows[i]))``
        gives, for many rows at once, the real hidden tiles included): exact copies whose hand is
        their episode's last, history, pending payments and final counts cleared. ``source`` may
        be in the other ``illegal_action`` mode when those tables took no D16 penalty this hand
        (a labeller plays its copies in penalty mode from tables in raise mode). Checked first."""
        if not isinstance(source, FastTables) or source.num_players != self.num_players:
            raise ValueError(f"source must be FastTables of {self.num_players} players, got "
                             f"{getattr(source, 'num_players', type(source).__name__)}")
        source_rows = source.check_rows(source_rows)
        rows = self.check_rows(rows)
        if source_rows.shape != rows.shape:
            raise ValueError(f"source_rows and rows must have the same length, got {len(source_rows)} and {len(rows)}")
        same_pen = source.PEN.shape[1:] == self.PEN.shape[1:]
        if not same_pen and source.PEN[source_rows].any():
            raise ValueError("a source table took a D16 penalty this hand: its copy needs tables in the same "
                             "illegal_action mode")
        for name in ARRAYS:
            if name == "PEN" and not same_pen:
                self.PEN[rows] = 0
            else:
                getattr(self, name)[rows] = getattr(source, name)[source_rows]
        T, S, H = self.T[rows], self.S[rows], self.H[rows]
        _make_rollout_start(T, S, H)
        self.T[rows], self.S[rows], self.H[rows] = T, S, H

    def restore_all(self, snapshot: dict) -> None:
        """Put one single-table snapshot (``clone_table``, ``rollout_snapshot``) into every table
        (checked first: a refused snapshot changes nothing). The snapshot may come from tables with
        the other ``illegal_action`` option when its hand took no D16 penalty (as a
        ``rollout_snapshot``: a search plays rollouts in penalty mode from a table in raise mode)."""
        pen = snapshot.get("PEN") if isinstance(snapshot, dict) else None
        if isinstance(pen, np.ndarray) and pen.dtype == self.PEN.dtype and pen.ndim == 1 \
                and pen.shape != self.PEN.shape[1:] and not pen.any():
            snapshot = {**snapshot, "PEN": np.zeros(self.PEN.shape[1:], self.PEN.dtype)}
        self._check_snapshot(snapshot, lambda name: getattr(self, name).shape[1:], "clone_table()", exact_deal=False)
        for name in ARRAYS:
            getattr(self, name)[...] = snapshot[name]

    def set_hidden(self, seats, hands, dealt, boneyard) -> None:
        """Replace what the seat to move cannot see, at every table (a determinization, D17).

        ``seats``: the seats whose tiles are replaced; ``hands`` and ``dealt`` int64 [B, len(seats)]:
        their hands now and their dealt tiles, as tile sets (bit t: ``ALL_TILES[t]``);
        ``boneyard`` [B, left]: the undrawn boneyard, top first (``left`` = tiles still in every
        table's boneyard; the drawn slots are cleared). The masks are recomputed from the new
        hands. Everything is checked before a table changes."""
        B, n = self.num_envs, self.num_players
        seats = np.asarray(seats)
        if seats.ndim != 1 or not (np.issubdtype(seats.dtype, np.integer) or seats.size == 0) \
                or ((seats < 0) | (seats >= n)).any() or len(set(seats.tolist())) != len(seats):
            raise ValueError(f"seats must be distinct seat numbers 0..{n - 1}, got {seats!r}")
        limit = 1 << K.NT
        for name, arr in (("hands", hands), ("dealt", dealt)):
            arr = np.asarray(arr)
            if not np.issubdtype(arr.dtype, np.integer) or arr.shape != (B, len(seats)) \
                    or ((arr < 0) | (arr >= limit)).any():
                raise ValueError(f"{name} must be integer tile sets 0..2**{K.NT}-1 of shape ({B}, {len(seats)}), "
                                 f"got {arr.dtype} {arr.shape}")
        top, end = self.T[:, K.T_BONE_TOP], self.T[:, K.T_BONE_END]
        left = end - top
        if (left != left[0]).any():
            raise ValueError("set_hidden needs every table's boneyard at the same point (restore_all first)")
        boneyard = np.asarray(boneyard)
        if not np.issubdtype(boneyard.dtype, np.integer) or boneyard.shape != (B, int(left[0])) \
                or ((boneyard < 0) | (boneyard >= K.NT)).any():
            raise ValueError(f"boneyard must be tile indices 0..{K.NT - 1} of shape ({B}, {int(left[0])}) (the tiles "
                             f"left in the boneyard), got {boneyard.dtype} {boneyard.shape}")
        for i, s in enumerate(seats):
            self.S[:, s, K.S_HAND] = np.asarray(hands)[:, i]
            self.S[:, s, K.S_DEALT] = np.asarray(dealt)[:, i]
        t0, t1 = int(top[0]), int(end[0])
        self.BONE[:, :] = 0
        self.BONE[:, t0:t1] = boneyard
        _compute_masks(self.T, self.S, self.A, self.MASK, self.LEGAL, n)

    def determinize(self, snapshot: dict, seats, hands, dealt, boneyard, sample_of_row, states) -> None:
        """A search's scratch batch in one compiled pass (D17): every table becomes ``snapshot``
        (``restore_all``) with sample ``sample_of_row[b]``'s hidden tiles (``set_hidden``: ``hands``
        and ``dealt`` int64 [K, len(seats)], ``boneyard`` [K, left], one row per sample, not per
        table) and random state ``states[b]`` (``set_random_state``); the masks are the snapshot's
        (the seat to move's legal actions do not depend on hidden tiles; checked on one table). The
        same tables as those three calls with the samples repeated per table (tests/test_search_fast.py),
        without building the repeated arrays or passing over the batch four times. Everything is
        checked before a table changes."""
        self.determinize_parts([(snapshot, seats, hands, dealt, boneyard, sample_of_row)], states)

    def determinize_parts(self, parts, states) -> None:
        """:meth:`determinize` for several positions at once (a search's decisions at several tables
        batched into one scratch batch): ``parts`` is a list of ``(snapshot, seats, hands, dealt,
        boneyard, sample_of_row)`` as :meth:`determinize` takes them; part d fills the next
        ``len(sample_of_row)`` tables, in order, and together they fill the batch. ``states``:
        uint64 [B], one per table."""
        B, n = self.num_envs, self.num_players
        if not isinstance(parts, (list, tuple)) or not parts:
            raise ValueError("parts must be a non-empty list of (snapshot, seats, hands, dealt, boneyard, "
                             "sample_of_row)")
        checked = [self._determinize_part(part) for part in parts]
        rows = sum(len(c[-1]) for c in checked)
        if rows != B:
            raise ValueError(f"the parts' sample_of_row fill {rows} tables; the batch has {B}")
        states = np.asarray(states)
        if states.dtype != np.uint64 or states.shape != (B,):
            raise ValueError(f"states must be a uint64 array of shape ({B},) (one per table), got "
                             f"{states.dtype} {states.shape}")
        if len(checked) == 1:  # (one position: views, no copies)
            stacked = {name: checked[0][0][name][None] for name in ARRAYS if name not in ("R", "BONE")}
            seats, hands, dealt = checked[0][1][None], checked[0][2], checked[0][3]
        else:
            stacked = {name: np.stack([c[0][name] for c in checked]) for name in ARRAYS if name not in ("R", "BONE")}
            seats = np.stack([c[1] for c in checked])
            hands = np.concatenate([c[2] for c in checked])
            dealt = np.concatenate([c[3] for c in checked])
        width = max(c[4].shape[1] for c in checked)
        boneyard = np.zeros((len(hands), max(width, 1)), np.int8)
        left = np.zeros(len(hands), np.int64)
        first, part_of_row, sample_of_row = 0, [], []
        for d, c in enumerate(checked):
            k = len(c[2])
            boneyard[first:first + k, :c[4].shape[1]] = c[4]
            left[first:first + k] = c[4].shape[1]
            sample_of_row.append(c[5] + first)
            part_of_row.append(np.full(len(c[5]), d, np.int64))
            first += k
        wrong = _determinize_rows(self.T, self.S, self.A, self.L, self.BONE, self.R, self.MASK, self.LEGAL, self.H,
                                  self.PEN, stacked["T"], stacked["S"], stacked["A"], stacked["L"], stacked["MASK"],
                                  stacked["LEGAL"], stacked["H"], stacked["PEN"], seats, hands, dealt, boneyard, left,
                                  np.concatenate(sample_of_row), np.concatenate(part_of_row), states, n)
        if wrong >= 0:  # (the tables are written by then: the snapshot's mask is not its own table's)
            raise RuntimeError(f"table {wrong}: the snapshot's mask is not what its position allows")

    def _determinize_part(self, part):
        """One part of determinize_parts, checked: (snapshot, seats, hands, dealt, boneyard, sample_of_row)
        as int64/int8 arrays (the snapshot's PEN fitted to these tables, as restore_all does)."""
        n = self.num_players
        if not isinstance(part, (list, tuple)) or len(part) != 6:
            raise ValueError("a part is (snapshot, seats, hands, dealt, boneyard, sample_of_row)")
        snapshot, seats, hands, dealt, boneyard, sample_of_row = part
        pen = snapshot.get("PEN") if isinstance(snapshot, dict) else None
        if isinstance(pen, np.ndarray) and pen.dtype == self.PEN.dtype and pen.ndim == 1 \
                and pen.shape != self.PEN.shape[1:] and not pen.any():
            snapshot = {**snapshot, "PEN": np.zeros(self.PEN.shape[1:], self.PEN.dtype)}
        self._check_snapshot(snapshot, lambda name: getattr(self, name).shape[1:], "clone_table()", exact_deal=False)
        seats = np.asarray(seats)
        if seats.ndim != 1 or not (np.issubdtype(seats.dtype, np.integer) or seats.size == 0) \
                or ((seats < 0) | (seats >= n)).any() or len(set(seats.tolist())) != len(seats) \
                or len(seats) != n - 1:
            raise ValueError(f"seats must be {n - 1} distinct seat numbers 0..{n - 1} (the hidden hands), "
                             f"got {seats!r}")
        sample_of_row = np.asarray(sample_of_row)
        hands, dealt, boneyard = np.asarray(hands), np.asarray(dealt), np.asarray(boneyard)
        k = hands.shape[0] if hands.ndim == 2 else -1
        if not np.issubdtype(sample_of_row.dtype, np.integer) or sample_of_row.ndim != 1 \
                or ((sample_of_row < 0) | (sample_of_row >= max(k, 0))).any():
            raise ValueError(f"sample_of_row must be integers 0..{k - 1} (the samples), one per table, "
                             f"got {sample_of_row.dtype} {sample_of_row.shape}")
        limit = 1 << K.NT
        for name, arr in (("hands", hands), ("dealt", dealt)):
            if not np.issubdtype(arr.dtype, np.integer) or arr.shape != (k, len(seats)) \
                    or ((arr < 0) | (arr >= limit)).any():
                raise ValueError(f"{name} must be integer tile sets 0..2**{K.NT}-1 of shape ({k}, {len(seats)}) "
                                 f"(samples, seats), got {arr.dtype} {arr.shape}")
        left = int(snapshot["T"][K.T_BONE_END]) - int(snapshot["T"][K.T_BONE_TOP])
        if not np.issubdtype(boneyard.dtype, np.integer) or boneyard.shape != (k, left) \
                or ((boneyard < 0) | (boneyard >= K.NT)).any():
            raise ValueError(f"boneyard must be tile indices 0..{K.NT - 1} of shape ({k}, {left}) (the tiles "
                             f"left in the boneyard), got {boneyard.dtype} {boneyard.shape}")
        return (snapshot, seats.astype(np.int64), hands.astype(np.int64), dealt.astype(np.int64),
                boneyard.astype(np.int8), sample_of_row.astype(np.int64))

    def accepted_after(self, b: int, action: int) -> int | None:
        """The tiles some arm accepts (locks included) after the seat to move at table ``b``
        takes the legal play ``action``, as a tile set (bit t: ``ALL_TILES[t]``), or None if
        that play ends the hand. Table ``b`` is left as it is (the play is tried on a copy)."""
        b = self.check_table(b)
        if not is_integer(action) or not 0 <= action < NUM_ACTIONS or not self.MASK[b, action]:
            raise ValueError(f"action must be a legal action index at table {b} "
                             f"({self.legal_actions(b).tolist()}), got {action!r}")
        T, S, A, L, BONE = (getattr(self, name)[b : b + 1].copy() for name in ("T", "S", "A", "L", "BONE"))
        K.apply_action(T, S, A, L, BONE, 0, self.num_players, int(action))
        if T[0, K.T_PHASE] == K.P_OVER:
            return None
        return int(K._accepted_anywhere(T, A, 0))

    # ------------------------------------------------------ Tactics at engine speed
    #: The layout of the tuple the compiled Tactics takes (``agents.tactics.kernel_params()``
    #: builds it): its weights by name, then its lookup tables (games/nos/tactics.py).
    TACTICS_WEIGHTS = KT.WEIGHTS
    TACTICS_PARAMS = KT.PARAMS

    def tactics_actions(self, params: tuple, rows=None, noise=None, noise_scale: float = 1e-6) -> np.ndarray:
        """The Tactics agent's action (``agents/tactics.py``, compiled: games/nos/tactics.py) for the
        seat to move at each of ``rows`` (all tables by default), int64 [R]; -1 where nobody is to
        move. ``noise``: uint64 [B] tie-break streams (advanced in place), None for no noise (the
        first best action)."""
        rows = self.check_rows(rows)
        noise, noise_scale = _tactics_noise(noise, self.num_envs, noise_scale)
        out = np.empty(len(rows), np.int64)
        KT.tactics_tables(self.T, self.S, self.A, self.L, self.MASK, self.LEGAL, self.num_players, rows, params, noise,
                          noise_scale, out)
        return out

    def tactics_playout(self, params: tuple, noise=None, noise_scale: float = 1e-6, max_steps: int = 10_000) -> int:
        """Play every table on with Tactics at every seat until its episode is over (a search's
        scratch tables: one hand an episode, no autoreset), without leaving the compiled code:
        observe, decide, apply, settle. Chips are then read with :attr:`chips`. ``noise`` as in
        :meth:`tactics_actions`. Returns the number of decisions taken."""
        if self.hands_per_episode != 1:
            raise ValueError("tactics_playout plays one-hand episodes (hands_per_episode=1): a later hand "
                             f"would be dealt from the table's stream; these tables play {self.hands_per_episode}")
        noise, noise_scale = _tactics_noise(noise, self.num_envs, noise_scale)
        steps = KT.tactics_playout(self.T, self.S, self.A, self.L, self.BONE, self.R, self.MASK, self.LEGAL,
                                   self.num_players, self.auto_forced, params, noise, noise_scale, int(max_steps))
        if steps < 0:
            raise RuntimeError(f"table {-1 - steps} took more than {max_steps} decisions in a playout")
        return int(steps)


def _make_rollout_start(T, S, H) -> None:
    """A table's arrays (or many tables', leading axis) made the start of rollouts, in place:
    the current hand is the episode's last (the table waits when it ends), its history, pending
    payments and final counts cleared."""
    T[..., K.T_HANDS_LEFT] = 0  # the rollout ends with this hand
    T[..., K.T_NHIST] = 0
    H[...] = 0
    S[..., K.S_PENDING] = 0
    S[..., K.S_COUNT] = 0


def _tactics_noise(noise, rows: int, scale: float):
    if noise is None:
        return np.zeros(max(rows, 1), np.uint64), 0.0
    if not isinstance(noise, np.ndarray) or noise.dtype != np.uint64 or noise.shape != (rows,) \
            or not noise.flags.c_contiguous or not noise.flags.writeable:
        raise ValueError(f"noise must be a writable uint64 array of shape ({rows},) (tie-break streams), got {noise!r}")
    if not (isinstance(scale, (int, float)) and 0 <= scale <= 1e-3):
        raise ValueError(f"noise_scale must be a number 0..1e-3 (a tie-break), got {scale!r}")
    return noise, float(scale)


def accepted_after_plays(obs: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """For each observation row (float32 [R, OBSERVATION_SIZE]) and a play action of it (int [R]:
    PLAY0..PASS-1, either closing variant), the tiles some arm accepts after the play (locks
    included), as tile sets int64 [R], read from the observation alone: the same as
    :meth:`FastTables.accepted_after` on the table, unless the play ends the hand."""
    from .encoding import OBSERVATION_SIZE, PASS, PLAY0

    obs = np.ascontiguousarray(obs)
    actions = np.asarray(actions)
    if obs.dtype != np.float32 or obs.ndim != 2 or obs.shape[1] != OBSERVATION_SIZE:
        raise ValueError(f"obs must be float32 [R, {OBSERVATION_SIZE}], got {obs.dtype} {obs.shape}")
    if not np.issubdtype(actions.dtype, np.integer) or actions.shape != (obs.shape[0],) \
            or ((actions < PLAY0) | (actions >= PASS)).any():
        raise ValueError(f"actions must be play action indices {PLAY0}..{PASS - 1}, one per row, got {actions!r}")
    out = np.empty(obs.shape[0], np.int64)
    KT.accepted_after_rows(obs, actions.astype(np.int64), out)
    return out


#: The closing features' names, in the order of :func:`closing_features`' feature axis, and the plays
#: (tile, arm, side) of its play axis: what a policy reading them needs without the kernels.
CLOSING_FEATURES = KC.FEATURES
CLOSING_PLAYS = KC.NUM_PLAYS
#: The settlement features' names, the rows behind the closing features with ``settlement=True``.
SETTLEMENT_FEATURES = KC.SETTLEMENT_FEATURES


def closing_features(obs: np.ndarray, masks: np.ndarray, settlement: bool = False) -> np.ndarray:
    """Each play's closing features (games/nos/closing.py: ``KC.FEATURES``) for observation rows
    (float32 [R, OBSERVATION_SIZE]) and their masks ([R, NUM_ACTIONS], 0/1): float32
    [R, len(KC.FEATURES), KC.NUM_PLAYS], the play (tile, arm, side) ``i`` being actions
    ``PLAY0 + 2 * i`` and its close variant ``+ 1``; zeros where the close variant is not legal.
    With ``settlement`` the settlement features (``KC.SETTLEMENT_FEATURES``) follow as two more
    rows: [R, len(KC.ALL_FEATURES), KC.NUM_PLAYS]. Read from the seat's observation and mask
    alone (D17)."""
    from .encoding import OBSERVATION_SIZE

    obs = np.ascontiguousarray(obs)
    masks = np.asarray(masks)
    if obs.dtype != np.float32 or obs.ndim != 2 or obs.shape[1] != OBSERVATION_SIZE:
        raise ValueError(f"obs must be float32 [R, {OBSERVATION_SIZE}], got {obs.dtype} {obs.shape}")
    if masks.shape != (obs.shape[0], NUM_ACTIONS) or not (np.issubdtype(masks.dtype, np.integer)
                                                          or masks.dtype == np.bool_):
        raise ValueError(f"masks must be integer or bool [{obs.shape[0]}, {NUM_ACTIONS}] (one per row), "
                         f"got {masks.dtype} {masks.shape}")
    out = np.empty((obs.shape[0], KC.NUM_ALL_FEATURES if settlement else KC.NUM_FEATURES, KC.NUM_PLAYS), np.float32)
    KC.closing_features_rows(obs, np.ascontiguousarray(masks != 0, dtype=np.int8), out)
    return out


def tactics_rows(obs: np.ndarray, masks: np.ndarray, params: tuple, noise=None, noise_scale: float = 1e-6,
                 scores: np.ndarray | None = None) -> np.ndarray:
    """The compiled Tactics on observation rows: float32 [R, OBSERVATION_SIZE] and int8 masks
    [R, NUM_ACTIONS] give int64 [R] actions; ``scores`` (float64 [R, NUM_ACTIONS], optional) gets
    each considered action's score without noise (-inf elsewhere). ``noise`` as in
    :meth:`FastTables.tactics_actions`, one stream per row."""
    from .encoding import OBSERVATION_SIZE

    obs = np.ascontiguousarray(obs)
    masks = np.ascontiguousarray(masks)
    if obs.dtype != np.float32 or obs.ndim != 2 or obs.shape[1] != OBSERVATION_SIZE:
        raise ValueError(f"obs must be float32 [R, {OBSERVATION_SIZE}], got {obs.dtype} {obs.shape}")
    if masks.dtype != np.int8 or masks.shape != (obs.shape[0], NUM_ACTIONS):
        raise ValueError(f"masks must be int8 [{obs.shape[0]}, {NUM_ACTIONS}], got {masks.dtype} {masks.shape}")
    R = obs.shape[0]
    noise, noise_scale = _tactics_noise(noise, R, noise_scale)
    if scores is None:
        scores = np.empty((R, NUM_ACTIONS), np.float64)
    elif scores.dtype != np.float64 or scores.shape != (R, NUM_ACTIONS) or not scores.flags.c_contiguous:
        raise ValueError(f"scores must be a C-contiguous float64 array of shape ({R}, {NUM_ACTIONS})")
    out = np.empty(R, np.int64)
    KT.decide_rows(params, obs, masks, noise, noise_scale, out, scores)
    return out


@dataclass(frozen=True)
class EpisodeStats:
    """Finished episodes by name (:meth:`FastTables.episode_stats`), one entry per table asked for.

    The announcement, setter and end are of the episode's last hand; closings and nets count
    the whole episode."""

    num_players: int
    announcement: np.ndarray  # [R] index into announcements.ALL_ANNOUNCEMENTS
    setter: np.ndarray  # [R] the seat on set
    end: np.ndarray  # [R] 0 someone went out, 1 a closing, 2 blocked
    close_right: np.ndarray  # [R] correct closings, every seat together
    close_wrong: np.ndarray  # [R] wrong closings, every seat together
    net_by_reason: np.ndarray  # [R, n, len(FastTables.REASONS)] each seat's net chips by reason

    def closings_by_seat(self) -> tuple[np.ndarray, np.ndarray]:
        """Each seat's correct and wrong closings, int64 [R, n] each, for one-hand episodes.

        A correct closing pays the closer and ends the hand: at most one per hand, the closer's
        net for closings is positive. A wrong closing costs its closer WRONG_CLOSE_PAYMENT to each
        of the n-1 others (D14), so with W wrong closings in all a seat's net wrong-close chips
        are P*(W - n*w) for its own w: w = (P*W - net) / (P*n)."""
        n, pay = self.num_players, WRONG_CLOSE_PAYMENT
        net = self.net_by_reason
        wrong = (pay * self.close_wrong[:, None] - net[:, :, K.R_WRONG_CLOSE]) // (pay * n)
        right = (net[:, :, K.R_CLOSE] > 0).astype(np.int64)
        return right, wrong


@njit(cache=True)
def _determinize_rows(T, S, A, L, BONE, R, MASK, LEGAL, H, PEN, sT, sS, sA, sL, sMASK, sLEGAL, sH, sPEN,
                      seats, hands, dealt, boneyard, left, sample_of_row, part_of_row, states, n):
    """FastTables.determinize_parts' pass: table b = snapshot part_of_row[b] with sample sample_of_row[b]'s
    hidden tiles (the snapshot arrays stacked by part; seats by part; samples of every part in one list)."""
    for b in range(T.shape[0]):
        d = part_of_row[b]
        T[b] = sT[d]
        S[b] = sS[d]
        A[b] = sA[d]
        L[b] = sL[d]
        MASK[b] = sMASK[d]
        LEGAL[b] = sLEGAL[d]
        H[b] = sH[d]
        PEN[b] = sPEN[d]
        j = sample_of_row[b]
        for i in range(seats.shape[1]):
            S[b, seats[d, i], K.S_HAND] = np.int32(hands[j, i])
            S[b, seats[d, i], K.S_DEALT] = np.int32(dealt[j, i])
        BONE[b, :] = 0
        t0 = T[b, K.T_BONE_TOP]
        for i in range(left[j]):
            BONE[b, t0 + i] = boneyard[j, i]
        R[b] = states[b]
        # The seat to move's legal actions depend on its own tiles and the public structure only
        # (D17: it knows them), never on the hidden tiles replaced here, so every row keeps its
        # snapshot's mask: recomputed once per part, as a check, not once per row.
        if b == 0 or part_of_row[b - 1] != d:
            K.compute_mask(T, S, A, MASK, LEGAL, b, n)
            for a in range(MASK.shape[1]):
                if MASK[b, a] != sMASK[d, a]:
                    return b
    return -1


@njit(cache=True)
def _compute_masks(T, S, A, MASK, LEGAL, n):
    for b in range(T.shape[0]):
        K.compute_mask(T, S, A, MASK, LEGAL, b, n)
