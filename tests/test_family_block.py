"""Block (docs/rules/block.md, BL1..BL6, and the family page F1..F24).

Every expected score, seat to move and legal-action list below was derived by hand from the
pages (the arithmetic is in the comments), never from the engine. Seats: A=0, B=1, C=2, D=3.
"""

from __future__ import annotations

import pytest

from family_helpers import assert_legal, position, step, assert_won, engine  # noqa: F401 (engine: fixture)

pytestmark = pytest.mark.usefixtures("engine")


def test_example1_going_out_scores_the_opponents_counts():
    """block.md Examples 1 (F15, F16): A goes out; B holds [2-3],[6-6] (17), C [0-0],[1-4] (5):
    A scores 17 + 5 = 22. Also F4 free opening (SET any tile), F5 clockwise, BL rule 3 (pass)."""
    g = position("block", [["5-5", "5-6"], ["2-3", "6-6"], ["0-0", "1-4"]],
                 opening="free", setter=0, hand_size=2, target_score=None)
    step(g, 0, "set 5-5", [0, 0, 0], legal=["set 5-5", "set 5-6"])
    # ends 5 and 5: B has no 5 and Block never draws (BL1): PASS is his only action
    step(g, 1, "pass", [0, 0, 0], legal=["pass"])
    step(g, 2, "pass", [0, 0, 0], legal=["pass"])
    # F6: next to a double set tile, L0 and L1 are two actions
    step(g, 0, "play 5-6 on L1", [22, 0, 0], legal=["play 5-6 on L0", "play 5-6 on L1"])
    assert g.done and g.scores == [22, 0, 0]


def test_example2_blocked_difference_and_total():
    """block.md Examples 2 (F13, F16): blocked with counts A 4, B 9, C 12: A scores
    (9 - 4) + (12 - 4) = 13; with blocked_scoring="total" 9 + 12 = 21."""
    hands = [["6-6", "0-1", "0-3"],  # A after the set: 1 + 3 = 4
             ["0-2", "1-2", "1-3"],  # B: 2 + 3 + 4 = 9
             ["0-0", "1-4", "2-5"]]  # C: 0 + 5 + 7 = 12
    for scoring, award in (("difference", 13), ("total", 21)):
        g = position("block", hands, opening="free", setter=0, hand_size=3,
                     blocked_scoring=scoring, target_score=None)
        # nobody but A held a 6: after [6-6] no tile in any hand fits, the hand ends at once (F13)
        step(g, 0, "set 6-6", [award, 0, 0])
        assert g.done and g.scores == [award, 0, 0]


def test_example3_blocked_tie_nobody_scores():
    """block.md Examples 3 (F15): counts A 6, B 6, C 10: a shared lowest count, no winner."""
    g = position("block", [["6-6", "0-2", "1-3"],   # A: 2 + 4 = 6
                           ["0-0", "0-1", "0-5"],   # B: 0 + 1 + 5 = 6
                           ["1-1", "0-3", "1-4"]],  # C: 2 + 3 + 5 = 10
                 opening="free", setter=0, hand_size=3, target_score=None)
    step(g, 0, "set 6-6", [0, 0, 0])
    assert_won(g, None)
    assert g.scores == [0, 0, 0]


def test_example4_teams_blocked():
    """block.md Examples 4 (F20, BL5): blocked, A 3 + C 8 = 11 against B 5 + D 9 = 14: team A-C
    scores 14 - 11 = 3 (both partners carry it); with "total" 14."""
    hands = [["6-6", "1-2"],  # A: 3
             ["0-1", "0-4"],  # B: 1 + 4 = 5
             ["0-3", "0-5"],  # C: 3 + 5 = 8
             ["1-3", "1-4"]]  # D: 4 + 5 = 9
    for scoring, award in (("difference", 3), ("total", 14)):
        g = position("block", hands, opening="free", setter=0, hand_size=2, teams=True,
                     blocked_scoring=scoring, target_score=None)
        step(g, 0, "set 6-6")
        assert g.done and g.scores == [award, 0, award, 0]


def test_example5_double_counts_one_end():
    """block.md Examples 5 (F14): with double_counts_one_end [6-6] and [2-3] count 6 + 5 = 11
    instead of 17."""
    for one_end, award in ((False, 17), (True, 11)):
        g = position("block", [["4-4", "0-4"], ["6-6", "2-3"]], opening="free", setter=0,
                     hand_size=2, double_counts_one_end=one_end, target_score=None)
        step(g, 0, "set 4-4", [0, 0])
        step(g, 1, "pass", [0, 0], legal=["pass"])
        step(g, 0, "play 0-4 on L0", [award, 0])


def test_example6_forced_pass_and_highest_double_opening():
    """block.md Examples 6 and BL3/F4/F12: the holder of the highest double held ([4-4]: nobody
    holds [5-5] or [6-6]) sets it without being asked; B, with no 4, can only PASS; C has
    [0-4] and [1-4] on either arm (F6: four actions). F5: B then C."""
    g = position("block", [["4-4", "0-0", "1-1", "2-2", "3-3", "0-2"],
                           ["0-1", "2-3", "5-6", "0-6", "1-2", "3-5"],
                           ["0-3", "0-4", "0-5", "1-3", "1-4", "1-5"]])
    step(g, 1, "pass", [0, 0, 0], legal=["pass"])
    assert_legal(g, ["play 0-4 on L0", "play 0-4 on L1", "play 1-4 on L0", "play 1-4 on L1"])
    assert g.to_move == 2


def test_highest_double_picks_the_highest_of_several():
    """F4 / BL3: [5-5] beats [3-3] and [0-0]; its holder (seat 1) sets, seat 2 moves next."""
    g = position("block", [["3-3", "0-1"], ["5-5", "0-2"], ["0-0", "5-6"]], hand_size=2)
    assert g.to_move == 2
    assert_legal(g, ["play 5-6 on L0", "play 5-6 on L1"])


def test_highest_tile_opening_ranks_singles_by_pips_then_higher_end():
    """F4 highest_tile and F2: no double held; [3-6] (9 pips, higher end 6) outranks [4-5]
    (9 pips, higher end 5), so seat 1 sets [3-6]. L0 is the side of 3, L1 of 6 (the line)."""
    g = position("block", [["4-5", "0-3", "2-6"], ["3-6", "0-1", "1-2"]], hand_size=3,
                 opening="highest_tile")
    assert g.to_move == 0
    assert_legal(g, ["play 0-3 on L0", "play 2-6 on L1"])


def test_bl4_one_point_per_hand():
    """BL4: hand_scoring="one_point": the winner scores 1 (its target defaults to None: one hand)."""
    g = position("block", [["5-5", "5-6"], ["2-3", "6-6"], ["0-0", "1-4"]],
                 opening="free", setter=0, hand_size=2, hand_scoring="one_point")
    step(g, 0, "set 5-5")
    step(g, 1, "pass")
    step(g, 2, "pass")
    step(g, 0, "play 5-6 on L0", [1, 0, 0])
    assert g.done and g.scores == [1, 0, 0]


def test_bl6_stock_to_winner_adds_the_sleeping_tiles():
    """BL6 / F17: the set's 168 pips (each number 0..6 on 8 halves: 8 * 21) minus the dealt
    21 + 17 + 5 = 43 leave 125 sleeping; A scores 22 + 125 = 147."""
    g = position("block", [["5-5", "5-6"], ["2-3", "6-6"], ["0-0", "1-4"]],
                 opening="free", setter=0, hand_size=2, stock_to_winner=True, target_score=None)
    step(g, 0, "set 5-5")
    step(g, 1, "pass")
    step(g, 2, "pass")
    step(g, 0, "play 5-6 on L0", [147, 0, 0])


def test_f18_match_ends_when_the_target_is_reached():
    """F18: A has 90; his 22 make 112 >= 100: the match ends, A wins."""
    g = position("block", [["5-5", "5-6"], ["2-3", "6-6"], ["0-0", "1-4"]],
                 opening="free", setter=0, hand_size=2, scores=[90, 0, 0])
    step(g, 0, "set 5-5")
    step(g, 1, "pass")
    step(g, 2, "pass")
    step(g, 0, "play 5-6 on L0", [22, 0, 0])
    assert_won(g, 0)
    assert g.scores == [112, 0, 0]


def test_f18_match_goes_on_below_the_target():
    """F18 / F19: 22 < 100: the match goes on with a second hand (free opening: A, the winner,
    sets it, so every legal action is a SET)."""
    g = position("block", [["5-5", "5-6"], ["2-3", "6-6"], ["0-0", "1-4"]],
                 opening="free", setter=0, hand_size=2)
    step(g, 0, "set 5-5")
    step(g, 1, "pass")
    step(g, 2, "pass")
    step(g, 0, "play 5-6 on L0", [22, 0, 0])
    assert not g.done and g.scores == [22, 0, 0] and g.hand_number == 1
    assert g.to_move == 0
    n_plays = 28 * g.rules.num_arms
    assert g.legal_actions() and all(n_plays <= a < n_plays + 28 for a in g.legal_actions())


def test_block_never_offers_draw():
    """BL1 rule 3: Block has no DRAW even with sleeping tiles left (the stuck player passes)."""
    g = position("block", [["6-6", "0-6"], ["1-2", "2-3"]], hand_size=2, target_score=None)
    # [6-6] forced (F12); seat 1 has no 6; 24 tiles sleep
    step(g, 1, "pass", legal=["pass"])
    step(g, 0, "play 0-6 on L0", legal=["play 0-6 on L0", "play 0-6 on L1"])


def test_f14_one_end_count_decides_the_blocked_winner():
    """F14 with F15/F16: A holds [6-6], B [3-4]; [0-0] set blocks the hand. Counting all pips,
    B (7) beats A (12) and scores 12 - 7 = 5; with double_counts_one_end A's [6-6] counts 6,
    A beats B's 7 and scores 7 - 6 = 1."""
    for one_end, points in ((False, [0, 5]), (True, [1, 0])):
        g = position("block", [["0-0", "6-6"], ["3-4"]], opening="free", setter=0,
                     double_counts_one_end=one_end, target_score=None)
        step(g, 0, "set 0-0", points)


def test_f20_team_target():
    """F20 / F18: team scores are compared with the target per team: team A-C at 95 scores
    Examples 4's 14 ("total") and reaches 109: the match is over, both partners carry it."""
    g = position("block", [["6-6", "1-2"], ["0-1", "0-4"], ["0-3", "0-5"], ["1-3", "1-4"]],
                 opening="free", setter=0, hand_size=2, teams=True, blocked_scoring="total",
                 scores=[95, 0, 95, 0])
    step(g, 0, "set 6-6")
    assert g.done and g.scores == [109, 0, 109, 0]
