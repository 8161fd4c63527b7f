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
from .kernels.core import fresh_record
from .schema_tables import SchemaTables

__all__ = ["BlindTables"]


@njit(cache=True)
def _start_loaded(T, S, A, L, MASK, LEGAL, H, b, n, starter, optional, LOW, HIGH):
    K.start_game(T, S, A, L, b, n, T[b, K.T_BONE_TOP] // n, starter, optional, LOW, HIGH)
    K.compute_mask(T, A, MASK, LEGAL, b, optional, LOW, HIGH)
    fresh_record(T, LEGAL, H, b)


class BlindTables(SchemaTables):
    IDLE = K.IDLE
    game, K, enc, make_rules = "blind", K, enc, make_blind_rules
    deals_on_seed = False  # a seed takes effect at the next deal
    _observed = ("T", "S", "A", "L")

    def _set_up(self, rules) -> None:
        self._O = offsets(rules)
        self._first = -1 if rules.first_seat is None else rules.first_seat
        self._optional = bool(rules.optional_play)

    def _reset_args(self):
        return (self.T, self.S, self.A, self.L, self.BONE, self.R, self.MASK, self.LEGAL, self.H, self.num_players,
                self._first, self._optional, self.LOW, self.HIGH)

    def _step_args(self, actions):
        # step() (SchemaTables): points are 1 for the winner when a game ends (BD8)
        return (self.T, self.S, self.A, self.L, self.BONE, self.R, self.MASK, self.LEGAL, self.H, self.PEN,
                self.num_players, actions, self._first, self._optional, self.LOW, self.HIGH)

    # ------------------------------------------------------------ inspection

    @property
    def scores(self) -> np.ndarray:
        """int64 [B, n]: each seat's score in the current game (1 for its winner once over)."""
        return self.S[:, : self.num_players, K.S_CHIPS].astype(np.int64)

    def scores_at(self, rows: np.ndarray) -> np.ndarray:
        """``scores[rows]``, read from those rows only."""
        return self.S[rows, : self.num_players, K.S_CHIPS].astype(np.int64)

    @property
    def skipped(self) -> np.ndarray:
        """int64 [B]: deals played out without a decision and dealt again, at each table, since
        it was last seeded (as ``BlindGame.skipped`` since its last seed)."""
        return self.T[:, K.T_SKIPPED].astype(np.int64)

    # A seed starts the count again, so a table's state after a seed and a reset depends on the
    # seed alone (tests/test_reset_state.py).
    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        self.T[:, K.T_SKIPPED] = 0

    def seed_tables(self, rows, seeds) -> None:
        super().seed_tables(rows, seeds)
        self.T[self.check_rows(rows, "rows"), K.T_SKIPPED] = 0

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
        _start_loaded(self.T, self.S, self.A, self.L, self.MASK, self.LEGAL, self.H, b, n, probe.starter, self._optional,
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
