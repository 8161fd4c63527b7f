"""The compact observation (encoding.py): one byte a feature, chips as int32, decoded value for value."""

from __future__ import annotations

import numpy as np
import pytest

from agents.greedy import GreedyAgent
from agents.tactics import TacticsAgent
from nos_env.games import nos as K
from nos_env.encoding import (
    CHIP_SLOTS,
    COMPACT_CHIPS_AT,
    COMPACT_SIZE,
    OBSERVATION_LAYOUT,
    OBSERVATION_SIZE,
    check_observation_dtype,
    compact_chips,
    decode_compact,
)
from nos_env.fast_engine import FastTables
from nos_env.rng import seed_state


def test_the_documented_layout():
    assert OBSERVATION_SIZE == 1041
    assert COMPACT_CHIPS_AT == 1044 and COMPACT_CHIPS_AT % 4 == 0  # int32-aligned in every row
    assert COMPACT_SIZE == 1084  # 10 chip values of 4 bytes
    seat_chips, hand_payments = OBSERVATION_LAYOUT["seat_chips"], OBSERVATION_LAYOUT["seat_hand_payments"]
    assert CHIP_SLOTS.tolist() == list(range(*seat_chips[:2])) + list(range(*hand_payments[:2]))


def twin_tables(B, n, seed, **options):
    compact = FastTables(B, n, seed=seed, **options)
    decoded = FastTables(B, n, seed=seed, observation_dtype="float32", **options)
    for t in (compact, decoded):
        t.reset_tables()
    return compact, decoded


@pytest.mark.parametrize("n", [3, 4, 5])
def test_decoded_compact_is_the_float_observation_bit_for_bit(n):
    """Both dtypes come from one kernel body; the decode must give the very same float32 values,
    chips included, for every seat's view, across whole sessions with auto-reset."""
    B = 48
    compact, decoded = twin_tables(B, n, seed=40 + n, hands_per_episode=3, starting_chips=1000)
    policy = np.array([seed_state(b) for b in range(B)], np.uint64)
    actions = np.zeros(B, np.int64)
    finished = 0
    chips_seen = set()
    for _ in range(400):
        compact.sample_legal(policy.copy(), actions)
        decoded.sample_legal(policy, actions)
        c, d = compact.step(actions), decoded.step(actions)
        finished += int(c[1].sum())
        assert c[4].dtype == np.uint8 and c[4].shape == (B, COMPACT_SIZE)
        np.testing.assert_array_equal(decode_compact(c[4]).view(np.uint32), d[4].view(np.uint32))
        seat = np.random.default_rng(finished).integers(0, n, B)
        np.testing.assert_array_equal(decode_compact(compact.observe(seat)).view(np.uint32),
                                      decoded.observe(seat).view(np.uint32))
        chips_seen.update(compact_chips(c[4]).ravel().tolist())
    assert finished > 20
    assert min(chips_seen) < -255 or max(chips_seen) > 255 or len(chips_seen) > 20  # chips really varied


def test_chips_beyond_a_byte_and_negative_are_exact():
    """Chip features keep whole int32 chips: a sign, and values no byte or float16 could hold."""
    compact, decoded = twin_tables(2, 4, seed=3)
    values = [-70_000, 123_456_789, -1, 256]
    for t in (compact, decoded):
        for s, v in enumerate(values):
            t.S[0, s, K.S_CHIPS] = t.S[0, s, K.S_CHIPS_EPISODE] + v
            t.S[0, s, K.S_CHIPS_HAND] = t.S[0, s, K.S_CHIPS] + 5 * s  # this hand's payments: 0, -5, -10, -15
    seats = np.zeros(2, np.int64)
    chips = compact_chips(compact.observe(seats))[0]
    assert chips[:4].tolist() == values and chips[4] == 0  # seat offsets from the observer (seat 0); no 5th seat
    assert chips[5:9].tolist() == [0, -5, -10, -15]
    floats = decoded.observe(seats)[0]
    assert floats[CHIP_SLOTS[:4]].tolist() == [np.float32(v / 100.0) for v in values]
    np.testing.assert_array_equal(decode_compact(compact.observe(seats))[0], floats)
    assert decode_compact(compact.observe(seats), chip_scale=1.0)[0, CHIP_SLOTS[1]] == 123_456_789


def test_every_other_feature_fits_a_byte():
    """Counts (hand sizes, arm lengths, waits, boneyard) never exceed 28: one byte is exact."""
    _, decoded = twin_tables(64, 3, seed=9)  # 3 players: the largest boneyard
    policy = np.array([seed_state(100 + b) for b in range(64)], np.uint64)
    actions = np.zeros(64, np.int64)
    others = np.setdiff1d(np.arange(OBSERVATION_SIZE), CHIP_SLOTS)
    top = 0.0
    for _ in range(200):
        decoded.sample_legal(policy, actions)
        obs = decoded.step(actions)[4]
        assert (obs[:, others] >= 0).all() and (obs[:, others] == np.round(obs[:, others])).all()
        top = max(top, float(obs[:, others].max()))
    assert 7 <= top <= 28


def test_agents_play_the_same_on_compact_and_float_rows():
    compact, decoded = twin_tables(256, 4, seed=17)
    policy = np.array([seed_state(7 * b) for b in range(256)], np.uint64)
    actions = np.zeros(256, np.int64)
    for _ in range(60):
        decoded.sample_legal(policy, actions)
        compact.step(actions)
        decoded.step(actions)
    seats = compact.current_player
    for make in (lambda: TacticsAgent(seed=1), lambda: GreedyAgent(seed=1)):
        on_compact = make().act_batch(compact.observe(seats), compact.MASK)
        on_float = make().act_batch(decoded.observe(seats), decoded.MASK)
        np.testing.assert_array_equal(on_compact, on_float)


def test_bad_input_names_what_is_allowed():
    with pytest.raises(ValueError, match="observation_dtype must be one of 'uint8', 'float32'"):
        check_observation_dtype("int16")
    with pytest.raises(ValueError, match="observation_dtype must be one of"):
        FastTables(2, observation_dtype="float64")
    assert check_observation_dtype(np.float32) == np.float32
    with pytest.raises(ValueError, match=r"uint8 arrays \[\.\.\., 1084\]"):
        decode_compact(np.zeros((2, OBSERVATION_SIZE), np.float32))
    with pytest.raises(ValueError, match=r"uint8 arrays \[\.\.\., 1084\]"):
        decode_compact(np.zeros((2, 1041), np.uint8))
    with pytest.raises(ValueError, match=r"out must be a float32 array of shape \(2, 1041\)"):
        decode_compact(np.zeros((2, COMPACT_SIZE), np.uint8), out=np.zeros((2, 1084), np.float32))
    tables = FastTables(2, 4, seed=1)
    tables.reset_tables()
    before = {name: getattr(tables, name).copy() for name in ("T", "S", "R")}
    with pytest.raises(ValueError, match=r"writable C-contiguous uint8 array of shape \(2, 1084\)"):
        tables.observe(np.zeros(2, np.int64), np.zeros((2, OBSERVATION_SIZE), np.float32))
    for name, array in before.items():
        np.testing.assert_array_equal(getattr(tables, name), array)
