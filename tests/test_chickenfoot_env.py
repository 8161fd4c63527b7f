"""Chickenfoot's environments over a whole match (CK13): both backends, the vector API, the
rewards of penalty scoring (CK12). PettingZoo's api/seed/render tests for every player count
run in tests/test_family_env.py (one hand an episode there)."""

from __future__ import annotations

import numpy as np
import pytest

import nos_env
from nos_env import chickenfoot_v0
from nos_env.family.chickenfoot import ChickenfootGame


def play(env, seed, rng_seed=0, limit=5000):
    """A seeded episode with random legal actions; returns every step's rewards and the final scores."""
    env.reset(seed=seed)
    rng = np.random.default_rng(rng_seed)
    rewards, trace = [], []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        trace.append((agent, a, obs["observation"].tobytes()))
        env.step(a)
        rewards.append([env.rewards[p] for p in env.possible_agents])
        if len(rewards) > limit:
            raise AssertionError("the match did not end")
    return np.array(rewards), env.unwrapped.scores, trace


def test_a_whole_match_is_the_same_on_both_backends_and_points_add_up():
    runs = [play(nos_env.env(game="chickenfoot", num_players=3, backend=b, reward="points",
                             match="descending"), seed=8) for b in ("reference", "fast")]
    (r0, s0, t0), (r1, s1, t1) = runs
    assert t0 == t1 and np.array_equal(r0, r1) and s0 == s1
    # CK12: the points are minus the penalties; over the match they add up to minus the totals
    assert r0.sum(axis=0).tolist() == [-x for x in s0]
    g = ChickenfootGame(nos_env.env(game="chickenfoot", num_players=3).unwrapped.rules, seed=8)
    assert g.rules.num_hands == 10


def test_win_rewards_go_to_the_lowest_total():
    r, scores, _ = play(chickenfoot_v0.env(num_players=2, reward="win", match="one_hand"), seed=2)
    assert (r[:-1] == 0).all()
    low = min(scores)
    expect = [0.0, 0.0] if scores.count(low) == 2 else [1.0 if s == low else -1.0 for s in scores]
    assert r[-1].tolist() == expect


def test_vector_tables_play_the_seeded_environment_games():
    B, n = 4, 4
    venv = chickenfoot_v0.vector_env(B, n, seed=30, reward="points", observation_dtype="float32", match="one_hand")
    obs, masks, current = venv.reset()
    envs = [nos_env.env(game="chickenfoot", num_players=n, backend="reference", observation_dtype="float32",
                        reward="points", match="one_hand") for _ in range(B)]
    for b, e in enumerate(envs):
        e.reset(seed=30 + b)
    rng = np.random.default_rng(1)
    totals = np.zeros((B, n))
    finished = np.zeros(B, bool)
    for _ in range(400):
        actions = np.zeros(B, np.int64)
        for b, e in enumerate(envs):
            if finished[b]:
                actions[b] = int(rng.choice(np.flatnonzero(masks[b])))
                continue
            o = e.observe(e.agent_selection)
            assert e.agent_selection == f"player_{current[b]}"
            np.testing.assert_array_equal(o["observation"], obs[b])
            np.testing.assert_array_equal(o["action_mask"], masks[b])
            actions[b] = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, masks, current, rewards, terminated, _ = venv.step(actions)
        for b, e in enumerate(envs):
            if finished[b]:
                continue
            e.step(int(actions[b]))
            assert [e.rewards[p] for p in e.possible_agents] == rewards[b].tolist()
            totals[b] += rewards[b]
            if terminated[b]:
                finished[b] = True
                assert totals[b].tolist() == [-x for x in e.unwrapped.scores]
        if finished.all():
            break
    assert finished.all()


def test_bad_options_name_what_is_allowed():
    with pytest.raises(ValueError, match="one_hand"):
        nos_env.env(game="chickenfoot", match="best_of_three")
    with pytest.raises(ValueError, match="2 to 8"):
        chickenfoot_v0.vector_env(2, 9)
