"""The layout of a family hand: the set tile, its arms, open ends, matching and spinners.

Words as on docs/rules/family.md, "The layout and matching": a *line* has arms L0, L1 on the
set tile's two sides (L0 the side of the lower number); a *spinner* set tile (Cross, Double-
Nine Cross) has C0..C3; later spinners (Double-Nine Cross DN3, Five Up FU3) open two new arms
numbered in order of creation (F7). Arms are never merged (F6).

Tiles are indices into the game's tile set (``nos_env.kernels.tilesets``); ``placer`` is a seat.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..kernels.tilesets import tile_set
from .rules import FamilyRules

#: Matador's wild tiles [0-0], [1-6], [2-5], [3-4] (MA2), as (low, high).
MATADOR_TILES = frozenset({(0, 0), (1, 6), (2, 5), (3, 4)})


@dataclass
class Arm:
    """One arm: where it starts (``origin``, the set tile or the spinner double it grows from),
    its open end, and the tiles on it in order as (tile, placer)."""

    number: int
    origin: int
    open: int
    tiles: list = field(default_factory=list)

    @property
    def last(self) -> int:
        """The tile the next tile is placed against: the arm's last tile, else its origin."""
        return self.tiles[-1][0] if self.tiles else self.origin


class Layout:
    """The tiles on the table and which tile fits where, for one hand of one game."""

    def __init__(self, rules: FamilyRules):
        self.rules = rules
        self.ts = tile_set(rules.max_pip)
        self.set_tile: int | None = None
        self.setter: int | None = None
        self.arms: list[Arm] = []
        #: doubles that spin (their crosswise arms are open): Five Up FU3, Double-Nine Cross DN3
        self.spinning: set[int] = set()
        #: the first double placed in the hand (Five Up's spinners="first", FU3)
        self.first_double: int | None = None
        #: who placed each tile on the table (the set included), tile -> seat
        self.placer: dict[int, int] = {}
        #: the arm each tile lies on (-1: the set tile)
        self.tile_arm: dict[int, int] = {}

    # -- tiles ------------------------------------------------------------------------------
    def tile(self, t: int) -> tuple[int, int]:
        return self.ts.tiles[t]

    def is_double(self, t: int) -> bool:
        a, b = self.ts.tiles[t]
        return a == b

    @property
    def cross_phase(self) -> bool:
        """Cross and Double-Nine Cross: until each of C0..C3 holds a tile (CR4)."""
        return self.rules.spinners in ("set", "every_after_cross") and self.set_tile is not None \
            and any(not arm.tiles for arm in self.arms[:4])

    def arm_playable(self, k: int) -> bool:
        """Whether arm k takes a tile now: it exists, and in the cross phase it is empty (CR4)."""
        if k >= len(self.arms):
            return False
        return not self.cross_phase or not self.arms[k].tiles

    # -- matching ---------------------------------------------------------------------------
    def outward_options(self, t: int, k: int) -> list[int]:
        """The numbers tile t may leave open on arm k (empty: it does not fit there).

        Equal matching (family page): the number against the open end equals it, the other is
        the new open end; a double leaves its own number. Sum of seven (MA1): the number against
        e makes 7 with it; a matador (MA2) fits any end and leaves either of its numbers."""
        if not self.arm_playable(k):
            return []
        a, b = self.ts.tiles[t]
        e = self.arms[k].open
        if self.rules.matching == "seven":
            if (a, b) in MATADOR_TILES:  # MA2: wild, placer picks the outward number
                return [a] if a == b else [a, b]
            if e == 0:  # MA2: an open 0 takes only a matador
                return []
            if a + e == 7:
                return [b]
            if b + e == 7:
                return [a]
            return []
        if a == e:
            return [b]
        if b == e:
            return [a]
        return []

    def fits_anywhere(self, t: int, arms=None) -> bool:
        ks = range(len(self.arms)) if arms is None else arms
        return any(self.outward_options(t, k) for k in ks)

    def fitting_tiles(self, tiles) -> list[int]:
        return [t for t in tiles if self.fits_anywhere(t)]

    def arms_ending_at(self, t: int) -> list[int]:
        """The arms whose open end is the tile t (its last tile, or its origin while empty):
        where F23's extra tile may go after t was placed."""
        return [arm.number for arm in self.arms if arm.last == t and self.arm_playable(arm.number)]

    # -- placing ----------------------------------------------------------------------------
    def place_set(self, t: int, seat: int) -> None:
        """The set tile: a line's L0/L1 (the lower number on L0), or Cross's four arms (CR2)."""
        a, b = self.ts.tiles[t]
        self.set_tile, self.setter = t, seat
        self.placer[t] = seat
        self.tile_arm[t] = -1
        if self.rules.spinners in ("set", "every_after_cross"):  # CR2, DN2: C0..C3 open at d
            self.arms = [Arm(k, t, a) for k in range(4)]
        else:
            self.arms = [Arm(0, t, a), Arm(1, t, b)]
        if a == b and self.first_double is None:
            self.first_double = t

    def place(self, t: int, k: int, outward: int, seat: int) -> None:
        """Put tile t on arm k leaving ``outward`` open (one of :meth:`outward_options`)."""
        arm = self.arms[k]
        against = arm.last
        was_cross_phase = self.cross_phase
        arm.tiles.append((t, seat))
        arm.open = outward
        self.placer[t] = seat
        self.tile_arm[t] = k
        double = self.is_double(t)
        if double and self.first_double is None:
            self.first_double = t
        spinners = self.rules.spinners
        if spinners == "every_after_cross" and double and not was_cross_phase:
            self._spin(t)  # DN3: every double after the cross phase opens two arms at once
        elif spinners in ("every", "first") and self.is_double(against) and against not in self.spinning:
            # FU3: the double the tile was placed against spins once a tile lies on it
            if spinners == "every" or against == self.first_double:
                self._spin(against)

    def _spin(self, d: int) -> None:
        """Open the double d's two crosswise sides as the next two arms (F7)."""
        self.spinning.add(d)
        e = self.ts.tiles[d][0]
        m = len(self.arms)
        assert m + 2 <= self.rules.num_arms, "more arms than the game allows (DN4, FU9)"
        self.arms += [Arm(m, d, e), Arm(m + 1, d, e)]

    # -- what the ends show -----------------------------------------------------------------
    def arm_double_end(self, k: int) -> bool:
        """Arm k's last tile is a double with nothing beyond it (counts twice in the scoring games)."""
        arm = self.arms[k]
        return bool(arm.tiles) and self.is_double(arm.tiles[-1][0])

    def on_table(self) -> list[int]:
        return list(self.placer)
