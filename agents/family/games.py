"""Which family games there are, their rules and their tables, for agents, tournaments and training.

The names are the registry's (``nos_env.registry``: every game but ``nos``); the rules and the
tables class come through the environments' own lookup (``nos_env.family_backends``), so
Blind, with its own engine, is found the same way as the ten others.
"""

from __future__ import annotations


def family_games() -> list[str]:
    """The family games' ids (sorted)."""
    from nos_env.registry import list_games

    return [g for g in list_games() if g != "nos"]


def check_game(game) -> str:
    """``game`` if it is ``nos`` or a family game, else a ValueError naming them."""
    known = ["nos"] + family_games()
    if not isinstance(game, str) or game not in known:
        raise ValueError(f"unknown game {game!r}; known: {', '.join(known)}")
    return game


def player_counts(game: str) -> tuple[int, ...]:
    from nos_env.registry import game_info

    return tuple(game_info(check_game(game)).player_counts)


def make_rules(game: str, num_players: int | None = None, **options):
    """The checked rules of a family game (ValueError naming the allowed values otherwise)."""
    from nos_env.family_backends import rules_for

    return rules_for(check_game(game), num_players, options)


def tables_class(game: str):
    """``FamilyTables`` (Blind: ``BlindTables``, the same API)."""
    from nos_env.family_backends import tables_class as lookup

    return lookup(check_game(game))


def table_options(rules) -> dict:
    """The options ``rules`` was made with, by the page's names (``rules.options()``, Blind's
    too): what rebuilds tables with the same rules."""
    return dict(rules.options())
