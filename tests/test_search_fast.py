"""The search's scratch batch built in compiled code: FastTables.determinize and the sampler's
compiled fast path give exactly what the numpy route gives (the same tables, the same samples), on
positions of real games with 3, 4 and 5 players; bad input changes nothing."""

import numpy as np
import pytest

import nos_env
from agents.base import float_observations
from agents.greedy import GreedyAgent
from agents.sampler import HiddenSampler
from agents.search import _determinize, _hidden_sets
from nos_env.fast_engine import ARRAYS, FastTables
from nos_env.games import nos as K


def positions(n, seed, count, every=3):
    """(tables, b, seat, obs) at decisions of greedy games, ``every``-th decision of each table."""
    venv = nos_env.vector_env(num_envs=4, num_players=n, seed=seed)
    obs, masks, current = venv.reset()
    greedy = GreedyAgent(seed=seed)
    step = 0
    while True:
        for b in range(4):
            if masks[b].sum() > 1 and (step + b) % every == 0:
                yield venv.tables, b, int(current[b]), float_observations(np.array(obs[b : b + 1]))[0]
                count -= 1
                if count == 0:
                    return
        obs, masks, current, *_ = venv.step(greedy.act_batch(obs, masks))
        step += 1


@pytest.mark.parametrize("n", [3, 4, 5])
def test_compiled_deals_are_numpys(n):
    """Same uniforms, same deals: the compiled fast path keeps the rows numpy keeps, in order
    (constrained positions included: pass records, double caps)."""
    constrained = 0
    for tables, b, seat, obs in positions(n, seed=40 + n, count=150, every=2):
        fast, slow = HiddenSampler(obs, compiled=True), HiddenSampler(obs, compiled=False)
        constrained += fast._constrained
        for k in (1, 7, 40):
            h1, b1 = fast.sample_bits(np.random.default_rng(k), k)
            h2, b2 = slow.sample_bits(np.random.default_rng(k), k)
            np.testing.assert_array_equal(h1, h2)
            np.testing.assert_array_equal(b1, b2)
            assert not fast.constraints.violations(*fast.sample(np.random.default_rng(k), 1)[0])
    assert constrained >= 5  # the rejection step was exercised


@pytest.mark.parametrize("n", [3, 4, 5])
def test_determinize_makes_the_tables_of_restore_set_hidden(n):
    """FastTables.determinize == restore_all + set_hidden (samples repeated per row) + set_random_state,
    every array of every table."""
    rng = np.random.default_rng(n)
    a = FastTables(12, n, seed=0, hands_per_episode=1, illegal_action="penalty", auto_forced=True)
    c = FastTables(12, n, seed=0, hands_per_episode=1, illegal_action="penalty", auto_forced=True)
    checked = 0
    for tables, b, seat, obs in positions(n, seed=50 + n, count=60):
        public = tables.rollout_snapshot(b)
        sampler = HiddenSampler(obs)
        k = 4
        hands, bones = sampler.sample_bits(rng, k)
        sample_of_row = rng.integers(0, k, 12)
        states = rng.integers(0, 2**63, 12, dtype=np.int64).astype(np.uint64)
        a.restore_all(public)
        _determinize(a, sample_of_row, hands, bones, sampler, seat, n)
        a.set_random_state(states)
        seats, held, dealt = _hidden_sets(hands, sampler, int(public["T"][K.T_SET_TILE]), seat, n)
        c.determinize(public, seats, held, dealt, bones, sample_of_row, states)
        for name in ARRAYS:
            np.testing.assert_array_equal(getattr(a, name), getattr(c, name), err_msg=name)
        assert (c.masks == public["MASK"]).all()  # the seat to move's mask depends on its hand only
        checked += 1
    assert checked == 60


def determinize_inputs(seed: int):
    """A 4-player position's public snapshot, two sampled deals of its hidden tiles (seats, hands,
    dealt, boneyard) and 4 scratch tables to determinize them into."""
    tables, b, seat, obs = next(positions(4, seed=seed, count=1))
    public = tables.rollout_snapshot(b)
    sampler = HiddenSampler(obs)
    hands, bones = sampler.sample_bits(np.random.default_rng(0), 2)
    seats, held, dealt = _hidden_sets(hands, sampler, int(public["T"][K.T_SET_TILE]), seat, 4)
    scratch = FastTables(4, 4, seed=3, hands_per_episode=1, illegal_action="penalty")
    return public, seats, held, dealt, bones, scratch


def test_determinize_refuses_bad_input_and_changes_nothing():
    public, seats, held, dealt, bones, scratch = determinize_inputs(7)
    before = {name: getattr(scratch, name).copy() for name in ARRAYS}
    rows = np.array([0, 1, 0, 1])
    states = np.zeros(4, np.uint64)
    bad = [
        (dict(sample_of_row=np.array([0, 1, 2, 0])), "sample_of_row"),
        (dict(sample_of_row=np.array([0, 1])), "sample_of_row"),
        (dict(hands=held[:, :1]), "hands"),
        (dict(dealt=dealt - 2**40), "dealt"),
        (dict(boneyard=bones[:, :-1] if bones.shape[1] else np.zeros((2, 1), np.int8)), "boneyard"),
        (dict(states=states.astype(np.int64)), "states"),
        (dict(seats=[seats[0], seats[0], seats[1]]), "seats"),
        (dict(snapshot={**public, "T": public["T"][:3]}), "snapshot array T"),
    ]
    for change, message in bad:
        call = dict(snapshot=public, seats=seats, hands=held, dealt=dealt, boneyard=bones, sample_of_row=rows,
                    states=states)
        call.update(change)
        with pytest.raises(ValueError, match=message):
            scratch.determinize(**call)
        for name in ARRAYS:
            np.testing.assert_array_equal(getattr(scratch, name), before[name], err_msg=name)


def test_determinize_checks_the_snapshots_mask():
    """The rows keep the snapshot's mask (the seat to move's legal actions do not depend on hidden
    tiles); a snapshot whose mask is not what its position allows is refused."""
    public, seats, held, dealt, bones, scratch = determinize_inputs(9)
    wrong = {**public, "MASK": public["MASK"].copy()}
    wrong["MASK"][np.flatnonzero(public["MASK"])[0]] = 0
    with pytest.raises(RuntimeError, match="mask"):
        scratch.determinize(wrong, seats, held, dealt, bones, np.array([0, 1, 0, 1]), np.zeros(4, np.uint64))
    scratch.determinize(public, seats, held, dealt, bones, np.array([0, 1, 0, 1]), np.zeros(4, np.uint64))
    assert (scratch.masks == public["MASK"]).all()


@pytest.mark.parametrize("n", [3, 4, 5])
def test_compiled_reading_of_the_constraints_is_numpys(n):
    """read_constraints in one numba pass reads what the numpy version reads, on every decision of
    greedy games (passes, declarations, set tiles drawn: each seen at least once over the games)."""
    from agents.sampler import read_constraints

    seen = {"passed": 0, "declared": 0, "set_drawn": 0}
    for tables, b, seat, obs in positions(n, seed=60 + n, count=400, every=1):
        fast, slow = read_constraints(obs, compiled=True), read_constraints(obs, compiled=False)
        assert fast == slow
        seen["passed"] += any(slow.forbidden)
        seen["declared"] += any(slow.declared)
        seen["set_drawn"] += slow.set_drawn_by is not None
    assert seen["passed"] and seen["set_drawn"], seen
    assert seen["declared"] or n == 3, seen  # (three players are dealt five tiles: declaring is rare)
