"""The layout: arms around the set tile, and which placements they accept.

Follows docs/rules/nos.md §3 (arms and matching), §4 (phases,
compulsory tiles, conditions, game 17's order, the triangle) and D4, D24.
Everything here is positional: whether an arm accepts a tile depends only on
the layout, never on who is asking, so the same code answers "is this play
legal" (section 7) and "is this closing correct" (D14).
"""

from __future__ import annotations

from dataclasses import dataclass

from .announcements import MATADOR, ORDINARY, GameSpec
from .tiles import MATADORS, TRIANGLE_MATADORS, Tile, is_double

ARM_PREFIX = {"line": "L", "cross": "C", "triangle": "T"}
NUM_ARMS = {"line": 2, "cross": 4, "triangle": 4}


@dataclass
class Placed:
    """A tile on the layout: who placed it and which number faces outward."""

    tile: Tile
    seat: int
    out: int
    immediate: bool = False  # placed at once on the set tile (section 6)


def ordinary_fits(tile: Tile, open_end: int) -> list[int]:
    """Outward numbers for ``tile`` on ``open_end`` by ordinary matching."""
    a, b = tile
    if a == b:  # "A double counts as one number."
        return [a] if a == open_end else []
    if a == open_end:
        return [b]
    if b == open_end:
        return [a]
    return []


def matador_fits(tile: Tile, open_end: int) -> list[int]:
    """Outward numbers for ``tile`` on ``open_end`` by matador matching.

    Touching numbers add up to 7; a matador goes on any open end and its
    placer chooses the outward number; a double [d-d] fits e when d+e=7.
    """
    a, b = tile
    if tile in MATADORS:
        return [a] if a == b else [a, b]
    if a == b:
        return [a] if a + open_end == 7 else []
    if a + open_end == 7:
        return [b]
    if b + open_end == 7:
        return [a]
    return []


def fits(rule: str, tile: Tile, open_end: int) -> list[int]:
    return ordinary_fits(tile, open_end) if rule == ORDINARY else matador_fits(tile, open_end)


def compulsory_fits(rule: str, tile: Tile, open_end: int) -> list[int]:
    """The compulsory tile of a double-cross arm (section 4).

    Ordinary: the double equal to the open end. Matador: the double
    [7-e|7-e] or any matador.
    """
    if rule == ORDINARY:
        return [open_end] if tile == (open_end, open_end) else []
    if tile in MATADORS:
        return matador_fits(tile, open_end)
    need = 7 - open_end
    return [need] if tile == (need, need) else []


class Layout:
    """The set tile and its arms, with the announced game's rules."""

    def __init__(self, spec: GameSpec, set_tile: Tile):
        self.spec = spec
        self.set_tile = set_tile
        self.kind = spec.layout
        self.arms: list[list[Placed]] = [[] for _ in range(NUM_ARMS[self.kind])]

    def copy(self) -> "Layout":
        new = Layout.__new__(Layout)
        new.spec, new.set_tile, new.kind = self.spec, self.set_tile, self.kind
        new.arms = [list(arm) for arm in self.arms]  # Placed objects are never mutated
        return new

    # -- naming ---------------------------------------------------------------
    def arm_name(self, arm: int) -> str:
        return f"{ARM_PREFIX[self.kind]}{arm}"

    @property
    def arm_names(self) -> list[str]:
        return [self.arm_name(i) for i in range(len(self.arms))]

    def arm_index(self, name: str) -> int:
        names = self.arm_names
        if name not in names:
            raise ValueError(f"no arm {name!r} in a {self.kind} layout; arms are {', '.join(names)}")
        return names.index(name)

    # -- state of the arms -------------------------------------------------------
    def open_end(self, arm: int) -> int:
        """The set tile's number on that side, then the last tile's outward number."""
        cells = self.arms[arm]
        if cells:
            return cells[-1].out
        if self.kind == "line":
            # L0 is the lower number of a non-double set tile, L1 the higher.
            return self.set_tile[arm]
        return self.set_tile[0]

    def tiles(self) -> list[Tile]:
        return [self.set_tile] + [p.tile for arm in self.arms for p in arm]

    def condition_fulfilled(self) -> bool:
        """Game 11/12 side condition (D4: every tile on an arm counts)."""
        cond = self.spec.condition
        if cond is None:
            return True
        here = len(self.arms[cond.side])
        if cond.kind == "FHTT":
            return here > 0 and len(self.arms[1 - cond.side]) > 0
        return here >= cond.k

    def cross_complete(self) -> bool:
        """Cross games: every arm holds its first tile."""
        return all(self.arms)

    def triangle_complete(self) -> bool:
        """Triangle games: T0..T2 hold their matadors (and, in game 16, T3 its blank)."""
        done = all(self.arms[:3])
        return done and (not self.spec.t3 or bool(self.arms[3]))

    def opening_over(self) -> bool:
        """Whether the game's change point (cross, triangle, SWITCH condition) is past."""
        if self.kind == "cross":
            return self.cross_complete()
        if self.kind == "triangle":
            return self.triangle_complete()
        return self.condition_fulfilled()

    def rule_in_force(self, arm: int) -> str:
        spec = self.spec
        return spec.later[arm] if self.opening_over() else spec.opening[arm]

    def locked(self, arm: int) -> bool:
        """Whether a side condition forbids a tile on ``arm`` now (D4).

        Only game 11/12 conditions and game 17's order lock arms; the cross
        and triangle phases do not (D11: they never defer a wait).
        """
        spec = self.spec
        if spec.condition is not None:
            cond = spec.condition
            here, there = len(self.arms[cond.side]), len(self.arms[1 - cond.side])
            if cond.kind == "FHTT":
                if arm == cond.side:
                    return here > 0 and there == 0  # the other arm must answer first
                return here == 0
            return arm != cond.side and here < cond.k
        if spec.order17 and not self.arms[arm]:
            # D6: C0 first, then C2, then C1 and C3. An arm holding a tile is never locked.
            if arm == 2:
                return not self.arms[0]
            if arm in (1, 3):
                return not self.arms[0] or not self.arms[2]
        return False

    # -- what an arm accepts ---------------------------------------------------
    def outs(self, arm: int, tile: Tile, ignore_locks: bool = False) -> list[int]:
        """Outward numbers with which ``tile`` may go on ``arm`` now ([] if none)."""
        if not ignore_locks and self.locked(arm):
            return []
        cells = self.arms[arm]
        spec = self.spec
        end = self.open_end(arm)
        if self.kind == "line":
            return fits(self.rule_in_force(arm), tile, end)
        if self.kind == "cross":
            if not self.cross_complete():
                # Cross phase: each arm takes its first tile before any takes a second.
                return [] if cells else fits(spec.opening[arm], tile, end)
            return self._after_opening(arm, tile, end)
        # Triangle games 13-16.
        if not all(self.arms[:3]):
            if arm < 3 and not cells and tile in TRIANGLE_MATADORS:
                return [tile[0], tile[1]]  # the placer chooses the outward number
            return []
        if spec.t3 and not self.arms[3]:
            # Game 16: a blank-ended tile, blank inward, on T3 before anything else.
            return [tile[1]] if arm == 3 and tile[0] == 0 else []
        if arm == 3 and not spec.t3:
            return []
        return self._after_opening(arm, tile, end)

    def _after_opening(self, arm: int, tile: Tile, end: int) -> list[int]:
        rule = self.spec.later[arm]
        if self.spec.compulsory and len(self.arms[arm]) == 1:
            return compulsory_fits(rule, tile, end)
        return fits(rule, tile, end)

    def immediate_outs(self, arm: int, tile: Tile) -> list[int]:
        """A double placed at once as the first tile of an empty arm (section 6).

        Side conditions do not stop these (locks ignored); the matching is the
        arm's rule in force at this moment (D22).
        """
        if not is_double(tile) or self.arms[arm]:
            return []
        return self.outs(arm, tile, ignore_locks=True)

    def placements(self, tile: Tile) -> list[tuple[int, int]]:
        """Every (arm, outward number) for ``tile`` now, arms in order (D24: never merged)."""
        return [(arm, out) for arm in range(len(self.arms)) for out in self.outs(arm, tile)]

    def is_dead(self, arm: int) -> bool:
        """Descriptive (section 4): an arm that can never take another tile.

        True when a compulsory tile is due and can no longer come. A compulsory
        double among the boneyard's last two tiles also never comes, but that is
        hidden information (D17), so such an arm is not reported dead.
        """
        spec = self.spec
        if not spec.compulsory or len(self.arms[arm]) != 1 or not self.opening_over():
            return False
        if self.kind == "triangle" and arm == 3:
            return False
        on_layout = set(self.tiles())
        end = self.open_end(arm)
        if spec.later[arm] == ORDINARY:
            return (end, end) in on_layout
        need = 7 - end
        double_gone = need > 6 or (need, need) in on_layout
        assert spec.later[arm] == MATADOR
        return double_gone and MATADORS <= on_layout
