"""Mexican Train's agents: Greedy's choices on given positions, Search's decisions from public
information only (agents/family/mexican_train.py, agents/family/search.py)."""

from __future__ import annotations

import numpy as np

from agents.family import make_family_agent
from nos_env.family import mexican_train as M
from nos_env.family import mexican_train_encoding as enc
from nos_env.mexican_train_tables import MexicanTrainTables

RULES = M.make_mexican_train_rules(2, tileset="double_nine", rounds=1)


def T(a, b):
    return RULES.tiles.index[(min(a, b), max(a, b))]


def position(hand0, hand1, top=()):
    """Table 0 loaded with these hands (k tiles each) and seat 0 to move."""
    tiles = [T(*x) for x in hand0 + hand1 + list(top)]
    rest = [t for t in range(RULES.num_tiles) if t not in tiles and t != T(9, 9)]
    t = MexicanTrainTables("mexican_train", 1, 2, seed=0, tileset="double_nine", rounds=1)
    t.load_deal(0, [[T(*x) for x in hand0], [T(*x) for x in hand1]], [T(*x) for x in top] + rest, setter=0)
    return t


def act(agent, t):
    obs = t.observe_rows(np.array([0]), np.array([0]))
    return int(agent.act_batch(obs, t.masks[:1].copy())[0])


HAND0 = [(9, 8), (9, 1), (2, 3), (4, 5), (0, 0), (1, 1), (6, 6), (7, 7), (3, 3), (4, 4), (5, 5), (2, 2)]
HAND1 = [(0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (0, 6), (0, 7), (0, 8), (1, 2), (1, 3), (1, 4), (1, 5)]


def test_greedy_sheds_the_heaviest_tile_and_keeps_his_train_going():
    t = position(HAND0, HAND1)
    g = make_family_agent("greedy", RULES, seed=0)
    a = act(g, t)
    # 9-8 (17 pips) before 9-1 (10); on his own train it leaves 8 open, which he holds none of,
    # elsewhere it keeps the 9 on his train for 9-1: the Mexican train
    assert enc.action_parts(a, RULES)[:2] == ("play", T(9, 8))
    assert a == enc.play_index(T(9, 8), enc.MEXICAN, rules=RULES)


def test_search_decides_from_public_information_only():
    """The same position with the other hand and the boneyard shuffled: the same choice."""
    a = position(HAND0, HAND1)
    b = position(HAND0, [(1, 6), (1, 7), (1, 8), (2, 4), (2, 5), (2, 6), (2, 7), (2, 8), (3, 4), (3, 5), (3, 6),
                         (3, 7)])
    assert np.array_equal(a.observe_rows(np.array([0]), np.array([0])),
                          b.observe_rows(np.array([0]), np.array([0])))
    choices = []
    for t in (a, b):
        s = make_family_agent("search", RULES, seed=3, rollouts=16)
        from agents.base import BatchContext

        ctx = BatchContext(tables=t, table_index=np.array([0]), seats=np.array([0]))
        before = t.clone()
        obs = t.observe_rows(np.array([0]), np.array([0]))
        choices.append((int(s.act_batch(obs, t.masks[:1].copy(), ctx)[0]), tuple(s.last_search["values"])))
        assert all(np.array_equal(before[k], v) for k, v in t.clone().items()), "the real table is untouched"
    assert choices[0] == choices[1]
    assert choices[0][0] in a.legal_actions(0)


def test_vector_env_pays_the_rounds_and_names_the_winners():
    """nos_env.vector_env(game="mexican_train"): points are minus the pips left (MT11); "win" pays
    +1 to the match winner (lowest total) and -1/(n-1) to the others."""
    import nos_env

    for reward in ("points", "win"):
        venv = nos_env.vector_env(6, game="mexican_train", num_players=3, seed=4, reward=reward,
                                  tileset="double_nine", rounds=1)
        _, masks, _ = venv.reset()
        refs = [M.MexicanTrainGame(venv.rules, seed=4 + b) for b in range(6)]
        rng = np.random.default_rng(0)
        finished = 0
        for _ in range(400):
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            _, masks, _, rewards, terminated, _ = venv.step(actions)
            for b, g in enumerate(refs):
                points = g.step(int(actions[b]))
                if reward == "points":
                    assert rewards[b].tolist() == points
                elif terminated[b]:
                    want = [0.0] * 3 if g.winner is None else [1.0 if s == g.winner else -0.5 for s in range(3)]
                    assert rewards[b].tolist() == want
                else:
                    assert not rewards[b].any()
                assert bool(terminated[b]) == g.done
                if g.done:
                    finished += 1
                    g.reset()
        assert finished >= 6
