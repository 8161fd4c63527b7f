"""The compiled Tactics (nos_env/games/nos/tactics.py) against the Python agent (agents/tactics.py).

Positions are recorded from real games (vector envs, a mix of Tactics, Greedy and Random at
the seats, 3, 4 and 5 players). On every one the compiled Tactics must give the same score,
bit for bit, to every action the Python agent scores, and the same choice, with the
tie-break noise off on both sides. The play-out (Tactics at every seat to the end of the
hand, in one compiled call) must end every table exactly as stepping the Python agent does.
"""

import numpy as np
import pytest

import nos_env
from agents.base import float_observations
from agents.greedy import GreedyAgent
from agents.random_agent import RandomAgent
from agents.tactics import TacticsAgent, kernel_params
from nos_env import encoding as E
from nos_env.fast_engine import FastTables, accepted_after_plays, tactics_rows

PARAMS = kernel_params()


def quiet_tactics(seed=0):
    """The Python agent with its tie-break noise off (the first best action wins, as in the kernel)."""
    agent = TacticsAgent(seed=seed)
    agent._noise = lambda shape: np.zeros(shape)
    return agent


def recorded_positions(n, num_envs=128, steps=150, seed=0):
    """Observations (float32) and masks of every position of real games, with tables at which
    Tactics, Greedy and Random sit in turn (so closings, draws, passes and odd announcements all come up)."""
    venv = nos_env.vector_env(num_envs, num_players=n, seed=seed)
    obs, masks, current = venv.reset()
    agents = [quiet_tactics(seed + 1), GreedyAgent(seed + 2), RandomAgent(seed + 3)]
    kind = (np.arange(num_envs)[:, None] + np.arange(n)[None, :]) % 3  # the agent at (table, seat)
    kind[np.arange(num_envs) % 4 == 0] = 0  # a quarter of the tables: Tactics everywhere
    seen_obs, seen_masks = [], []
    for _ in range(steps):
        fobs = float_observations(obs)
        m = np.ascontiguousarray(masks, np.int8)
        seen_obs.append(fobs.copy())
        seen_masks.append(m.copy())
        who = kind[np.arange(num_envs), current]
        actions = np.zeros(num_envs, np.int64)
        for k, agent in enumerate(agents):
            rows = np.flatnonzero(who == k)
            if len(rows):
                actions[rows] = agent.act_batch(fobs[rows], m[rows])
        obs, masks, current, *_ = venv.step(actions)
    return np.concatenate(seen_obs), np.concatenate(seen_masks)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_same_scores_and_choices_on_recorded_positions(n):
    obs, masks = recorded_positions(n, seed=40 + n)
    python = quiet_tactics()
    python.scores_out = np.full(masks.shape, -np.inf)
    want = python.act_batch(obs, masks)
    scores = np.empty(masks.shape)
    got = tactics_rows(obs, masks, PARAMS, scores=scores)
    np.testing.assert_array_equal(got, want)
    assert np.array_equal(scores, python.scores_out), "a score differs"  # bit for bit (and -inf alike)
    # The positions cover every decision and both kinds of closing proof.
    phase = obs[:, slice(*E.OBSERVATION_LAYOUT["phase"][:2])].argmax(axis=1)
    several = masks.sum(axis=1) > 1
    assert {int(p) for p in phase[several]} == {0, 1, 2, 3, 4}
    closes = (got >= E.PLAY0) & (got < E.PASS) & ((got - E.PLAY0) % 2 == 1)
    assert python.stats["closings_d21"] > 10 and python.stats["closings_proved"] > 10
    assert closes.sum() == python.stats["closings_d21"] + python.stats["closings_proved"]
    assert several.sum() > 5000


def test_noise_only_breaks_ties():
    obs, masks = recorded_positions(4, num_envs=64, steps=100, seed=7)
    scores = np.empty(masks.shape)
    noise = np.arange(len(obs), dtype=np.uint64) * np.uint64(7919)
    got = tactics_rows(obs, masks, PARAMS, noise=noise, noise_scale=1e-6, scores=scores)
    plain = tactics_rows(obs, masks, PARAMS)
    several = masks.sum(axis=1) > 1
    best = scores.max(axis=1)
    chosen = scores[np.arange(len(got)), got]
    scored = several & np.isfinite(best)  # declare decisions are not scored
    assert (chosen[scored] >= best[scored] - 1e-6).all()
    assert (got != plain).any()  # ties exist and the noise breaks them otherwise
    assert (masks[np.arange(len(got)), got] == 1).all()


@pytest.mark.parametrize("n", [3, 5])
def test_tactics_actions_on_tables_equal_the_rows(n):
    venv = nos_env.vector_env(64, num_players=n, seed=3)
    venv.reset()
    tables = venv.tables
    agent = quiet_tactics()
    for _ in range(80):
        got = tables.tactics_actions(PARAMS)
        obs = float_observations(tables.observe(tables.current_player))
        np.testing.assert_array_equal(got, agent.act_batch(obs, np.array(tables.masks)))
        venv.step(got)


def mid_game_tables(n, num_envs, seed, steps):
    """One-hand scratch tables (as Search makes them) holding positions reached by random play."""
    live = FastTables(num_envs, n, seed=seed)
    live.reset_tables()
    rng = np.random.default_rng(seed)
    depth = rng.integers(0, steps, num_envs)
    for s in range(steps):
        masks = np.array(live.masks)
        noise = rng.random(masks.shape)
        noise[masks == 0] = -1
        actions = noise.argmax(axis=1)
        actions[depth <= s] = FastTables.IDLE
        live.step(actions, observe=False, allow_idle=True)
    scratch = FastTables(num_envs, n, seed=0, hands_per_episode=1, illegal_action="penalty", auto_forced=True,
                         observation_dtype="float32")
    for b in range(num_envs):
        scratch.restore_table(b, {**live.rollout_snapshot(b), "PEN": np.zeros(scratch.PEN.shape[1:], np.int64)})
    return scratch


@pytest.mark.parametrize("n", [3, 4, 5])
def test_playout_ends_every_table_as_the_python_agent(n):
    first = mid_game_tables(n, 96, seed=20 + n, steps=40)
    second = mid_game_tables(n, 96, seed=20 + n, steps=40)
    decisions = first.tactics_playout(PARAMS)
    assert decisions > 96 and first.episode_over.all()
    agent = quiet_tactics()
    while not second.episode_over.all():
        live = ~second.episode_over
        obs = float_observations(second.observe(np.maximum(second.current_player, 0)))
        actions = np.zeros(second.num_envs, np.int64)
        actions[live] = agent.act_batch(obs[live], np.array(second.masks)[live])
        second.step(actions, observe=False, autoreset=False)
    np.testing.assert_array_equal(first.chips, second.chips)
    for name in ("S", "A", "L"):
        np.testing.assert_array_equal(getattr(first, name), getattr(second, name))


def test_accepted_after_plays_is_the_tables_own():
    tables = mid_game_tables(4, 128, seed=5, steps=60)
    checked = 0
    for b in range(tables.num_envs):
        if tables.phase[b] != FastTables.PHASES.index("play"):
            continue
        obs = float_observations(tables.observe_rows(np.array([b]), tables.current_player[b:b + 1]))
        for a in tables.legal_actions(b):
            if E.PLAY0 <= a < E.PASS:
                want = tables.accepted_after(b, int(a))
                got = int(accepted_after_plays(obs, np.array([a]))[0])
                if want is not None:
                    assert got == want
                    checked += 1
    assert checked > 200


def test_bad_input_is_refused():
    obs = np.zeros((2, E.OBSERVATION_SIZE), np.float32)
    masks = np.ones((2, E.NUM_ACTIONS), np.int8)
    with pytest.raises(ValueError, match="float32"):
        tactics_rows(obs.astype(np.float64), masks, PARAMS)
    with pytest.raises(ValueError, match="int8"):
        tactics_rows(obs, masks.astype(np.int64), PARAMS)
    with pytest.raises(ValueError, match="uint64"):
        tactics_rows(obs, masks, PARAMS, noise=np.zeros(3, np.uint64))
    with pytest.raises(ValueError, match="noise_scale"):
        tactics_rows(obs, masks, PARAMS, noise=np.zeros(2, np.uint64), noise_scale=1.0)
    with pytest.raises(ValueError, match="play action"):
        accepted_after_plays(obs, np.array([E.DRAW, E.PLAY0]))
    tables = FastTables(2, 4, seed=1, hands_per_episode=3)  # a session: a play-out would deal from the stream
    tables.reset_tables()
    before = tables.clone_table(0)
    with pytest.raises(ValueError, match="hands_per_episode=1"):
        tables.tactics_playout(PARAMS)
    after = tables.clone_table(0)
    assert all(np.array_equal(before[k], after[k]) for k in before)


def test_compiled_agent_chooses_as_the_python_agent_where_the_best_is_clear():
    obs, masks = recorded_positions(4, num_envs=64, steps=120, seed=11)
    python = quiet_tactics()
    python.scores_out = np.full(masks.shape, -np.inf)
    want = python.act_batch(obs, masks)
    got = TacticsAgent(seed=3, compiled=True).act_batch(obs, masks)
    top2 = np.sort(python.scores_out, axis=1)[:, -2:]
    clear = (masks.sum(axis=1) <= 1) | ~np.isfinite(top2[:, 1]) | (top2[:, 1] - top2[:, 0] > 1e-5)
    assert clear.sum() > 0.8 * len(obs)
    np.testing.assert_array_equal(got[clear], want[clear])
    assert (masks[np.arange(len(got)), got] == 1).all()
