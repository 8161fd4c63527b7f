"""The per-tile tables and tile-set helpers of nos_env/tiles.py, which every agent reads (one place)."""

from __future__ import annotations

import numpy as np
import pytest

from nos_env import tiles as T
from nos_env.tiles import ALL_TILES, TILE_INDEX


def test_per_tile_tables():
    assert T.TILE_COUNT[TILE_INDEX[(0, 0)]] == 14 and T.TILE_PIPS[TILE_INDEX[(0, 0)]] == 0  # section 1
    assert T.TILE_COUNT[TILE_INDEX[(2, 6)]] == T.TILE_PIPS[TILE_INDEX[(2, 6)]] == 8
    assert (T.TILE_LOW[TILE_INDEX[(2, 6)]], T.TILE_HIGH[TILE_INDEX[(2, 6)]]) == (2, 6)
    assert T.TILE_DOUBLE_VALUE.tolist() == [7 if t == (0, 0) else t[0] if t[0] == t[1] else 0 for t in ALL_TILES]
    assert T.TILE_IS_DOUBLE.sum() == 7 and T.TILE_IS_MATADOR.sum() == 4
    assert T.DOUBLE_INDEX.tolist() == [0, 7, 13, 18, 22, 25, 27]
    assert T.TILE_BIT[27] == 1 << 27 and T.ALL_TILES_MASK == 2**28 - 1


def test_tile_set_masks():
    assert T.tiles_mask([(0, 0), (0, 1), (0, 1)]) == 0b11  # a set: a tile counts once
    assert T.DOUBLES_MASK == sum(1 << i for i in (0, 7, 13, 18, 22, 25, 27))
    assert T.MATADORS_MASK == (1 << 0) | (1 << 12) | (1 << 16) | (1 << 19)  # 0-0, 1-6, 2-5, 3-4
    assert T.TRIANGLE_MATADORS_MASK == T.MATADORS_MASK & ~1


@pytest.mark.parametrize("ufunc", [True, False], ids=["bitwise_count", "swar"])
def test_popcount_on_both_paths(monkeypatch, ufunc):
    if not ufunc:
        monkeypatch.delattr(np, "bitwise_count", raising=False)  # the numpy 1.26 path
    values = np.random.default_rng(3).integers(0, 2**62, 2000)
    expected = [bin(int(v)).count("1") for v in values]
    got = T.popcount(values)
    assert got.dtype == np.int64 and got.tolist() == expected
    assert T.popcount(0) == 0 and T.popcount(T.ALL_TILES_MASK) == 28 and T.popcount([[5, 7]]).tolist() == [[2, 3]]


def test_tactics_matching_tables_follow_the_layout_rule():
    """agents/tactics.py builds FIT and COMP from nos_env.layout; spot checks stated from section 3/4."""
    from agents.tactics import COMP, FIT

    def with_number(e):
        return T.tiles_mask(t for t in ALL_TILES if e in t)

    for e in range(7):
        assert FIT[0, e] == with_number(e)  # ordinary: a tile showing the open number
        # matador: numbers adding up to 7 (none for an open 0), or any matador
        assert FIT[1, e] == T.MATADORS_MASK | (with_number(7 - e) if e else 0)
        assert COMP[0, e] == 1 << TILE_INDEX[(e, e)]  # ordinary double cross: the double of the open number
        assert COMP[1, e] == T.MATADORS_MASK | (1 << TILE_INDEX[(7 - e, 7 - e)] if e else 0)


def test_the_play_index_formula_and_its_inverse():
    """nos_env.encoding.play_index/play_parts: the one place the play block's layout is written."""
    from agents import features as F
    from nos_env.encoding import PASS, PLAY0, play_index, play_parts

    assert (PLAY0, PASS) == (108, 556)
    assert play_index(0, 0, 0, 0) == 108 and play_index(0, 0, 0, 1) == 109 and play_index(0, 0, 1, 0) == 110
    assert play_index(0, 1, 0, 0) == 112 and play_index(1, 0, 0, 0) == 124 and play_index(27, 3, 1, 1) == 555
    index = np.arange(PLAY0, PASS)
    parts = play_parts(index)
    assert np.array_equal(play_index(*parts), index)
    assert all(np.array_equal(p, q) for p, q in zip(parts, (F.TILE[index], F.ARM[index], F.SIDE[index],
                                                           F.CLOSE[index])))


def test_mask_from_flags():
    flags = np.zeros((2, 3, 28), np.float32)
    flags[0, 1, [0, 5, 27]] = 1.0
    flags[1, 2, 12] = 1.0
    sets = T.mask_from_flags(flags)
    assert sets.dtype == np.int64 and sets.tolist() == [[0, 1 + 32 + 2**27, 0], [0, 0, 4096]]
    assert T.mask_from_flags(np.eye(28, dtype=np.uint8)[3]) == 8  # one row, any numeric dtype
