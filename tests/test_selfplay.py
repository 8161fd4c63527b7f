"""The self-play VecEnv (train/selfplay.py): idle tables, reward plumbing, seats, masks, seeding.

The reward test replays every decision of a self-play table in the AEC environment on the
reference backend, and recomputes the learner's reward of each step from the reference
engine's chips: the learner's own seat, from its decision to its next one (an episode's
end closes the span; chips of the new episode before the learner's first decision open
the next one).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

import nos_env
from agents.registry import make_agent
from nos_env.games import nos as K
from nos_env.fast_engine import FastTables
from train.selfplay import OpponentPool, SelfPlayVecEnv


def pool_of(*names, seed=0):
    pool = OpponentPool(seed)
    for i, name in enumerate(names):
        pool.add(make_agent(name, seed=seed + i), 1.0)
    return pool


def random_learner_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    noise = rng.random(masks.shape)
    noise[~masks] = -1.0
    return noise.argmax(axis=1)


# --------------------------------------------------------------- idle action
def test_idle_tables_are_left_exactly_as_they_were():
    tables = FastTables(8, 4, seed=3)
    tables.reset_tables()
    before = tables.clone()
    actions = np.full(8, K.IDLE, np.int64)
    moving = np.array([1, 4, 6])
    actions[moving] = tables.MASK[moving].argmax(axis=1)
    rewards, terminated, _, current, _ = tables.step(actions, observe=True, allow_idle=True)
    after = tables.clone()
    idle = np.setdiff1d(np.arange(8), moving)
    for name in before:
        np.testing.assert_array_equal(before[name][idle], after[name][idle], err_msg=name)
    assert (rewards[idle] == 0).all() and not terminated[idle].any()
    np.testing.assert_array_equal(current[idle], before["T"][idle, K.T_TO_MOVE])
    # The stepped tables advanced as a full step of the same actions advances them.
    ref = FastTables(8, 4, seed=3)
    ref.reset_tables()
    ref.step(np.where(actions == K.IDLE, ref.MASK.argmax(axis=1), actions))
    for name in ("T", "S", "MASK"):
        np.testing.assert_array_equal(getattr(ref, name)[moving], after[name][moving], err_msg=name)


def test_idle_is_refused_unless_allowed():
    tables = FastTables(2, 4, seed=0)
    tables.reset_tables()
    with pytest.raises(ValueError, match="outside 0..556"):
        tables.step(np.array([K.IDLE, K.IDLE]))


# ----------------------------------------------------------- reward plumbing
def _record_table0(env: SelfPlayVecEnv) -> list:
    """Wrap the tables' step to log, per VecEnv step, table 0's real (non-idle) actions."""
    log: list[list[int]] = []
    inner = env.tables.step

    def step(actions, *args, **kwargs):
        if actions[0] != K.IDLE:
            log[-1].append(int(actions[0]))
        return inner(actions, *args, **kwargs)

    env.tables.step = step
    return log


@pytest.mark.parametrize("num_players,auto_forced", [(4, True), (3, False), (5, True)])
def test_reward_is_the_learners_own_chip_change_over_each_span(num_players, auto_forced):
    seed = 11 + num_players
    env = SelfPlayVecEnv(3, pool_of("greedy", "random", seed=seed), num_players=num_players, seed=seed,
                         reward_scale=1.0, auto_forced=auto_forced)
    log = _record_table0(env)
    log.append([])  # reset's opponent moves, before the first learner decision
    env.reset()
    rng = np.random.default_rng(seed)
    rewards, dones, infos = [], [], []
    for _ in range(120):
        log.append([])
        _, r, d, info = env.step(random_learner_actions(env.action_masks(), rng))
        rewards.append(float(r[0]))
        dones.append(bool(d[0]))
        infos.append(info[0])
    assert sum(dones) >= 5, "the test needs several finished episodes"

    # Replay in the reference engine and recompute each span from its chips.
    aec = nos_env.env(num_players=num_players, backend="reference", auto_forced=auto_forced)
    aec.reset(seed=seed)  # table 0 of the self-play env is seeded with `seed + 0`
    raw = aec.unwrapped
    episode = 0
    learner = lambda: episode % num_players  # noqa: E731  (rotation: table 0's k-th episode)
    mine = lambda: raw.chips[learner()] - raw.episode_chips_start[learner()]  # noqa: E731
    others = lambda: [raw.chips[s] - raw.episode_chips_start[s] for s in range(num_players)]  # noqa: E731

    def play(action):
        nonlocal episode
        assert raw.agent_selection != f"player_{learner()}" or log_phase == "learner"
        aec.step(action)
        if all(raw.terminations.values()):
            ends.append((mine(), others()))
            aec.reset()
            episode += 1

    ends: list = []
    log_phase = "opponents"
    for a in log[0]:
        play(a)
    carry = mine()  # chips of the first episode before the learner's first decision
    opponent_seat_differs = False
    for i, actions in enumerate(log[1:]):
        assert raw.agent_selection == f"player_{learner()}", f"step {i}: the learner is not to move"
        start = mine()
        start_all = others()
        seat = learner()
        ends.clear()
        log_phase = "learner"
        play(actions[0])
        log_phase = "opponents"
        for a in actions[1:]:
            play(a)
        if ends:
            assert dones[i], f"step {i}: an episode ended but done is False"
            end_chips, end_all = ends[0]
            expected = carry + end_chips - start
            assert infos[i]["episode"]["r"] == end_chips
            assert infos[i]["learner_seat"] == seat
            assert infos[i]["chips"][seat] == end_chips
            span_all = [e - s for e, s in zip(end_all, start_all)]
            carry = mine() if len(ends) == 1 else mine() + sum(e[0] for e in ends[1:])
        else:
            assert not dones[i], f"step {i}: done without an end"
            expected = carry + mine() - start
            span_all = [e - s for e, s in zip(others(), start_all)]
            carry = 0
        assert rewards[i] == expected, f"step {i}: reward {rewards[i]} != learner's chips {expected}"
        if any(span_all[s] != span_all[seat] for s in range(num_players) if s != seat):
            opponent_seat_differs = True
    assert opponent_seat_differs, "no step could tell the learner's chips from an opponent's"


def test_episode_rewards_add_up_to_the_learners_chips_at_every_table():
    env = SelfPlayVecEnv(64, pool_of("tactics", "greedy"), seed=5, reward_scale=0.01)
    env.reset()
    rng = np.random.default_rng(0)
    running = np.zeros(64)
    checked = 0
    for _ in range(60):
        _, r, d, infos = env.step(random_learner_actions(env.action_masks(), rng))
        running += r
        for b in np.flatnonzero(d):
            info = infos[b]
            assert running[b] == pytest.approx(info["episode"]["r"] * 0.01, abs=1e-3)
            assert info["chips"][info["learner_seat"]] == info["episode"]["r"]
            assert info["chips"].sum() == 0  # zero-sum: the opponents paid what the learner won
            assert info["terminal_observation"].shape == env.observation_space.shape
            running[b] = 0.0
            checked += 1
    assert checked > 50


# ------------------------------------------------------ seats, masks, observations
def test_rotation_seats_every_seat_and_a_fixed_seat_stays():
    env = SelfPlayVecEnv(8, pool_of("random"), num_players=4, seed=1)
    env.reset()
    np.testing.assert_array_equal(env.learner, np.arange(8) % 4)
    rng = np.random.default_rng(1)
    seen = {b: [] for b in range(8)}
    for _ in range(80):
        _, _, d, infos = env.step(random_learner_actions(env.action_masks(), rng))
        for b in np.flatnonzero(d):
            seen[b].append(infos[b]["learner_seat"])
    for b, seats in seen.items():
        assert seats == [(b + k) % 4 for k in range(len(seats))]
    fixed = SelfPlayVecEnv(8, pool_of("random"), num_players=4, seed=1, learner_seat=2)
    fixed.reset()
    for _ in range(30):
        fixed.step(random_learner_actions(fixed.action_masks(), rng))
        assert (fixed.tables.T[:, K.T_TO_MOVE] == 2).all()


def test_observations_and_masks_are_the_learners():
    env = SelfPlayVecEnv(16, pool_of("greedy"), seed=2)
    obs = env.reset()
    rng = np.random.default_rng(2)
    for _ in range(20):
        seats = env.learner.copy()
        assert (env.tables.T[:, K.T_TO_MOVE] == seats).all()
        np.testing.assert_array_equal(obs, env.tables.observe(seats))
        masks = env.action_masks()
        assert masks.dtype == bool and masks.shape == (16, 557)
        np.testing.assert_array_equal(masks, env.tables.MASK != 0)
        np.testing.assert_array_equal(np.stack(env.env_method("action_masks")), masks)
        assert masks.any(axis=1).all()
        obs, *_ = env.step(random_learner_actions(masks, rng))


def test_tactics_hint_is_tactics_choice_for_the_learner():
    env = SelfPlayVecEnv(16, pool_of("random"), seed=4, tactics_hint=True)
    tactics = copy.deepcopy(env.hint_agent)  # the same tie-breaking stream, asked the same questions
    obs = env.reset()
    rng = np.random.default_rng(4)
    for _ in range(10):
        assert obs.shape == (16, 1042)
        hinted = obs[:, -1].astype(np.int64)
        masks = env.action_masks()
        assert masks[np.arange(16), hinted].all()
        np.testing.assert_array_equal(hinted, tactics.act_batch(obs[:, :-1], env.tables.MASK))
        obs, *_ = env.step(random_learner_actions(masks, rng))


def test_same_seed_and_actions_give_the_same_games():
    def run(seed):
        env = SelfPlayVecEnv(8, pool_of("tactics", "random", seed=3), seed=seed)
        out = [env.reset()]
        rng = np.random.default_rng(9)
        for _ in range(25):
            o, r, d, _ = env.step(random_learner_actions(env.action_masks(), rng))
            out += [o, r, d]
        return out

    a, b, c = run(7), run(7), run(8)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert any(not np.array_equal(x, y) for x, y in zip(a, c))


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="learner_seat"):
        SelfPlayVecEnv(2, pool_of("random"), learner_seat=4)
    with pytest.raises(ValueError, match="no agent with a positive weight"):
        SelfPlayVecEnv(2, OpponentPool())
    with pytest.raises(ValueError, match="reward_scale"):
        SelfPlayVecEnv(2, pool_of("random"), reward_scale=0)
    env = SelfPlayVecEnv(2, pool_of("random"))
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(2, np.int64))
