"""Fours (docs/rules/fours.md, FO1..FO6, and the family page F1..F24).

Every expected score, seat to move and legal-action list below was derived by hand from the
pages, never from the engine. Seats: A=0, B=1, C=2, D=3.
"""

from __future__ import annotations

import pytest

from family_helpers import assert_legal, on_table, position, step, tiles_with, void_tiles, assert_won, engine  # noqa: F401 (engine: fixture)

pytestmark = pytest.mark.usefixtures("engine")

# Worked examples 1 and 2 (A's and B's hands as in the page), played on to A going out.
HANDS = [["6-6", "2-6", "2-5", "0-1", "3-3"],
         ["0-0", "1-1", "1-2", "0-2", "4-4"],
         ["3-4", "0-5", "1-5", "2-2", "5-5"],
         ["1-6", "0-4", "2-4", "4-6", "5-6"]]
TOP = ["1-3", "4-5"]


def test_worked_examples_1_2_3_several_tiles_per_turn():
    """fours.md Worked examples 1 (A sets and goes on while a tile fits, FO2/FO3), 2 (B draws
    until a tile fits, plays it and goes on, then draws no more, FO4), 3 (a player who places
    all his tiles in one turn goes out and wins at once; FO5: the others' counts). FO6: a turn
    ends with no action once nothing fits."""
    g = position("fours", HANDS, TOP, setter=0, target_score=None)
    step(g, 0, "set 6-6", legal=["set 6-6", "set 2-6", "set 2-5", "set 0-1", "set 3-3"])
    step(g, 0, "play 2-6 on L0", legal=["play 2-6 on L0", "play 2-6 on L1"])  # no PASS (FO3)
    step(g, 0, "play 2-5 on L0", legal=["play 2-5 on L0"])  # ends 2 and 6
    # ends 5 and 6: [0-1] and [3-3] fit neither: A's turn ends by itself, B is next
    step(g, 1, "draw", legal=["draw"])
    step(g, 1, "draw", legal=["draw"])                    # [1-3] did not fit
    step(g, 1, "play 4-5 on L0", legal=["play 4-5 on L0"])  # [4-5] on the 5: ends 4 and 6
    step(g, 1, "play 4-4 on L0", legal=["play 4-4 on L0"])  # he must go on with [4-4]
    # ends 4 and 6; B's [0-0], [1-1], [1-2], [0-2], [1-3] fit neither: no draw, C is next
    step(g, 2, "play 3-4 on L0", legal=["play 3-4 on L0"])  # ends 3 and 6; C's turn ends
    step(g, 3, "play 1-6 on L1", legal=["play 1-6 on L1", "play 4-6 on L1", "play 5-6 on L1"])
    # ends 3 and 1; D's [0-4], [2-4], [4-6], [5-6] fit neither
    step(g, 0, "play 3-3 on L0", [0, 0, 0, 0], legal=["play 3-3 on L0", "play 0-1 on L1"])
    # Example 3: A places his last tile in the same turn and wins: B holds [0-0], [1-1], [1-2],
    # [0-2], [1-3] = 0 + 2 + 3 + 2 + 4 = 11; C [0-5], [1-5], [2-2], [5-5] = 5 + 6 + 4 + 10 = 25;
    # D [0-4], [2-4], [4-6], [5-6] = 4 + 6 + 10 + 11 = 31: 11 + 25 + 31 = 67
    step(g, 0, "play 0-1 on L1", [67, 0, 0, 0], legal=["play 0-1 on L1"])
    assert g.done and g.scores == [67, 0, 0, 0]


def test_worked_example4_multi_play_may():
    """fours.md Worked example 4 (FO3 multi_play="may"): A may end his turn (PASS) after [6-6]
    or after [6-2]."""
    g = position("fours", HANDS, TOP, setter=0, multi_play="may", target_score=None)
    step(g, 0, "set 6-6")
    step(g, 0, "play 2-6 on L0", legal=["play 2-6 on L0", "play 2-6 on L1", "pass"])
    step(g, 0, "pass", legal=["play 2-5 on L0", "pass"])
    assert g.to_move == 1


def test_fo3_turn_end_is_public_evidence():
    """FO3 / F24 / the contract's seat_void rule: B's stuck draws set void = F (the tiles with
    5 or 6, the ends then); the end of his turn, nothing fitting 4 and 6, adds the tiles with 4
    or 6. A's first turn ended with ends 5 and 6. Tiles on the table are left out of the check."""
    g = position("fours", HANDS, TOP, setter=0, target_score=None)
    for text in ("set 6-6", "play 2-6 on L0", "play 2-5 on L0"):
        step(g, 0, text)
    table = on_table(g)
    assert void_tiles(g, 1, 0) - table == tiles_with({5, 6}) - table
    step(g, 1, "draw")
    assert void_tiles(g, 0, 1) - table == tiles_with({5, 6}) - table
    for text in ("draw", "play 4-5 on L0", "play 4-4 on L0"):
        step(g, 1, text)
    table = on_table(g)
    assert void_tiles(g, 2, 1) - table == tiles_with({4, 5, 6}) - table
    assert void_tiles(g, 1, 1) - table == tiles_with({4, 5, 6}) - table


def test_fo3_may_pass_is_not_evidence():
    """FO3 ("Under "may" it tells them nothing"): A's PASS after [6-6] and [2-6], holding the
    fitting [2-5], leaves his void empty."""
    g = position("fours", HANDS, TOP, setter=0, multi_play="may", target_score=None)
    step(g, 0, "set 6-6")
    step(g, 0, "play 2-6 on L0")
    step(g, 0, "pass")
    assert void_tiles(g, 1, 0) == set()


def test_fo4_empty_boneyard_pass_and_fo3_continuing():
    """FO3/FO4/F10 with every tile dealt (empty boneyard): A sets [6-6] and, holding no other
    6, his turn ends; B has no 6 and cannot draw: PASS only; C places [0-6] and must go on
    with a 6 on L1 (L0 now shows 0, which none of his tiles has)."""
    g = position("fours", [["6-6", "0-0", "0-1", "0-2", "1-1", "1-2", "2-2"],
                           ["0-3", "0-4", "0-5", "1-3", "1-4", "1-5", "2-3"],
                           ["0-6", "1-6", "2-6", "3-6", "4-6", "5-6", "2-4"],
                           ["2-5", "3-3", "3-4", "3-5", "4-4", "4-5", "5-5"]],
                 setter=0, target_score=None)
    step(g, 0, "set 6-6")
    step(g, 1, "pass", legal=["pass"])
    step(g, 2, "play 0-6 on L0",
         legal=[f"play {t} on L{k}" for t in ("0-6", "1-6", "2-6", "3-6", "4-6", "5-6") for k in (0, 1)])
    assert_legal(g, [f"play {t} on L1" for t in ("1-6", "2-6", "3-6", "4-6", "5-6")])
    assert g.to_move == 2
