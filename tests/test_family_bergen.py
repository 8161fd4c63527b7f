"""Bergen (docs/rules/bergen.md, BE1..BE8, and the family page F1..F24).

Every expected score, seat to move and legal-action list below was derived by hand from the
pages, never from the engine. x0, x1 are the numbers the two ends show; a double lying across
an end with nothing beyond shows its number twice (BE3). Seats: A=0, B=1, C=2, D=3.
"""

from __future__ import annotations

import pytest

from family_helpers import assert_legal, on_table, position, step, tiles_with, void_tiles, assert_won, engine  # noqa: F401 (engine: fixture)

pytestmark = pytest.mark.usefixtures("engine")

# Four players, six tiles each; A holds [0-0], the lowest double (BE2).
HEADER_HANDS = [["0-0", "3-3", "4-6", "1-1", "1-2", "1-3"],
                ["0-3", "3-4", "1-4", "1-5", "1-6", "2-2"],
                ["0-5", "4-4", "2-3", "2-4", "2-5", "2-6"],
                ["3-5", "3-6", "5-5", "5-6", "6-6", "0-1"]]


def _headers(scores=None):
    g = position("bergen", HEADER_HANDS, scores=scores, target_score=15 if scores else None)
    return g


def test_worked_examples_1_3_5_double_and_triple_headers():
    """bergen.md Worked examples 1 (the lowest double [0-0] is set by its holder, who scores 2;
    BE2, F12), 3 (ends 3 and 5, [5-3] on the 5 leaves 3: 2; then [3-3] across: 3) and 5 (a
    single that leaves the number of a double lying across the other end: 3)."""
    g = _headers()
    assert g.scores == [2, 0, 0, 0] and g.to_move == 1
    step(g, 1, "play 0-3 on L0", [0, 0, 0, 0])   # ends 3 and 0 (the set's free side): unequal
    step(g, 2, "play 0-5 on L1", [0, 0, 0, 0])   # ends 3 and 5
    step(g, 3, "play 3-5 on L1", [0, 0, 0, 2])   # Example 3: ends 3 and 3: a double header
    # ends 3 and 3: A's [3-3] and [1-3]... only the 3s fit, on either end
    step(g, 0, "play 3-3 on L0", [3, 0, 0, 0],
         legal=["play 3-3 on L0", "play 3-3 on L1", "play 1-3 on L0", "play 1-3 on L1"])
    # Example 3: [3-3] across L0 shows 3 twice, L1 shows 3: a triple header
    step(g, 1, "play 3-4 on L1", [0, 0, 0, 0])   # ends 3 (the double) and 4
    step(g, 2, "play 4-4 on L1", [0, 0, 0, 0])   # ends 3 (double) and 4 (double): unequal
    step(g, 3, "play 3-6 on L0", [0, 0, 0, 0])   # ends 6 and 4 (double)
    step(g, 0, "play 4-6 on L0", [3, 0, 0, 0])   # Example 5: 4 and the [4-4] across: 3
    assert g.scores == [8, 0, 0, 2]


def test_be7_match_ends_at_15():
    """BE7 / F18: D has 13; his double header (2) makes 15: the match ends at once."""
    g = _headers(scores=[0, 0, 0, 13])
    assert g.scores == [2, 0, 0, 13]
    step(g, 1, "play 0-3 on L0")
    step(g, 2, "play 0-5 on L1")
    step(g, 3, "play 3-5 on L1", [0, 0, 0, 2])
    assert_won(g, 3)
    assert g.scores == [2, 0, 0, 15]


# Free opening: A sets [3-4]; the boneyard's top is [2-5] then [1-6].
DRAW_HANDS = [["3-4", "0-0", "0-1", "0-2", "0-3", "0-4"],
              ["3-3", "0-5", "1-1", "1-2", "1-3", "1-4"],
              ["4-6", "1-5", "2-2", "2-3", "2-4", "4-4"],
              ["3-6", "3-5", "4-5", "5-5", "5-6", "6-6"]]
DRAW_TOP = ["2-5", "1-6"]


def test_worked_examples_4_and_2_and_be4_draw_one():
    """bergen.md Worked examples 4 (ends 4 and 3, [3-3] on the 3: 3, 3 and 4, no score) and 2
    (ends 6 and 3, [3-6] on the 3 leaving 6: two 6s, 2); BE2 free opening: a single set scores
    nothing; BE4 / F9 "one": a stuck player draws one tile, passes if it does not fit, and must
    play it if it fits (on either end)."""
    g = position("bergen", DRAW_HANDS, DRAW_TOP, opening="free", setter=0, target_score=None)
    step(g, 0, "set 3-4", [0, 0, 0, 0])           # ends 3 and 4
    step(g, 1, "play 3-3 on L0", [0, 0, 0, 0])    # Example 4: 3, 3 and 4
    step(g, 2, "play 4-6 on L1", [0, 0, 0, 0])    # ends 3 (double) and 6
    step(g, 3, "play 3-6 on L0", [0, 0, 0, 2])    # Example 2: ends 6 and 6
    step(g, 0, "draw", [0, 0, 0, 0], legal=["draw"])  # A has no 6
    step(g, 0, "pass", [0, 0, 0, 0], legal=["pass"])  # [2-5] does not fit: he passes
    step(g, 1, "draw", [0, 0, 0, 0], legal=["draw"])  # B has no 6 either; he draws [1-6]
    step(g, 1, "play 1-6 on L0", [0, 0, 0, 0], legal=["play 1-6 on L0", "play 1-6 on L1"])
    assert g.to_move == 2                        # ends 1 and 6: unequal, no score


def test_worked_example6_out_with_a_double_header():
    """bergen.md Worked example 6 (BE8): C goes out with a play that leaves both ends equal:
    2 for the play, then 1 for going out."""
    g = position("bergen", [["1-2", "0-0"], ["1-3", "5-5"], ["2-3"]], opening="free", setter=0,
                 target_score=None)
    step(g, 0, "set 1-2", [0, 0, 0])              # ends 1 and 2
    step(g, 1, "play 1-3 on L0", [0, 0, 0])       # ends 3 and 2
    step(g, 2, "play 2-3 on L1", [0, 0, 3])       # ends 3 and 3: 2, and out: 1
    assert g.done and g.scores == [0, 0, 3]


def test_be2_lowest_double_of_several():
    """BE2: [1-1] is lower than [3-3] and [6-6]: its holder (seat 2) sets it and scores 2."""
    g = position("bergen", [["3-3", "0-2"], ["6-6", "1-4"], ["1-1", "2-5"]], target_score=None)
    assert g.scores == [0, 0, 2] and g.to_move == 0
    assert_legal(g, ["draw"])                     # A's [3-3], [0-2] have no 1


def test_be2_lowest_tile_without_doubles():
    """BE2 opening="lowest_tile" (F2 reversed): no double held; [1-2] (3 pips, higher end 2)
    is below [0-3] (3 pips, higher end 3): seat 1 sets [1-2], scoring nothing (1 and 2 differ);
    L0 shows 1, L1 shows 2."""
    g = position("bergen", [["0-3", "2-4"], ["1-2", "3-5"]], opening="lowest_tile",
                 target_score=None)
    assert g.scores == [0, 0] and g.to_move == 0
    assert_legal(g, ["play 2-4 on L1"])


# A blocked two-player hand: both sides of [0-0] are covered first, then every 0 goes down.
BLOCK_PLAYS = [(0, "set 0-0", [2, 0]),          # BE2 (free): a set double scores 2
               (1, "play 0-1 on L0", [0, 0]),   # ends 1 and 0 ([0-0]'s free side)
               (0, "play 0-3 on L1", [0, 0]),   # ends 1 and 3
               (1, "play 1-2 on L0", [0, 0]),   # 2, 3
               (0, "play 3-4 on L1", [0, 0]),   # 2, 4
               (1, "play 0-2 on L0", [0, 0]),   # 0, 4
               (0, "play 0-4 on L1", [2, 0]),   # 0, 0: a double header
               (1, "play 0-5 on L0", [0, 0]),   # 5, 0
               (0, "play 5-6 on L0", [0, 0])]   # 6, 0
LAST = (1, "play 0-6 on L0")                    # 0, 0: 2 for B; every 0 is down: blocked
PLACED_A = ["0-0", "0-3", "3-4", "0-4", "5-6"]
PLACED_B = ["0-1", "1-2", "0-2", "0-5", "0-6"]


def _blocked(kept_a, kept_b):
    g = position("bergen", [PLACED_A + kept_a, PLACED_B + kept_b], opening="free", setter=0,
                 target_score=None)
    for seat, text, points in BLOCK_PLAYS:
        step(g, seat, text, points)
    return g


def test_be5_blocked_the_only_double_free_player_wins():
    """BE5 rule 1: A holds no double (count 9+9+10+8+8+7+7+6+6 = 70), B holds all six left
    (count 2+4+6+8+10+12+4+5+5 = 56): A, not the lower count, wins the point."""
    g = _blocked(["3-6", "4-5", "4-6", "2-6", "3-5", "2-5", "1-6", "2-4", "1-5"],
                 ["1-1", "2-2", "3-3", "4-4", "5-5", "6-6", "1-3", "1-4", "2-3"])
    step(g, *LAST, [1, 2])
    assert g.done and g.scores == [5, 2]


def test_be5_blocked_every_player_holds_a_double_lowest_double_wins():
    """BE5 rule 3: both hold doubles; A's [1-1] is the lowest: A wins the point although his
    count (2+9+9+10+8+8+7+7+6 = 66) is above B's (4+6+8+10+12+4+5+5+6 = 60)."""
    g = _blocked(["1-1", "3-6", "4-5", "4-6", "2-6", "3-5", "2-5", "1-6", "2-4"],
                 ["2-2", "3-3", "4-4", "5-5", "6-6", "1-3", "1-4", "2-3", "1-5"])
    step(g, *LAST, [1, 2])
    assert g.done and g.scores == [5, 2]


def test_be4_stuck_draw_and_pass_are_evidence():
    """Contract seat_void with BE4: A's draw (nothing fits 6 and 6) and his pass both say he
    holds no 6 (tiles on the table left out of the check)."""
    g = position("bergen", DRAW_HANDS, DRAW_TOP, opening="free", setter=0, target_score=None)
    for seat, text in ((0, "set 3-4"), (1, "play 3-3 on L0"), (2, "play 4-6 on L1"),
                       (3, "play 3-6 on L0"), (0, "draw")):
        step(g, seat, text)
    table = on_table(g)
    assert void_tiles(g, 2, 0) - table == tiles_with({6}) - table
    step(g, 0, "pass")
    assert void_tiles(g, 2, 0) - table == tiles_with({6}) - table


# A blocked three-player hand with every tile dealt: all 0s and five doubles go down; C keeps
# [1-1] and [1-3] (a double, count 6), A and B keep only singles.
LINE3 = [(0, "set 0-0", [2, 0, 0]),        # the set double alone: 2 (BE2, free opening)
         (1, "play 0-1 on L0", [0, 0, 0]),  # ends 1 and 0 (the set's free side)
         (2, "play 0-5 on L1", [0, 0, 0]),  # 1, 5
         (0, "play 1-2 on L0", [0, 0, 0]),  # 2, 5
         (1, "play 5-5 on L1", [0, 0, 0]),  # 2, 5 (double)
         (2, "play 2-2 on L0", [0, 0, 0]),  # 2 (double), 5 (double)
         (0, "play 5-6 on L1", [0, 0, 0]),  # 2 (double), 6
         (1, "play 0-2 on L0", [0, 0, 0]),  # 0, 6
         (2, "play 6-6 on L1", [0, 0, 0]),  # 0, 6 (double)
         (0, "play 0-3 on L0", [0, 0, 0]),  # 3, 6 (double)
         (1, "play 0-6 on L1", [0, 0, 0]),  # 3, 0
         (2, "play 3-3 on L0", [0, 0, 0]),  # 3 (double), 0
         (0, "play 3-4 on L0", [0, 0, 0]),  # 4, 0
         (1, "play 4-4 on L0", [0, 0, 0])]  # 4 (double), 0
LINE3_LAST = (2, "play 0-4 on L0")          # 0, 0: 2 for C; every 0 is down: blocked
LINE3_PLACED = [["0-0", "1-2", "5-6", "0-3", "3-4"], ["0-1", "5-5", "0-2", "0-6", "4-4"],
                ["0-5", "2-2", "6-6", "3-3", "0-4"]]


def _line3(kept_a, kept_b):
    kept = [kept_a, kept_b, ["1-1", "1-3"]]
    g = position("bergen", [p + k for p, k in zip(LINE3_PLACED, kept)], opening="free", setter=0,
                 target_score=None)
    for seat, text, points in LINE3:
        step(g, seat, text, points)
    return g


def test_be5_rule2_lowest_count_among_the_double_free():
    """BE5 rule 2: A ([4-6] 10 + [4-5] 9 + [3-6] 9 + [1-6] 7 = 35) and B ([1-4] 5 + [1-5] 6 +
    [2-3] 5 + [2-4] 6 + [2-5] 7 + [2-6] 8 + [3-5] 8 = 45) hold no double; A, the lower of
    them, wins the point, although C (holding [1-1], count 2 + 4 = 6) has the lowest count."""
    g = _line3(["4-6", "4-5", "3-6", "1-6"], ["1-4", "1-5", "2-3", "2-4", "2-5", "2-6", "3-5"])
    step(g, *LINE3_LAST, [1, 0, 2])
    assert g.done and g.scores == [3, 0, 2]


def test_be6_tie_among_the_double_free_nobody_scores():
    """BE6: A ([4-6] 10 + [4-5] 9 + [3-6] 9 + [1-6] 7 + [1-4] 5 = 40) and B ([1-5] 6 + [2-3] 5
    + [2-4] 6 + [2-5] 7 + [2-6] 8 + [3-5] 8 = 40) tie: nobody scores the point (C's 6 does not
    matter: he holds a double)."""
    g = _line3(["4-6", "4-5", "3-6", "1-6", "1-4"], ["1-5", "2-3", "2-4", "2-5", "2-6", "3-5"])
    step(g, *LINE3_LAST, [0, 0, 2])
    assert g.done and g.scores == [2, 0, 2]
