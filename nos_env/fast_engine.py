"""The fast engine: B tables in numpy arrays, stepped by the numba kernels.

:class:`FastTables` owns the state arrays (see ``fast_kernels``) and the
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

import numpy as np

from . import fast_kernels as K
from .deal import Deal, check_num_players
from .encoding import NUM_ACTIONS, OBSERVATION_SIZE, index_to_action, legal_mask
from .engine import Hand
from .options import (CHIP_GUARD, Options, TableOptions, check_bool, check_chips, check_chips_in_guard, check_seed,
                      is_integer)
from .rng import seed_state
from .threads import PARALLEL_FROM, ThreadChoice, resolve
from .tiles import ALL_TILES, TILE_INDEX

ARRAYS = ("T", "S", "A", "L", "BONE", "R", "MASK", "LEGAL", "H", "PEN")
__all__ = ["ARRAYS", "PARALLEL_FROM", "FastTables"]


class FastTables:
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
    ):
        if not is_integer(num_envs) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        options = TableOptions(hands_per_episode, first_hand_rule, starting_chips, illegal_action, auto_forced,
                               chip_scale)
        seed = check_seed(seed)
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
        self.T = np.zeros((B, K.NUM_T), np.int32)
        self.S = np.zeros((B, K.MAX_SEATS, K.NUM_S), np.int32)
        self.A = np.zeros((B, K.MAX_ARMS, K.NUM_A), np.int32)
        self.L = np.zeros((B, K.NT, 3), np.int8)
        self.BONE = np.zeros((B, K.NT), np.int8)
        self.R = np.zeros(B, np.uint64)
        self.MASK = np.zeros((B, NUM_ACTIONS), np.int8)
        # The same legal actions as a sorted list per table (T_NLEGAL of them): sampling and
        # forced moves read it instead of scanning 557 mask bytes.
        self.LEGAL = np.zeros((B, NUM_ACTIONS), np.int16)
        # Legal decisions of each table's current hand, and where its D16 penalties came, for
        # rebuilding it in the reference engine (reference_hand).
        self.H = np.zeros((B, K.MAX_HISTORY), np.int16)
        # (raise mode has no penalties: one unused column instead of 258, 8 MiB less at B=4096)
        self.PEN = np.zeros((B, K.PEN_COLUMNS if self.penalty else 1), np.int64)
        self._threads = ThreadChoice(self.num_threads, B)
        self._out = None  # output buffers of step(), made on first use
        self._obs_out = None
        self._no_obs = np.zeros((1, OBSERVATION_SIZE), np.float32)  # never written (observe=False)
        self.seed(seed)

    @property
    def engine_options(self) -> Options:
        return Options(auto_forced=self.auto_forced, illegal="penalty" if self.penalty else "raise")

    def seed(self, seed: int | None) -> None:
        seed = check_seed(seed)
        if seed is None:
            seed = int(np.random.SeedSequence().entropy) & ((1 << 62) - 1)
        for b in range(self.num_envs):
            self.R[b] = np.uint64(seed_state(seed + b))

    def check_table(self, b: object) -> int:
        """A table index 0..B-1 as an int; negative indices are refused, not counted from the end."""
        if not is_integer(b) or not 0 <= b < self.num_envs:
            raise ValueError(f"a table index must be an integer 0..{self.num_envs - 1}, got {b!r}")
        return int(b)

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
        K.reset_batch(self.T, self.S, self.A, self.L, self.BONE, self.R, self.MASK, self.LEGAL, self.num_players,
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

        With ``allow_idle`` an action of ``fast_kernels.IDLE`` (-1) leaves its table as it
        is: zero rewards, not terminated, ``current`` unchanged and its ``obs`` row not written
        (it keeps the row of the table's last step, zeros before the first).

        Returns ``(rewards [B, 5] int chips, terminated [B] bool, final_chips [B, 5],
        current [B], obs [B, D] or None)``. With ``autoreset`` a finished table starts
        its next episode at once: ``current`` and ``obs`` then belong to the new one,
        ``final_chips`` holds the finished episode's chips, and chips the new episode
        pays before its first decision (D12) come with the table's next step.
        ``final_chips`` rows are written only for tables that finished in this call (other
        rows keep older values). For finished tables, ``self.final_stats`` [B, NUM_F] holds the episode's
        announcement, setter, end, closings and net chips by reason (``fast_kernels.F_*``).

        The returned arrays are buffers reused by the next call (writing a fresh
        17 MB observation batch every step costs more than stepping): copy what you keep.
        """
        actions = self.check_actions(actions, allow_idle)
        B = self.num_envs
        if self._out is None:
            self._out = (np.empty((B, K.MAX_SEATS), np.int32), np.zeros(B, np.int8),
                         np.zeros((B, K.MAX_SEATS), np.int32), np.empty(B, np.int32),
                         np.zeros((B, K.NUM_F), np.int32))
        if observe and self._obs_out is None:
            self._obs_out = np.zeros((B, OBSERVATION_SIZE), np.float32)
        rewards, terminated, final_chips, current, self.final_stats = self._out
        obs = self._obs_out if observe else self._no_obs
        self._threads.run("step+obs" if observe else "step", K.step_batch, K.step_batch_parallel,
                          self.T, self.S, self.A, self.L, self.BONE, self.R, self.MASK, self.LEGAL, self.H, self.PEN,
                          self.num_players, actions, self.auto_forced, self.penalty, self.hands_per_episode,
                          self.first_hand_rule, self.starting_chips, rewards, terminated, final_chips,
                          self.final_stats, current, obs, observe, self.chip_scale, autoreset)
        return rewards, terminated.view(np.bool_), final_chips, current, (obs if observe else None)

    def observe(self, seats, obs: np.ndarray | None = None) -> np.ndarray:
        seats = np.asarray(seats)
        if seats.shape != (self.num_envs,) or not np.issubdtype(seats.dtype, np.integer) \
                or ((seats < 0) | (seats >= self.num_players)).any():
            raise ValueError(f"seats must be an integer array of shape ({self.num_envs},) with seat numbers "
                             f"0..{self.num_players - 1}, got {seats!r}")
        seats = seats.astype(np.int64)
        if obs is None:
            obs = np.zeros((self.num_envs, OBSERVATION_SIZE), np.float32)
        elif not isinstance(obs, np.ndarray) or obs.shape != (self.num_envs, OBSERVATION_SIZE) \
                or obs.dtype != np.float32 or not obs.flags.c_contiguous or not obs.flags.writeable:
            raise ValueError(f"obs must be a writable C-contiguous float32 array of shape "
                             f"({self.num_envs}, {OBSERVATION_SIZE}) or None")
        self._threads.run("observe", K.observe_batch, K.observe_batch_parallel,
                          self.T, self.S, self.A, self.L, self.num_players, seats, obs, self.chip_scale)
        return obs

    def sample_legal(self, state: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """A uniformly random legal action per table (``fast_kernels.IDLE`` for a finished table
        waiting without autoreset), drawn from ``state``: the caller's own SplitMix64 streams,
        uint64 [B], advanced in place (``rng.seed_state(s)`` seeds one). Returns ``out`` (int64 [B])."""
        B = self.num_envs
        if not isinstance(state, np.ndarray) or state.dtype != np.uint64 or state.shape != (B,):
            raise ValueError(f"state must be a uint64 array of shape ({B},), got "
                             f"{getattr(state, 'dtype', type(state).__name__)} {getattr(state, 'shape', '')}")
        if out is None:
            out = np.empty(B, np.int64)
        elif not isinstance(out, np.ndarray) or out.dtype != np.int64 or out.shape != (B,):
            raise ValueError(f"out must be an int64 array of shape ({B},)")
        self._threads.run("sample", K.sample_legal_serial, K.sample_legal, self.T, self.LEGAL, state, out)
        return out

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

    def _check_snapshot(self, snapshot, shape_of, made_by: str) -> None:
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
        ok = fresh | ((dealt[:, :n] == 8 - n).all(axis=1) & (dealt[:, n:] == 0).all(axis=1))
        if not ok.all():
            row = dealt[int(np.flatnonzero(~ok)[0])]
            seats = int((row > 0).sum())
            got = f"a {seats}-player table" if seats in (3, 4, 5) and (row[:seats] == 8 - seats).all() \
                else f"no table of any player count (dealt tiles per seat: {row.tolist()})"
            raise ValueError(f"the snapshot is of {got}, these tables are for {n} players")

    @property
    def nbytes(self) -> int:
        return sum(getattr(self, name).nbytes for name in ARRAYS)
