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
from .kernels.core import fresh_record
from .rng import SplitMix64
from .schema_tables import SchemaTables

__all__ = ["MexicanTrainTables"]


class MexicanTrainTables(SchemaTables):
    IDLE = K.IDLE
    game, K, enc, make_rules = "mexican_train", K, enc, make_mexican_train_rules
    _observed = ("T", "S", "A", "SSET", "TSET")

    def _set_up(self, rules) -> None:
        tiles = rules.tiles
        self.DOUBLE_OF = tiles.DOUBLE_OF.astype(np.int64)
        #: SUIT[v]: the tiles carrying number v, as a bit set of words
        self.SUIT = np.array([tiles.to_words(sum(1 << t for t in range(tiles.num_tiles) if v in tiles.tiles[t]))
                              for v in range(tiles.max_pip + 1)], np.uint64)
        self._O = offsets(rules)
        self._k = rules.hand_size
        self._rounds = rules.num_rounds
        self._first = -1 if rules.first_seat is None else rules.first_seat

    def _reset_args(self):
        return (self.T, self.S, self.A, self.L, self.SSET, self.TSET, self.BONE, self.R, self.MASK, self.LEGAL, self.H,
                self.num_players, self._k, self._rounds, self._first, self.LOW, self.HIGH, self.SUIT, self.DOUBLE_OF)

    def _step_args(self, actions):
        # step() (SchemaTables): points are minus each seat's pips left when a round ends (MT11)
        return (self.T, self.S, self.A, self.L, self.SSET, self.TSET, self.BONE, self.R, self.MASK, self.LEGAL,
                self.H, self.PEN, self.num_players, self._k, actions, self._rounds, self._first, self.LOW, self.HIGH,
                self.SUIT, self.DOUBLE_OF)

    # ------------------------------------------------------------ inspection
    @property
    def hand_sets(self) -> np.ndarray:
        """uint64 [B, seats, words]: each seat's hand as a bit set (tile t is bit t % 64 of word
        t // 64), a read-only view (the privileged critic reads it: train/privileged.py)."""
        view = self.SSET[:, :, K.S_HAND, :]
        view.flags.writeable = False
        return view


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
        _load(self.T, self.S, self.A, self.L, self.SSET, self.TSET, self.BONE, self.MASK, self.LEGAL, self.H, b, n, k,
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
def _load(T, S, A, L, SSET, TSET, BONE, MASK, LEGAL, H, b, n, k, rounds, engine, engine_pip, first, starter, index, order,
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
    fresh_record(T, LEGAL, H, b)
