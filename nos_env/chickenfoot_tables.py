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
from .schema_tables import SchemaTables

__all__ = ["ChickenfootTables"]


def _suits(tiles) -> np.ndarray:
    """uint64 [M+1, W]: the tiles carrying each number, as W-word sets."""
    out = np.zeros((tiles.max_pip + 1, tiles.words), np.uint64)
    for t, (a, b) in enumerate(tiles.tiles):
        for d in {a, b}:
            out[d, t >> 6] |= np.uint64(1 << (t & 63))
    return out


class ChickenfootTables(SchemaTables):
    IDLE = K.IDLE
    game, K, enc, make_rules = "chickenfoot", K, enc, make_chickenfoot_rules
    over = "match"
    _observed = ("T", "S", "SSET", "A", "L")

    def _set_up(self, rules) -> None:
        self.SUIT = _suits(rules.tiles)
        self.DOUBLE_OF = rules.tiles.DOUBLE_OF.astype(np.int64)
        self._k = rules.hand_size
        self._hands = rules.num_hands
        self._redeal = rules.missing_set == "redeal"
        self._O = offsets(rules)

    def _kernel_args(self):
        return (self.num_players, self._k, self._hands, self._redeal, self.LOW, self.HIGH, self.SUIT, self.DOUBLE_OF)

    def _reset_args(self):
        return (self.T, self.S, self.SSET, self.A, self.L, self.BONE, self.R, self.MASK, self.LEGAL, self.H,
                *self._kernel_args())

    def _step_args(self, actions):
        # step() (SchemaTables): points are minus each seat's penalties when a hand ends (CK12)
        return (self.T, self.S, self.SSET, self.A, self.L, self.BONE, self.R, self.MASK, self.LEGAL, self.H, self.PEN,
                *self._kernel_args(), actions)

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
        K.load_hand(self.T, self.S, self.SSET, self.A, self.L, self.BONE, self.R, self.MASK, self.LEGAL, self.H, b,
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
