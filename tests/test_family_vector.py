"""The family vector API (nos_env/family_vector.py): shapes, dtypes, rewards, auto-reset, seeding
against the AEC environment on the reference engine, bad input."""

from __future__ import annotations

import numpy as np
import pytest

import nos_env
from nos_env.family_backends import encoding_module
from nos_env.family_vector import FamilyVectorEnv

B = 6


def legal_choice(masks, rng):
    return np.array([int(rng.choice(np.flatnonzero(row))) for row in masks], np.int64)


@pytest.mark.parametrize("game, n", [("draw", 3), ("five_up", 2), ("matador", 4), ("blind", 3), ("fours", 4)])
def test_shapes_dtypes_and_auto_reset(game, n):
    venv = nos_env.vector_env(B, game=game, num_players=n, seed=1, target_score=None) if game != "blind" \
        else nos_env.vector_env(B, game=game, num_players=n, seed=1)
    assert isinstance(venv, FamilyVectorEnv)
    obs, masks, current = venv.reset()
    D, A = venv.single_observation_space.shape[0], venv.single_action_space.n
    assert obs.shape == (B, D) and obs.dtype == np.uint8 and venv.observation_space.shape == (B, D)
    assert masks.shape == (B, A) and masks.dtype == np.int8 and current.shape == (B,) and current.dtype == np.int32
    assert not obs.flags.writeable and not masks.flags.writeable
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(150):
        obs, masks, current, rewards, terminated, infos = venv.step(legal_choice(masks, rng))
        assert rewards.shape == (B, n) and rewards.dtype == np.float32
        assert terminated.shape == (B,) and terminated.dtype == np.bool_
        np.testing.assert_allclose(rewards.sum(axis=1), 0, atol=1e-4)  # "relative" is zero-sum
        # auto-reset: every table, finished or not, has a seat to move with legal actions
        assert (masks.sum(axis=1) > 0).all() and ((0 <= current) & (current < n)).all()
        finished += int(terminated.sum())
    assert finished > 0


CASES = [("all_fives", 2, {"target_score": None}), ("block", 3, {"target_score": None}), ("blind", 3, {}),
         ("bergen", 2, {}), ("draw", 4, {"teams": True, "target_score": None}), ("five_up", 2, {"target_score": 20})]


@pytest.mark.parametrize("reward", ["relative", "points", "win"])
@pytest.mark.parametrize("game, n, options", CASES, ids=[c[0] for c in CASES])
def test_table_b_plays_the_aec_game_of_seed_plus_b(game, n, options, reward):
    """Every table's first episode equals the AEC environment's after reset(seed=seed + b) on the
    reference engine: seats, masks, observations (compact decoded), rewards, the end (single
    hands, matches, teams, Five Up's exact target)."""
    venv = nos_env.vector_env(3, game=game, num_players=n, seed=40, reward=reward, **options)
    obs, masks, current = venv.reset()
    envs = [nos_env.env(game=game, num_players=n, backend="reference", reward=reward, **options) for _ in range(3)]
    for b, e in enumerate(envs):
        e.reset(seed=40 + b)
    live = [True] * 3
    rng = np.random.default_rng(1)
    totals = np.zeros((3, n))
    while any(live):
        for b, e in enumerate(envs):
            if not live[b]:
                continue
            seat = int(e.agent_selection.split("_")[1])
            assert current[b] == seat
            view = e.observe(e.agent_selection)
            np.testing.assert_array_equal(masks[b], view["action_mask"])
            decoded = encoding_module(game).decode_compact(obs[b:b + 1].copy(), venv.rules)[0]
            np.testing.assert_allclose(decoded, view["observation"])
        actions = legal_choice(masks, rng)
        obs, masks, current, rewards, terminated, _ = venv.step(actions)
        for b, e in enumerate(envs):
            if not live[b]:
                continue
            e.step(int(actions[b]))
            aec = [e.rewards.get(a, 0.0) for a in e.possible_agents]
            np.testing.assert_allclose(rewards[b], aec, rtol=1e-6, atol=1e-6)
            totals[b] += rewards[b]
            assert bool(terminated[b]) == all(e.terminations.values())
            live[b] = not terminated[b]
    if reward == "win":  # every finished episode pays +1 to the winning side, or nothing (a tie)
        assert all(max(row) in (0.0, 1.0) and abs(sum(row)) < 1e-6 for row in totals.tolist())


def test_float_observations_and_copies():
    venv = nos_env.vector_env(4, game="cross", seed=2, observation_dtype="float32", copy_observations=True)
    obs, masks, _ = venv.reset()
    assert obs.dtype == np.float32 and obs.shape == (4, venv.single_observation_space.shape[0])
    out = venv.step(legal_choice(masks, np.random.default_rng(0)))[0]
    assert out.flags.writeable  # a fresh copy each step


def test_bad_input_is_refused_and_changes_nothing():
    venv = nos_env.vector_env(3, game="draw", seed=5)
    with pytest.raises(RuntimeError, match="call reset"):
        venv.step(np.zeros(3, np.int64))
    obs, masks, current = venv.reset()
    before = (obs.copy(), masks.copy(), current.copy())
    illegal = np.array([int(np.flatnonzero(row == 0)[0]) for row in masks])
    for bad, match in [(np.zeros(2, np.int64), "shape"), (np.zeros(3, np.float64), "dtype"),
                       (np.full(3, venv.num_actions), "outside"), (illegal, "illegal action")]:
        with pytest.raises(ValueError, match=match):
            venv.step(bad)
        np.testing.assert_array_equal(venv.masks, before[1])
        np.testing.assert_array_equal(venv.current_player, before[2])
    for kwargs, match in [(dict(reward="chips"), "reward must be one of"),
                          (dict(observation_dtype="int8"), "observation_dtype must be one of"),
                          (dict(game="go"), "unknown game"),
                          (dict(teams=3), "teams must be True or False")]:
        with pytest.raises(ValueError, match=match):
            nos_env.vector_env(2, **{"game": "draw", **kwargs})


def test_every_entry_makes_the_vector_env():
    from nos_env import bergen_v0

    assert nos_env.vector_env(2, 3, game="draw").num_players == 3  # num_players second, as for Nos
    assert bergen_v0.vector_env(2, 2).num_players == 2
    assert bergen_v0.vector_env(2).rules.target_score == 15


def test_relative_rewards_are_points_minus_the_others_mean_in_one_row_or_a_batch():
    # The compiled loop against the formula written out here: seat i gets p_i - (sum - p_i)/(n - 1).
    from nos_env.family_rewards import relative

    assert np.array_equal(relative(np.array([10, 0, 0, 2])), np.array([10 - 2 / 3, -4.0, -4.0, 2 - 10 / 3], np.float32))
    rng = np.random.default_rng(5)
    for n in (2, 3, 4, 5, 8):
        points = rng.integers(0, 40, (300, n)) * (rng.random((300, 1)) < 0.3)
        expected = (points - (points.sum(1, keepdims=True) - points) / (n - 1)).astype(np.float32)
        assert np.array_equal(relative(points), expected)
        assert np.array_equal(relative(points[7]), expected[7])


@pytest.mark.parametrize("mode", ["relative", "points"])
def test_pay_step_is_relative_of_points_plus_carried_and_clears_carried(mode):
    # The vector step's one compiled pass against the AEC's formula (relative) written out on
    # points + carried: rows of zeros (skipped by the pass) must be +0.0, rows where the carried
    # points cancel the step's must clear their carried points too.
    from nos_env.family_rewards import pay_step, relative

    rng = np.random.default_rng(11)
    for n, seats in ((2, 2), (3, 5), (4, 5), (8, 8)):
        points = (rng.integers(-20, 40, (400, seats)) * (rng.random((400, 1)) < 0.3)).astype(np.int32)
        carried = (rng.integers(0, 15, (400, n)) * (rng.random((400, 1)) < 0.2)).astype(np.int64)
        carried[:5] = -points[:5, :n]  # points and carried cancel: nothing paid, carried cleared
        total = points[:, :n] + carried
        expected = relative(total) if mode == "relative" else total.astype(np.float32)
        rewards = np.zeros((400, n), np.float32)
        pay_step(points, carried, mode == "relative", rewards)
        assert np.array_equal(rewards, expected)
        assert not np.signbit(rewards[(total == 0).all(axis=1)]).any()
        assert (carried == 0).all()
        assert (total != 0).any(axis=1).sum() > 50  # the case is not all zeros


def test_bad_actions_are_refused_range_first_whatever_the_array():
    # One compiled pass checks int64 arrays; other dtypes and strided or read-only views take
    # numpy's range test first: the same table and message either way, and the range (at any
    # table) is reported before an illegal action at an earlier table.
    venv = nos_env.vector_env(4, game="draw", seed=3)
    _, masks, current = venv.reset()
    tables = venv.tables
    legal = np.array([int(np.flatnonzero(row)[0]) for row in masks])
    illegal = np.array([int(np.flatnonzero(row == 0)[0]) for row in masks])
    bad = legal.copy()
    bad[0] = illegal[0]
    bad[2] = venv.num_actions + 3
    wide = np.zeros(8, np.int64)
    wide[::2] = bad
    readonly = bad.copy()
    readonly.flags.writeable = False
    for actions in (bad, bad.astype(np.int32), bad.astype(np.int16), wide[::2], readonly):
        outside = rf"table 2's action {venv.num_actions + 3} is outside 0\.\.{venv.num_actions - 1};"
        with pytest.raises(ValueError, match=outside):
            tables.check_actions(actions)
    one_illegal = np.where(np.arange(4) == 1, illegal, legal)
    for actions in (one_illegal, one_illegal.astype(np.int8)):
        with pytest.raises(ValueError, match=f"illegal action {illegal[1]} at table 1"):
            tables.check_actions(actions)
    with pytest.raises(ValueError, match="table 3's action -1 is outside 0"):
        tables.check_actions(np.where(np.arange(4) == 3, -1, legal))
    idle = np.where(np.arange(4) == 3, tables.IDLE, legal)
    assert np.array_equal(tables.check_actions(idle, allow_idle=True), idle)
    assert tables.check_actions(legal.astype(np.int32)).dtype == np.int64
    np.testing.assert_array_equal(venv.current_player, current)  # nothing changed


@pytest.mark.parametrize("game", ["all_fives", "blind", "chickenfoot", "mexican_train"])
def test_scores_at_reads_the_rows_of_scores(game):
    # The vector step reads the finished tables' scores through scores_at: it must be scores[rows].
    venv = nos_env.vector_env(8, game=game, seed=4)
    _, masks, _ = venv.reset()
    rng = np.random.default_rng(2)
    for _ in range(200):
        masks = venv.step(legal_choice(masks, rng))[1]
    tables, rows = venv.tables, np.array([6, 1, 3], np.int64)
    if game != "blind":  # Blind scores only a finished game, which auto-reset has already replaced
        assert tables.scores.any()  # the comparison sees points, not only zeros
    for picked in (rows, np.arange(8, dtype=np.int64)):
        got = tables.scores_at(picked)
        assert got.dtype == tables.scores.dtype and np.array_equal(got, tables.scores[picked])
