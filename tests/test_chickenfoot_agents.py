"""Random, Greedy and Search play Chickenfoot (agents/family/), and its duplicate tournaments."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from agents.base import BatchContext
from agents.family.search import FamilySearchAgent
from agents.tournament import run_tournament
from nos_env.chickenfoot_tables import ChickenfootTables
from nos_env.family import chickenfoot_encoding as enc
from nos_env.family.chickenfoot import ChickenfootGame, make_chickenfoot_rules

RULES = make_chickenfoot_rules(2, match="one_hand")
IDX = RULES.tiles.index


def position(hands, steps):
    """A one-hand game of 2 players dealt ``hands`` ((a, b) pairs; the rest in the yard in set
    order), then ``steps`` ((a, b, toe) plays) played."""
    dealt = [[IDX[tuple(sorted(p))] for p in h] for h in hands]
    held = {t for h in dealt for t in h}
    g = ChickenfootGame.from_deal(RULES, dealt, [t for t in range(55) if t not in held])
    for a, b, toe in steps:
        g.step(enc.play_index(IDX[tuple(sorted((a, b)))], toe, rules=RULES))
    return g


def greedy(g):
    agent = make_agent("greedy", seed=0, game="chickenfoot", rules=RULES)
    a = int(agent.act(g.observe(g.to_move), g.legal_mask()))
    assert a in g.legal_actions()
    return enc.describe(a, RULES)


# The double chickenfoot filled by six plays: toes 0..5 open 1, 0, 3, 2, 5, 4.
FILLED = [(9, 1, 0), (9, 0, 1), (9, 3, 2), (9, 2, 3), (9, 5, 4), (9, 4, 5)]


def test_greedy_sheds_the_0_0_before_a_heavier_tile():
    # seat 1 may play 0-0 on toe 1 (open 0) or 5-8 on toe 4 (open 5): 13 pips, but 0-0 costs 50 (CK12)
    g = position([[(9, 9), (9, 0), (9, 2), (9, 4), (6, 6)], [(9, 1), (9, 3), (9, 5), (0, 0), (5, 8), (7, 7)]],
                 FILLED)
    assert g.to_move == 1
    assert greedy(g) == "play 0-0 on T1"


def test_search_plays_a_legal_move_from_the_observation():
    t = ChickenfootTables("chickenfoot", 1, 3, seed=4, observation_dtype="float32", match="one_hand")
    for _ in range(12):
        t.step(np.array([t.legal_actions(0)[-1]]))
    agent = FamilySearchAgent(t.rules, seed=1, rollouts=8, min_rollouts=2)
    seat = int(t.current_player[0])
    obs = t.observe(np.array([seat]))
    ctx = BatchContext(tables=t, table_index=np.array([0]), seats=np.array([seat]))
    before = t.clone()
    a = int(agent.act_batch(obs, t.masks.copy(), ctx)[0])
    assert a in t.legal_actions(0).tolist()
    for name, arr in before.items():  # the search used scratch tables only
        assert np.array_equal(arr, getattr(t, name)), name


def test_a_duplicate_tournament_of_every_agent():
    r = run_tournament(["greedy", "random", "search", "random"], 2, seed=3, game="chickenfoot", tables=8,
                       progress=False,
                       agent_options={"search": {"rollouts": 8, "min_rollouts": 2}})
    assert r.summary()["game_options"] == {"match": "one_hand"}  # one hand by default (rules.one_hand_options)
    assert len(r.deal) == 8
    for d in np.unique(r.deal):
        rows = np.flatnonzero(r.deal == d)
        assert sorted(r.seat_agent[rows, 0].tolist()) == [0, 1, 2, 3]
    # penalties only (CK12): nobody gains points, and somebody loses some in every hand
    assert (r.chips <= 0).all() and (r.chips < 0).any(axis=1).all()
