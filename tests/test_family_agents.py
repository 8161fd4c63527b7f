"""Agents of the family games (agents/family/): choices on hand-made positions, the action
tables against the encoding, the hidden-tile sampler against the public evidence.

Positions are dealt with ``FamilyGame.from_deal`` (and ``FamilyTables.load_deal`` where the
fast engine is needed): every expected move below is worked out by hand in its comment.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from agents.family.greedy import FamilyGreedyAgent
from agents.family.sampler import FamilySampler
from agents.family.view import PLAY, view_of
from nos_env.family import encoding as E
from nos_env.family import rules as R
from nos_env.family.engine import FamilyGame
from nos_env.kernels.tilesets import tile_set

T6 = tile_set(6).index


def tiles(*pairs):
    return [T6[tuple(sorted(p))] for p in pairs]


def position(game, hands, steps=(), n=None, **options):
    """A FamilyGame dealt ``hands`` (lists of (a, b) pairs; every other tile in the boneyard,
    ascending), then ``steps`` (action texts, E.parse) played."""
    rules = R.make_rules(game, n or len(hands), target_score=None, **options)
    dealt = [tiles(*h) for h in hands]
    held = {t for h in dealt for t in h}
    boneyard = [t for t in range(rules.num_tiles) if t not in held]
    g = FamilyGame.from_deal(rules, dealt, boneyard)
    for text in steps:
        g.step(E.parse(text, rules))
    return rules, g


def greedy_choice(rules, g, seed=0):
    agent = make_agent("greedy", seed=seed, game=rules.game, rules=rules)
    a = agent.act(g.observe(g.to_move), np.asarray(g.legal_mask(), np.int8))
    assert a in g.legal_actions()
    return E.action_parts(a, rules)


@pytest.mark.parametrize("game", list(R.GAMES))
def test_action_tables_match_the_encoding(game):
    rules = R.make_rules(game, R.default_players(game))
    v = view_of(rules)
    assert v.num_actions == E.num_actions(rules)
    assert v.observation_size == E.observation_size(rules)
    kinds = {"play": PLAY, "set": 1, "draw": 2, "pass": 3}
    for a in range(v.num_actions):
        kind, t, arm, side = E.action_parts(a, rules)
        assert (v.KIND[a], v.TILE[a], v.ARM[a]) == (kinds[kind], t, arm)
        if kind == "play" and rules.matching == "seven":
            assert v.SIDE[a] == side


def test_draw_greedy_keeps_a_number_it_can_follow():
    # Seat 0 sets [6-6] (forced, highest double). Seat 1 can play [2-6] (8 pips) or [1-6]
    # (7 pips). [2-6] leaves a 2 open, which none of its other tiles carries: 8 + 0. [1-6]
    # leaves a 1, carried by [1-4] and [1-5]: 7 + 2 = 9. Greedy plays [1-6].
    rules, g = position("draw", [[(6, 6), (0, 0)], [(2, 6), (1, 6), (1, 4), (1, 5)]])
    kind, t, arm, _ = greedy_choice(rules, g)
    assert (kind, t) == ("play", T6[1, 6])


def test_draw_greedy_sheds_the_heaviest_tile_otherwise():
    # Open 6 and 6; [3-6] (9 pips) and [0-6] (6 pips), no other tile follows 3 or 0: [3-6].
    rules, g = position("draw", [[(6, 6), (0, 0)], [(3, 6), (0, 6), (1, 2)]])
    assert greedy_choice(rules, g)[:2] == ("play", T6[3, 6])


def test_draw_greedy_goes_out_before_anything():
    # Seat 1 holds only [0-6]: it plays it (and wins the hand), on either arm.
    rules, g = position("draw", [[(6, 6), (5, 5), (4, 5)], [(0, 6)]])
    assert greedy_choice(rules, g)[:2] == ("play", T6[0, 6])


def test_matador_greedy_keeps_its_matadors():
    # [6-6] is set; an open 6 takes a 1 (6 + 1 = 7) or a matador. Seat 1 holds [1-2], [1-5]
    # and the matadors [1-6] and [0-0]. [1-5] (6 pips) leaves a 5 that [1-2] (its 2) and both
    # matadors can follow: 6 + 3 = 9. [1-2]: 3 pips + 3 = 6. The matadors score 7 - 30 and
    # 0 - 30 (kept while another play exists). Greedy plays [1-5] with its 5 outward (side 1).
    rules, g = position("matador", [[(6, 6), (3, 3)], [(1, 2), (1, 5), (1, 6), (0, 0)]])
    kind, t, arm, side = greedy_choice(rules, g)
    assert (kind, t, side) == ("play", T6[1, 5], 1)


def test_greedy_never_draws_or_passes_by_choice():
    # Matador allows a draw at will (MA); greedy only draws when it cannot play.
    rules, g = position("matador", [[(6, 6), (3, 3)], [(1, 2), (4, 5)]])
    legal = [E.action_parts(a, rules)[0] for a in g.legal_actions()]
    assert "draw" in legal and "play" in legal
    assert greedy_choice(rules, g)[0] == "play"


def test_greedy_reads_only_the_observation():
    # Two deals that look the same from seat 1 (the other tiles moved between seat 0's hand
    # and the boneyard) get the same choice for every seed.
    hands_a = [[(6, 6), (0, 0), (4, 4)], [(2, 6), (1, 6), (1, 4), (1, 5)]]
    hands_b = [[(6, 6), (2, 2), (3, 5)], [(2, 6), (1, 6), (1, 4), (1, 5)]]
    for seed in range(5):
        ra, ga = position("draw", hands_a)
        rb, gb = position("draw", hands_b)
        np.testing.assert_array_equal(ga.observe(1), gb.observe(1))
        assert greedy_choice(ra, ga, seed) == greedy_choice(rb, gb, seed)


# ------------------------------------------------------------------ sampler
def test_sampler_respects_hand_sizes_the_boneyard_and_the_voids():
    # Draw, 3 players, 3 tiles each. Seat 0 sets [6-6]; seat 1 has no 6 and draws until it
    # can play: its void is every tile that fitted the open 6s when it drew.
    rules, g = position("draw", [[(6, 6), (0, 1), (0, 2)], [(1, 1), (1, 2), (2, 2)], [(3, 6), (4, 5), (5, 5)]])
    while E.action_parts(g.legal_actions()[0], rules)[0] == "draw":
        g.step(g.legal_actions()[0])
    g.step(g.legal_actions()[0])  # it plays the tile it drew; seat 2, the observer, is to move
    assert g.to_move == 2
    obs = g.observe(2)
    v = view_of(rules)
    sampler = FamilySampler(v, obs)
    hands, boneyard = sampler.sample(np.random.default_rng(0), 200)
    void = v.slice(obs[None], "seat_void")[0] > 0
    sizes = np.rint(v.slice(obs[None], "seat_hand_size")[0]).astype(int)
    own = v.slice(obs[None], "hand")[0] > 0
    on_table = v.slice(obs[None], "on_table")[0] > 0
    assert void[2].any()  # seat 1 (offset 2 from seat 2) drew when stuck: evidence to respect
    for k in range(200):
        assert (hands[k, 0] == own).all()
        for o in (1, 2):
            assert hands[k, o].sum() == sizes[o]
            assert not (hands[k, o] & void[o]).any()
        everything = hands[k, :3].sum(axis=0) + on_table
        everything[boneyard[k]] += 1
        assert (everything == 1).all()  # every tile exactly once
    assert len(np.unique(boneyard[:, 0])) > 1  # the boneyard's order is sampled


def test_sampler_refuses_an_inconsistent_observation():
    rules, g = position("draw", [[(6, 6), (0, 1)], [(1, 1), (1, 2)]])
    obs = g.observe(1).copy()
    start, _, _ = E.observation_layout(rules)["boneyard_size"]
    obs[start] += 1
    with pytest.raises(ValueError, match="unseen tiles"):
        FamilySampler(view_of(rules), obs)


def test_family_agent_names_are_checked():
    with pytest.raises(ValueError, match="unknown agent 'tactics' for draw"):
        make_agent("tactics", game="draw")
    with pytest.raises(ValueError, match="unknown game 'drw'"):
        make_agent("greedy", game="drw")
    assert isinstance(make_agent("greedy", game="block"), FamilyGreedyAgent)


def test_the_view_numbers_tiles_as_the_engines_do():
    # Agents build the tile order themselves (they may not import the kernel library): it must be
    # the rules' own order for both sets, or every tile feature an agent reads is misplaced.
    from agents.family.view import set_tiles
    from nos_env.family.rules import make_rules

    for game in ("draw", "double_nine_cross"):
        rules = make_rules(game)
        assert set_tiles(rules.max_pip) == tuple(rules.tiles)
    assert len(set_tiles(6)) == 28 and len(set_tiles(9)) == 55
