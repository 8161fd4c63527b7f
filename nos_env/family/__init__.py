"""The domino family (docs/rules/family.md): the reference engine of the ten non-Blind games.

``rules`` (the options of every page, checked), ``layout`` (arms, matching, spinners),
``scoring`` (counts, awards, play scores), ``engine`` (``FamilyGame``: deal, turns, hands,
matches), ``encoding`` (action ids, observations) and ``record`` (JSON records that replay).
"""

from .rules import GAMES, FamilyRules, default_players, make_rules, options_table, player_counts

__all__ = ["GAMES", "FamilyRules", "default_players", "make_rules", "options_table", "player_counts"]
