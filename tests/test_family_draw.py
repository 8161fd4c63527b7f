"""Draw (docs/rules/draw.md, DR1..DR6, and the family page F1..F24).

Every expected score, seat to move and legal-action list below was derived by hand from the
pages (the arithmetic is in the comments), never from the engine. Seats: A=0, B=1, C=2, D=3.
"""

from __future__ import annotations

import pytest

from family_helpers import assert_legal, position, step, assert_won, engine  # noqa: F401 (engine: fixture)

pytestmark = pytest.mark.usefixtures("engine")

# draw.md Examples 1: the line shows 2 and 5 (A sets [2-5]: L0 2, L1 5); B holds [0-0],
# [1-3], [4-6]; the boneyard's top tiles are [1-1], [3-6], [2-4].
EX1_HANDS = [["2-5", "0-5", "1-4"], ["0-0", "1-3", "4-6"]]
EX1_TOP = ["1-1", "3-6", "2-4"]


def test_example1_draw_until_playable_then_must_play():
    """draw.md Examples 1 (F9 until_playable, DR3): B draws [1-1], [3-6] (DRAW is his only
    action each time: nothing fits 2 or 5), then [2-4], which fits L0's 2 only; he must play it
    (no DRAW, no PASS). Examples 3 (F8): A then holds fitting tiles and has no DRAW."""
    g = position("draw", EX1_HANDS, EX1_TOP, opening="free", setter=0, hand_size=3,
                 target_score=None)
    step(g, 0, "set 2-5", [0, 0])
    step(g, 1, "draw", [0, 0], legal=["draw"])
    step(g, 1, "draw", [0, 0], legal=["draw"])  # [1-1] did not fit: B goes on (a draw is not a turn)
    step(g, 1, "draw", [0, 0], legal=["draw"])  # nor [3-6]
    step(g, 1, "play 2-4 on L0", [0, 0], legal=["play 2-4 on L0"])
    # ends L0 4, L1 5: A's [1-4] fits L0, [0-5] fits L1; 19 tiles left in the boneyard, no DRAW
    assert_legal(g, ["play 1-4 on L0", "play 0-5 on L1"])
    assert g.to_move == 0


def test_example1_draw_rule_one():
    """draw.md Examples 1, DR3 / F9 "one": B draws [1-1] only, which does not fit: he passes."""
    g = position("draw", EX1_HANDS, EX1_TOP, opening="free", setter=0, hand_size=3,
                 draw_rule="one", target_score=None)
    step(g, 0, "set 2-5")
    step(g, 1, "draw", legal=["draw"])
    step(g, 1, "pass", legal=["pass"])  # F10: drawn this turn under "one", nothing fits
    assert g.to_move == 0


# Four players, six tiles each, four in the boneyard and none of them a 6.
EMPTY_HANDS = [["6-6", "5-6", "4-6", "0-0", "0-1", "0-2"],
               ["0-3", "0-4", "0-5", "1-1", "1-2", "1-3"],
               ["0-6", "1-6", "1-4", "1-5", "2-2", "2-3"],
               ["2-6", "3-6", "2-4", "2-5", "3-3", "3-4"]]
EMPTY_TOP = ["3-5", "4-4", "4-5", "5-5"]


def test_example2_boneyard_drawn_empty_then_pass():
    """draw.md Examples 2 and DR4 (reserve 0): A sets [6-6] (forced, F4/F12); B has no 6 and
    draws all four tiles (none a 6), then PASS is his only action; C plays next (F5)."""
    g = position("draw", EMPTY_HANDS, EMPTY_TOP, hand_size=6, target_score=None)
    for _ in range(4):
        step(g, 1, "draw", [0, 0, 0, 0], legal=["draw"])
    step(g, 1, "pass", [0, 0, 0, 0], legal=["pass"])
    assert_legal(g, ["play 0-6 on L0", "play 0-6 on L1", "play 1-6 on L0", "play 1-6 on L1"])
    assert g.to_move == 2


def test_f11_reserve_stops_drawing():
    """F11 / DR4: with boneyard_reserve=3 only the top tile of the four is drawable: B draws
    [3-5] and must then pass."""
    g = position("draw", EMPTY_HANDS, EMPTY_TOP, hand_size=6, boneyard_reserve=3, target_score=None)
    step(g, 1, "draw", legal=["draw"])
    step(g, 1, "pass", legal=["pass"])
    assert g.to_move == 2


# Three players, three tiles each; only A holds a 6.
BLOCKED_HANDS = [["6-6", "0-1", "0-3"],  # A after the set: 1 + 3 = 4
                 ["0-2", "1-2", "1-3"],  # B: 2 + 3 + 4 = 9
                 ["0-0", "1-4", "2-5"]]  # C: 0 + 5 + 7 = 12


def test_f13_blocked_when_nothing_is_drawable():
    """F13 with F11: the 19 tiles left are all reserve (boneyard_reserve=19): after [6-6]
    nobody can play or draw, the hand is blocked at once; A scores (9-4) + (12-4) = 13 (F16)."""
    g = position("draw", BLOCKED_HANDS, opening="free", setter=0, hand_size=3,
                 boneyard_reserve=19, target_score=None)
    step(g, 0, "set 6-6", [13, 0, 0])
    assert g.done and g.scores == [13, 0, 0]


def test_f13_blocked_by_the_forced_set():
    """F12 + F13: the same hand under the default opening: the engine places [6-6] itself and
    the hand is over at once with A's 13 points."""
    g = position("draw", BLOCKED_HANDS, hand_size=3, boneyard_reserve=19, target_score=None)
    assert g.done and g.scores == [13, 0, 0]


def test_f17_stock_to_winner_counts_the_reserve():
    """draw.md "For implementers" / F17: with stock_to_winner the boneyard's pips, reserve
    included, go to the winner: 168 - (16 + 9 + 12) = 131 pips, A scores 13 + 131 = 144."""
    g = position("draw", BLOCKED_HANDS, opening="free", setter=0, hand_size=3,
                 boneyard_reserve=19, stock_to_winner=True, target_score=None)
    step(g, 0, "set 6-6", [144, 0, 0])


def test_blocked_total_scoring():
    """F16 "total": the blocked winner scores 9 + 12 = 21."""
    g = position("draw", BLOCKED_HANDS, opening="free", setter=0, hand_size=3,
                 boneyard_reserve=19, blocked_scoring="total", target_score=None)
    step(g, 0, "set 6-6", [21, 0, 0])


def test_f9_draw_rule_one_drawn_tile_that_fits_must_be_played():
    """F9 "one": B draws [2-4], which fits L0's 2: he must play it (no PASS)."""
    g = position("draw", EX1_HANDS, ["2-4"], opening="free", setter=0, hand_size=3,
                 draw_rule="one", target_score=None)
    step(g, 0, "set 2-5")
    step(g, 1, "draw", legal=["draw"])
    step(g, 1, "play 2-4 on L0", legal=["play 2-4 on L0"])
