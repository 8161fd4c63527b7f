"""What the rules of the three games with their own engines (Blind, Chickenfoot, Mexican Train)
share: the tile set their ``tileset`` option names, the checks of ``make_rules``'s arguments, and
how a game's ``reset(seed)`` picks its random stream.

The family's own rules (``rules.py``) check the ten FamilyTables games through one options
table; these three games each have their own rules dataclass and page, so each keeps its own
option checks (and the words of its page in the error messages) and takes these pieces from here.
"""

from __future__ import annotations

import numpy as np

from ..kernels.tilesets import TileSet
from ..rng import SplitMix64


def is_int(x) -> bool:
    """An integer (numpy's too), not a bool."""
    return not isinstance(x, bool) and isinstance(x, (int, np.integer))


class TileSetRules:
    """Mixin for a frozen rules dataclass with a ``tileset`` field naming a key of its class's
    ``TILESETS`` (a plain class attribute, so not a dataclass field)."""

    TILESETS: dict[str, TileSet]

    @property
    def tiles(self) -> TileSet:
        return self.TILESETS[self.tileset]

    @property
    def num_tiles(self) -> int:
        return self.tiles.num_tiles

    @property
    def max_pip(self) -> int:
        return self.tiles.max_pip


def checked_players(num_players, allowed: tuple[int, ...], default: int, played_by: str) -> int:
    """``num_players`` (``None``: ``default``) as an int in ``allowed``; else ValueError
    ``"<played_by>, got num_players=..."``, e.g. played_by = "Blind is played by 2 to 5 players"."""
    if num_players is None:
        return default
    if not is_int(num_players) or num_players not in allowed:
        raise ValueError(f"{played_by}, got num_players={num_players!r}")
    return int(num_players)


def check_option_names(options: dict, allowed: dict, no_option: str) -> None:
    """Every name in ``options`` is a key of ``allowed``; else ValueError
    ``"<no_option % name>; its options are ..."``, e.g. no_option = "Blind has no option %r"."""
    for name in options:
        if name not in allowed:
            raise ValueError(f"{no_option % (name,)}; its options are {', '.join(allowed)}")


def checked_seat_or_none(value, num_players: int, name: str, none_means: str) -> int | None:
    """``None`` or a seat ``0..num_players - 1`` as an int; else ValueError naming both."""
    if value is None:
        return None
    if not is_int(value) or not 0 <= value < num_players:
        raise ValueError(f"{name} must be None ({none_means}) or a seat 0..{num_players - 1}, got {value!r}")
    return int(value)


def check_game(game: str, expected: str, module: str) -> None:
    """A module's ``make_rules(game, ...)`` makes its own game's rules only."""
    if game != expected:
        raise ValueError(f"{module} makes rules for {expected!r} only, got {game!r}")


def tile_index(tile, rules) -> int:
    """A tile of ``rules.tiles`` given as an index or as (a, b) in either order, checked."""
    if is_int(tile):
        if 0 <= tile < rules.num_tiles:
            return int(tile)
    elif isinstance(tile, (tuple, list)) and len(tile) == 2:
        key = tuple(sorted(int(x) for x in tile))
        if key in rules.tiles.index:
            return rules.tiles.index[key]
    raise ValueError(f"{tile!r} is not a tile of the {rules.tiles.name} set (an index 0..{rules.num_tiles - 1} "
                     f"or a pair (a, b) with 0 <= a, b <= {rules.max_pip})")


def restart_stream(game, seed) -> None:
    """``game.reset(seed)``'s stream: a new SplitMix64 seeded with ``seed`` (an integer), or the
    game's current stream when ``seed`` is None (an unpredictable seed the first time). Sets
    ``game.seed``, ``game.rng`` and ``game.stream_state`` (where this game's draws begin, which
    its record keeps)."""
    if seed is not None:
        if not is_int(seed):
            raise ValueError(f"seed must be an integer or None, got {seed!r}")
        game.seed = int(seed)
        game.rng = SplitMix64(game.seed)
    elif game.rng is None:
        game.seed = int(np.random.SeedSequence().entropy) & ((1 << 62) - 1)
        game.rng = SplitMix64(game.seed)
    game.stream_state = game.rng.state
