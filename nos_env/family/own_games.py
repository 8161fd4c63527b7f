"""The family games that bring engines of their own (Blind, Chickenfoot, Mexican Train), described once.

``FamilyGame`` and ``FamilyTables`` play the ten games of one parameterised family. Three games
do not fit it: each has its own reference engine (with its rules factory), encoding and fast
tables (docs/family_contract.md). Shared code that needs one of those (the environments'
backends, records, the agents' views) looks the game up in ``OWN_GAMES`` instead of naming
each game in a branch of its own.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

__all__ = ["OWN_GAMES", "OwnGame", "own_game"]

#: what a Blind or Mexican Train record holds; their ``from_record`` wants exactly these keys
#: (a tournament's record adds its own facts, left out here)
_STREAM_RECORD = ("game", "num_players", "options", "seed", "stream_state", "actions")


@dataclass(frozen=True)
class OwnGame:
    game: str
    module: str  # its reference engine and rules: ``make_rules(game, num_players, **options)``
    engine: str  # the engine class in ``module``
    encoding: str  # its action ids and observation layout
    tables: str  # "module:Class" of its fast tables, a layer above: imported by name, by the environments
    one_hand: tuple  # the options that make an episode one hand, (name, value) pairs
    engine_options: tuple = ()  # what the environments' engine is made with, (name, value) pairs
    record_keys: tuple | None = None  # the record keys ``from_record`` takes (None: the whole record)

    def rules_module(self):
        """Its rules module: ``make_rules``, ``PLAYER_COUNTS``, ``DEFAULT_PLAYERS``, ``OPTIONS``
        (the page's "Options" table: name -> (default, what is allowed)), imported when first used."""
        return importlib.import_module(self.module)

    def make_rules(self, num_players: int | None, options: dict):
        return self.rules_module().make_rules(self.game, num_players, **options)

    def engine_class(self):
        return getattr(self.rules_module(), self.engine)

    def new_engine(self, rules, seed: int = 0):
        return self.engine_class()(rules, seed, **dict(self.engine_options))

    def encoding_module(self):
        return importlib.import_module(self.encoding)

    def tables_class(self):
        module, name = self.tables.split(":")
        return getattr(importlib.import_module(module), name)

    def replay(self, record: dict):
        if self.record_keys is not None:
            record = {k: record[k] for k in self.record_keys if k in record}
        return self.engine_class().from_record(record)


OWN_GAMES = {g.game: g for g in (
    # Blind deals again when a deal plays itself out without a decision (skip_decisionless, as
    # its fast engine does), so every episode of an environment asks an agent something
    OwnGame("blind", "nos_env.family.blind", "BlindGame", "nos_env.family.blind_encoding",
            "nos_env.blind_tables:BlindTables", (("target_score", None),),  # BD8: Blind is one hand
            (("skip_decisionless", True),), _STREAM_RECORD),
    OwnGame("chickenfoot", "nos_env.family.chickenfoot", "ChickenfootGame", "nos_env.family.chickenfoot_encoding",
            "nos_env.chickenfoot_tables:ChickenfootTables", (("match", "one_hand"),)),  # CK13: it counts hands
    OwnGame("mexican_train", "nos_env.family.mexican_train", "MexicanTrainGame",
            "nos_env.family.mexican_train_encoding", "nos_env.mexican_train_tables:MexicanTrainTables",
            (("rounds", 1),), record_keys=_STREAM_RECORD),  # MT1: it plays rounds
)}


def own_game(game: str) -> OwnGame | None:
    """The description of ``game`` if it has engines of its own, else None (one of the ten)."""
    return OWN_GAMES.get(game)
