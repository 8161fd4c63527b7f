"""Helpers for the family rule tests (tests/test_family_*.py).

The rule tests build positions from given hands with ``FamilyGame.from_deal`` and play them
action by action, by the text of ``nos_env.family.encoding.parse`` ("play 3-5 on L1",
"play 1-6 on L0 leaving 6" in Matador, "set 6-6", "draw", "pass"). Every expected score,
seat to move and legal-action list in those tests is derived by hand from the rules pages;
nothing here computes a rule. The one thing computed here is the tile index of the contract
(low-major order 0-0, 0-1, ..., m-m), written out independently of the engine.

``ENGINES`` lists the ways a position can be loaded: the reference engine, and FamilyTables
(``load_deal``) when ``nos_env.family_tables`` exists; tests that take the ``engine`` fixture
run on both.
"""

from __future__ import annotations

import importlib.util

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


def position(game: str, hands, top=(), *, setter=None, scores=None, **options) -> FamilyGame:
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


HAVE_TABLES = importlib.util.find_spec("nos_env.family_tables") is not None
needs_tables = pytest.mark.skipif(not HAVE_TABLES, reason="nos_env.family_tables is not on this branch yet")
