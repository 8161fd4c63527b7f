"""Mexican Train's fast engine (MexicanTrainTables) against the reference engine, and its own API.

The differential (``nos_env/mexican_train_differential.py``) runs briefly here for every
player count on both sets; ``benchmarks/differential_mexican_train.py`` runs it long.
"""

from __future__ import annotations

import numpy as np
import pytest

from nos_env import mexican_train_differential as diff
from nos_env.family import mexican_train as M
from nos_env.family import mexican_train_encoding as enc
from nos_env.mexican_train_tables import MexicanTrainTables


@pytest.mark.parametrize("tileset", ["double_twelve", "double_nine"])
@pytest.mark.parametrize("n", range(2, 9))
def test_fast_engine_plays_the_reference_games(tileset, n):
    # two rounds keep round changes in view; double-nine hands are small, so matches end too
    counts = diff.run(n, seeds=[n, 100 + n], steps=150, action_seed=n, tileset=tileset, rounds=2)
    assert counts["rounds"] >= 1


def test_winner_and_final_scores_of_finished_matches():
    t = MexicanTrainTables("mexican_train", 8, 3, seed=5, tileset="double_nine", rounds=1)
    refs = [M.MexicanTrainGame(t.rules, seed=5 + b) for b in range(8)]
    state = np.array([np.uint64(b + 1) for b in range(8)], np.uint64)
    done = np.zeros(8, bool)
    while not done.all():
        actions = np.where(done, t.IDLE, t.sample_legal(state))
        _, _, term, _ = t.step(actions, autoreset=False, allow_idle=True)
        for b in np.flatnonzero(actions != t.IDLE):
            refs[b].step(int(actions[b]))
        done |= term
    assert t.winner.tolist() == [-1 if g.winner is None else g.winner for g in refs]
    assert t.scores.tolist() == [g.scores for g in refs]
    assert (t.masks.sum(axis=1) == 0).all()


def test_load_deal_plays_the_given_position():
    rules = M.make_mexican_train_rules(2, tileset="double_nine", rounds=1)
    tiles = rules.tiles.tiles
    hands = [list(tiles[0:12]), list(tiles[12:24])]
    boneyard = [t for t in tiles[24:] if t != (9, 9)]
    t = MexicanTrainTables("mexican_train", 2, 2, seed=0, tileset="double_nine", rounds=1)
    t.load_deal(1, hands, boneyard, setter=1, scores=[-3, -4])
    g = M.MexicanTrainGame.from_deal(rules, hands, boneyard, setter=1, scores=[-3, -4])
    assert t.legal_actions(1).tolist() == g.legal_actions()
    assert np.array_equal(t.observe_rows(np.array([1]), np.array([1]))[0], g.observe(1, "uint8"))
    before = t.clone()
    with pytest.raises(ValueError, match="exactly once"):
        t.load_deal(0, hands, boneyard[1:])
    with pytest.raises(ValueError, match="12 tiles each"):
        t.load_deal(0, [hands[0][:11], hands[1] + [hands[0][11]]], boneyard)
    assert all(np.array_equal(before[k], v) for k, v in t.clone().items())


def test_bad_actions_change_nothing():
    t = MexicanTrainTables("mexican_train", 3, 4, seed=2)
    before = t.clone()
    legal = t.legal_actions(1)
    illegal = next(a for a in range(t.num_actions) if a not in legal)
    for actions, message in ((np.array([legal[0]] * 3), "not legal|outside"),
                             (np.array([t.legal_actions(0)[0], illegal, t.legal_actions(2)[0]]), "table 1"),
                             (np.zeros(2, np.int64), "shape"), (np.full(3, t.num_actions), "outside"),
                             (np.zeros(3, np.float32), "integer")):
        with pytest.raises(ValueError, match=message):
            t.step(actions)
        assert all(np.array_equal(before[k], v) for k, v in t.clone().items())
    with pytest.raises(ValueError, match="mexican_train"):
        MexicanTrainTables("draw", 1)
    with pytest.raises(ValueError, match="rounds"):
        MexicanTrainTables("mexican_train", 1, rounds=0)


def test_action_space_sizes():
    assert enc.num_actions(M.make_mexican_train_rules(4)) == 912
    assert enc.num_actions(M.make_mexican_train_rules(4, tileset="double_nine")) == 552
