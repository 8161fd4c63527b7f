"""Agents of the family games (issue 15): Random, Greedy and Search for every game.

Each is built for one game's rules (``nos_env.family.rules.make_rules`` or
``FamilyTables.rules``) and reads only the observation, the mask and, for Search, the public
structure of its table (``agents/family/search.py``). ``agents.make_agent(name, game=...,
rules=...)`` builds them by name; docs/agents.md describes each game's Greedy.
"""

from __future__ import annotations

from ..random_agent import RandomAgent
from .greedy import FamilyGreedyAgent


def make_family_agent(name: str, rules, seed: int | None = 0, **kwargs):
    """``random``, ``greedy`` or ``search`` for ``rules``' game."""
    if name == "random":  # uniform over the mask: the same agent in every game
        if kwargs:
            raise ValueError(f"random takes no options, got {sorted(kwargs)}")
        return RandomAgent(seed=seed)
    if name == "greedy":
        if kwargs:
            raise ValueError(f"greedy takes no options, got {sorted(kwargs)}")
        if rules.game == "blind":
            from .blind import BlindGreedyAgent

            return BlindGreedyAgent(rules, seed=seed)
        return FamilyGreedyAgent(rules, seed=seed)
    if name == "search":
        if rules.game == "blind":  # the never-seen tiles' order is what it samples (BD3, BD7)
            from .blind_search import BlindSearchAgent

            return BlindSearchAgent(rules, seed=seed, **kwargs)
        from .search import FamilySearchAgent

        return FamilySearchAgent(rules, seed=seed, **kwargs)
    raise ValueError(f"unknown family agent {name!r}; known: random, greedy, search")
