"""Each action's immediate points as a policy input (``env.action_points``, agents/policy.py
``action_points``): the points equal the rules' scores (the Five Up page's worked examples, and the
reference engine's score of every legal move in random hands of the four scoring games), they are
a function of the seat's observation and mask only, the head adds ``points_weight * points``, a
policy with them saves, loads and plays identically, bad settings get a clear error, and a tiny
rollout-advantage run fits and plays with them."""

from __future__ import annotations

import copy
import json
import random

import numpy as np
import pytest
import torch as th

from agents.family.games import make_rules
from agents.family.greedy import SCORING_GAMES, FamilyGreedyAgent
from agents.policy import HintHead, NosPolicy, action_points, check_action_points, hint_agent
from agents.tournament import family_options, run_tournament
from nos_env.family import encoding as enc
from nos_env.family.engine import FamilyGame
from nos_env.kernels.tilesets import tile_set
from train.config import ConfigError, from_dict
from train.selfplay import OpponentPool, SelfPlayVecEnv

from tiny_training import tiny_distill_run


def points_of(game: FamilyGame) -> np.ndarray:
    """The points input of the seat to move, from its observation and legal moves only."""
    seat = game.to_move
    obs = np.asarray(game.observe(seat), np.float32)[None, :]
    mask = np.asarray(game.legal_mask(), bool)[None, :]
    return action_points(FamilyGreedyAgent(game.rules, seed=0), obs, mask)[0]


def deal(game_id, n, hands, setter):
    rules = make_rules(game_id, n)
    index = tile_set(rules.max_pip).index
    idx = [[index[(min(t), max(t))] for t in h] for h in hands]
    used = {t for h in idx for t in h}
    return FamilyGame.from_deal(rules, idx, [t for t in range(rules.num_tiles) if t not in used], setter=setter)


def action(game, text):
    return enc.parse(text, game.rules)


def test_five_up_example_4_the_points_of_each_move_are_the_pages():
    # docs/rules/five_up.md, worked example 4 (and the Deal section: "[5-5] set alone counts 10 and
    # scores 2"; FU5: E / 5 when E is a positive multiple of 5).
    g = deal("five_up", 2, [[(5, 5), (5, 6), (5, 3), (1, 1)], [(5, 0), (5, 4), (2, 2)]], setter=0)
    p = points_of(g)
    sets = {enc.describe(a, g.rules): p[a] for a in g.legal_actions()}
    assert sets == {"set 5-5": 2.0, "set 5-6": 0.0, "set 3-5": 0.0, "set 1-1": 0.0}  # 10, 11, 8, 2
    assert (np.delete(p, g.legal_actions()) == 0).all()  # illegal moves: 0
    g.step(enc.set_index(tile_set(6).index[(5, 5)], rules=g.rules))
    p = points_of(g)
    assert p[action(g, "play 0-5 on L0")] == 2.0  # 5 + 5 + 0 = 10
    g.step(action(g, "play 0-5 on L0"))
    p = points_of(g)
    assert p[action(g, "play 5-6 on L1")] == 0.0  # 0 + 6
    g.step(action(g, "play 5-6 on L1"))
    assert points_of(g)[action(g, "play 4-5 on A2")] == 2.0  # 0 + 6 + 4
    g.step(action(g, "play 4-5 on A2"))
    assert points_of(g)[action(g, "play 3-5 on A3")] == 0.0  # 13


def test_five_up_example_5_a_double_in_the_line():
    g = deal("five_up", 2, [[(2, 4), (4, 1), (4, 0), (1, 3), (6, 6)], [(4, 4), (4, 3), (2, 2), (5, 5)]], setter=0)
    assert points_of(g)[enc.set_index(tile_set(6).index[(2, 4)], rules=g.rules)] == 0.0  # E = 6
    g.step(enc.set_index(tile_set(6).index[(2, 4)], rules=g.rules))
    assert points_of(g)[action(g, "play 4-4 on L1")] == 2.0  # 2 + 4 + 4 = 10
    for text, points in [("play 4-4 on L1", None), ("play 1-4 on L1", 0.0), ("play 3-4 on A2", 0.0),
                         ("play 0-4 on A3", 0.0), ("play 2-2 on L0", 0.0), ("play 1-3 on L1", 2.0)]:
        if points is not None:
            assert points_of(g)[action(g, text)] == points, text  # 3, 6, 6, 8, then 4 + 3 + 3 + 0 = 10
        g.step(action(g, text))


@pytest.mark.parametrize("game_id", SCORING_GAMES)
def test_the_points_are_what_the_reference_engine_scores_for_each_legal_move(game_id):
    # Random hands of the reference engine: at every decision, each legal move is played on a copy
    # and the mover's points from it (when the hand goes on: a move that ends it adds the end
    # award) must equal the points input. Single hands (no match target, so no exact-61 cap).
    rules = make_rules(game_id, 4, **family_options(game_id, {}))
    rnd = random.Random(7)
    compared = scored = 0
    for seed in range(6):
        g = FamilyGame(rules, seed=seed)
        while not (g.done or g.hand_over):
            p = points_of(g)
            seat = g.to_move
            legal = g.legal_actions()
            assert (np.delete(p, legal) == 0).all()
            for a in legal:
                copy_ = copy.deepcopy(g)
                gained = copy_.step(a)
                if copy_.done or copy_.hand_over:
                    continue
                assert p[a] == gained[seat], (seed, enc.describe(a, rules))
                compared += 1
                scored += gained[seat] > 0
            g.step(rnd.choice(legal))
    assert compared > 100 and scored > 10  # real positions, with scoring moves among them


def scoring_env(game="five_up", tables=16, seed=3, action_points_=True):
    rules = make_rules(game, 4, target_score=None)
    pool = OpponentPool(seed=1)
    pool.add(FamilyGreedyAgent(rules, seed=2), 1.0)
    return SelfPlayVecEnv(tables, pool, num_players=4, seed=seed, game=game, greedy_hint=True,
                          action_points=action_points_)


def test_the_env_puts_the_points_behind_the_hint_from_the_seats_view_only():
    env = scoring_env()
    plain, actions = env.tables.observation_size, env.action_space.n
    assert env.points_size == actions and env.observation_space.shape == (plain + 1 + actions,)
    obs = env.reset()
    greedy = FamilyGreedyAgent(env.tables.rules, seed=0)
    seen = 0
    for _ in range(8):
        masks = env.action_masks()
        # A function of the observation and the mask alone (no hidden tile is read) ...
        assert np.array_equal(obs[:, plain + 1:], action_points(greedy, obs[:, :plain], masks))
        # ... which are the learner's own view: the same rows observed from its seat by the tables.
        assert np.array_equal(obs[:, :plain], env.tables.observe_rows(np.arange(env.num_envs), env.learner))
        seen += int((obs[:, plain + 1:] > 0).sum())
        obs, _, _, _ = env.step(obs[:, plain].astype(np.int64))
    assert seen > 0


def test_the_head_adds_the_weighted_points_to_each_logit():
    head = HintHead(4, hint_weight=1.5, num_actions=5, points=5, points_weight=2.0)
    latent = th.tensor([[0.1, -0.2, 0.3, 0.4, 2.0, 0.0, 1.0, 0.0, 3.0, 0.0]])  # latent, hint 2, points
    plain = head.linear(latent[:, :4])[0]
    logits = head(latent)[0]
    expected = plain + th.tensor([0.0, 2.0, 1.5, 6.0, 0.0])
    assert th.allclose(logits, expected)
    index = th.tensor([[3, 1, 2]])
    assert th.allclose(head.chosen(latent, index, th.ones_like(index, dtype=th.bool))[0], expected[[3, 1, 2]])
    assert "points_weight" in dict(head.named_parameters())  # learned
    assert "points_weight" not in dict(HintHead(4, 1.5, num_actions=5).named_parameters())  # old heads unchanged


def test_policy_and_env_settings_are_checked():
    source = {"game": "five_up", "num_players": 4, "options": {}}
    assert check_action_points(False, None) is False
    with pytest.raises(ValueError, match="action_points must be true or false"):
        check_action_points("yes", source)
    with pytest.raises(ValueError, match="needs a family game's Greedy hint"):
        check_action_points(True, None)
    with pytest.raises(ValueError, match="draw's plays score nothing at once; the games whose plays score are "
                                         "all_fives, fives_and_threes, five_up, bergen"):
        check_action_points(True, {**source, "game": "draw"})
    with pytest.raises(ValueError, match="points must be 0 or the number of actions"):
        HintHead(4, 1.5, num_actions=5, points=3)
    rules = make_rules("five_up", 4)
    pool = OpponentPool(seed=1)
    pool.add(FamilyGreedyAgent(rules, seed=2), 1.0)
    with pytest.raises(ValueError, match="needs a family game's Greedy hint"):
        SelfPlayVecEnv(4, pool, game="five_up", action_points=True)


@pytest.mark.parametrize("data,message", [
    ({"env": {"game": "draw", "greedy_hint": True, "action_points": True}},
     "env.action_points: draw's plays score nothing at once; the games whose plays score are all_fives, "
     "fives_and_threes, five_up, bergen"),
    ({"env": {"game": "five_up", "action_points": True}}, "it needs env.greedy_hint: true"),
    ({"env": {"action_points": True}}, "env.action_points: nos's plays score nothing at once"),
    ({"env": {"game": "five_up", "greedy_hint": True, "action_points": "yes"}},
     "env.action_points: must be true or false, got 'yes'"),
    ({"env": {"game": "five_up", "greedy_hint": True, "action_points": True}, "policy": {"points_weight": "x"}},
     "policy.points_weight: must be a number"),
    ({"run": {"engine": "rllib"}, "ppo": {"batch_size": 1024}, "env": {"game": "five_up", "greedy_hint": True, "action_points": True}},
     "env.action_points: is an SB3 policy feature"),
])
def test_config_errors_name_the_key(data, message):
    with pytest.raises(ConfigError) as info:
        from_dict(data, "cfg.yaml")
    assert message in str(info.value)


def test_the_policys_logits_carry_the_weighted_points_and_a_player_computes_the_same_input():
    from agents.model import PolicyAgent
    from train.trainer import make_env, make_model

    c = from_dict({"env": {"game": "all_fives", "greedy_hint": True, "action_points": True, "num_envs": 32,
                           "num_threads": 1},
                   "opponents": {"baselines": {"greedy": 1.0}}, "ppo": {"n_steps": 8, "batch_size": 64},
                   "policy": {"points_weight": 0.75}})
    env, _ = make_env(c)
    policy = make_model(c, env).policy
    assert policy.action_points and policy.points == env.action_space.n
    plain = env.tables.observation_size
    obs = env.reset()
    masks = env.action_masks()
    with th.no_grad():
        full = policy.get_distribution(th.as_tensor(obs), action_masks=masks).log_p.numpy()
        policy.action_net.points_weight.fill_(0.0)
        without = policy.get_distribution(th.as_tensor(obs), action_masks=masks).log_p.numpy()
        policy.action_net.points_weight.fill_(0.75)
    # log-probabilities differ from the points-free ones by 0.75 * points (up to each row's normaliser)
    diff = np.where(masks, full - without - 0.75 * obs[:, plain + 1:], np.nan)
    spread = np.nanmax(diff, axis=1) - np.nanmin(diff, axis=1)
    assert np.nanmax(spread) < 1e-4 and (obs[:, plain + 1:] > 0).any()
    # A player given only the seat's observation computes the same points (and the same hint where
    # Greedy's seeded tie-break agrees): the same log-probabilities as the policy read from the env.
    agent = PolicyAgent(policy, seed=0)
    same = hint_agent(env.hint_source, seed=0).act_batch(obs[:, :plain], masks) == obs[:, plain].astype(np.int64)
    assert same.sum() > 16
    got = agent.log_probabilities(obs[:, :plain], masks)
    assert np.allclose(got[same][masks[same]], full[same][masks[same]], atol=1e-5)


def test_tiny_run_with_action_points_saves_loads_and_plays_identically(tmp_path):
    from agents.model import ModelAgent, PolicyAgent, load_policy

    run = tiny_distill_run(tmp_path, "{game: five_up, num_envs: 16, greedy_hint: true, action_points: true, "
                                     "num_threads: 1}", "greedy",
                           "{teacher: rollout_advantage, target: advantage, temperature: 0.5, decisions: 300, "
                           "num_envs: 32, epochs: 2, batch_size: 64, margins: [0.0, 1.0]}")
    summary = json.loads((run / "distill" / "summary.json").read_text())
    assert summary["labels"] == 300
    from train.label_store import CompactObservations, PackedMasks

    with np.load(run / "distill" / "labels.npz") as f:  # (the compact labels' arrays, train/label_store.py)
        rules = make_rules("five_up", 4, **family_options("five_up", {}))
        size = 990
        stored = CompactObservations.from_arrays(f, "obs")
        assert stored.shape[1] == size + 1 + rules.num_actions
        obs = np.asarray(stored[:64], np.float32)
        masks = np.asarray(PackedMasks(f["legal_indptr"], f["legal_actions"], int(f["num_actions"]))[:64]).astype(bool)
    # The labels' stored points are the seat's points input.
    greedy = hint_agent({"game": "five_up", "num_players": 4, "options": rules.options()})
    assert np.array_equal(obs[:, size + 1:], action_points(greedy, obs[:, :size], masks))
    loaded = load_policy(run / "model.zip")
    assert isinstance(loaded, NosPolicy) and loaded.action_points and loaded.points == rules.num_actions
    assert float(loaded.action_net.points_weight.detach()) != 0.0  # fitted (it starts at 0 by default)
    agent = ModelAgent(run / "model.zip")
    assert agent.points == rules.num_actions
    # The loaded model plays exactly as the fitted one it was saved from: the same log-probabilities
    # as the policy read on the labels' rows (observation, hint and points as the env built them).
    with th.no_grad():
        direct = loaded.get_distribution(th.as_tensor(obs), action_masks=masks).log_p.numpy()
    fresh = PolicyAgent(loaded, seed=0)
    hinted = fresh._hinter.act_batch(obs[:, :size], masks)
    same_hint = hinted == obs[:, size].astype(np.int64)  # Greedy's tie-break is seeded: compare where equal
    assert same_hint.sum() > 32
    got = agent.log_probabilities(obs[:, :size], masks)
    assert np.allclose(got[same_hint][masks[same_hint]], direct[same_hint][masks[same_hint]], atol=1e-5)
    r = run_tournament([f"model:{run / 'model.zip'}", "greedy", "greedy", "greedy"], 2, game="five_up",
                       progress=False)
    assert len(r.deal) == 8


def test_tiny_ppo_run_with_action_points_trains_and_its_model_plays(tmp_path):
    # PPO's update reads compressed observations (train/buffer.py): the points ride in the tail.
    from agents.model import ModelAgent
    from tiny_training import tiny_family_run

    path = tiny_family_run(tmp_path, "{game: all_fives, num_players: 2, num_envs: 16, greedy_hint: true, "
                                     "action_points: true}")
    agent = ModelAgent(path)
    assert agent.policy.action_points and agent.points == make_rules("all_fives", 2).num_actions
    r = run_tournament([f"model:{path}", "greedy"], 2, game="all_fives", progress=False)
    assert len(r.deal) == 4
