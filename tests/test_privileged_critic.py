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
from nos_env.encoding import ENDGAME_COLUMN


def privileged_env(game="draw", num_players=4, tables=16, hint=True):
    rules = make_rules(game, num_players, target_score=None)
    pool = OpponentPool(seed=1)
    pool.add(FamilyGreedyAgent(rules, seed=2), 1.0)
    return SelfPlayVecEnv(tables, pool, num_players=num_players, seed=5, game=game, greedy_hint=hint,
                          privileged_critic=True)


def assert_the_tail_moves_only_the_value(policy, env, start):
    """Random 0/1 in the observation's columns from ``start`` (the privileged tail) leave the
    action distribution exactly as it was and change the value. Returns the observation as a
    tensor. The weights are moved off their initial values first, so that a zero effect is not an
    accident of the initialisation."""
    import torch as th

    obs = env.reset()
    masks = env.action_masks()
    other = obs.copy()
    other[:, start:] = np.random.default_rng(0).integers(0, 2, other[:, start:].shape)
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
    return t


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
    assert_the_tail_moves_only_the_value(policy, env, env.tables.observation_size + 1)


def test_privileged_critic_refused_where_the_tables_keep_no_hand_sets():
    with pytest.raises(ConfigError) as info:
        from_dict({"env": {"game": "blind", "privileged_critic": True}}, "cfg.yaml")
    assert "blind's tables keep them" in str(info.value)


def test_a_privileged_run_saves_a_model_that_plays_without_the_hands(tmp_path):
    tiny_family_run(tmp_path, "{game: all_fives, num_players: 3, num_envs: 16, greedy_hint: true, privileged_critic: true}")
    from agents.model import ModelAgent

    agent = ModelAgent(tmp_path / "tiny" / "model.zip")
    assert agent.policy.privileged == 2 * 28 and agent.hint == 1
    r = run_tournament([f"model:{tmp_path / 'tiny' / 'model.zip'}", "greedy", "greedy"], 2, game="all_fives",
                       progress=False)
    assert len(r.deal) == 6


def test_features_refuse_tables_without_hand_sets():
    from agents.family.games import tables_class

    blind = tables_class("blind")("blind", 2, num_players=4, seed=0)
    with pytest.raises(ValueError, match="reads Nos's FastTables' and FamilyTables' hands"):
        privileged_features(blind, np.arange(2), np.zeros(2, np.int64))


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


# --- Nos (FastTables): the other hands, then the boneyard's next draw and bottom two -------------


def nos_privileged_env(num_players=4, tables=8, hint=True):
    pool = OpponentPool(seed=1)
    pool.add(make_agent("random", seed=2), 1.0)
    return SelfPlayVecEnv(tables, pool, num_players=num_players, seed=5, tactics_hint=hint, privileged_critic=True)


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_nos_tail_holds_the_reference_engines_hands_and_boneyard(num_players):
    from nos_env.encoding import OBSERVATION_SIZE
    from nos_env.tiles import ALL_TILES

    env = nos_privileged_env(num_players, hint=False)
    n, N = num_players, len(ALL_TILES)
    obs = env.reset()
    assert env.privileged_size == (n + 1) * N and obs.shape[1] == OBSERVATION_SIZE + (n + 1) * N
    rng = np.random.default_rng(3)
    seen_no_draw = seen_drawn = 0
    for step in range(40):  # openings, plays and draws: hands and the boneyard's top change
        for b in range(len(obs)):
            hand = env.tables.reference_hand(b)  # the reference engine's state, replayed from the decisions
            seat = int(env.learner[b])
            assert hand.to_move == seat
            tail = obs[b, OBSERVATION_SIZE:].reshape(n + 1, N)
            for k in range(n - 1):
                held = sorted(ALL_TILES.index(t) for t in hand.hands[(seat + 1 + k) % n])
                assert np.flatnonzero(tail[k]).tolist() == held
            next_draw = np.flatnonzero(tail[n - 1]).tolist()
            if len(hand.boneyard) > 2:  # a draw (or the set) takes the top tile
                assert next_draw == [ALL_TILES.index(hand.boneyard[0])]
                seen_drawn += len(hand.boneyard) < len(env.tables.boneyard_order())
            else:
                assert next_draw == []
                seen_no_draw += 1
            assert np.flatnonzero(tail[n]).tolist() == sorted(ALL_TILES.index(t) for t in hand.boneyard[-2:])
            assert not set(np.flatnonzero(tail[: n - 1].sum(axis=0))) & {ALL_TILES.index(t) for t in hand.hands[seat]}
        masks = env.action_masks()
        obs, _, done, _ = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    assert seen_drawn and seen_no_draw  # both cases met


@pytest.mark.parametrize("gate", [False, True])
def test_nos_policy_ignores_the_tail_and_the_critic_reads_it(gate):
    import torch as th

    from nos_env.encoding import OBSERVATION_SIZE
    from train.trainer import make_model

    env = nos_privileged_env()
    policy_section = {"width": 32, "pi": [16], "vf": [16], "hint_kept": ["declare", "decline", "play", "pass"],
                      "kept_bonus": 4.0}
    if gate:  # the endgame gate rides behind the tail: the actor must still get it, the critic not
        policy_section["hint_freed_in_endgame"] = ["play"]
    c = from_dict({"env": {"tactics_hint": True, "privileged_critic": True, "num_envs": 8},
                   "policy": policy_section, "ppo": {"n_steps": 8, "batch_size": 64}})
    policy = make_model(c, env).policy
    assert policy.privileged == env.privileged_size and policy.hint == 1
    t = assert_the_tail_moves_only_the_value(policy, env, OBSERVATION_SIZE + 1)
    if gate:  # the actor's latent ends with the hint and the gate, read from the observation
        latent = policy.mlp_extractor.forward_actor(policy.extract_features(t))
        assert th.equal(latent[:, -1], (t[:, ENDGAME_COLUMN] == 0).float())
        assert th.equal(latent[:, -2], t[:, OBSERVATION_SIZE])


def test_nos_privileged_run_saves_a_model_that_plays_without_the_tail(tmp_path):
    config = tmp_path / "tiny.yaml"
    config.write_text(
        "run: {name: tiny, total_timesteps: 128, output_dir: " + str(tmp_path) + "}\n"
        "env: {num_envs: 16, tactics_hint: true, privileged_critic: true, num_threads: 1}\n"
        "opponents: {baselines: {random: 1.0}}\n"
        "policy: {width: 16, pi: [8], vf: [8]}\n"
        "ppo: {n_steps: 8, batch_size: 64, n_epochs: 1}\n"
        "eval: {every: 0, final_deals: 2, final_opponents: [random]}\n"
        "output: {checkpoint_every: 0, tensorboard: false, progress_bar: false}\n")
    from train.cli import main as train_main

    train_main(["--config", str(config)])
    from agents.model import ModelAgent

    path = tmp_path / "tiny" / "model.zip"
    agent = ModelAgent(path)
    assert agent.policy.privileged == 5 * 28 and agent.hint == 1
    r = run_tournament([f"model:{path}", "random", "random", "random"], 2, progress=False)
    assert len(r.deal) == 8  # 2 deals, 4 seat rotations


def test_nos_privileged_critic_is_refused_by_rllib_only():
    c = from_dict({"env": {"privileged_critic": True, "tactics_hint": True}})
    assert c.env.privileged_critic
    with pytest.raises(ConfigError) as info:
        from_dict({"run": {"engine": "rllib"}, "env": {"privileged_critic": True}, "ppo": {"batch_size": 64}},
                  "cfg.yaml")
    assert "env.privileged_critic: is an SB3 policy feature" in str(info.value)


def test_labels_without_the_tail_fit_a_privileged_run_with_zeros(tmp_path):
    from nos_env.encoding import OBSERVATION_SIZE
    from train.distill import load_labels, save_labels
    from train.label_store import ZeroTail

    plain = SelfPlayVecEnv(4, nos_privileged_env().pool, num_players=4, seed=5, tactics_hint=True)
    privileged = nos_privileged_env(tables=4)
    obs = plain.reset()
    obs[:, 7] = 0.37  # a wide (float32) column as well as byte ones
    masks = plain.action_masks()
    hint = obs[:, OBSERVATION_SIZE].astype(np.int64)
    save_labels(tmp_path / "labels.npz", {"obs": obs, "masks": masks, "actions": hint, "hint": hint, "seconds": 1.0})
    data = load_labels(tmp_path / "labels.npz", privileged)
    assert isinstance(data["obs"], ZeroTail)
    assert data["obs"].shape == (4, OBSERVATION_SIZE + 1 + privileged.privileged_size)
    rows = data["obs"][np.array([2, 0])]
    assert np.array_equal(rows[:, : OBSERVATION_SIZE + 1], obs[[2, 0]]) and not rows[:, OBSERVATION_SIZE + 1:].any()
    assert np.array_equal(data["obs"].column(OBSERVATION_SIZE), obs[:, OBSERVATION_SIZE])
    assert not data["obs"].column(OBSERVATION_SIZE + 5).any()
    assert data["obs"].head(3).shape == (3, data["obs"].shape[1])
    # labels with a tail of another size (4 players' into 3 players') are refused, not padded
    wide = privileged.reset()
    hint = wide[:, OBSERVATION_SIZE].astype(np.int64)
    save_labels(tmp_path / "wide.npz", {"obs": wide, "masks": privileged.action_masks(), "actions": hint,
                                        "hint": hint, "seconds": 1.0})
    assert not isinstance(load_labels(tmp_path / "wide.npz", privileged)["obs"], ZeroTail)
    with pytest.raises(ValueError, match="another game, hint or critic tail"):
        load_labels(tmp_path / "wide.npz", nos_privileged_env(num_players=3, tables=4))
