"""``policy.hint_kept`` (agents/policy.py): a Nos policy that always plays the Tactics hint where
the hinted action lies in the named blocks of actions, and follows its network elsewhere. Checked
on a policy whose action layer is set by hand (a large bias on ``pass`` and on one announcement),
so the expected moves follow from the rule alone; the setting survives a save and a load; the
advantage fit's bonus removal (train/distill.py) gives the same predicted advantages with it and
without it; the config names what it allows."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch as th

from agents.model import load_model
from nos_env.encoding import ACTION_BLOCKS, ANNOUNCE0, PASS, PLAY0
from tiny_training import small_model
from train.config import ConfigError, from_dict
from train.distill import predicted_advantage

KEPT = ["declare", "decline", "play", "pass"]
BASE = {"run": {"seed": 0}, "env": {"num_envs": 16, "tactics_hint": True, "num_threads": 1},
        "ppo": {"n_steps": 4, "batch_size": 32}, "policy": {"width": 16, "hint_weight": 1.0}}


def hand_set(model, favourite: int):
    """The action layer set by hand: weights 0, bias +50 on ``favourite`` and 50 + 2k on the k-th
    play action (the network's own choice among plays: the highest legal one, even against the
    hint's +1.0)."""
    head = model.policy.action_net
    with th.no_grad():
        head.linear.weight.zero_()
        head.linear.bias.zero_()
        head.linear.bias[PLAY0:PASS] = 50.0 + 2.0 * th.arange(PASS - PLAY0, dtype=th.float32)
        head.linear.bias[favourite] = 50.0


def positions(model, steps: int = 60):
    """Observations (with the hint) and masks of the model's own env, played by the hint."""
    env = model.get_env()
    obs = env.reset()
    seen_obs, seen_masks = [], []
    for _ in range(steps):
        masks = env.action_masks()
        seen_obs.append(obs.copy())
        seen_masks.append(masks.copy())
        env.step_async(obs[:, -1].astype(np.int64))
        obs, *_ = env.step_wait()
    return np.concatenate(seen_obs), np.concatenate(seen_masks)


def test_the_hint_is_played_in_kept_blocks_and_the_network_elsewhere():
    favourite = ANNOUNCE0 + 3
    kept = small_model({**BASE, "policy": {**BASE["policy"], "hint_kept": KEPT}})
    plain = small_model(BASE)
    for model in (kept, plain):
        hand_set(model, favourite)
    obs, masks = positions(kept)
    hint = obs[:, -1].astype(np.int64)
    got_kept = kept.predict(obs, action_masks=masks, deterministic=True)[0]
    got_plain = plain.predict(obs, action_masks=masks, deterministic=True)[0]
    in_kept = np.zeros(len(hint), bool)
    for block in KEPT:
        first, stop = ACTION_BLOCKS[block]
        in_kept |= (hint >= first) & (hint < stop)
    # The rule, stated without the code: kept blocks play the hint; elsewhere (the openings,
    # where no play is legal) the favourite announcement when legal (bias 50), else the hint (1.0).
    expected = np.where(in_kept, hint, np.where(masks[:, favourite] != 0, favourite, hint))
    np.testing.assert_array_equal(got_kept, expected)
    highest_play = np.where(masks[:, PLAY0:PASS] != 0, np.arange(PLAY0, PASS), -1).max(axis=1)
    assert (in_kept & (highest_play >= 0) & (highest_play != hint)).any()  # the hint beat a +50 play
    assert (~in_kept & (masks[:, favourite] != 0)).any() and (~in_kept & (masks[:, favourite] == 0)).any()
    # Without hint_kept the same weights play their highest legal play wherever there is one.
    plays = highest_play >= 0
    np.testing.assert_array_equal(got_plain[plays], highest_play[plays])


def test_hint_kept_survives_a_save_and_a_load(tmp_path):
    model = small_model({**BASE, "policy": {**BASE["policy"], "hint_kept": KEPT}})
    hand_set(model, ANNOUNCE0)
    model.save(tmp_path / "model.zip")
    loaded = load_model(tmp_path / "model.zip")
    assert loaded.policy.hint_kept == KEPT
    obs, masks = positions(model, 20)
    np.testing.assert_array_equal(loaded.predict(obs, action_masks=masks, deterministic=True)[0],
                                  model.predict(obs, action_masks=masks, deterministic=True)[0])


def test_the_fit_sees_the_same_logits_with_and_without_kept_blocks():
    kept = small_model({**BASE, "policy": {**BASE["policy"], "hint_kept": KEPT}})
    plain = small_model(BASE)
    plain.policy.load_state_dict(kept.policy.state_dict())
    obs, masks = positions(kept, 20)
    hint = obs[:, -1].astype(np.int64)
    assert (hint >= PLAY0).any()  # play decisions, whose hinted move gets the kept bonus
    np.testing.assert_allclose(predicted_advantage(kept.policy, obs, masks.astype(bool), hint, 10.0),
                               predicted_advantage(plain.policy, obs, masks.astype(bool), hint, 10.0), atol=1e-3)


def test_a_small_kept_bonus_is_a_prior_the_network_can_overrule(tmp_path):
    """policy.kept_bonus: half a logit instead of 1000 on the kept hint. With the hand-set layer
    (plays 2 logits apart) the network's highest play still beats the hint's 1 + 0.5, so the
    choices are those of the plain policy; a save and a load keep the bonus; the bonus is the
    plain policy's plus exactly 0.5 on kept hints."""
    light = small_model({**BASE, "policy": {**BASE["policy"], "hint_kept": KEPT, "kept_bonus": 0.5}})
    plain = small_model(BASE)
    for model in (light, plain):
        hand_set(model, ANNOUNCE0 + 3)
    obs, masks = positions(light)
    np.testing.assert_array_equal(light.predict(obs, action_masks=masks, deterministic=True)[0],
                                  plain.predict(obs, action_masks=masks, deterministic=True)[0])
    hint = th.as_tensor(obs[:, -1].astype(np.int64))
    in_kept = th.zeros(len(hint), dtype=th.bool)
    for block in KEPT:
        first, stop = ACTION_BLOCKS[block]
        in_kept |= (hint >= first) & (hint < stop)
    assert in_kept.any() and (~in_kept).any()
    np.testing.assert_allclose(light.policy.hint_bonus(hint, obs).numpy(),
                               plain.policy.hint_bonus(hint, obs).numpy() + 0.5 * in_kept.numpy().astype(np.float32))
    light.save(tmp_path / "light.zip")
    assert load_model(tmp_path / "light.zip").policy.kept_bonus == 0.5
    assert small_model({**BASE, "policy": {**BASE["policy"], "hint_kept": KEPT}}).policy.kept_bonus == 1000.0


def endgame_rows(obs):
    from nos_env.encoding import ENDGAME_COLUMN

    return obs[:, ENDGAME_COLUMN] == 0


FREED = {**BASE, "policy": {**BASE["policy"], "hint_kept": KEPT, "hint_freed_in_endgame": ["play"]}}


def test_the_network_chooses_the_endgame_plays_when_they_are_freed():
    favourite = ANNOUNCE0 + 3
    freed = small_model(FREED)
    hand_set(freed, favourite)
    obs, masks = positions(freed, 120)
    hint = obs[:, -1].astype(np.int64)
    got = freed.predict(obs, action_masks=masks, deterministic=True)[0]
    highest_play = np.where(masks[:, PLAY0:PASS] != 0, np.arange(PLAY0, PASS), -1).max(axis=1)
    hinted_play = (hint >= PLAY0) & (hint < PASS)
    endgame = endgame_rows(obs)
    # The rule: a hinted play in the endgame is the network's choice (its highest legal play, bias
    # 50 + 2k against the hint's +1.0), unless the hint closes; every other hint of a kept block is played.
    closing = hinted_play & ((hint - PLAY0) % 2 == 1)
    assert (endgame & closing).any()
    free = endgame & hinted_play & ~closing
    in_kept = np.zeros(len(hint), bool)
    for block in KEPT:
        first, stop = ACTION_BLOCKS[block]
        in_kept |= (hint >= first) & (hint < stop)
    expected = np.where(free, highest_play,
                        np.where(in_kept, hint, np.where(masks[:, favourite] != 0, favourite, hint)))
    np.testing.assert_array_equal(got, expected)
    assert (free & (highest_play != hint)).any()  # the network overruled the hint in the endgame
    assert (~endgame & hinted_play & (highest_play != hint)).any()  # and did not before it


def test_freed_endgame_plays_survive_a_save_and_a_load_and_the_sparse_update(tmp_path):
    from agents.sparse_linear import SparseRows

    model = small_model(FREED)
    hand_set(model, ANNOUNCE0)
    model.save(tmp_path / "model.zip")
    loaded = load_model(tmp_path / "model.zip")
    assert loaded.policy.hint_freed_in_endgame == ["play"]
    obs, masks = positions(model, 120)
    assert endgame_rows(obs).any() and not endgame_rows(obs).all()
    np.testing.assert_array_equal(loaded.predict(obs, action_masks=masks, deterministic=True)[0],
                                  model.predict(obs, action_masks=masks, deterministic=True)[0])
    # The PPO update reads compressed rows: the same log-probabilities as from the dense rows.
    actions = th.as_tensor(model.predict(obs, action_masks=masks, deterministic=True)[0])
    dense = model.policy.evaluate_actions(th.as_tensor(obs), actions, action_masks=masks)[1]
    sparse = model.policy.evaluate_actions(SparseRows.of_dense(obs, max_density=1.0), actions, action_masks=masks)[1]
    np.testing.assert_allclose(sparse.detach().numpy(), dense.detach().numpy(), atol=1e-4)


def test_sparse_rows_give_a_column_as_the_dense_rows_do():
    from agents.sparse_linear import SparseRows

    x = np.zeros((4, 6), np.float32)
    x[0, 2], x[2, 2], x[3, 5], x[1, 0] = 3.0, -1.5, 7.0, 2.0
    rows = SparseRows.of_dense(x, max_density=1.0)
    for j in range(6):
        np.testing.assert_array_equal(rows.column(j).numpy(), x[:, j])
    with pytest.raises(ValueError, match=r"column must be in \[0, 6\), got 6"):
        rows.column(6)


def test_the_fit_sees_the_same_logits_with_and_without_freed_endgame_plays():
    freed = small_model(FREED)
    plain = small_model(BASE)
    plain.policy.load_state_dict(freed.policy.state_dict())
    obs, masks = positions(freed, 120)
    hint = obs[:, -1].astype(np.int64)
    assert (endgame_rows(obs) & (hint >= PLAY0)).any() and (~endgame_rows(obs) & (hint >= PLAY0)).any()
    np.testing.assert_allclose(predicted_advantage(freed.policy, obs, masks.astype(bool), hint, 10.0),
                               predicted_advantage(plain.policy, obs, masks.astype(bool), hint, 10.0), atol=1e-3)


@pytest.mark.parametrize("change,message", [
    ({"policy": {"hint_kept": ["play"], "hint_freed_in_endgame": ["pass"]}},
     "policy.hint_freed_in_endgame: must be a list of distinct blocks of policy.hint_kept (play), got ['pass']"),
    ({"policy": {"hint_freed_in_endgame": ["play"]}},
     "policy.hint_freed_in_endgame: must be a list of distinct blocks of policy.hint_kept (empty)"),
    ({"policy": {"hint_kept": ["play"], "kept_bonus": 0}}, "policy.kept_bonus: must be a positive number of logits, "
                                                           "got 0"),
    ({"policy": {"hint_kept": ["play"], "hint_freed_in_endgame": "play"}},
     "policy.hint_freed_in_endgame: must be a list, got 'play'"),
])
def test_hint_freed_config_errors_name_what_is_allowed(change, message):
    config = copy.deepcopy(BASE)
    config["policy"] = {**config["policy"], **change["policy"]}
    with pytest.raises(ConfigError) as info:
        from_dict(config, "cfg.yaml")
    assert message in str(info.value)


@pytest.mark.parametrize("change,message", [
    ({"policy": {"hint_kept": ["plays"]}}, "policy.hint_kept: must be a list of distinct Nos action blocks (set, "
                                            "draw, announce, declare, decline, play, pass), got ['plays']"),
    ({"policy": {"hint_kept": ["play", "play"]}}, "must be a list of distinct Nos action blocks"),
    ({"policy": {"hint_kept": ["play"]}, "env": {"tactics_hint": False}},
     "policy.hint_kept: names blocks of Nos's actions where the Tactics hint is played"),
])
def test_hint_kept_config_errors_name_what_is_allowed(change, message):
    config = copy.deepcopy(BASE)
    for section, values in change.items():
        config[section] = {**config[section], **values}
    with pytest.raises(ConfigError) as info:
        from_dict(config, "cfg.yaml")
    assert message in str(info.value)
