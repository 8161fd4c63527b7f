"""F24 (and Blind's BD3) over whole games: what a seat may not see does not reach its observation.

At positions of random games of every family game, a twin of the game has the tiles
hidden from the observer shuffled: every other seat's hand and the boneyard (each keeps
its size). The observer's observation, and his mask when he is to move, must be the same
in both. In Blind nobody sees a tile before it is turned up, his own included (BD3): the
twin shuffles every never-seen tile among all rows and the set-aside tiles, and then
every seat's observation must be unchanged. A guard checks that the twins really differ
and that some other seat's observation does see the change.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from nos_env.family import blind as B
from nos_env.family_backends import new_engine, rules_for
from nos_env.family_env import FAMILY_GAMES

TEN = [g for g in FAMILY_GAMES if g != "blind"]
GAMES_PER_CASE = 2
STRIDE = 3


def positions(game: str, num_players: int, seed: int, options: dict | None = None, games: int = GAMES_PER_CASE):
    """(game object, rng) at every decision of a few random games."""
    # Chickenfoot counts hands (CK13): one hand, not a 10-hand match of positions
    default = {"match": "one_hand"} if game == "chickenfoot" else {}
    rules = rules_for(game, num_players, dict(options or default))
    rng = np.random.default_rng(seed)
    for k in range(games):
        g = new_engine(game, rules, seed * 100 + k)
        step = 0
        while not g.done:
            if step % STRIDE == 0:  # every third decision: a deep copy per position is the cost here
                yield g, rng
            step += 1
            legal = g.legal_actions()
            g.step(legal[int(rng.integers(len(legal)))])


def shuffled_twin(g, observer: int, rng):
    """A copy of the family game ``g`` with the observer's hidden tiles shuffled (sizes kept)."""
    twin = copy.deepcopy(g)
    hand = twin.hand
    others = [s for s in range(len(hand.hands)) if s != observer]
    hidden = [t for s in others for t in sorted(hand.hands[s])] + list(hand.boneyard)
    order = [hidden[i] for i in rng.permutation(len(hidden))]
    k = 0
    for s in others:
        size = len(hand.hands[s])
        hand.hands[s] = set(order[k:k + size])
        k += size
    hand.boneyard = order[k:]
    return twin


@pytest.mark.parametrize("game", TEN)
def test_hidden_tiles_do_not_reach_the_observation(game):
    n = 4 if game == "fours" else 3 if game != "double_nine_cross" else 4
    checked = differed = seen_by_others = 0
    options = {"rounds": 1} if game == "mexican_train" else None  # a whole match would be 13 rounds of positions
    for g, rng in positions(game, n, seed=len(game), options=options):
        observer = int(rng.integers(n))
        twin = shuffled_twin(g, observer, rng)
        np.testing.assert_array_equal(twin.observe(observer), g.observe(observer))
        if g.to_move == observer:
            np.testing.assert_array_equal(twin.legal_mask(), g.legal_mask())
        checked += 1
        if any(twin.hand.hands[s] != g.hand.hands[s] for s in range(n)) or twin.hand.boneyard != g.hand.boneyard:
            differed += 1
            seen_by_others += any(not np.array_equal(twin.observe(s), g.observe(s)) for s in range(n) if s != observer)
    assert checked > 15 and differed > checked // 2 and seen_by_others > 0


def test_hidden_tiles_with_teams_and_the_double_nine_set():
    """The partner's hand is hidden too (F20: partners do not see each other's tiles)."""
    for game, options in (("draw", {"teams": True}), ("block", {"tileset": "double_nine"})):
        for g, rng in positions(game, 4, seed=5, options=options):
            observer = int(rng.integers(4))
            np.testing.assert_array_equal(shuffled_twin(g, observer, rng).observe(observer), g.observe(observer))


def blind_twin(g, rng):
    """A copy of the Blind game with every never-seen tile shuffled among the rows' unseen places
    and the set-aside tiles."""
    twin = copy.deepcopy(g)
    places = [(row, i) for row in twin.rows for i, t in enumerate(row) if not twin.seen[t]]
    unseen = [row[i] for row, i in places] + list(twin.aside)
    order = [unseen[i] for i in rng.permutation(len(unseen))]
    for (row, i), t in zip(places, order):
        row[i] = t
    twin.aside = order[len(places):]
    return twin


@pytest.mark.parametrize("n", B.PLAYER_COUNTS)
def test_blind_nobody_sees_an_unturned_tile(n):
    checked = differed = 0
    # Blind asks little (most plays are forced, F12): more games for as many positions.
    for g, rng in positions("blind", n, seed=40 + n, options={"optional_play": n % 2 == 0}, games=12):
        twin = blind_twin(g, rng)
        for s in range(n):
            np.testing.assert_array_equal(twin.observe(s), g.observe(s))
        np.testing.assert_array_equal(twin.legal_mask(), g.legal_mask())
        checked += 1
        differed += twin.rows != g.rows
    assert checked > 8 and differed > checked // 5
