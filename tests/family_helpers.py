"""Helpers for the family rule tests (tests/test_family_*.py).

The rule tests build positions from given hands with ``FamilyGame.from_deal`` and play them
action by action, by the text of ``nos_env.family.encoding.parse`` ("play 3-5 on L1",
"play 1-6 on L0 leaving 6" in Matador, "set 6-6", "draw", "pass"). Every expected score,
seat to move and legal-action list in those tests is derived by hand from the rules pages;
nothing here computes a rule. The one thing computed here is the tile index of the contract
(low-major order 0-0, 0-1, ..., m-m), written out independently of the engine.

The per-game test modules run every position twice through the ``engine`` fixture: on the
reference engine (``FamilyGame.from_deal``) and on one FamilyTables table (``load_deal``)
behind :class:`TablesGame`, which offers the same test surface (to_move, legal_actions, step,
scores, done, hand_number, observe). FamilyTables does not report the match's winner, so
:func:`assert_won` checks it on the reference engine only (the scores are checked on both).
"""

from __future__ import annotations

import numpy as np
import pytest

from nos_env.family import encoding as enc
from nos_env.family.engine import FamilyGame
from nos_env.family.rules import make_rules


def tile_index(text: str, max_pip: int) -> int:
    """The contract's tile index of "a-b": tiles ordered 0-0, 0-1, ..., 0-m, 1-1, ..., m-m."""
    a, b = sorted(int(x) for x in text.split("-"))
    assert 0 <= a <= b <= max_pip, text
    return sum(max_pip + 1 - i for i in range(a)) + (b - a)


def all_tiles(max_pip: int) -> list[str]:
    return [f"{a}-{b}" for a in range(max_pip + 1) for b in range(a, max_pip + 1)]


def pips(text: str) -> int:
    a, b = (int(x) for x in text.split("-"))
    return a + b


ENGINE = "ref"  # which engine position() builds; set by the engine fixture


@pytest.fixture(params=["ref", "tables"])
def engine(request):
    """Run a test on the reference engine and on FamilyTables."""
    global ENGINE
    ENGINE = request.param
    yield request.param
    ENGINE = "ref"


class TablesGame:
    """Table 0 of a one-table FamilyTables, with FamilyGame's test surface."""

    def __init__(self, rules, hands, boneyard, setter=None, scores=None):
        from nos_env.family_tables import FamilyTables
        self.rules = rules
        self.n = rules.num_players
        self.tables = FamilyTables(rules.game, 1, num_players=self.n, observation_dtype="float32",
                                   **rules.options())
        self.tables.load_deal(0, hands, boneyard, setter=setter, scores=scores)

    @property
    def to_move(self) -> int:
        return int(self.tables.current_player[0])

    def legal_actions(self) -> list[int]:
        return [int(a) for a in self.tables.legal_actions(0)]

    def step(self, action: int) -> list[int]:
        _, points, _, _ = self.tables.step(np.array([action], np.int64), observe=False, autoreset=False)
        return [int(x) for x in points[0, :self.n]]

    @property
    def scores(self) -> list[int]:
        return [int(x) for x in self.tables.scores[0, :self.n]]

    @property
    def done(self) -> bool:
        return bool(self.tables.episode_over[0])

    @property
    def hand_number(self) -> int:
        return int(self.tables.hand_number[0])

    def observe(self, seat: int) -> np.ndarray:
        return self.tables.observe_rows(np.array([0]), np.array([seat]))[0]


def assert_won(g, seat) -> None:
    """The match is over and ``seat`` won it (None: nobody); the winner on the reference engine."""
    assert g.done
    if isinstance(g, FamilyGame):
        assert g.winner == seat, f"winner {g.winner}, expected {seat}"


def position(game: str, hands, top=(), *, setter=None, scores=None, **options):
    """A game from given hands (lists of "a-b"); the boneyard is ``top`` (drawn first, in order)
    followed by every other tile in index order. The number of players is ``len(hands)``."""
    rules = make_rules(game, num_players=len(hands), **options)
    m = rules.max_pip
    given = [t for h in hands for t in h] + list(top)
    assert len(set(tile_index(t, m) for t in given)) == len(given), f"a tile is given twice: {given}"
    used = {tile_index(t, m) for t in given}
    rest = [i for i in range(rules.num_tiles) if i not in used]
    hand_ids = [[tile_index(t, m) for t in h] for h in hands]
    boneyard = [tile_index(t, m) for t in top] + rest
    if ENGINE == "tables":
        return TablesGame(rules, hand_ids, boneyard, setter=setter, scores=scores)
    return FamilyGame.from_deal(rules, hand_ids, boneyard, setter=setter, scores=scores)


def act(g, text: str) -> int:
    return enc.parse(text, g.rules)


def texts(g, actions) -> list[str]:
    return sorted(enc.describe(a, g.rules) for a in actions)


def assert_legal(g, expected) -> None:
    """The legal actions are exactly ``expected`` (action texts), as a set and sorted ascending."""
    got = g.legal_actions()
    assert got == sorted(got), f"legal actions not sorted: {got}"
    want = sorted(act(g, t) for t in expected)
    assert sorted(got) == want, f"legal: got {texts(g, got)}, expected {sorted(expected)}"


def step(g, seat: int, text: str, points=None, legal=None):
    """Check that ``seat`` is to move (and, if given, the exact legal actions), apply ``text``
    and check the points gained per seat if ``points`` is given. Returns the points."""
    assert not g.done, f"the match is over before {text!r}"
    assert g.to_move == seat, f"before {text!r}: expected seat {seat} to move, got {g.to_move}"
    if legal is not None:
        assert_legal(g, legal)
    got = g.step(act(g, text))
    if points is not None:
        assert list(got) == list(points), f"{text!r} by seat {seat}: points {got}, expected {points}"
    return got


def obs_field(g, observer: int, name: str) -> np.ndarray:
    layout = enc.observation_layout(g.rules)
    start, stop, shape = layout[name]
    return np.asarray(g.observe(observer))[start:stop].reshape(shape)


def void_tiles(g, observer: int, seat: int) -> set[str]:
    """The tiles ``observer``'s observation says ``seat`` is known not to hold (F24, seat_void);
    rows are seat offsets from the observer."""
    n = g.rules.num_players
    row = obs_field(g, observer, "seat_void")[(seat - observer) % n]
    names = all_tiles(g.rules.max_pip)
    return {names[i] for i in np.flatnonzero(row)}


def on_table(g, observer: int = 0) -> set[str]:
    names = all_tiles(g.rules.max_pip)
    return {names[i] for i in np.flatnonzero(obs_field(g, observer, "on_table"))}


def tiles_with(numbers, max_pip: int = 6) -> set[str]:
    """Every tile carrying one of ``numbers``."""
    return {t for t in all_tiles(max_pip) if any(int(x) in numbers for x in t.split("-"))}
