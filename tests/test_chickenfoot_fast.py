"""ChickenfootTables (the numba engine) against the reference engine, and its API.

The long run is ``benchmarks/differential_chickenfoot.py``; here a few hands of every player
count and both tile sets, step by step.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import pytest

from nos_env.chickenfoot_tables import ChickenfootTables
from nos_env.family import chickenfoot_encoding as enc
from nos_env.family.chickenfoot import ChickenfootGame, make_chickenfoot_rules

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from differential_chickenfoot import run  # noqa: E402


@pytest.mark.parametrize("tileset", ["double_nine", "double_twelve"])
@pytest.mark.parametrize("n", range(2, 9))
def test_fast_matches_reference_step_by_step(n, tileset):
    missing = "redeal" if n % 2 else "next_lower"
    hands, decisions = run(dict(num_players=n, tileset=tileset, missing_set=missing, match="one_hand"), 2, 2, seed=n)
    assert hands >= 2 and decisions > 20


def test_a_full_match_matches_and_autoresets():
    hands, _ = run(dict(num_players=4, tileset="double_nine", missing_set="next_lower", match="descending"), 1, 11,
                   seed=3)
    assert hands >= 11  # a whole match of 10 hands and the next match's first


def test_reference_game_load_deal_and_snapshots():
    t = ChickenfootTables("chickenfoot", 2, 3, seed=5, observation_dtype="float32")
    rnd = np.random.default_rng(0)
    for _ in range(150):
        acts = np.array([rnd.choice(t.legal_actions(b)) for b in range(2)])
        t.step(acts)
    g = t.reference_game(1)
    assert g.legal_actions() == t.legal_actions(1).tolist() and g.scores == t.scores[1].tolist()
    for seat in range(3):
        assert np.array_equal(g.observe(seat), t.observe_rows(np.array([1]), np.array([seat]))[0])
    snap = t.clone()
    before = t.observe(t.current_player).copy()
    t.step(np.array([t.legal_actions(0)[0], t.legal_actions(1)[-1]]))
    t.restore(snap)
    assert np.array_equal(t.observe(t.current_player), before)
    # load_deal: the hand of the rule tests (seat 0 holds 9-9; seat 1 must play a 9 on toe 0)
    rules = t.rules
    idx = rules.tiles.index
    hands = [[idx[(9, 9)], idx[(1, 9)], idx[(3, 4)]], [idx[(2, 9)], idx[(3, 9)]], [idx[(5, 6)]]]
    yard = [x for x in range(55) if x not in sum(hands, [])]
    t.load_deal(0, hands, yard, scores=[1, 2, 3])
    ref = ChickenfootGame.from_deal(rules, hands, yard, scores=[1, 2, 3])
    assert t.legal_actions(0).tolist() == ref.legal_actions() == [idx[(2, 9)] * 24, idx[(3, 9)] * 24]
    assert t.scores[0].tolist() == [1, 2, 3] and int(t.current_player[0]) == 1
    with pytest.raises(ValueError, match="exactly once"):
        t.load_deal(0, hands, yard[1:])
    assert t.legal_actions(0).tolist() == ref.legal_actions()  # a refused deal changes nothing


def test_bad_input_is_refused_and_changes_nothing():
    t = ChickenfootTables("chickenfoot", 2, 2, seed=1)
    snap = t.clone()
    illegal = enc.pass_index(t.rules)
    for bad in (np.array([illegal, illegal]), np.array([0.5, 1.0]), np.array([0]), np.array([-5, 0]),
                np.array([10**6, 0])):
        with pytest.raises(ValueError, match="actions|legal"):
            t.step(bad)
    for name, arr in snap.items():
        assert np.array_equal(arr, getattr(t, name)), name
    with pytest.raises(ValueError, match="2 to 8"):
        ChickenfootTables("chickenfoot", 1, 9)
    with pytest.raises(ValueError, match="chickenfoot"):
        ChickenfootTables("draw", 1, 2)
    with pytest.raises(ValueError, match="options are"):
        ChickenfootTables("chickenfoot", 1, 2, opening="free")


def test_same_seed_same_games_whatever_the_threads():
    a = ChickenfootTables("chickenfoot", 64, 4, seed=9, threads=1)
    b = ChickenfootTables("chickenfoot", 64, 4, seed=9, threads=2)
    rnd = np.random.default_rng(1)
    for _ in range(40):
        acts = np.array([rnd.choice(a.legal_actions(i)) for i in range(64)])
        oa = a.step(acts)[0].copy()
        ob = b.step(acts)[0]
        assert np.array_equal(oa, ob)
