"""The game registry: every game by id, and the environments it makes.

``list_games()`` names the games; ``env(game=..., **options)``,
``raw_env(...)`` and ``vector_env(num_envs, game=..., ...)`` build their
environments, and each game also has a PettingZoo-style versioned module
(``from nos_env import nos_v0; nos_v0.env()``). ``game`` defaults to
``"nos"``, so calls written before the registry keep working.

A game registers a :class:`Game`: its id, its versioned module and how to
build its environments. Modules are imported only when a game is used.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Game:
    id: str
    versioned: str  # the PettingZoo-style module name, e.g. "nos_v0"
    summary: str
    player_counts: tuple[int, ...]
    module: str  # the module holding env, raw_env and vector_env

    def _load(self):
        return importlib.import_module(self.module)


_GAMES: dict[str, Game] = {}


def register(game: Game) -> None:
    if game.id in _GAMES:
        raise ValueError(f"game {game.id!r} is registered already")
    _GAMES[game.id] = game


register(Game(
    id="nos",
    versioned="nos_v0",
    summary="Nos, the Dutch domino game: a set tile, 17 announced games, chips for doubles, nos and closing",
    player_counts=(3, 4, 5),
    module="nos_env.nos_v0",
))

#: The family games (docs/rules/family.md): one environment class (nos_env.family_env), one
#: versioned module each. Player counts as on each page; tests/test_family_env.py checks them
#: against the rules objects.
_FAMILY = (
    ("block", "Block: play to the line, no drawing; pips left score (F16)", (2, 3, 4, 5)),
    ("draw", "Draw: the Block game with a boneyard to draw from", (2, 3, 4, 5)),
    ("cross", "Cross: four arms from the set double, filled before the line goes on", (2, 3, 4, 5)),
    ("double_nine_cross", "Double-Nine Cross: Cross on the double-nine set, every later double spins",
     tuple(range(2, 9))),
    ("matador", "Matador: ends add up to seven; the four matadors play anywhere", (2, 3, 4)),
    ("all_fives", "All Fives: score the open ends when they add up to a multiple of five", (2, 3, 4)),
    ("fives_and_threes", "Fives and Threes: score multiples of five and of three", (2, 3, 4)),
    ("five_up", "Five Up: every double spins; score multiples of five, exactly 61 wins", (2, 3, 4)),
    ("bergen", "Bergen: score matching ends (double header, triple header) to 15", (2, 3, 4)),
    ("fours", "Fours: play as many tiles a turn as fit, four players", (4,)),
    ("blind", "Blind: rows turned up one by one, nobody sees his own tiles", (2, 3, 4, 5)),
    ("chickenfoot", "Chickenfoot: six toes on the set double, three on every later one; pips are penalties",
     tuple(range(2, 9))),
)
for _id, _summary, _counts in _FAMILY:
    register(Game(id=_id, versioned=f"{_id}_v0", summary=_summary, player_counts=_counts,
                  module=f"nos_env.{_id}_v0"))
del _id, _summary, _counts


def list_games() -> list[str]:
    """The ids of every registered game, sorted."""
    return sorted(_GAMES)


def game_info(game: str) -> Game:
    """The registry entry of ``game``; a clear error names the known ids."""
    if not isinstance(game, str) or game not in _GAMES:
        raise ValueError(f"unknown game {game!r}; known: {list_games()}")
    return _GAMES[game]


def env(game: str = "nos", **options):
    """The PettingZoo AEC environment of ``game``, with PettingZoo's checking wrappers."""
    return game_info(game)._load().env(**options)


def raw_env(game: str = "nos", **options):
    """The bare PettingZoo AEC environment of ``game``."""
    return game_info(game)._load().raw_env(**options)


def vector_env(num_envs: int, *args, game: str = "nos", **options):
    """``num_envs`` tables of ``game`` stepped at once on the fast engine (further positional
    arguments go to the game's own ``vector_env``, e.g. Nos's ``num_players``)."""
    return game_info(game)._load().vector_env(num_envs, *args, **options)
