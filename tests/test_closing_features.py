"""Each play's closing features as a policy input (``env.closing_features``, issue 19 item 2;
nos_env/games/nos/closing.py, agents/policy.py ``closing_features``).

The expected values are worked out by hand from docs/rules/nos.md §9 (D14, D21: which tiles fit
after the play, who pays what) on the hand-built positions of tests/test_payments_and_turns.py,
never copied from the code: ``fit_unseen`` counts the unseen tiles that fit after the play,
``own_fits`` my own, ``p_correct`` is 1 by D21 or the proof, 0 when a fitting tile must be
counted, else the module's approximation (each fitting tile equally likely in any of its
places), and ``close_chips`` = (p * 20 * others in the game - (1 - p) * 40 * (players - 1)) / 10.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch as th

from conftest import through_forced_windows
from test_payments_and_turns import (CHAIN_BONEYARD, CHAIN_HANDS, CHAIN_OPENING, CHAIN_SCRIPT, CLOSE_BONEYARD,
                                     CLOSE_BONEYARD_WRONG, CLOSE_HANDS, LAST_TILE_BONEYARD, LAST_TILE_HANDS,
                                     LAST_TILE_OPENING, _last_tile_script, make_deal, run)
from test_tactics_kernel import PARAMS, recorded_positions

from agents.policy import (CLOSING_WEIGHTS, HintHead, NosPolicy, check_closing_features, closing_features,
                           closing_logits, closing_logits_at, closing_size)
from nos_env import encoding as E
from nos_env.engine import Hand
from nos_env.fast_engine import closing_features as features_of
from nos_env.fast_engine import tactics_rows
from nos_env.games.nos.closing import FEATURES, NUM_PLAYS
from train.config import ConfigError, from_dict

K, OWN, P, CHIPS = range(4)


def features_at(h: Hand, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """The seat's features [4, 224] and its mask."""
    obs, mask = E.encode_observation(h, seat)[None], E.legal_mask(h)[None]
    return features_of(obs, mask)[0], mask[0]


def play_row(text: str, h: Hand) -> int:
    """The feature column of a play given as text (its close=0 variant)."""
    action = next(a for a in h.legal_actions() if str(a) == text)
    return (E.action_to_index(action) - E.PLAY0) // 2


def close_chips(p, others_in, players):
    return (p * 20 * others_in - (1 - p) * 40 * (players - 1)) / 10


def last_tile_position(turns: int) -> Hand:
    """The 5-player last-tile example (tests/test_payments_and_turns.py) after its first ``turns``
    turns, nobody closing."""
    h = Hand(make_deal(LAST_TILE_HANDS, LAST_TILE_BONEYARD), on_set=0)
    run(h, LAST_TILE_OPENING)
    through_forced_windows(h)
    run(h, _last_tile_script(False, False)[:turns])
    return h


def triangle_position(boneyard, hands=CLOSE_HANDS) -> Hand:
    h = Hand(make_deal(hands, boneyard), on_set=0)
    run(h, [(0, "set 0-0"), (0, "announce triangle")])
    through_forced_windows(h)
    assert h.to_move == 1
    return h


def test_features_of_the_triangle_closing_from_the_rules_page():
    # §9 worked position: seat 1 plays [3-4] on the triangle; after it only [1-6] and [2-5] (the
    # remaining triangle matadors) can be placed. Both are unseen by seat 1 and not in his hand:
    # fit_unseen 2, own_fits 0. Their places: the 12 boneyard tiles plus the hands of seats 0, 2, 3
    # (3 + 4 + 4), 23 in all, nobody has passed; the bottom two have 2 free places, so
    # p = 2/23 * 1/22 = 1/253, and close_chips = (60 p - 120 (1 - p)) / 10.
    h = triangle_position(CLOSE_BONEYARD)
    f, mask = features_at(h, 1)
    p = 2 / 23 * 1 / 22
    columns = [play_row(f"play 3-4 T{a} out {o}", h) for a in range(3) for o in (3, 4)]
    assert sorted(np.flatnonzero(f.any(axis=0))) == sorted(columns)  # every other play: zeros
    for i in columns:
        assert f[K, i] == 2 and f[OWN, i] == 0
        assert f[P, i] == pytest.approx(p, rel=1e-6)
        assert f[CHIPS, i] == pytest.approx(close_chips(p, 3, 4), rel=1e-6)


def test_the_features_do_not_read_hidden_tiles():
    # The same view of seat 1 with the boneyard's bottom two changed (its closing then wrong, D14;
    # test_payments_and_turns) and with two tiles swapped between other hands: the same features.
    base, _ = features_at(triangle_position(CLOSE_BONEYARD), 1)
    wrong, _ = features_at(triangle_position(CLOSE_BONEYARD_WRONG), 1)
    swapped_hands = [list(x) for x in CLOSE_HANDS]
    swapped_hands[2][3], swapped_hands[3][3] = swapped_hands[3][3], swapped_hands[2][3]  # [1-5] <-> [3-5]
    swapped, _ = features_at(triangle_position(CLOSE_BONEYARD, swapped_hands), 1)
    assert np.array_equal(base, wrong) and np.array_equal(base, swapped)
    assert base.any()


def test_a_closing_is_certainly_wrong_when_more_tiles_fit_than_the_bottom_two_hold():
    # T12 of the 5-player last-tile example: seat 2 plays [4-5] on L0 (open 5), L1 is open 3. His
    # [4-6] does not fit; the unseen tiles with a 5 or a 3 off the layout are [0-5] [2-5] [5-5]
    # [5-6] [0-3] [3-4] [3-6]: 7 > 2, so the closing is wrong whatever the order (p 0), and a wrong
    # closing costs 40 to each of the 4 others: close_chips -16.
    h = last_tile_position(13)
    assert h.to_move == 2
    f, _ = features_at(h, 2)
    i = play_row("play 4-5 L0 out 5", h)
    assert (f[K, i], f[OWN, i], f[P, i], f[CHIPS, i]) == (7, 0, 0, -16)
    # D21 (T15): seat 2's last tile [4-6] leaves only seat 4 holding tiles: correct though [0-6],
    # [4-4] and [3-4] fit after it (L0 open 6, L1 open 4); seat 4 alone pays 20.
    run(h, _last_tile_script(False, False)[13:16])
    assert h.to_move == 2
    f, _ = features_at(h, 2)
    i = play_row("play 4-6 L1 out 4", h)
    assert (f[K, i], f[OWN, i], f[P, i], f[CHIPS, i]) == (3, 0, 1, 2)


def test_the_approximation_where_the_closing_is_in_fact_correct():
    # The matador chain (5 players): seat 1 plays his last tile [0-6], leaving L0 open 0; only the
    # matadors [2-5] and [3-4] fit, and they are the boneyard's bottom two (the closing is correct,
    # test_payments_and_turns). Seat 1 cannot know that: 3 others in the game hold 1 tile each, the
    # boneyard 13, so p = 2/16 * 1/15; close_chips = (60 p - 160 (1 - p)) / 10.
    h = Hand(make_deal(CHAIN_HANDS, CHAIN_BONEYARD), on_set=0)
    run(h, CHAIN_OPENING)
    through_forced_windows(h)
    run(h, CHAIN_SCRIPT)
    f, _ = features_at(h, 1)
    i = play_row("play 0-6 L0 out 0", h)
    p = 2 / 16 * 1 / 15
    assert f[K, i] == 2 and f[OWN, i] == 0
    assert f[P, i] == pytest.approx(p, rel=1e-6) and f[CHIPS, i] == pytest.approx(close_chips(p, 3, 5), rel=1e-6)


def test_rows_without_a_play_in_turn_are_zeros():
    h = Hand(make_deal(CLOSE_HANDS, CLOSE_BONEYARD), on_set=0)
    f, _ = features_at(h, 0)  # the set
    assert not f.any()


@pytest.mark.parametrize("n", [4])
def test_p_correct_is_one_exactly_where_nothing_fits_and_wherever_tactics_proves(n):
    obs, masks = recorded_positions(n, num_envs=64, steps=120, seed=50 + n)
    f = features_of(obs, masks)
    scores = np.empty(masks.shape)
    tactics_rows(obs, masks, PARAMS, scores=scores)
    rows, plays = np.nonzero(masks[:, E.PLAY0 + 1 : E.PASS : 2])  # legal close variants
    k, own, p, chips = (f[rows, j, plays] for j in range(4))
    assert len(rows) > 1000
    assert ((p >= 0) & (p <= 1)).all()
    # Tactics scores a close variant (finite) only where it proves it (D21 or D14): there p = 1 and
    # the closing's payment is 20 from each other player still in the game.
    proved = np.isfinite(scores[rows, E.PLAY0 + 2 * plays + 1])
    assert proved.sum() > 20 and (p[proved] == 1).all()
    present = obs[:, slice(*E.OBSERVATION_LAYOUT["seat_present"][:2])][rows, 1:]
    out = obs[:, slice(*E.OBSERVATION_LAYOUT["seat_out"][:2])][rows, 1:]
    others_in = ((present > 0.5) & (out < 0.5)).sum(axis=1)
    assert np.allclose(chips[proved], 2.0 * others_in[proved])
    # Where nothing fits after the play p is 1, and where my own tile fits it is 0 (unless D21).
    assert (p[(k == 0) & (own == 0)] == 1).all()
    hand_size = obs[rows, E.OBSERVATION_LAYOUT["seat_hand_size"][0]]
    d21 = (hand_size == 1) & (others_in == 1)
    assert (p[(own == 1) & ~d21] == 0).all() and (own == 1).sum() > 100
    assert ((p > 0) & (p < 1)).sum() > 20  # the approximation is used too
    # Illegal close variants carry nothing.
    illegal = ~masks[:, E.PLAY0 + 1 : E.PASS : 2].astype(bool)
    assert not np.transpose(f, (0, 2, 1))[illegal].any()


def test_the_head_adds_the_weighted_features_to_both_variants_and_the_close_terms_to_the_close_one():
    weights = (0.5, -2.0, 3.0, 0.25)
    head = HintHead(3, hint_weight=1.0, closing=closing_size(), closing_weights=weights)
    x = th.zeros(1, 4, NUM_PLAYS)
    x[0, :, 7] = th.tensor([2.0, 1.0, 0.5, -4.0])
    latent = th.cat([th.tensor([[0.1, 0.2, -0.3, float(E.DRAW)]]), x.reshape(1, -1)], dim=1)
    plain = head.linear(latent[:, :3])[0]
    added = th.zeros(E.NUM_ACTIONS)
    added[E.PLAY0 + 14] = 0.5 * 2 - 2.0 * 1  # the play: -1.0
    added[E.PLAY0 + 15] = -1.0 + 3.0 * 0.5 + 0.25 * -4.0  # its close variant: -0.5
    added[E.DRAW] = 1.0  # the hint
    logits = head(latent)[0]
    assert th.allclose(logits, plain + added)
    index = th.tensor([[E.PLAY0 + 15, E.PLAY0 + 14, E.DRAW]])
    assert th.allclose(head.chosen(latent, index, th.ones_like(index, dtype=th.bool))[0], logits[index[0]])
    assert "closing_weight" in dict(head.named_parameters())
    assert "closing_weight" not in dict(HintHead(3, 1.0).named_parameters())  # old heads unchanged
    assert closing_logits(x.reshape(1, -1), th.tensor(weights)).shape == (1, E.NUM_ACTIONS)


@pytest.mark.parametrize("k", [4, 6])
def test_the_chosen_actions_closing_logits_are_the_full_ones_gathered(k):
    """closing_logits_at (the PPO update's legal actions only) against closing_logits then gather:
    every play and close variant, the first and last play, actions outside the plays (0), padded
    rows; the weights' gradients too."""
    gen = th.Generator().manual_seed(k)
    features = th.randn(3, k * NUM_PLAYS, generator=gen)
    index = th.tensor([[E.PLAY0, E.PLAY0 + 1, E.PASS - 2, E.PASS - 1, E.PASS, 0, E.DRAW],
                       [E.PLAY0 + 37, E.PLAY0 + 36, E.PLAY0 + 200, E.PLAY0 + 201, 3, 3, 3],
                       [E.PASS, E.PLAY0 - 1, E.NUM_ACTIONS - 1, E.PLAY0 + 2, E.PLAY0 + 3, E.PLAY0 + 2, 0]])
    w = th.randn(k, generator=gen)
    weights = [w.clone().requires_grad_(True) for _ in range(2)]  # the same weights, their own gradients
    full = closing_logits(features, weights[0]).gather(1, index)
    at = closing_logits_at(features, weights[1], index)
    assert th.allclose(at, full, atol=1e-6)
    assert at[0, 4:].abs().sum() == 0 and at[2, :3].abs().sum() == 0  # not plays: nothing added
    assert float(at[0, :4].abs().min()) > 0  # and the plays' are really computed
    (full * th.arange(7.0)).sum().backward()
    (at * th.arange(7.0)).sum().backward()
    assert th.allclose(weights[0].grad, weights[1].grad, atol=1e-5)


def test_settings_are_checked():
    assert check_closing_features(False, None, False) == (False, CLOSING_WEIGHTS)
    assert check_closing_features(True, [1, 2, 3, 4], True) == (True, (1.0, 2.0, 3.0, 4.0))
    with pytest.raises(ValueError, match="closing_features must be true or false"):
        check_closing_features("yes", None, True)
    with pytest.raises(ValueError, match="closing_features are Nos's plays' \\(needs the Tactics hint"):
        check_closing_features(True, None, False)
    for bad in ([1, 2, 3], "1234", [1, 2, 3, float("nan")], [True, 0, 0, 0]):
        with pytest.raises(ValueError, match=f"closing_weights must be 4 numbers \\(the starting weights of "
                                             f"{', '.join(FEATURES)}\\)"):
            check_closing_features(True, bad, True)
    with pytest.raises(ValueError, match="closing must be 0 or the closing features' size"):
        HintHead(3, 1.0, closing=5)
    with pytest.raises(ValueError, match="obs must be float32"):
        features_of(np.zeros((2, 5), np.float32), np.zeros((2, E.NUM_ACTIONS), np.int8))
    with pytest.raises(ValueError, match="masks must be integer or bool"):
        features_of(np.zeros((2, E.OBSERVATION_SIZE), np.float32), np.zeros((3, E.NUM_ACTIONS), np.int8))


@pytest.mark.parametrize("data,message", [
    ({"env": {"closing_features": True}}, "env.closing_features: are Nos's plays' and ride behind the Tactics hint"),
    ({"env": {"game": "five_up", "greedy_hint": True, "closing_features": True}},
     "env.closing_features: are Nos's plays'"),
    ({"env": {"tactics_hint": True, "closing_features": "yes"}}, "env.closing_features: must be true or false"),
    ({"env": {"tactics_hint": True, "closing_features": True}, "policy": {"closing_weights": [1, 2]}},
     "policy.closing_weights: must be 4 numbers"),
    ({"run": {"engine": "rllib"}, "ppo": {"batch_size": 1024}, "env": {"tactics_hint": True, "closing_features": True}},
     "env.tactics_hint: is an SB3 policy feature"),  # (the rllib engine has no hint, so none behind it)
])
def test_config_errors_name_the_key(data, message):
    with pytest.raises(ConfigError) as info:
        from_dict(data, "cfg.yaml")
    assert message in str(info.value)


def closing_config(**policy):
    return from_dict({"env": {"tactics_hint": True, "closing_features": True, "num_envs": 16, "num_threads": 1},
                      "opponents": {"baselines": {"tactics": 1.0}}, "ppo": {"n_steps": 8, "batch_size": 64},
                      "policy": {"hint_kept": ["declare", "decline", "play", "pass"], "kept_bonus": 4.0, **policy}})


def test_the_env_puts_the_features_behind_the_hint_and_a_saved_model_plays_as_trained(tmp_path):
    from agents.model import ModelAgent, PolicyAgent
    from train.trainer import make_env, make_model

    env, _ = make_env(closing_config(closing_weights=[0.1, -0.2, 0.5, 1.0]))
    size = E.OBSERVATION_SIZE
    assert env.closing_size == closing_size() == 4 * NUM_PLAYS
    assert env.observation_space.shape == (size + 1 + closing_size(),)
    model = make_model(closing_config(closing_weights=[0.1, -0.2, 0.5, 1.0]), env)
    policy = model.policy
    assert policy.closing_features and policy.closing == closing_size()
    obs = env.reset()
    seen = 0
    for _ in range(40):
        masks = env.action_masks()
        # a function of the learner's own observation and mask
        assert np.array_equal(obs[:, size + 1 :], closing_features(obs[:, :size], masks))
        seen += int(obs[:, size + 1 :].any(axis=1).sum())
        obs, _, _, _ = env.step(obs[:, size].astype(np.int64))  # the hint
    assert seen > 16
    masks = env.action_masks()
    with th.no_grad():
        want = policy.get_distribution(th.as_tensor(obs), action_masks=masks).log_p.numpy()
    # A player computes the same tail from the seat's observation. (Its Tactics hint breaks ties
    # with its own noise: it is given the env's hint, so that the tail alone is compared.)
    hinted = obs[:, size].astype(np.int64)
    agent = PolicyAgent(policy, seed=0)
    agent._hinter.act_batch = lambda o, m: hinted
    got = agent.log_probabilities(obs[:, :size], masks)
    assert np.allclose(got[masks], want[masks], atol=1e-5)
    assert obs[:, size + 1 :].any()
    # Saved and loaded: the same weights, settings and log-probabilities.
    model.save(tmp_path / "model.zip")
    loaded = ModelAgent(str(tmp_path / "model.zip"))
    assert loaded.policy.closing_features
    assert np.allclose(loaded.policy.action_net.closing_weight.detach().numpy(), [0.1, -0.2, 0.5, 1.0])
    loaded._hinter.act_batch = lambda o, m: hinted
    again = loaded.log_probabilities(obs[:, :size], masks)
    assert np.array_equal(np.isfinite(again), masks) and np.allclose(again[masks], want[masks], atol=1e-5)
    env.close()


def test_a_policy_without_the_features_is_unchanged():
    from gymnasium import spaces

    space = spaces.Box(-np.inf, np.inf, (E.OBSERVATION_SIZE + 1,), np.float32)
    policy = NosPolicy(space, spaces.Discrete(E.NUM_ACTIONS), lambda _: 3e-4)
    assert policy.closing == 0 and "closing_features" not in policy._get_constructor_parameters()
    assert not any("closing" in name for name in policy.state_dict())
    with pytest.raises(ValueError, match="closing_features are Nos's plays'"):
        NosPolicy(spaces.Box(-np.inf, np.inf, (E.OBSERVATION_SIZE + closing_size(),), np.float32),
                  spaces.Discrete(E.NUM_ACTIONS), lambda _: 3e-4, closing_features=True)


def opening_labels(obs: np.ndarray) -> dict:
    """Labels (train/distill.py's data) of set decisions, where no play is legal, on these rows."""
    rows = len(obs)
    masks = np.zeros((rows, E.NUM_ACTIONS), np.int8)
    masks[:, :3] = 1  # set decisions: no play
    return {"obs": obs, "masks": masks, "actions": np.zeros(rows, np.int64), "hint": np.zeros(rows, np.int64),
            "seconds": 1.0}


def test_labels_without_the_features_fit_only_where_no_close_is_legal(tmp_path):
    from train.distill import load_labels, save_labels
    from train.label_store import PackedMasks
    from train.trainer import make_env

    env, _ = make_env(closing_config())
    rows = 6
    data = opening_labels(np.zeros((rows, E.OBSERVATION_SIZE + 1), np.float32))
    masks = data["masks"]
    save_labels(tmp_path / "openings.npz", dict(data))
    loaded = load_labels(tmp_path / "openings.npz", env)
    assert loaded["obs"].shape == (rows, E.OBSERVATION_SIZE + 1 + closing_size())
    assert not np.asarray(loaded["obs"][:])[:, E.OBSERVATION_SIZE + 1 :].any()
    masks[2, E.PLAY0 : E.PLAY0 + 2] = 1  # a play in turn and its close variant
    save_labels(tmp_path / "plays.npz", {**data, "masks": masks})
    with pytest.raises(ValueError, match="holds labels of plays in turn \\(1 legal close variants\\) without the "
                                         "closing features this run reads: collect them afresh"):
        load_labels(tmp_path / "plays.npz", env)
    assert isinstance(loaded["masks"], PackedMasks)
    env.close()


def test_a_tiny_run_with_the_features_trains_saves_and_plays(tmp_path):
    from tiny_training import tiny_family_run

    from agents.model import ModelAgent

    model = tiny_family_run(tmp_path, "{tactics_hint: true, closing_features: true, num_envs: 16, num_threads: 1}")
    agent = ModelAgent(str(model))
    assert agent.policy.closing == closing_size()
    weights = agent.policy.action_net.closing_weight.detach().numpy()
    assert not np.allclose(weights, CLOSING_WEIGHTS)  # the PPO update reached them
    obs, masks = recorded_positions(4, num_envs=8, steps=30, seed=5)
    actions = agent.act_batch(obs, masks)
    assert masks[np.arange(len(actions)), actions].all()  # it plays legal moves from the seat's view alone


def test_configs_with_closing_settings_validate_without_the_train_extra():
    """train/config.py checks the closing settings with agents/closing_input.py, which needs no torch
    or SB3: the rllib engine's configs validate without the train extra (tests/test_rllib.py checks
    that where Ray is installed; this checks it everywhere)."""
    import subprocess
    import sys
    from pathlib import Path

    code = """
import importlib.abc, sys
class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("stable_baselines3", "sb3_contrib", "tensorboard", "torch"):
            raise ModuleNotFoundError(f"No module named {name!r} (blocked)")
        return None
sys.meta_path.insert(0, Blocker())
from train.config import from_dict
c = from_dict({"env": {"tactics_hint": True, "closing_features": True},
               "policy": {"closing_weights": [0.5, 0, 0, 1]}})
s = from_dict({"env": {"tactics_hint": True, "closing_features": True, "settlement_features": True},
               "policy": {"closing_weights": [0.5, 0, 0, 1, 1, 0]}})
try:
    from_dict({"policy": {"closing_weights": [1, 2]}})
except Exception as exc:
    print("refused:", exc)
print("ok", c.env.closing_features, s.env.settlement_features, "agents.policy" in sys.modules)
"""
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "policy.closing_weights: must be 4 numbers" in done.stdout
    assert done.stdout.strip().endswith("ok True True False")
