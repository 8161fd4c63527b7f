"""The fast engine plays exactly the reference engine's games; the vector API works as documented."""

import json
import pickle
import re

import numpy as np
import pytest

import nos_env
from conftest import GOLDEN, VECTOR_NAMES, load_vector
from nos_env.games import nos as K
from nos_env.kernels import bits, core
from nos_env.deal import Deal
from nos_env.differential import run
from nos_env.encoding import (COMPACT_SIZE, NUM_ACTIONS, OBSERVATION_SIZE, action_to_index, decode_compact,
                              encode_observation, legal_mask)
from nos_env.engine import IllegalActionError
from nos_env.fast_engine import PARALLEL_FROM, FastTables
from nos_env.record import start_from_record
from nos_env.rng import SplitMix64, seed_state
from nos_env.threads import (DUEL_SHARE, ENV_VAR, FIRST_INTERVAL, LONGEST_INTERVAL, MAX_INTERVAL, PARALLEL, SERIAL,
                             _Duel, default_num_threads, default_threads, max_threads, set_default_num_threads)

COUNTS = [3, 4, 5]


# ------------------------------------------------------------ differential
@pytest.mark.parametrize("n", COUNTS)
def test_differential_random_hands(n):
    """Masks, observations, rewards and ends agree at every step (1,600 hands per count)."""
    result = run(n, 1600, seed=100 + n)
    assert result["hands"] == 1600


@pytest.mark.parametrize("n", COUNTS)
def test_differential_every_announcement(n):
    """Each of the 76 announcements forced through scripted deals, twice, every seat observed."""
    result = run(n, 152, seed=200 + n, force_announcements=True, all_seats_every=1)
    assert result["announcements"] == set(range(76))


@pytest.mark.parametrize("n", COUNTS)
def test_differential_with_automatic_forced_decisions(n):
    result = run(n, 200, seed=300 + n, auto_forced=True)
    assert result["hands"] == 200


def test_the_random_streams_agree():
    R = np.array([seed_state(12345)], np.uint64)
    py = SplitMix64(12345)
    for bound in [28, 27, 5, 3, 2, 1, 1000, 2**31]:
        for _ in range(50):
            assert core.below(R, 0, bound) == py.below(bound)
    assert int(R[0]) == py.state


# ----------------------------------------------- records replayed on the fast engine
def replay_on_fast(record):
    """Replay a reference hand record's decisions on a fast table; returns the table."""
    hand = start_from_record(record)
    tables = FastTables(1, hand.num_players, auto_forced=hand.options.auto_forced,
                        illegal_action=hand.options.illegal)
    tables.load_deal(0, hand.deal, hand.on_set, hand.chips_start, hand.first_hand)
    for text in record["actions"]:
        index = action_to_index(hand.resolve(text))
        assert tables.MASK[0, index] == 1 or hand.options.illegal == "penalty", text
        np.testing.assert_array_equal(tables.MASK[0], legal_mask(hand))
        hand.step(text)
        tables.step(np.array([index]), observe=False, autoreset=False)
        assert [int(c) for c in tables.S[0, : hand.num_players, K.S_CHIPS]] == hand.chips, text
    return tables, hand


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.json")), ids=lambda p: p.stem)
def test_golden_records_replay_on_the_fast_engine(path):
    record = json.loads(path.read_text())
    tables, hand = replay_on_fast(record)
    assert [int(c) for c in tables.S[0, : hand.num_players, K.S_CHIPS]] == record["chips"]
    assert bool(tables.T[0, K.T_PHASE] == K.P_OVER) == (record["phase"] == "over")


@pytest.mark.parametrize("name", VECTOR_NAMES)
def test_worked_examples_replay_on_the_fast_engine(name):
    vector = load_vector(name)
    tables = FastTables(1, vector["num_players"])
    deal = Deal.from_tiles(vector["hands"], vector["boneyard_top_first"])
    tables.load_deal(0, deal, vector["on_set"], vector["chips_start"], vector["first_hand"])
    hand = tables.reference_hand(0)
    for step in vector["steps"]:
        if "automatic" in step["action"]:
            continue
        assert tables.T[0, K.T_TO_MOVE] == step["seat"]
        index = action_to_index(hand.resolve(step["action"]))
        hand.step(step["action"])
        tables.step(np.array([index]), observe=False, autoreset=False)
        assert [int(c) for c in tables.S[0, : vector["num_players"], K.S_CHIPS]] == step["chips_after"]
    assert bool(tables.T[0, K.T_PHASE] == K.P_OVER) == vector["hand_over"]


# ---------------------------------------------------------- seeding
def test_table_b_plays_what_the_env_plays_after_reset_seed_plus_b():
    venv = nos_env.vector_env(4, num_players=4, seed=500)
    venv.reset()
    for b in range(4):
        env = nos_env.env(num_players=4, backend="reference")
        env.reset(seed=500 + b)
        ours, theirs = venv.hand(b), env.unwrapped.hand
        assert [sorted(h) for h in ours.deal.hands] == [sorted(h) for h in theirs.deal.hands]
        assert ours.deal.boneyard == theirs.deal.boneyard and ours.on_set == theirs.on_set


@pytest.mark.parametrize("n", COUNTS)
def test_sessions_agree_with_the_reference_environment(n):
    """hands_per_episode > 1: first-hand rule, the loser sets, D2 ties from the shared stream."""
    rng = np.random.default_rng(n)
    for seed in range(4):
        ref = nos_env.env(num_players=n, hands_per_episode=4, backend="reference")
        fast = nos_env.env(num_players=n, hands_per_episode=4, backend="fast")
        ref.reset(seed=seed)
        fast.reset(seed=seed)
        for agent in ref.agent_iter():
            obs, reward, term, trunc, _ = ref.last()
            fobs, freward, fterm, ftrunc, _ = fast.last()
            assert agent == fast.agent_selection
            np.testing.assert_array_equal(obs["observation"], fobs["observation"])
            np.testing.assert_array_equal(obs["action_mask"], fobs["action_mask"])
            assert (reward, term) == (freward, fterm)
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            ref.step(action)
            fast.step(action)
        assert ref.unwrapped.chips == fast.unwrapped.chips
        assert len(ref.unwrapped.backend.session.hands) == 4


# ---------------------------------------------------------- vector API
@pytest.mark.parametrize("dtype, width", [("uint8", COMPACT_SIZE), ("float32", OBSERVATION_SIZE)])
def test_vector_shapes_spaces_and_readonly_buffers(dtype, width):
    kwargs = {} if dtype == "uint8" else {"observation_dtype": dtype}  # uint8 is the default
    venv = nos_env.vector_env(16, num_players=5, seed=0, **kwargs)
    obs, masks, current = venv.reset()
    assert obs.shape == (16, width) and obs.dtype == np.dtype(dtype)
    assert masks.shape == (16, NUM_ACTIONS) and masks.dtype == np.int8
    assert current.shape == (16,) and ((current >= 0) & (current < 5)).all()
    assert venv.single_observation_space.shape == (width,) and venv.single_observation_space.dtype == np.dtype(dtype)
    assert venv.observation_space.shape == (16, width) and venv.observation_space.contains(np.array(obs))
    assert venv.single_action_space.n == NUM_ACTIONS
    assert venv.action_space.shape == (16,) and list(venv.action_space.nvec) == [NUM_ACTIONS] * 16
    assert venv.action_mask_space.shape == (16, NUM_ACTIONS) and venv.action_mask_space.contains(np.array(masks))
    for view in (obs, masks):  # read-only views of the engine's buffers
        with pytest.raises(ValueError):
            view[0, 0] = 1
    actions = np.array([np.flatnonzero(m)[0] for m in masks])
    kept = obs.copy()
    obs2, masks, current, rewards, terminated, infos = venv.step(actions)
    assert rewards.shape == (16, 5) and terminated.shape == (16,) and rewards.dtype == np.float32
    np.testing.assert_allclose(rewards.sum(axis=1), 0)
    assert np.shares_memory(obs2, venv.tables.step(np.array([np.flatnonzero(m)[0] for m in masks]))[4])
    assert not np.array_equal(kept, obs2)  # the positions moved on
    assert venv.step(np.array([np.flatnonzero(m)[0] for m in venv.masks]), observe=False)[0] is None


def test_copy_observations_gives_a_fresh_array_each_step():
    venv = nos_env.vector_env(4, num_players=4, seed=1, copy_observations=True)
    _, masks, _ = venv.reset()
    first = venv.step(np.array([np.flatnonzero(m)[0] for m in masks]))[0]
    kept = first.copy()
    venv.step(np.array([np.flatnonzero(m)[0] for m in venv.masks]))
    np.testing.assert_array_equal(first, kept)  # not overwritten by the next step
    first[0, 0] = 7  # and writable: it is the caller's


@pytest.mark.parametrize("dtype", ["uint8", "float32"])
def test_vector_observations_are_the_reference_observations(dtype):
    venv = nos_env.vector_env(8, num_players=4, seed=9, hands_per_episode=2, observation_dtype=dtype)
    as_float = (lambda o: decode_compact(np.asarray(o))) if dtype == "uint8" else np.asarray
    obs, masks, current = venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(60):
        reference = [venv.tables.reference_hand(b) for b in range(8)]
        starts = venv.tables.S[:, :4, K.S_CHIPS_EPISODE]
        for b in range(8):
            np.testing.assert_array_equal(as_float(obs)[b], encode_observation(
                reference[b], int(current[b]), chips_reference=[int(c) for c in starts[b]]))
            np.testing.assert_array_equal(masks[b], legal_mask(reference[b]))
        seats = rng.integers(0, 4, 8)
        any_seat = as_float(venv.observe(seats))
        for b in range(8):
            np.testing.assert_array_equal(any_seat[b], encode_observation(
                reference[b], int(seats[b]), chips_reference=[int(c) for c in starts[b]]))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, masks, current, *_ = venv.step(actions)


@pytest.mark.parametrize("auto_forced, hands", [(False, 1), (True, 1), (True, 3)])
def test_autoreset_never_loses_a_reward(auto_forced, hands):
    """Per table, the rewards of each episode add up to its chip change (documented auto-reset)."""
    B, n = 32, 4
    venv = nos_env.vector_env(B, num_players=n, seed=3, auto_forced=auto_forced, hands_per_episode=hands,
                              starting_chips=500)
    obs, masks, current = venv.reset()
    rng = np.random.default_rng(1)
    returns = np.zeros((B, n))
    episodes = 0
    while episodes < 150:
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, masks, current, rewards, terminated, infos = venv.step(actions)
        returns += rewards
        for b in np.flatnonzero(terminated):
            np.testing.assert_array_equal(returns[b], infos["final_chips"][b] - 500)
            returns[b] = 0
            episodes += 1
        np.testing.assert_allclose(rewards.sum(axis=1), 0)


@pytest.mark.parametrize("num_threads", ["auto"] + list(range(2, max_threads() + 1)))
def test_every_threads_setting_plays_what_one_thread_plays(num_threads):
    """From PARALLEL_FROM tables on, "auto" runs the parallel kernels too (its first duel always
    does); every setting must play exactly what the serial kernels play (the differential runs
    use small, serial batches), random draws of ``sample_legal`` included."""
    B = PARALLEL_FROM + 44
    tables = FastTables(B, 4, seed=21, hands_per_episode=2, num_threads=num_threads)
    serial = FastTables(B, 4, seed=21, hands_per_episode=2, num_threads=1)
    for t in (tables, serial):
        t.reset_tables()
    policy = np.array([seed_state(7 + b) for b in range(B)], np.uint64)
    policy_copy = policy.copy()
    actions, drawn = np.zeros(B, np.int64), np.zeros(B, np.int64)
    finished = 0
    for step in range(150):
        serial.sample_legal(policy, actions)
        tables.sample_legal(policy_copy, drawn)
        np.testing.assert_array_equal(drawn, actions)
        idle = np.random.default_rng(step).random(B) < 0.1
        actions[idle] = K.IDLE
        observe = step % 5 != 4  # both kinds of step call
        a = tables.step(actions, observe=observe, allow_idle=True)
        b = serial.step(actions, observe=observe, allow_idle=True)
        if step == 0:  # an idle table's row is not written: zeros before its first step
            assert not a[4][idle].any()
        for got, want in zip(a[:4], b[:4]):
            np.testing.assert_array_equal(got, want)
        if observe:
            np.testing.assert_array_equal(a[4], b[4])
        else:
            assert a[4] is None and b[4] is None
        finished += int(b[1].sum())
    for name in ("T", "S", "A", "L", "BONE", "R", "MASK", "LEGAL", "H"):
        np.testing.assert_array_equal(getattr(tables, name), getattr(serial, name), err_msg=name)
    np.testing.assert_array_equal(policy_copy, policy)
    np.testing.assert_array_equal(tables.observe(tables.current_player), serial.observe(serial.current_player))
    assert finished > 0  # episodes ended and restarted inside the comparison
    assert set(serial.thread_stats) == {1}
    if num_threads == "auto":  # both ways ran (on a one-CPU machine "auto" is serial)
        assert set(tables.thread_stats) == ({1, max_threads()} if max_threads() > 1 else {1})
    else:
        assert set(tables.thread_stats) == {num_threads}


@pytest.mark.parametrize("bad", [0, -1, max_threads() + 1, "two", "", "Auto", True, 2.0, [2]])
def test_num_threads_is_checked_everywhere_it_is_accepted(bad):
    message = (f"num_threads must be 'auto' or a number of threads from 1 to {max_threads()} "
               f"(numba.config.NUMBA_NUM_THREADS")
    with pytest.raises(ValueError, match=re.escape(message)):
        FastTables(4, num_threads=bad)
    with pytest.raises(ValueError, match=re.escape(message)):
        nos_env.vector_env(4, num_threads=bad)
    with pytest.raises(ValueError, match=re.escape(message)):
        set_default_num_threads(bad)
    assert default_num_threads() == "auto"  # a refused default changes nothing
    assert FastTables(4, num_threads=np.int64(1)).num_threads == 1
    assert nos_env.vector_env(4).tables.num_threads == "auto"


def test_the_process_default_comes_from_the_call_then_the_environment(monkeypatch):
    monkeypatch.setenv(ENV_VAR, "1")
    assert FastTables(PARALLEL_FROM).num_threads == 1
    assert FastTables(PARALLEL_FROM, num_threads="auto").num_threads == "auto"  # an explicit setting wins
    try:
        set_default_num_threads("auto")
        assert FastTables(4).num_threads == "auto"  # the call's default wins over the variable
        with default_threads(1):
            assert FastTables(4).num_threads == 1
            with pytest.raises(ValueError, match="two"):
                with default_threads("two"):
                    pass
            assert default_num_threads() == 1  # the refused block changed nothing
        assert default_num_threads() == "auto"  # restored after the block
    finally:
        set_default_num_threads(None)
    assert default_num_threads() == 1
    monkeypatch.setenv(ENV_VAR, " auto ")
    assert default_num_threads() == "auto"
    monkeypatch.setenv(ENV_VAR, "0")
    with pytest.raises(ValueError, match=f"the {ENV_VAR} environment variable must be 'auto' or a number"):
        FastTables(4)
    monkeypatch.delenv(ENV_VAR)
    assert default_num_threads() == "auto"


def test_auto_picks_the_faster_way_and_leaves_a_collapsing_one_quickly():
    """The duel's decisions on a made-up clock (no timing): serial 1 ms a call, parallel as given."""
    duel, clock = _Duel(), [0.0]

    def call(parallel_seconds, serial_seconds=1e-3):
        mode = duel.pick(clock[0])
        clock[0] += serial_seconds if mode == SERIAL else parallel_seconds
        duel.record(mode, serial_seconds if mode == SERIAL else parallel_seconds, clock[0])
        return mode

    # Alone: parallel is twice as fast; the first duel alternates and picks it.
    assert [call(0.5e-3) for _ in range(4)] == [SERIAL, PARALLEL, SERIAL, PARALLEL]
    assert duel.mode == PARALLEL and duel.interval == FIRST_INTERVAL
    # It stays parallel until the next duel, which it wins again: the interval doubles.
    calls = 0
    while call(0.5e-3) == PARALLEL:
        calls += 1
    assert calls == pytest.approx(FIRST_INTERVAL / 0.5e-3, abs=2)
    assert [call(0.5e-3) for _ in range(3)] == [PARALLEL, SERIAL, PARALLEL]
    assert duel.mode == PARALLEL and duel.interval == 2 * FIRST_INTERVAL
    # A neighbour arrives: parallel calls take 20 ms. The first slow one asks for a duel at once,
    # which ends after one parallel call, so the collapse costs two parallel calls in all; the
    # next duel waits until the 19 ms that call lost are 1% of the time.
    assert call(20e-3) == PARALLEL
    assert [call(20e-3) for _ in range(2)] == [SERIAL, PARALLEL]
    assert duel.mode == SERIAL and duel.interval == pytest.approx(19e-3 / DUEL_SHARE)
    # Serial until the neighbour leaves; each lost duel costs one parallel call and doubles the wait.
    modes = [call(20e-3) for _ in range(20_000)]
    assert duel.interval == LONGEST_INTERVAL
    assert 2 <= modes.count(PARALLEL) <= 5
    # The neighbour leaves: the next duel goes back to parallel.
    while call(0.5e-3) == SERIAL:
        pass
    assert [call(0.5e-3) for _ in range(3)] == [SERIAL, PARALLEL, PARALLEL] and duel.mode == PARALLEL
    # A parallel call that costs 2 s more than a serial one: the wait is capped.
    duel = _Duel()
    assert [call(2.0) for _ in range(3)] == [SERIAL, PARALLEL, SERIAL]
    assert duel.mode == SERIAL and duel.interval == MAX_INTERVAL


def test_tables_pickle_with_their_setting():
    tables = FastTables(PARALLEL_FROM, 4, seed=3, num_threads="auto")
    tables.reset_tables()
    tables.step(tables.sample_legal(np.array([seed_state(b) for b in range(PARALLEL_FROM)], np.uint64)))
    copy = pickle.loads(pickle.dumps(tables))
    assert copy.num_threads == "auto" and copy.thread_stats == {}  # timings stay with their process
    np.testing.assert_array_equal(copy.MASK, tables.MASK)
    with pytest.raises(ValueError, match=rf"state must be a uint64 array of shape \({PARALLEL_FROM},\)"):
        tables.sample_legal(np.zeros(PARALLEL_FROM, np.int64))


def test_legal_list_matches_the_mask_and_sampling_is_uniform():
    tables = FastTables(3, 4, seed=8, illegal_action="penalty")
    tables.reset_tables()
    rng = np.random.default_rng(0)
    for _ in range(30):  # into the play phase
        tables.step(np.array([rng.choice(np.flatnonzero(m)) for m in tables.MASK]), observe=False)
    for b in range(3):
        np.testing.assert_array_equal(tables.legal_actions(b), np.flatnonzero(tables.MASK[b]))
        np.testing.assert_array_equal(tables.legal_actions(b), np.flatnonzero(legal_mask(tables.reference_hand(b))))
    legal = np.flatnonzero(tables.MASK[0])
    policy = np.array([seed_state(99), seed_state(100), seed_state(101)], np.uint64)
    out = np.zeros(3, np.int64)
    draws = []
    for _ in range(300 * len(legal)):
        K.sample_legal(tables.T, tables.LEGAL, policy, out)
        draws.append(int(out[0]))
    counts = np.array([draws.count(a) for a in legal])
    assert counts.sum() == len(draws)  # never an illegal action
    expected = len(draws) / len(legal)
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 3 * len(legal) + 30, (counts, chi2)  # uniform (a loose bound: df = len(legal) - 1)
    done = FastTables(1, 4, seed=1)
    done.reset_tables()
    while True:  # a finished table without autoreset waits: sampling gives IDLE
        _, terminated, *_ = done.step(np.flatnonzero(done.MASK[0])[:1], observe=False, autoreset=False)
        if terminated[0]:
            break
    K.sample_legal(done.T, done.LEGAL, policy[:1], out[:1])
    assert out[0] == K.IDLE


def test_bit_intrinsics_match_python():
    from numba import njit

    @njit
    def both(x):
        return bits.popcount(x), (bits.low_bit(x) if x else -1)

    rng = np.random.default_rng(4)
    values = [0, 1, 2, 3, 1 << 27, (1 << 28) - 1, 0b1011000] + [int(v) for v in rng.integers(0, 1 << 28, 200)]
    for v in values:
        low = (v & -v).bit_length() - 1 if v else -1
        assert both(np.int64(v)) == (bin(v).count("1"), low), v
        assert both(np.int32(v)) == (bin(v).count("1"), low), v  # state fields are int32


def test_clone_and_restore_replay_identically():
    venv = nos_env.vector_env(8, num_players=4, seed=4)
    obs, masks, _ = venv.reset()
    rng = np.random.default_rng(2)
    for _ in range(10):
        obs, masks, *_ = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    snapshot = venv.clone()
    plan = []
    first = []
    m = np.array(masks)
    for _ in range(40):
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in m])
        plan.append(actions)
        out = venv.step(actions)
        first.append((out[0].copy(), out[3].copy(), out[4].copy()))
        m = np.array(out[1])
    venv.restore(snapshot)
    for actions, (o, r, t) in zip(plan, first):
        out = venv.step(actions)
        np.testing.assert_array_equal(out[0], o)
        np.testing.assert_array_equal(out[3], r)
        np.testing.assert_array_equal(out[4], t)


def test_clone_and_restore_a_single_table():
    venv = nos_env.vector_env(4, num_players=3, seed=5)
    obs, masks, current = venv.reset()
    saved = venv.clone_table(2)
    saved_obs = venv.observe(current)[2].copy()
    saved_legal = venv.hand(2).legal_action_texts()
    rng = np.random.default_rng(3)
    for _ in range(15):
        obs, masks, current, *_ = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    venv.restore_table(0, saved)  # table 2's position, now also at table 0
    seat = int(venv.current_player[0])
    np.testing.assert_array_equal(venv.observe(np.full(4, seat))[0], saved_obs)
    assert venv.hand(0).legal_action_texts() == saved_legal
    np.testing.assert_array_equal(venv.masks[0], venv.clone_table(0)["MASK"])


def test_vector_bad_input():
    with pytest.raises(ValueError, match="num_envs"):
        nos_env.vector_env(0)
    with pytest.raises(ValueError, match="3, 4 or 5"):
        nos_env.vector_env(4, num_players=6)
    with pytest.raises(ValueError, match="illegal_action"):
        nos_env.vector_env(4, illegal_action="skip")
    venv = nos_env.vector_env(4, seed=1)
    with pytest.raises(RuntimeError, match="reset"):
        venv.step(np.zeros(4, np.int64))
    obs, masks, _ = venv.reset()
    with pytest.raises(ValueError, match="shape"):
        venv.step(np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="outside"):
        venv.step(np.full(4, NUM_ACTIONS))
    bad = np.array([np.flatnonzero(m == 0)[0] for m in masks])
    before = venv.clone()
    with pytest.raises(IllegalActionError, match="table 0"):
        venv.step(bad)
    after = venv.clone()
    for key in ("T", "S", "MASK"):
        np.testing.assert_array_equal(before[key], after[key])  # D16: nothing changed


def test_vector_penalty_option():
    venv = nos_env.vector_env(2, seed=1, illegal_action="penalty")
    obs, masks, current = venv.reset()
    bad = np.array([np.flatnonzero(m == 0)[0] for m in masks])
    obs, masks2, current2, rewards, terminated, _ = venv.step(bad)
    for b in range(2):
        seat = current[b]
        assert rewards[b, seat] == -120 and all(rewards[b, s] == 40 for s in range(4) if s != seat)
    np.testing.assert_array_equal(current2, current)


def test_memory_of_a_4096_batch_is_small():
    tables = FastTables(4096, 4, seed=0)
    assert tables.nbytes < 64 * 2**20


def test_load_deal_starts_a_clean_episode():
    """Loading a deal resets the episode's counters (closings, payments by reason) and needs no reset."""
    venv = nos_env.vector_env(2, num_players=4, seed=3)
    deal = Deal.from_tiles(load_vector("example8_game10_arm_begun_with_a_double_is_dead")["hands"],
                           load_vector("example8_game10_arm_begun_with_a_double_is_dead")["boneyard_top_first"])
    venv.load_deal(0, deal, on_set=0)  # before any reset: the other table is reset too
    assert venv.hand(1).phase in ("set", "announce")
    venv.tables.T[0, K.T_CLOSE_WRONG] = 20  # a stale count from an "earlier episode"
    venv.load_deal(0, deal, on_set=0)
    assert venv.tables.T[0, K.T_CLOSE_WRONG] == 0 and venv.tables.T[0, K.T_CLOSE_RIGHT] == 0
    assert (venv.tables.S[0, :, K.S_PAY:] == 0).all()
