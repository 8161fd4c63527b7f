"""Each play's settlement features behind its closing features (``env.settlement_features``, issue 19
item 2; nos_env/games/nos/closing.py, agents/policy.py ``closing_features(settlement=True)``).

The expected values are worked out from docs/rules/nos.md §9 (settlement: every player pays every
player with a lower count the difference, [0-0] counts 14, a player out counts 0; a correct closing
makes the next player still in the game draw all but the bottom two, D21 without it) on the
hand-built positions of tests/test_payments_and_turns.py, never copied from the code. The seat's
net at the count is sum over the others of (count_r - mine); each other player still in the game
is expected to count his hand size times the mean count of the tiles the seat has not seen.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch as th

from test_closing_features import last_tile_position, opening_labels, play_row, triangle_position
from test_payments_and_turns import CLOSE_BONEYARD, CLOSE_BONEYARD_WRONG, split_ledger
from test_tactics_kernel import recorded_positions

from agents.closing_input import CLOSING_WEIGHTS, SETTLEMENT_WEIGHTS, check_closing_features
from agents.policy import HintHead, closing_features, closing_logits, closing_size
from nos_env import encoding as E
from nos_env.engine import Hand
from nos_env.fast_engine import closing_features as features_of
from nos_env.games.nos.closing import ALL_FEATURES, NUM_PLAYS
from nos_env.tiles import ALL_TILES, TILE_COUNT, count_value, parse_tile
from train.config import ConfigError, from_dict

K, OWN, P, CHIPS, SETTLE, NOW = range(6)


def settlement_at(h: Hand, seat: int) -> np.ndarray:
    """The seat's six features [6, 224]."""
    obs, mask = E.encode_observation(h, seat)[None], E.legal_mask(h)[None]
    return features_of(obs, mask, settlement=True)[0]


def unseen_mean(h: Hand, seat: int) -> float:
    """The mean count of the tiles the seat has not seen (not in his hand, not on the layout)."""
    unseen = set(ALL_TILES) - set(h.hands[seat]) - set(h.layout.tiles())
    return sum(count_value(t) for t in unseen) / len(unseen)


def test_the_count_pays_the_closer_the_sum_of_the_others_counts_less_his_own():
    # The identity the features rest on, on the engine's own correct closing (§9 worked position):
    # seat 1 closes with [3-4], seat 2 draws 10, counts [6, 12, 102, 27]; seat 1's settlement is
    # (6 - 12) + (102 - 12) + (27 - 12) = 99 chips: he pays seat 0 6, seats 2 and 3 pay him 90, 15.
    h = triangle_position(CLOSE_BONEYARD)
    h.step("play 3-4 T0 out 3 close")
    assert h.counts == [6, 12, 102, 27]
    _, settlement = split_ledger(h)
    net = sum(p[2] for p in settlement if p[1] == 1) - sum(p[2] for p in settlement if p[0] == 1)
    assert net == 99 == sum(h.counts) - 4 * h.counts[1]


def test_features_of_the_triangle_closing_worked_by_hand():
    # Seat 1 holds [3-4] [1-2] [1-3] [1-4] (count 7 + 3 + 4 + 5 = 19), the layout [0-0]; the 23 tiles
    # he has not seen count 182 (all 28: 8 x (0+...+6) = 168, [0-0] 14 not 0) - 14 - 19 = 149, a mean
    # of 149/23. The others hold 3 + 4 + 4 = 11 tiles. After [3-4] his count is 12, so the count if
    # the hand ended now pays him 11 * 149/23 - 3 * 12 = 35.26 chips (settle_now 3.526); a correct
    # closing also gives seat 2 the boneyard less two, 10 tiles: + 10 * 149/23; times p = 1/253.
    h = triangle_position(CLOSE_BONEYARD)
    f = settlement_at(h, 1)
    mean = 149 / 23
    assert mean == pytest.approx(unseen_mean(h, 1))
    now = 11 * mean - 3 * 12
    p = 2 / 23 * 1 / 22
    columns = [play_row(f"play 3-4 T{a} out {o}", h) for a in range(3) for o in (3, 4)]
    assert sorted(np.flatnonzero(f.any(axis=0))) == sorted(columns)
    for i in columns:
        assert f[NOW, i] == pytest.approx(now / 10, rel=1e-6)
        assert f[SETTLE, i] == pytest.approx(p * (now + 10 * mean) / 10, rel=1e-5)
    # The first four rows are the closing features, unchanged.
    obs, mask = E.encode_observation(h, 1)[None], E.legal_mask(h)[None]
    assert np.array_equal(f[:4], features_of(obs, mask)[0])
    # And they too read nothing hidden: the other boneyard order gives the same six rows.
    assert np.array_equal(f, settlement_at(triangle_position(CLOSE_BONEYARD_WRONG), 1))


def test_d21_a_closing_that_leaves_one_holder_draws_nothing():
    # T15 of the 5-player last-tile example: seat 2's last tile [4-6] leaves only seat 4 holding
    # tiles (D21: correct, p 1, nobody draws). Seat 2 then counts 0, players out count 0, so the
    # count pays him seat 4's expected count: his hand size times the unseen mean; close_settle is
    # that same settlement (no draw), and settle_now too.
    h = last_tile_position(16)
    assert h.to_move == 2 and len(h.hands[2]) == 1
    holders = [s for s in range(5) if s != 2 and not h.out[s]]
    assert holders == [4] and len(h.boneyard) > 2
    f = settlement_at(h, 2)
    i = play_row("play 4-6 L1 out 4", h)
    expected = len(h.hands[4]) * unseen_mean(h, 2) / 10
    assert f[P, i] == 1
    assert f[NOW, i] == pytest.approx(expected, rel=1e-6)
    assert f[SETTLE, i] == pytest.approx(expected, rel=1e-6)


def test_a_players_own_count_moves_settle_now_by_the_players_who_would_pay():
    # T12 of the same example: seat 2 holds [4-5] and [4-6] (the draw); playing [4-5] leaves 10
    # pips, and 4 others would each pay or be paid the difference: between two plays of one
    # position settle_now differs by (n - 1) x the difference of the tiles' counts / 10.
    h = last_tile_position(13)
    assert h.to_move == 2
    f = settlement_at(h, 2)
    i = play_row("play 4-5 L0 out 5", h)
    others = sum(len(h.hands[s]) for s in range(5) if s != 2 and not h.out[s])
    mine_after = sum(count_value(t) for t in h.hands[2]) - count_value(parse_tile("4-5"))
    assert mine_after == 10
    assert f[NOW, i] == pytest.approx((others * unseen_mean(h, 2) - 4 * mine_after) / 10, rel=1e-6)
    # p is 0 there (7 unseen tiles fit, test_closing_features): the closing's settlement counts nothing.
    assert f[P, i] == 0 and f[SETTLE, i] == 0


@pytest.mark.parametrize("n", [3, 5])
def test_on_recorded_positions(n):
    obs, masks = recorded_positions(n, num_envs=48, steps=100, seed=70 + n)
    f = features_of(obs, masks, settlement=True)
    assert f.shape == (len(obs), len(ALL_FEATURES), NUM_PLAYS)
    assert np.array_equal(f[:, :4], features_of(obs, masks))
    rows, plays = np.nonzero(masks[:, E.PLAY0 + 1 : E.PASS : 2])  # legal close variants
    assert len(rows) > 500
    tiles = E.play_parts(E.PLAY0 + 2 * plays)[0]
    count = TILE_COUNT[tiles].astype(np.float64)
    now, settle, p = f[rows, NOW, plays], f[rows, SETTLE, plays], f[rows, P, plays]
    # Within a position, settle_now - (n - 1) * the tile's count / 10 is one number (the count if the
    # hand ended before the play): playing a heavier tile gains (n - 1) x its count at the count.
    level = now - (n - 1) * count / 10
    for r in np.unique(rows)[:400]:
        assert np.ptp(level[rows == r]) < 1e-4
    # The closing's settlement is p times at least settle_now (the draw only adds), 0 where p is 0.
    assert (settle[p == 0] == 0).all() and (p == 0).sum() > 50
    assert (settle >= p * now - 1e-4).all()
    drew = (p > 0) & (settle > p * now + 1e-3)
    assert drew.sum() > 10  # a correct closing's draw seen
    # Illegal close variants carry nothing.
    illegal = ~masks[:, E.PLAY0 + 1 : E.PASS : 2].astype(bool)
    assert not np.transpose(f, (0, 2, 1))[illegal].any()


def test_the_head_adds_settle_now_to_both_variants_and_close_settle_to_the_close_one():
    weights = (0.5, -2.0, 3.0, 0.25, 2.0, -1.5)
    head = HintHead(3, hint_weight=1.0, closing=closing_size(settlement=True), closing_weights=weights)
    x = th.zeros(1, 6, NUM_PLAYS)
    x[0, :, 7] = th.tensor([2.0, 1.0, 0.5, -4.0, 0.75, 3.0])
    latent = th.cat([th.tensor([[0.1, 0.2, -0.3, float(E.DRAW)]]), x.reshape(1, -1)], dim=1)
    plain = head.linear(latent[:, :3])[0]
    added = th.zeros(E.NUM_ACTIONS)
    added[E.PLAY0 + 14] = 0.5 * 2 - 2.0 * 1 - 1.5 * 3.0  # the play: -5.5
    added[E.PLAY0 + 15] = -5.5 + 3.0 * 0.5 + 0.25 * -4.0 + 2.0 * 0.75  # its close variant: -3.5
    added[E.DRAW] = 1.0
    assert th.allclose(head(latent)[0], plain + added)
    assert closing_logits(x.reshape(1, -1), th.tensor(weights)).shape == (1, E.NUM_ACTIONS)
    with pytest.raises(ValueError, match="closing_weights must be 6 numbers for closing 1344, got 4"):
        HintHead(3, 1.0, closing=closing_size(settlement=True))
    with pytest.raises(ValueError, match="closing must be 0 or the closing features' size \\(896, or 1344 with"):
        HintHead(3, 1.0, closing=900)


def test_settings_are_checked():
    assert check_closing_features(True, None, True, True) == (True, CLOSING_WEIGHTS + SETTLEMENT_WEIGHTS)
    assert SETTLEMENT_WEIGHTS == (1.0, 0.0)
    assert check_closing_features(True, [1, 2, 3, 4, 5, 6], True, True)[1] == (1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
    with pytest.raises(ValueError, match="closing_weights must be 6 numbers \\(the starting weights of fit_unseen, "
                                         "own_fits, p_correct, close_chips, close_settle, settle_now\\)"):
        check_closing_features(True, [1, 2, 3, 4], True, True)
    with pytest.raises(ValueError, match="settlement_features ride behind the closing features"):
        check_closing_features(False, None, True, True)
    with pytest.raises(ValueError, match="settlement_features must be true or false"):
        check_closing_features(True, None, True, "yes")
    assert closing_size(settlement=True) == 6 * NUM_PLAYS and closing_size() == 4 * NUM_PLAYS


@pytest.mark.parametrize("env,policy,message", [
    ({"settlement_features": True}, {}, "env.settlement_features: ride behind the closing features"),
    ({"closing_features": True, "settlement_features": 1}, {}, "env.settlement_features: must be true or false"),
    ({"closing_features": True, "settlement_features": True}, {"closing_weights": [0, 0, 0, 1]},
     "policy.closing_weights: must be 6 numbers"),
])
def test_config_errors_name_the_key(env, policy, message):
    with pytest.raises(ConfigError) as info:
        from_dict({"env": {"tactics_hint": True, **env}, "policy": policy}, "cfg.yaml")
    assert message in str(info.value)


def settlement_config(**policy):
    return from_dict({"env": {"tactics_hint": True, "closing_features": True, "settlement_features": True,
                              "num_envs": 16, "num_threads": 1},
                      "opponents": {"baselines": {"tactics": 1.0}}, "ppo": {"n_steps": 8, "batch_size": 64},
                      "policy": {"hint_kept": ["declare", "decline", "play", "pass"], "kept_bonus": 4.0, **policy}})


def test_the_env_puts_six_rows_behind_the_hint_and_a_saved_model_plays_as_trained(tmp_path):
    from agents.model import ModelAgent
    from train.trainer import make_env, make_model

    weights = [0.1, -0.2, 0.5, 1.0, 0.8, 0.3]
    env, _ = make_env(settlement_config(closing_weights=weights))
    size = E.OBSERVATION_SIZE
    assert env.closing_size == 6 * NUM_PLAYS
    assert env.observation_space.shape == (size + 1 + 6 * NUM_PLAYS,)
    model = make_model(settlement_config(closing_weights=weights), env)
    policy = model.policy
    assert policy.settlement_features and policy.closing == 6 * NUM_PLAYS
    obs = env.reset()
    seen = 0
    for _ in range(40):
        masks = env.action_masks()
        assert np.array_equal(obs[:, size + 1 :], closing_features(obs[:, :size], masks, settlement=True))
        seen += int(obs[:, size + 1 + 5 * NUM_PLAYS :].any(axis=1).sum())  # settle_now
        obs, _, _, _ = env.step(obs[:, size].astype(np.int64))
    assert seen > 16
    masks = env.action_masks()
    with th.no_grad():
        want = policy.get_distribution(th.as_tensor(obs), action_masks=masks).log_p.numpy()
    hinted = obs[:, size].astype(np.int64)
    model.save(tmp_path / "model.zip")
    loaded = ModelAgent(str(tmp_path / "model.zip"))
    assert loaded.policy.settlement_features and loaded.policy.closing == 6 * NUM_PLAYS
    assert np.allclose(loaded.policy.action_net.closing_weight.detach().numpy(), weights)
    loaded._hinter.act_batch = lambda o, m: hinted  # (the env's hint, so that the tail alone is compared)
    again = loaded.log_probabilities(obs[:, :size], masks)
    assert np.array_equal(np.isfinite(again), masks) and np.allclose(again[masks], want[masks], atol=1e-5)
    env.close()


def test_a_closing_runs_labels_load_with_zeros_for_the_settlement_rows(tmp_path):
    from train.distill import load_labels, save_labels
    from train.trainer import make_env

    env, _ = make_env(settlement_config())
    rows = 5
    closing_tail = np.full((rows, closing_size()), 0.0, np.float32)
    data = opening_labels(np.concatenate([np.ones((rows, E.OBSERVATION_SIZE + 1), np.float32), closing_tail], axis=1))
    masks = data["masks"]
    save_labels(tmp_path / "closing_run.npz", dict(data))
    loaded = load_labels(tmp_path / "closing_run.npz", env)
    full = np.asarray(loaded["obs"][:])
    assert full.shape == (rows, E.OBSERVATION_SIZE + 1 + closing_size(settlement=True))
    assert (full[:, : E.OBSERVATION_SIZE + 1] == 1).all() and not full[:, E.OBSERVATION_SIZE + 1 :].any()
    masks[1, E.PLAY0 : E.PLAY0 + 2] = 1  # a play in turn: its settlement rows were never computed
    save_labels(tmp_path / "plays.npz", {**data, "masks": masks})
    with pytest.raises(ValueError, match="holds labels of plays in turn \\(1 legal close variants\\)"):
        load_labels(tmp_path / "plays.npz", env)
    env.close()


def test_the_heads_gradients_are_the_same_with_the_features_detached():
    # HintHead reads the closing features detached (they are observation floats passed through, no
    # parameter before them): every parameter's gradient must be what the undetached sum gives.
    th.manual_seed(0)
    weights = (0.5, -2.0, 3.0, 0.25, 2.0, -1.5)
    head = HintHead(8, hint_weight=1.0, closing=closing_size(settlement=True), closing_weights=weights)
    body = th.nn.Linear(5, 8)
    x, tail = th.randn(64, 5), th.randn(64, 6 * NUM_PLAYS)
    hint = th.randint(0, E.NUM_ACTIONS, (64, 1)).float()

    def loss(detached: bool):
        head.zero_grad()
        body.zero_grad()
        latent = th.cat([body(x), hint, tail], dim=1)
        if detached:
            logits = head(latent)
        else:  # the sum written out, with the features read from the undetached latent
            hinted = latent[:, 8:9].long()
            logits = head.linear(latent[:, :8]).scatter_add(1, hinted, head.bonus(hinted))
            logits = logits + closing_logits(latent[:, 9:], head.closing_weight)
        (logits.log_softmax(1)[:, E.PLAY0 : E.PASS].sum() + logits[:, 0].square().sum()).backward()
        return [p.grad.clone() for p in (*head.parameters(), *body.parameters())]

    detached, written_out = loss(True), loss(False)
    assert len(detached) == 6  # closing_weight, linear (2), hint weight; body (2)
    for a, b in zip(detached, written_out):
        assert th.allclose(a, b, atol=1e-5)
    assert head.closing_weight.grad.abs().min() > 0 and body.weight.grad.abs().sum() > 0
