"""The kernel library (nos_env/kernels): tile sets, bit helpers and the named state schema."""

import numpy as np
import pytest
from numba import njit

from nos_env.kernels import bits
from nos_env.kernels.tilesets import DOUBLE_NINE, DOUBLE_SIX, DOUBLE_TWELVE, canonical_tiles, tile_set
from nos_env.tiles import ALL_TILES, TILE_INDEX


# ------------------------------------------------------------------ tile sets
def test_tile_counts_and_words():
    assert [s.num_tiles for s in (DOUBLE_SIX, DOUBLE_NINE, DOUBLE_TWELVE)] == [28, 55, 91]
    assert [s.words for s in (DOUBLE_SIX, DOUBLE_NINE, DOUBLE_TWELVE)] == [1, 1, 2]
    assert [s.inline for s in (DOUBLE_SIX, DOUBLE_NINE, DOUBLE_TWELVE)] == [True, False, False]
    assert (DOUBLE_SIX.name, DOUBLE_NINE.name, DOUBLE_TWELVE.name) == ("double-six", "double-nine", "double-twelve")
    assert tile_set(6) is DOUBLE_SIX


def test_double_six_order_is_the_encodings_tile_index():
    # Written out, not computed: every encoding and trained model depends on this order.
    assert DOUBLE_SIX.tiles[:8] == ((0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (0, 6), (1, 1))
    assert DOUBLE_SIX.tiles[-3:] == ((5, 5), (5, 6), (6, 6))
    assert DOUBLE_SIX.tiles == ALL_TILES and DOUBLE_SIX.index == TILE_INDEX
    assert DOUBLE_TWELVE.tiles[12:14] == ((0, 12), (1, 1)) and DOUBLE_TWELVE.tiles[-1] == (12, 12)
    assert DOUBLE_NINE.tiles[:len(canonical_tiles(1))] == ((0, 0), (0, 1), (0, 2))


@pytest.mark.parametrize("tiles", [DOUBLE_SIX, DOUBLE_NINE, DOUBLE_TWELVE], ids=lambda s: s.name)
def test_lookup_tables_match_a_plain_computation(tiles):
    m = tiles.max_pip
    plain = [(a, b) for a in range(m + 1) for b in range(m + 1) if a <= b]
    assert list(tiles.tiles) == plain
    for i, (a, b) in enumerate(plain):
        assert (tiles.LOW[i], tiles.HIGH[i], tiles.PIPS[i], bool(tiles.IS_DOUBLE[i])) == (a, b, a + b, a == b)
        assert tiles.index[(a, b)] == i
    for d in range(m + 1):
        assert plain[tiles.DOUBLE_OF[d]] == (d, d)
    assert bin(tiles.doubles_mask).count("1") == m + 1
    with pytest.raises(ValueError):
        tiles.LOW[0] = 5  # shared constants are read-only


def test_tile_set_refuses_a_bad_size():
    for bad in (0, 16, 6.0, True, "6"):
        with pytest.raises(ValueError, match="max_pip must be an integer 1..15"):
            tile_set(bad)


def test_masks_and_words_round_trip():
    tiles = [(0, 0), (0, 12), (1, 1), (5, 12), (12, 12)]
    mask = DOUBLE_TWELVE.mask(tiles)
    assert mask == (1 << 0) | (1 << 12) | (1 << 13) | (1 << 62) | (1 << 90)
    words = DOUBLE_TWELVE.to_words(mask)
    assert words.dtype == np.uint64 and words.tolist() == [(1 << 0) | (1 << 12) | (1 << 13) | (1 << 62), 1 << 26]
    assert DOUBLE_TWELVE.from_words(words) == mask
    assert DOUBLE_TWELVE.tiles_of(mask) == tiles
    with pytest.raises(ValueError, match="not a set of double-six tiles"):
        DOUBLE_SIX.tiles_of(1 << 28)


# ------------------------------------------------------------------ bit helpers
@njit(cache=False)
def _one_word(x):
    return bits.popcount(x), bits.low_bit(x)


def test_one_word_popcount_and_low_bit():
    for x in (1, 6, (1 << 27) | (1 << 3), (1 << 63) - 1):
        assert _one_word(np.int64(x)) == (bin(x).count("1"), (x & -x).bit_length() - 1)
    assert _one_word(np.uint64(1 << 63)) == (1, 63)  # a full uint64 word counts its top bit
    assert _one_word(np.int32(1 << 30)) == (1, 30)


@njit(cache=False)
def _walk(words):
    out = np.full(words.shape[0] * 64, -1, np.int64)
    k = 0
    t = bits.words_first(words)
    while t >= 0:
        out[k] = t
        k += 1
        t = bits.words_next(words, t)
    return out[:k]


@njit(cache=False)
def _edit(words, add, remove):
    for t in add:
        bits.words_add(words, t)
    for t in remove:
        bits.words_remove(words, t)
    has = np.zeros(91, np.bool_)
    for t in range(91):
        has[t] = bits.words_has(words, t)
    return bits.words_count(words), has


def test_multi_word_helpers_on_a_double_twelve_set():
    words = np.zeros(DOUBLE_TWELVE.words, np.uint64)
    assert _walk(words).tolist() == [] and bits.words_first(words) == -1
    count, has = _edit(words, np.array([0, 63, 64, 90, 5, 77]), np.array([5, 64]))
    assert count == 4
    assert np.flatnonzero(has).tolist() == [0, 63, 77, 90]
    assert DOUBLE_TWELVE.from_words(words) == (1 << 0) | (1 << 63) | (1 << 77) | (1 << 90)
    assert _walk(words).tolist() == [0, 63, 77, 90]
    assert bits.words_next(words, 63) == 77 and bits.words_next(words, 90) == -1
    full = DOUBLE_TWELVE.to_words((1 << 91) - 1)
    assert _walk(full).tolist() == list(range(91))
    assert _edit(full.copy(), np.zeros(0, np.int64), np.zeros(0, np.int64))[0] == 91


# ------------------------------------------------------------------ the state schema
from nos_env.games.nos import state as nos_state  # noqa: E402
from nos_env.kernels.schema import COMMON_SEAT, COMMON_TABLE, Schema, common_constants  # noqa: E402


def test_nos_schema_keeps_todays_arrays():
    arrays = nos_state.SCHEMA.allocate(3)
    assert tuple(arrays) == ("T", "S", "A", "L", "BONE", "R", "MASK", "LEGAL", "H", "PEN")
    want = {"T": ((3, 24), np.int32), "S": ((3, 5, 25), np.int32), "A": ((3, 4, 3), np.int32),
            "L": ((3, 28, 3), np.int8), "BONE": ((3, 28), np.int8), "R": ((3,), np.uint64),
            "MASK": ((3, 557), np.int8), "LEGAL": ((3, 557), np.int16), "H": ((3, 256), np.int16),
            "PEN": ((3, 1), np.int64)}
    assert {k: (a.shape, a.dtype.type) for k, a in arrays.items()} == want
    assert all(not a.any() for a in arrays.values())
    assert nos_state.SCHEMA.allocate(2, penalty=True)["PEN"].shape == (2, 258)
    assert nos_state.SCHEMA.nbytes(3) == sum(a.nbytes for a in arrays.values())
    assert nos_state.SCHEMA.nbytes(3, penalty=True) == sum(a.nbytes for a in arrays.values()) + 3 * 257 * 8


def test_nos_column_constants():
    s = nos_state
    # the common columns first, at the same index in every game
    assert (s.T_PHASE, s.T_TO_MOVE, s.T_DONE, s.T_HANDS_LEFT, s.T_HAND_INDEX, s.T_NLEGAL, s.T_NHIST,
            s.T_BONE_TOP, s.T_BONE_END) == tuple(range(9))
    assert (s.S_CHIPS, s.S_CHIPS_HAND, s.S_CHIPS_EPISODE, s.S_PENDING, s.S_HAND, s.S_DEALT) == tuple(range(6))
    assert (s.T_ON_SET, s.T_CLOSE_WRONG, s.T_PLACED, s.NUM_T) == (9, 22, 23, 24)
    assert (s.S_PASSED_TILES, s.S_DREW_TILES, s.S_DECLARED, s.S_COUNT, s.S_PAY, s.NUM_S) == (6, 7, 8, 15, 16, 25)
    assert (s.A_COUNT, s.A_OPEN, s.A_LAST, s.NUM_A, s.L_PLACER, s.L_ARM, s.L_IMMEDIATE) == (0, 1, 2, 3, 0, 1, 2)
    assert (s.MAX_HISTORY, s.PEN_DIRTY, s.PEN_COLUMNS, s.NT, s.MAX_SEATS) == (256, 257, 258, 28, 5)
    assert all(type(v) is int for v in s.SCHEMA.constants().values())  # numba folds plain ints
    common = common_constants()
    assert all(s.SCHEMA.constants()[k] == v for k, v in common.items())
    assert len(common) == len(COMMON_TABLE) + len(COMMON_SEAT)


def test_a_double_twelve_eight_seat_branching_schema():
    """Mexican Train's size: 91 tiles (two words per set), 8 seats, a train per seat plus the
    public one, tile sets outside the int32 arrays."""
    from nos_env.kernels.tilesets import DOUBLE_TWELVE

    schema = Schema("train", DOUBLE_TWELVE, max_seats=8, num_actions=2000, max_history=400, num_arms=9,
                    table=("ENGINE",), table_sets=("PLAYED",), seat=("TRAIN_OPEN",), seat_sets=("SEEN",),
                    arm=("COUNT", "OPEN", "OWNER"), tile=("ARM",))
    c = schema.constants()
    arrays = schema.allocate(4)
    assert tuple(arrays) == ("T", "S", "TSET", "SSET", "A", "L", "BONE", "R", "MASK", "LEGAL", "H", "PEN")
    assert arrays["T"].shape == (4, 10) and c["T_ENGINE"] == 9
    assert arrays["S"].shape == (4, 8, 5) and c["S_TRAIN_OPEN"] == 4
    assert arrays["TSET"].shape == (4, 1, 2) and arrays["TSET"].dtype == np.uint64 and c["T_PLAYED"] == 0
    assert arrays["SSET"].shape == (4, 8, 3, 2) and (c["S_HAND"], c["S_DEALT"], c["S_SEEN"]) == (0, 1, 2)
    assert arrays["A"].shape == (4, 9, 3) and arrays["L"].shape == (4, 91, 1) and arrays["BONE"].shape == (4, 91)
    assert arrays["MASK"].shape == (4, 2000) and arrays["H"].shape == (4, 400)
    assert schema.allocate(1, penalty=True)["PEN"].shape == (1, 402)
    assert all(c[k] == v for k, v in common_constants().items())
    with pytest.raises(ValueError, match="has no array 'A2'"):
        schema.spec("A2")


@pytest.mark.parametrize("kwargs, message", [
    (dict(max_seats=9), "max_seats must be an integer 2..8"),
    (dict(num_actions=0), "num_actions must be an integer 1..32767"),
    (dict(table=("PHASE",)), "column T_PHASE is declared twice"),
    (dict(seat=("chips",)), "a column name must be upper case"),
    (dict(seat=(("PAY", 0),)), "needs a positive integer width"),
    (dict(num_arms=2), "arm fields need num_arms > 0"),
    (dict(tiles="double-six"), "tiles must be a TileSet"),
])
def test_schema_refuses_bad_declarations(kwargs, message):
    args = dict(tiles=DOUBLE_SIX, max_seats=4, num_actions=10) | kwargs
    with pytest.raises(ValueError, match=message):
        Schema("g", **args)
    with pytest.raises(ValueError, match="num_tables must be a positive integer"):
        Schema("g", DOUBLE_SIX, 4, 10).allocate(0)


# ------------------------------------------------------------------ the shared layer on another game's state
from nos_env.kernels import core  # noqa: E402
from nos_env.rng import SplitMix64, seed_state  # noqa: E402


@njit(cache=False)
def _toy_step(T, S, H, PEN, rewards, terminated, final_chips, b, a, legal, hand_index, seats):
    """A toy game's step through the shared helpers: a legal action wins the mover a chip."""
    core.chips_before(S, rewards, b, seats)
    if legal:
        S[b, T[b, core.T_TO_MOVE], core.S_CHIPS] += 1
        core.record_decision(T, H, PEN, b, a, hand_index)
    else:
        core.count_penalty(T, PEN, b)
    core.pay_rewards(T, S, rewards, terminated, final_chips, b, seats)


def test_the_shared_layer_works_on_a_double_nine_three_seat_state():
    schema = Schema("toy", DOUBLE_NINE, max_seats=3, num_actions=6, max_history=4, table=("ROUND",))
    st = schema.allocate(2, penalty=True)
    T, S, H, PEN = st["T"], st["S"], st["H"], st["PEN"]
    assert PEN.shape == (2, 6) and H.shape == (2, 4) and st["SSET"].shape == (2, 3, 2, 1)
    rewards, terminated, final_chips = np.zeros((2, 3), np.int32), np.zeros(2, np.int8), np.zeros((2, 3), np.int32)
    T[1, core.T_TO_MOVE] = 2
    S[1, 0, core.S_PENDING] = 5  # an opening payment waiting for the table's next step
    _toy_step(T, S, H, PEN, rewards, terminated, final_chips, 1, 4, True, 0, 3)
    assert rewards[1].tolist() == [5, 0, 1] and S[1, :, core.S_PENDING].tolist() == [0, 0, 0]
    assert T[1, core.T_NHIST] == 1 and H[1, 0] == 4
    _toy_step(T, S, H, PEN, rewards, terminated, final_chips, 1, 3, False, 0, 3)  # a penalty after 1 decision
    assert PEN[1].tolist() == [0, 1, 0, 0, 0, 1] and rewards[1].tolist() == [0, 0, 0]
    for a in (1, 2, 3, 5):  # the history keeps 4 decisions, then counts the overflow
        _toy_step(T, S, H, PEN, rewards, terminated, final_chips, 1, a, True, 0, 3)
    assert T[1, core.T_NHIST] == 5 and H[1].tolist() == [4, 1, 2, 3]
    _toy_step(T, S, H, PEN, rewards, terminated, final_chips, 1, 0, False, 0, 3)  # beyond the history: flag only
    assert PEN[1].tolist() == [0, 1, 0, 0, 0, 1]
    T[1, core.T_DONE] = 1
    T[1, core.T_HAND_INDEX] = 1  # a new hand began during the step: no history entry, penalties cleared
    _toy_step(T, S, H, PEN, rewards, terminated, final_chips, 1, 2, True, 0, 3)
    assert PEN[1].tolist() == [0] * 6 and T[1, core.T_NHIST] == 5
    assert terminated.tolist() == [0, 1] and final_chips[1].tolist() == [0, 0, 6]
    assert not T[0].any() and not S[0].any() and not PEN[0].any()  # the other table untouched


def test_sample_legal_reads_the_common_legal_list():
    schema = Schema("toy", DOUBLE_SIX, max_seats=2, num_actions=6)
    st = schema.allocate(3)
    T, LEGAL = st["T"], st["LEGAL"]
    T[0, core.T_NLEGAL], LEGAL[0, :3] = 3, [1, 4, 5]
    T[1, core.T_NLEGAL], LEGAL[1, :1] = 1, [2]
    state = np.array([seed_state(7 + b) for b in range(3)], np.uint64)
    out = np.zeros(3, np.int64)
    core.sample_legal_serial(T, LEGAL, state.copy(), out)
    py = SplitMix64(7)
    assert out.tolist() == [[1, 4, 5][py.below(3)], 2, core.IDLE]  # table 2 has nothing legal: it waits
    again = np.zeros(3, np.int64)
    core.sample_legal(T, LEGAL, state.copy(), again)
    assert again.tolist() == out.tolist()
