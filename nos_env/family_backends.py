"""The two engines behind a family environment, with one small interface.

``reference`` plays on the readable engine (``nos_env.family.engine.FamilyGame``,
Blind's ``nos_env.family.blind``), ``fast`` on one table of the numba engine
(``FamilyTables``, Blind's ``BlindTables``). Both deal from the same SplitMix64
stream in the same order (family contract, "The deal and the random stream"), so a
seed gives the same game on either, and both report each seat's points per step.

``game`` is always a reference engine object (the fast backend rebuilds it from the
table's decisions), used for rendering and text, never on the hot path.
"""

from __future__ import annotations

import importlib

import numpy as np

from .family.own_games import own_game

def rules_for(game: str, num_players: int | None, options: dict):
    """The checked rules of ``game`` (ValueError naming the allowed values otherwise)."""
    own = own_game(game)
    if own is not None:
        return own.make_rules(num_players, options)
    from .family import rules

    return rules.make_rules(game, num_players, **options)


def new_engine(game: str, rules, seed: int = 0):
    """A reference engine object of ``game`` (Blind's deals again when a deal would ask no
    decision: ``nos_env.family.own_games``)."""
    own = own_game(game)
    if own is not None:
        return own.new_engine(rules, seed)
    from .family.engine import FamilyGame

    return FamilyGame(rules, seed)


def tables_class(game: str):
    """The fast engine's tables class of ``game``."""
    own = own_game(game)
    return own.tables_class() if own is not None else importlib.import_module("nos_env.family_tables").FamilyTables


def encoding_module(game: str):
    """The module holding the action ids and observation layout of ``game``."""
    own = own_game(game)
    return own.encoding_module() if own is not None else importlib.import_module("nos_env.family.encoding")


def seed_and_reset(tables, rows, seeds) -> None:
    """Start new episodes at ``rows`` from ``seeds``. ``FamilyTables.seed_tables`` deals at once,
    as do Chickenfoot's and Mexican Train's; ``BlindTables.seed_tables`` only seeds
    (``deals_on_seed`` is False: its next deal is ``reset_tables``)."""
    tables.seed_tables(rows, seeds)
    if not getattr(tables, "deals_on_seed", True):
        tables.reset_tables(rows)


def table_winners(tables, rows: np.ndarray) -> np.ndarray:
    """The winning seat (-1: none, F15) of each finished table in ``rows``, before it is reset.

    ``BlindTables.winner`` names it; ``FamilyTables`` keeps it in its ``T_WINNER`` column (the
    seat that reached the target, or the single hand's winner; a team's seat stands for its
    team), read here so the "win" rewards need no rebuild of the game in the reference engine. ``tests/test_family_vector.py`` checks them against
    the reference engine's ``winner``.
    """
    if own_game(getattr(tables.rules, "game", None)) is not None:
        return np.asarray(tables.winner[rows], np.int64)  # BlindTables, ChickenfootTables, MexicanTrainTables name it
    from .games.family.state import T_WINNER

    return np.asarray(tables.T[rows, T_WINNER], np.int64)


class ReferenceBackend:
    name = "reference"

    def __init__(self, game: str, rules, observation_dtype: str, score_scale: float):
        self.rules = rules
        self.observation_dtype = observation_dtype
        self.score_scale = score_scale
        self.engine = new_engine(game, rules)

    def reset(self, seed: int) -> list[int]:
        """A new episode; returns the points scored before the first decision (a forced set)."""
        self.engine.reset(seed)
        return [int(s) for s in self.engine.scores]

    @property
    def game(self):
        return self.engine

    @property
    def to_move(self) -> int:
        return int(self.engine.to_move)

    @property
    def done(self) -> bool:
        return bool(self.engine.done)

    @property
    def winner(self):
        return self.engine.winner

    @property
    def scores(self) -> list[int]:
        return [int(s) for s in self.engine.scores]

    @property
    def hand_number(self) -> int:
        return int(self.engine.hand_number)

    def step(self, action: int) -> list[int]:
        return [int(p) for p in self.engine.step(action)]  # ValueError on an illegal action, unchanged

    def observe(self, seat: int) -> np.ndarray:
        return np.asarray(self.engine.observe(seat, dtype=self.observation_dtype, score_scale=self.score_scale))

    def mask(self) -> np.ndarray:
        return np.asarray(self.engine.legal_mask(), np.int8)


class FastBackend:
    name = "fast"

    def __init__(self, game: str, rules, observation_dtype: str, score_scale: float):
        self.rules = rules
        self.observation_dtype = observation_dtype
        self.tables = tables_class(game)(game, 1, rules.num_players, seed=0, observation_dtype=observation_dtype,
                                         score_scale=score_scale, **options_of(rules))
        self._row = np.zeros(1, np.int64)
        self._seat = np.zeros(1, np.int64)
        self.done = False

    def reset(self, seed: int) -> list[int]:
        t = self.tables
        seed_and_reset(t, self._row, np.array([seed], np.int64))
        self.done = False
        return [int(s) for s in t.scores[0, : self.rules.num_players]]

    @property
    def game(self):
        return self.tables.reference_game(0)

    @property
    def to_move(self) -> int:
        return int(self.tables.current_player[0])

    @property
    def winner(self):
        w = int(table_winners(self.tables, self._row)[0])
        return None if w < 0 else w

    @property
    def scores(self) -> list[int]:
        return [int(s) for s in self.tables.scores[0, : self.rules.num_players]]

    @property
    def hand_number(self) -> int:
        return int(self.game.hand_number)

    def step(self, action: int) -> list[int]:
        _, points, terminated, _ = self.tables.step(np.array([action], np.int64), observe=False, autoreset=False)
        self.done = bool(terminated[0])
        return [int(p) for p in points[0, : self.rules.num_players]]

    def observe(self, seat: int) -> np.ndarray:
        self._seat[0] = seat
        return np.array(self.tables.observe_rows(self._row, self._seat)[0])

    def mask(self) -> np.ndarray:
        return np.array(self.tables.masks[0], np.int8)


def options_of(rules) -> dict:
    """The page options of ``rules`` as keyword arguments (what ``make_rules`` takes)."""
    return dict(rules.options())


BACKENDS = {"fast": FastBackend, "reference": ReferenceBackend}
