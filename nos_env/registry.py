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
