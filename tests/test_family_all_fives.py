"""All Fives (docs/rules/all_fives.md, AF1..AF10, and the family page F1..F24).

Every expected score, seat to move and legal-action list below was derived by hand from the
pages (the end count E is written out at each play), never from the engine. E counts an end
by its open number, a double lying across an end with nothing beyond by both halves (AF4).
Seats: A=0, B=1, C=2, D=3.
"""

from __future__ import annotations

import pytest

from family_helpers import assert_legal, position, step, assert_won, engine  # noqa: F401 (engine: fixture)

pytestmark = pytest.mark.usefixtures("engine")

# Worked examples 1-3 in one line (three players, free opening so that A sets [2-6]).
LINE_HANDS = [["2-6", "1-3", "3-4", "0-0", "0-3"],
              ["1-6", "3-3", "6-6", "0-1", "0-5"],
              ["2-4", "3-6", "0-2", "0-4", "1-1"]]


def test_worked_examples_1_to_3():
    """all_fives.md Worked examples 1 ("4 + 1 = 5"), 2 ("3+3+4=10") and 3 ("3 + 6 + 6 = 15");
    AF3: the opening counts too (here 8, no score)."""
    g = position("all_fives", LINE_HANDS, opening="free", setter=0, target_score=None)
    step(g, 0, "set 2-6", [0, 0, 0])          # E = 2 + 6 = 8
    step(g, 1, "play 1-6 on L1", [0, 0, 0])   # L1 shows 1 (a [6-1]): E = 2 + 1 = 3
    step(g, 2, "play 2-4 on L0", [0, 0, 5])   # Example 1: E = 4 + 1 = 5
    step(g, 0, "play 1-3 on L1", [0, 0, 0])   # E = 4 + 3 = 7
    step(g, 1, "play 3-3 on L1", [0, 10, 0])  # Example 2: [3-3] across: E = 3 + 3 + 4 = 10
    step(g, 2, "play 3-6 on L1", [0, 0, 10])  # the double is covered: E = 4 + 6 = 10
    step(g, 0, "play 3-4 on L0", [0, 0, 0])   # E = 3 + 6 = 9
    step(g, 1, "play 6-6 on L1", [0, 15, 0])  # Example 3: ends 3 and 6, [6-6]: 3 + 6 + 6 = 15
    assert g.scores == [0, 25, 15]


def test_worked_examples_4_and_5_set_double():
    """all_fives.md Worked examples 4 ([5-5] across and 0; [0-0] on the 0: 5+5+0+0 = 10) and 5
    ([5-5] alone counts 10, the setter scores it, AF3); AF4: a set double with one free side
    still counts 2d, with both sides covered it counts nothing."""
    g = position("all_fives", [["5-5", "5-6", "1-1"], ["0-5", "1-2", "1-3"], ["0-0", "2-3", "1-4"]],
                 opening="free", setter=0, target_score=None)
    step(g, 0, "set 5-5", [10, 0, 0])          # E = 10
    step(g, 1, "play 0-5 on L0", [0, 10, 0])   # E = 0 + (free side of [5-5]) 10 = 10
    step(g, 2, "play 0-0 on L0", [0, 0, 10])   # Example 4: E = 0 + 0 + 5 + 5 = 10
    step(g, 0, "play 5-6 on L1", [0, 0, 0])    # [5-5] covered both sides: E = 0 + 0 + 6 = 6
    assert g.scores == [10, 10, 10]


def test_worked_example5_covered_double_stops_counting():
    """all_fives.md Worked example 5 ([3-5], [5-5], [5-1] counts 3 + 1: the covered [5-5] no
    longer counts) with numbers where a wrong count would score: a double lying across an
    end counts both halves (2d), and nothing once a tile lies beyond it."""
    g = position("all_fives", [["0-5", "0-2", "1-1"], ["5-5", "1-2", "1-3"], ["3-5", "2-6", "1-4"]],
                 opening="free", setter=0, target_score=None)
    step(g, 0, "set 0-5", [5, 0, 0])           # AF3: a set [0-5] counts 0 + 5 = 5
    step(g, 1, "play 5-5 on L1", [0, 10, 0])   # E = 0 + 5 + 5 = 10 (once 5 it would be 5)
    step(g, 2, "play 3-5 on L1", [0, 0, 0])    # E = 0 + 3 = 3 (13 if [5-5] still counted)
    step(g, 0, "play 0-2 on L0", [5, 0, 0])    # E = 2 + 3 = 5 (15 if [5-5] still counted)


def test_af3_forced_set_double_scores():
    """AF2/AF3 and F12: the holder of the highest double, [5-5] (nobody holds [6-6]), sets it
    without being asked and scores 10 at once; play goes on with his left neighbour."""
    g = position("all_fives", [["1-2", "1-3"], ["5-5", "0-1"], ["2-3", "3-3"]], target_score=None)
    assert g.scores == [0, 10, 0] and g.to_move == 2


# AF7 rounding: the winner goes out against counts 2, 2 and 1.
OUT_HANDS = [["6-6", "3-5"], ["5-6", "0-2"], ["4-6", "1-1"], ["4-5", "0-1"]]


def _out_hand(**options):
    g = position("all_fives", OUT_HANDS, opening="free", setter=0, target_score=None, **options)
    step(g, 0, "set 6-6", [0, 0, 0, 0])           # E = 12
    step(g, 1, "play 5-6 on L0", [0, 0, 0, 0])    # E = 5 + 12 (free side of [6-6]) = 17
    step(g, 2, "play 4-6 on L1", [0, 0, 0, 0])    # E = 5 + 4 = 9
    step(g, 3, "play 4-5 on L1", [0, 0, 0, 10])   # E = 5 + 5 = 10
    return g


def test_af7_per_opponent_rounding():
    """AF7/AF8 (default per_opponent): A goes out ([3-5] on L0: E = 3 + 5 = 8, no score);
    the others count 2 ([0-2]), 2 ([1-1]), 1 ([0-1]): round5(2) + round5(2) + round5(1) = 0."""
    g = _out_hand()
    step(g, 0, "play 3-5 on L0", [0, 0, 0, 0])
    assert g.done and g.scores == [0, 0, 0, 10]


def test_af7_total_rounding():
    """AF7 award_rounding="total": round5(2 + 2 + 1) = round5(5) = 5."""
    g = _out_hand(award_rounding="total")
    step(g, 0, "play 3-5 on L0", [5, 0, 0, 0])


# A blocked two-player hand: all seven 0-tiles go down, both ends show 0.
BLOCKED_HANDS = [["0-0", "1-2", "0-3", "0-4", "5-6",
                  "1-1", "1-3", "1-4", "1-5", "1-6", "2-2", "2-3", "2-4", "2-5"],
                 ["0-1", "0-2", "3-4", "0-5", "0-6",
                  "2-6", "3-3", "3-5", "3-6", "4-4", "4-5", "4-6", "5-5", "6-6"]]
BLOCKED_PLAYS = [(0, "set 0-0"), (1, "play 0-1 on L0"), (0, "play 1-2 on L0"),
                 (1, "play 0-2 on L0"), (0, "play 0-3 on L0"), (1, "play 3-4 on L0"),
                 (0, "play 0-4 on L0"), (1, "play 0-5 on L1"), (0, "play 5-6 on L1"),
                 (1, "play 0-6 on L1")]


def test_blocked_hand_difference_rounded():
    """F13, F15, AF7/AF8 in a blocked hand. E after each play: 0, 1, 2, 0, 3, 4, 0, then [0-5]
    on L1 makes 0 + 5 = 5 (B scores 5), 6, 0. Blocked: A holds 2+4+5+6+7+4+5+6+7 = 46, B holds
    8+6+8+9+8+9+10+10+12 = 80; A wins round5(80 - 46) = round5(34) = 35."""
    g = position("all_fives", BLOCKED_HANDS, opening="free", setter=0, target_score=None)
    expected = [[0, 0]] * 7 + [[0, 5], [0, 0], [35, 0]]
    for (seat, text), points in zip(BLOCKED_PLAYS, expected):
        step(g, seat, text, points)
    assert g.done and g.scores == [35, 5]


def test_af10_match_ends_mid_hand():
    """AF10 / F18: C has 95; his 5 for Worked example 1 make 100: the match ends at once."""
    g = position("all_fives", LINE_HANDS, opening="free", setter=0, scores=[0, 0, 95])
    step(g, 0, "set 2-6")
    step(g, 1, "play 1-6 on L1")
    step(g, 2, "play 2-4 on L0", [0, 0, 5])
    assert_won(g, 2)
    assert g.scores == [0, 0, 100]
    assert g.legal_actions() == []


def test_af5_reserve_two_stops_the_drawing():
    """AF5 / F9 / F11: with boneyard_reserve=2 a stuck player draws only while more than two
    tiles are left. A sets [6-6] (forced); B holds [0-0], [1-1], no 6; the boneyard is [0-1],
    [1-2], [0-2] on top of [0-3], [2-6]: B draws the three, none fits 6, and must pass with
    the fitting [2-6] among the two reserve tiles."""
    kept = ("6-6", "0-0", "1-1", "0-1", "1-2", "0-2", "0-3", "2-6")
    rest = [t for t in (f"{a}-{b}" for a in range(7) for b in range(a, 7)) if t not in kept]
    # boneyard: the three given tiles, then the two left over in index order: [0-3], [2-6]
    g = position("all_fives", [["6-6"] + rest, ["0-0", "1-1"]], ["0-1", "1-2", "0-2"],
                 boneyard_reserve=2, target_score=None)
    for _ in range(3):
        step(g, 1, "draw", legal=["draw"])
    step(g, 1, "pass", legal=["pass"])


def test_af3_highest_tile_set_single_scores():
    """AF3 under opening="highest_tile": nobody holds a double; [4-6] (10 pips) is the highest
    single (F2) and is set by the engine (F12): 4 + 6 = 10 scores 10."""
    g = position("all_fives", [["4-6", "0-1"], ["3-6", "1-2"]], opening="highest_tile",
                 target_score=None)
    assert g.scores == [10, 0] and g.to_move == 1
