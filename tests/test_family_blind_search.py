"""Search for Blind (agents/family/blind_search.py): determinized over the never-seen tiles."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from agents.base import BatchContext
from agents.family.blind_search import BlindSearchAgent
from agents.tournament import run_tournament
from nos_env.blind_tables import BlindTables
from nos_env.family.blind_encoding import describe


def position(optional_play: bool, seed: int = 11, tables: int = 1):
    """A Blind table (4 players) at its first decision with two or more legal actions, reached by
    always taking the lowest legal action; the seat to move."""
    t = BlindTables("blind", tables, 4, seed=seed, observation_dtype="float32", optional_play=optional_play)
    for _ in range(200):
        if t.masks[0].sum() >= 2:
            return t, int(t.current_player[0])
        actions = np.array([int(np.flatnonzero(t.masks[b])[0]) for b in range(t.num_tables)], np.int64)
        t.step(actions, observe=False, autoreset=False)
    raise AssertionError("no decision with two legal actions")


def search_once(tables, seat, seed=5, rollouts=24, b=0):
    agent = BlindSearchAgent(tables.rules, seed=seed, rollouts=rollouts)
    obs = tables.observe_rows(np.array([b]), np.array([seat]))
    ctx = BatchContext(tables=tables, table_index=np.array([b]), seats=np.array([seat]))
    action = int(agent.act_batch(obs, tables.masks[b:b + 1], ctx)[0])
    return agent, action


def test_search_is_registered_for_blind_and_plays_a_legal_move_leaving_the_table_alone():
    tables, seat = position(optional_play=True)
    agent = make_agent("search", seed=1, game="blind", rules=tables.rules, rollouts=16)
    assert isinstance(agent, BlindSearchAgent)
    before = {k: np.array(v) for k, v in tables.clone_table(0).items()}
    ctx = BatchContext(tables=tables, table_index=np.array([0]), seats=np.array([seat]))
    a = int(agent.act_batch(tables.observe_rows(np.array([0]), np.array([seat])), tables.masks[:1], ctx)[0])
    assert tables.masks[0, a] == 1, describe(a, tables.rules)
    for name, value in before.items():
        np.testing.assert_array_equal(value, np.asarray(tables.clone_table(0)[name]), err_msg=name)
    legal = np.flatnonzero(tables.masks[0])
    np.testing.assert_array_equal(agent.last_search["candidates"], legal)
    assert agent.last_search["rollouts"] == 16 // len(legal)


def test_search_is_deterministic_for_a_seed():
    tables, seat = position(optional_play=True)
    first, a = search_once(tables, seat, seed=5)
    second, b = search_once(tables, seat, seed=5)
    assert a == b
    np.testing.assert_array_equal(first.last_search["values"], second.last_search["values"])
    third, _ = search_once(tables, seat, seed=6)
    assert not np.array_equal(first.last_search["values"], third.last_search["values"])


def test_search_reads_only_what_everyone_saw():
    # The same table with the never-seen tiles in another (consistent) order: the same values.
    tables, seat = position(optional_play=True)
    game = tables.reference_game(0)
    import random

    other = game.sample_hidden(random.Random(3)).hidden_tiles()
    assert other != game.hidden_tiles()  # a different deal of the hidden tiles
    twin = BlindTables("blind", 1, 4, seed=0, observation_dtype="float32", optional_play=True)
    twin.restore_table(0, {k: np.asarray(v) for k, v in tables.clone_table(0).items()})
    twin.set_hidden(0, other)
    assert twin.hidden_tiles(0) != tables.hidden_tiles(0)
    np.testing.assert_array_equal(twin.observe_rows(np.array([0]), np.array([seat])),
                                  tables.observe_rows(np.array([0]), np.array([seat])))
    a, x = search_once(tables, seat)
    b, y = search_once(twin, seat)
    assert x == y
    np.testing.assert_array_equal(a.last_search["values"], b.last_search["values"])


def test_every_determinization_replays_what_everyone_saw():
    # Each scratch row the search fills is the real game with the hidden tiles moved: the same
    # public events (BD7: an order under which the game would have blocked earlier is refused).
    tables, seat = position(optional_play=False, seed=4)
    agent = BlindSearchAgent(tables.rules, seed=2)
    snapshot = {k: np.asarray(v) for k, v in tables.clone_table(0).items()}
    obs = tables.observe_rows(np.array([0]), np.array([seat]))
    sampler = agent._sampler(obs[0])
    assert sorted(sampler.hidden.tolist()) == sorted(tables.hidden_tiles(0))
    scratch = agent._tables(12)
    agent._determinize(scratch, snapshot, sampler, 6, 2, seat)
    events = tables.reference_game(0).events
    orders = set()
    for r in range(12):
        game = scratch.reference_game(r)
        assert game.events == events
        orders.add(tuple(game.hidden_tiles()))
        np.testing.assert_array_equal(scratch.observe_rows(np.array([r]), np.array([seat])), obs)
    assert len(orders) == 6  # one sample per pair of candidate rows


@pytest.mark.parametrize("opponent,at_least", [("random", 0.2), ("greedy", None)])
def test_search_beats_random_and_does_not_lose_to_greedy(opponent, at_least):
    # With optional_play a player has real decisions (decline a fitting tile or not, which end).
    # Random declines half its fitting tiles; Search must win clearly more hands than it, and
    # must not do significantly worse than Greedy (the interval must reach zero or above).
    r = run_tournament([opponent, "search"] * 2, 12, seed=3, tables=48, game="blind",
                       game_options={"optional_play": True}, progress=False, num_threads=1,
                       agent_options={"search": {"rollouts": 16}})
    h = r.summary()["head_to_head_by_name"][f"search vs {opponent}"]
    if at_least is not None:
        assert h["mean_difference"] - h["ci95"] > 0 and h["mean_difference"] > at_least, h
    else:
        assert h["mean_difference"] + h["ci95"] >= 0, h


def test_aec_players_play_blind_with_search_alike_on_both_backends():
    import nos_env
    from agents import AECPlayer

    played = []
    for backend in ("fast", "reference"):
        env = nos_env.env("blind", num_players=3, backend=backend, optional_play=True)
        rules = env.unwrapped.rules
        players = {a: AECPlayer(name, seed=i, game="blind", rules=rules, **({"rollouts": 8} if name == "search" else {}))
                   for i, (a, name) in enumerate(zip(env.possible_agents, ["search", "greedy", "random"]))}
        env.reset(seed=5)
        actions = []
        for agent in env.agent_iter():
            _, _, termination, truncation, _ = env.last()
            action = None if termination or truncation else players[agent](env)
            actions.append(action)
            env.step(action)
        played.append(actions)
    assert played[0] == played[1] and len(played[0]) > 6
