"""The privileged critic (train/privileged.py): the critic reads the other seats' hands in
training, the policy never does, and a saved model plays without them."""

from __future__ import annotations

import numpy as np
import pytest

from agents.family.games import make_rules
from agents.family.greedy import FamilyGreedyAgent
from agents.registry import make_agent
from agents.tournament import run_tournament
from tiny_training import tiny_family_run
from train.config import ConfigError, from_dict
from train.privileged import privileged_features
from train.selfplay import OpponentPool, SelfPlayVecEnv


def privileged_env(game="draw", num_players=4, tables=16, hint=True):
    rules = make_rules(game, num_players, target_score=None)
    pool = OpponentPool(seed=1)
    pool.add(FamilyGreedyAgent(rules, seed=2), 1.0)
    return SelfPlayVecEnv(tables, pool, num_players=num_players, seed=5, game=game, greedy_hint=hint,
                          privileged_critic=True)


def test_the_tail_holds_the_other_seats_hands_from_the_learners_left():
    env = privileged_env(num_players=3, hint=False)
    obs = env.reset()
    n, N, plain = 3, env.tables.rules.num_tiles, env.tables.observation_size
    assert env.privileged_size == (n - 1) * N and obs.shape[1] == plain + (n - 1) * N
    for b in range(4):
        game = env.tables.reference_game(b)  # the reference engine's hands, not the tables' words
        seat = int(env.learner[b])
        assert game.to_move == seat
        tail = obs[b, plain:].reshape(n - 1, N)
        for k in range(n - 1):
            held = sorted(game.hand.hands[(seat + 1 + k) % n])
            assert np.flatnonzero(tail[k]).tolist() == held
        assert not (set(np.flatnonzero(tail.sum(axis=0))) & set(game.hand.hands[seat]))  # never its own


def test_the_policy_ignores_the_tail_and_the_critic_reads_it():
    from train.trainer import make_model

    env = privileged_env()
    c = from_dict({"env": {"game": "draw", "greedy_hint": True, "privileged_critic": True, "num_envs": 16},
                   "ppo": {"n_steps": 8, "batch_size": 64}})
    model = make_model(c, env)
    policy = model.policy
    assert policy.privileged == env.privileged_size
    obs = env.reset()
    masks = env.action_masks()
    start = env.tables.observation_size + 1
    other = obs.copy()
    other[:, start:] = np.random.default_rng(0).integers(0, 2, other[:, start:].shape)
    # Move the critic and the shared layer away from their initial weights, so a zero gradient
    # is not an accident of the initialisation.
    import torch as th

    with th.no_grad():
        for p in policy.parameters():
            p.add_(0.05 * th.randn_like(p))
    t, u = th.as_tensor(obs), th.as_tensor(other)
    with th.no_grad():
        a = policy.get_distribution(t, action_masks=masks).log_p
        b = policy.get_distribution(u, action_masks=masks).log_p
        va, vb = policy.predict_values(t), policy.predict_values(u)
    assert th.equal(a, b)  # exactly: the action distribution never reads the tail
    assert not th.allclose(va, vb)  # the value does


def test_privileged_critic_refused_where_there_are_no_family_hands():
    for data, message in [({"env": {"privileged_critic": True}}, "env.privileged_critic: is a family game's"),
                          ({"env": {"game": "blind", "privileged_critic": True}}, "blind's tables keep them")]:
        with pytest.raises(ConfigError) as info:
            from_dict(data, "cfg.yaml")
        assert message in str(info.value)


def test_a_privileged_run_saves_a_model_that_plays_without_the_hands(tmp_path):
    tiny_family_run(tmp_path, "{game: all_fives, num_players: 3, num_envs: 16, greedy_hint: true, privileged_critic: true}")
    from agents.model import ModelAgent

    agent = ModelAgent(tmp_path / "tiny" / "model.zip")
    assert agent.policy.privileged == 2 * 28 and agent.hint == 1
    r = run_tournament([f"model:{tmp_path / 'tiny' / 'model.zip'}", "greedy", "greedy"], 2, game="all_fives",
                       progress=False)
    assert len(r.deal) == 6


def test_features_refuse_tables_without_family_hands():
    from nos_env.fast_engine import FastTables

    with pytest.raises(ValueError, match="reads FamilyTables' hands"):
        privileged_features(FastTables(2, 4, 0), np.arange(2), np.zeros(2, np.int64))


@pytest.mark.parametrize("game, options", [("chickenfoot", {"match": "one_hand"}), ("mexican_train", {})])
def test_chickenfoot_and_mexican_train_tails_hold_the_reference_engines_hands(game, options):
    # Their tables keep hands as bit sets of one (55 tiles) or two (91 tiles) words; the tail is
    # checked against the reference engine's hands, replayed from the tables' decisions.
    from agents.tournament import family_options

    rules = make_rules(game, 4, **family_options(game, options))
    pool = OpponentPool(seed=1)
    pool.add(make_agent("greedy", seed=2, game=game, rules=rules), 1.0)
    env = SelfPlayVecEnv(4, pool, num_players=4, seed=5, game=game, game_options=options, privileged_critic=True)
    obs = env.reset()
    for _ in range(3):  # a few decisions in, so hands have changed since the deal
        masks = env.action_masks()
        obs, *_ = env.step(np.array([np.flatnonzero(m)[-1] for m in masks]))
    n, N, plain = 4, env.tables.rules.num_tiles, env.tables.observation_size
    assert env.privileged_size == (n - 1) * N and obs.shape[1] == plain + (n - 1) * N
    for b in range(4):
        hands = env.tables.reference_game(b).hand.hands
        seat = int(env.learner[b])
        assert int(env.tables.current_player[b]) == seat
        tail = obs[b, plain:].reshape(n - 1, N)
        for k in range(n - 1):
            assert np.flatnonzero(tail[k]).tolist() == sorted(hands[(seat + 1 + k) % n])
        if N > 64:  # a tile of the second word is somewhere in the other hands
            assert tail[:, 64:].any()
