"""Deals: each seat's tiles and the boneyard order (docs/rules/nos.md §1)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .rng import SplitMix64
from .tiles import ALL_TILES, NUM_TILES, Tile, make_tile, parse_tile, tile_str

PLAYER_COUNTS = (3, 4, 5)


def check_num_players(num_players: object) -> int:
    if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)):
        raise ValueError(f"num_players must be the integer 3, 4 or 5, got {num_players!r}")
    if int(num_players) not in PLAYER_COUNTS:
        raise ValueError(f"Nos is played by 3, 4 or 5 players, got {num_players!r}")
    return int(num_players)


def hand_size(num_players: int) -> int:
    """8-n tiles each: 5, 4 or 3."""
    return 8 - num_players


def _as_tile(t: object) -> Tile:
    if isinstance(t, str):
        return parse_tile(t)
    if isinstance(t, (tuple, list)) and len(t) == 2:
        # Integers only (numpy ones too): (0.5, 0) is refused, not rounded to (0, 0).
        if not all(isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) for x in t):
            raise ValueError(f"not a tile: {t!r} (a tile's numbers are integers 0..6: use 'a-b' or (a, b))")
        return make_tile(int(t[0]), int(t[1]))
    raise ValueError(f"not a tile: {t!r} (use 'a-b' or (a, b) with integers 0..6)")


@dataclass(frozen=True)
class Deal:
    """Each seat's tiles as dealt and the boneyard, top first."""

    hands: tuple[tuple[Tile, ...], ...]
    boneyard: tuple[Tile, ...]

    @property
    def num_players(self) -> int:
        return len(self.hands)

    @classmethod
    def from_tiles(cls, hands: Sequence[Sequence[object]], boneyard: Sequence[object]) -> "Deal":
        """Build and validate a deal from tiles written as ``"a-b"`` or ``(a, b)``."""
        if not isinstance(hands, (list, tuple)) or not all(isinstance(h, (list, tuple)) for h in hands):
            raise ValueError(f"hands must be a list of one list of tiles per seat, got {hands!r}")
        if not isinstance(boneyard, (list, tuple)):
            raise ValueError(f"boneyard must be a list of tiles (top first), got {boneyard!r}")
        n = check_num_players(len(hands))
        parsed_hands = tuple(tuple(_as_tile(t) for t in hand) for hand in hands)
        parsed_boneyard = tuple(_as_tile(t) for t in boneyard)
        for seat, hand in enumerate(parsed_hands):
            if len(hand) != hand_size(n):
                raise ValueError(
                    f"with {n} players each seat is dealt {hand_size(n)} tiles; "
                    f"seat {seat} has {len(hand)}"
                )
        everything = [t for h in parsed_hands for t in h] + list(parsed_boneyard)
        if len(everything) != NUM_TILES:
            raise ValueError(f"a deal must hold all 28 tiles, this one holds {len(everything)}")
        seen: set[Tile] = set()
        for t in everything:
            if t in seen:
                raise ValueError(f"tile {tile_str(t)} appears twice in the deal")
            seen.add(t)
        return cls(parsed_hands, parsed_boneyard)

    @classmethod
    def random(cls, num_players: int, rng: "np.random.Generator | SplitMix64") -> "Deal":
        """Shuffle all 28 tiles: seats take consecutive runs, the rest is the boneyard.

        Sessions and environments pass their :class:`~nos_env.rng.SplitMix64`
        stream (the one every engine shares); a numpy Generator also works.
        """
        n = check_num_players(num_players)
        order = rng.shuffle28() if isinstance(rng, SplitMix64) else rng.permutation(NUM_TILES)
        k = hand_size(n)
        hands = tuple(
            tuple(ALL_TILES[i] for i in order[seat * k : (seat + 1) * k]) for seat in range(n)
        )
        boneyard = tuple(ALL_TILES[i] for i in order[n * k :])
        return cls(hands, boneyard)

    def to_json(self) -> dict:
        return {
            "num_players": self.num_players,
            "hands": [[tile_str(t) for t in h] for h in self.hands],
            "boneyard_top_first": [tile_str(t) for t in self.boneyard],
        }
