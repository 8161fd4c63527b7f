"""Five Up (docs/rules/five_up.md, FU1..FU9, on All Fives' AF4/AF7/AF8 and F1..F24).

Every expected score, seat to move and legal-action list below was derived by hand from the
pages, never from the engine. E is the end count of FU4 (an empty crosswise arm counts
nothing); a play scores E / 5 when 5 divides E (FU5). Arms: L0, L1, then A2, A3, ... in the
order the spinners open them (F7, FU9). Seats: A=0, B=1, C=2, D=3.
"""

from __future__ import annotations

import pytest

from family_helpers import assert_legal, position, step, assert_won, engine  # noqa: F401 (engine: fixture)
from test_family_all_fives import BLOCKED_HANDS, BLOCKED_PLAYS, OUT_HANDS

pytestmark = pytest.mark.usefixtures("engine")


def test_worked_example4_counts_on_a_spinning_set_double():
    """five_up.md Worked example 4 (FU3, FU4, FU9; FU2 free opening with a given setter)."""
    g = position("five_up", [["5-5", "3-5", "1-1", "1-2", "2-2"],
                             ["0-5", "6-6", "2-3", "2-4", "3-3"],
                             ["5-6", "0-1", "1-3", "1-4", "3-4"],
                             ["4-5", "0-2", "0-3", "0-4", "2-6"]],
                 setter=0, target_score=None)
    step(g, 0, "set 5-5", [2, 0, 0, 0],  # E = 10: 2 points (FU5: the opening scores)
         legal=["set 5-5", "set 3-5", "set 1-1", "set 1-2", "set 2-2"])
    # FU9: the set double is a line until a tile lies on it: only L0 and L1
    step(g, 1, "play 0-5 on L0", [0, 2, 0, 0], legal=["play 0-5 on L0", "play 0-5 on L1"])
    # E = 0 + 5 + 5 = 10 (free long side); [5-5] spins: arms 2 and 3 open at 5, count nothing
    step(g, 2, "play 5-6 on L1", [0, 0, 0, 0],
         legal=["play 5-6 on L1", "play 5-6 on A2", "play 5-6 on A3", "play 0-1 on L0"])
    # E = 0 + 6 = 6
    step(g, 3, "play 4-5 on A2", [0, 0, 0, 2],
         legal=["play 4-5 on A2", "play 4-5 on A3", "play 0-2 on L0", "play 0-3 on L0",
                "play 0-4 on L0", "play 2-6 on L1"])
    # E = 0 + 6 + 4 = 10: 2 points
    step(g, 0, "play 3-5 on A3", [0, 0, 0, 0], legal=["play 3-5 on A3"])  # E = 0+6+4+3 = 13
    assert g.scores == [2, 2, 0, 2]


EX5_HANDS = [["2-4", "0-4", "6-6", "5-6", "2-5"],
             ["4-4", "2-2", "0-0", "0-5", "0-6"],
             ["1-4", "1-3", "1-1", "1-5", "1-6"],
             ["3-4", "2-3", "3-3", "3-5", "3-6"]]


def _example5(spinners):
    g = position("five_up", EX5_HANDS, setter=0, spinners=spinners, target_score=None)
    step(g, 0, "set 2-4", [0, 0, 0, 0])                 # E = 2 + 4 = 6
    step(g, 1, "play 4-4 on L1", [0, 2, 0, 0])          # E = 2 + 4 + 4 = 10
    # [4-4] has no tile beyond it yet: it does not spin, only its far side (L1, 4) is open
    step(g, 2, "play 1-4 on L1", [0, 0, 0, 0], legal=["play 1-4 on L1"])  # E = 2 + 1 = 3
    # [4-4] spins: arms 2 and 3 open at 4
    step(g, 3, "play 3-4 on A2", [0, 0, 0, 0],
         legal=["play 3-4 on A2", "play 3-4 on A3", "play 2-3 on L0"])   # E = 2 + 1 + 3 = 6
    step(g, 0, "play 0-4 on A3", [0, 0, 0, 0])          # E = 2 + 1 + 3 + 0 = 6
    step(g, 1, "play 2-2 on L0", [0, 0, 0, 0])          # E = 4 + 1 + 3 + 0 = 8
    step(g, 2, "play 1-3 on L1", [0, 0, 2, 0])          # E = 4 + 3 + 3 + 0 = 10
    step(g, 3, "play 2-3 on L0", [0, 0, 0, 0])          # E = 3 + 3 + 3 + 0 = 9
    return g


def test_worked_example5_every_double_spins():
    """five_up.md Worked example 5 (FU3 spinners="every"): after [2-3] beyond [2-2], [2-2]
    spins too (arms 4 and 5 at 2): A's [2-5] fits them, and nothing else fits (3, 3, 3, 0)."""
    g = _example5("every")
    assert_legal(g, ["play 2-5 on A4", "play 2-5 on A5"])


def test_worked_example5_first_double_only():
    """five_up.md Worked example 5 under spinners="first": the same scores, but [2-2] never
    spins; A's [6-6], [5-6], [2-5] fit none of 3, 3, 3, 0, so he must draw (F9)."""
    g = _example5("first")
    assert_legal(g, ["draw"])


def test_worked_example3_exactly_61():
    """five_up.md Worked example 3 (FU7, F18): B at 59 makes a play counting 15 (3 points): 62
    would pass 61, he scores nothing and stays at 59 (the play stands); A at 59 makes a play
    counting 10 (2 points): 61, he wins at once."""
    g = position("five_up", [["6-6", "5-6", "0-0", "0-1", "0-2"],
                             ["3-6", "0-3", "0-4", "0-5", "1-1"],
                             ["0-6", "1-2", "1-3", "1-4", "1-5"],
                             ["2-6", "2-2", "2-3", "2-4", "2-5"]],
                 setter=0, scores=[59, 59, 0, 0])
    step(g, 0, "set 6-6", [0, 0, 0, 0])            # E = 12
    step(g, 1, "play 3-6 on L0", [0, 0, 0, 0])     # E = 3 + 12 = 15: 3 points, 62 > 61: none
    assert g.scores == [59, 59, 0, 0] and not g.done
    step(g, 2, "play 0-6 on L1", [0, 0, 0, 0])     # [6-6] spins (A2, A3 at 6): E = 3 + 0 = 3
    step(g, 3, "play 2-6 on A2", [0, 0, 0, 1])     # E = 3 + 0 + 2 = 5: 1 point
    step(g, 0, "play 5-6 on A3", [2, 0, 0, 0])     # E = 3 + 0 + 2 + 5 = 10: 2 points, 61
    assert_won(g, 0)
    assert g.scores == [61, 59, 0, 1]


def test_worked_example2_award_table():
    """five_up.md Worked example 2 (FU6): A goes out; opponents left with 2 pips give 0 points,
    7 pips 1 (round5(7) = 5), 8 pips 2 (round5(8) = 10): 3 points."""
    g = position("five_up", [["6-6", "3-5"], ["5-6", "0-2"], ["4-6", "3-4"], ["4-5", "2-6"]],
                 setter=0, target_score=None)
    step(g, 0, "set 6-6", [0, 0, 0, 0])            # E = 12
    step(g, 1, "play 5-6 on L0", [0, 0, 0, 0])     # E = 5 + 12 = 17; [6-6] spins
    step(g, 2, "play 4-6 on L1", [0, 0, 0, 0])     # E = 5 + 4 = 9
    step(g, 3, "play 4-5 on L1", [0, 0, 0, 2])     # E = 5 + 5 = 10: 2 points
    step(g, 0, "play 3-5 on L0", [3, 0, 0, 0])     # E = 3 + 5 = 8; out: 0 + 1 + 2 = 3
    assert g.done and g.scores == [3, 0, 0, 2]


def test_fu6_award_rounding_per_opponent_and_total():
    """FU6: opponents at 2, 2, 1 pips: per opponent 0 + 0 + 0 = 0 points; with
    award_rounding="total" round5(5) / 5 = 1 point."""
    for rounding, award in (("per_opponent", 0), ("total", 1)):
        g = position("five_up", OUT_HANDS, setter=0, award_rounding=rounding, target_score=None)
        step(g, 0, "set 6-6", [0, 0, 0, 0])          # E = 12
        step(g, 1, "play 5-6 on L0", [0, 0, 0, 0])   # E = 17
        step(g, 2, "play 4-6 on L1", [0, 0, 0, 0])   # E = 9
        step(g, 3, "play 4-5 on L1", [0, 0, 0, 2])   # E = 10
        step(g, 0, "play 3-5 on L0", [award, 0, 0, 0])


def test_worked_example6_blocked_award():
    """FU6 in a blocked hand (the All Fives blocked line; [0-0] spins but its arms stay dead,
    every 0 being played): B's [0-5] makes E = 5 (1 point); A wins with 46 against 80:
    round5(34) / 5 = 35 / 5 = 7 points."""
    g = position("five_up", BLOCKED_HANDS, setter=0, target_score=None)
    expected = [[0, 0]] * 7 + [[0, 1], [0, 0], [7, 0]]
    for (seat, text), points in zip(BLOCKED_PLAYS, expected):
        step(g, seat, text, points)
    assert g.done and g.scores == [7, 1]


def test_fu7_award_past_61_is_not_taken_and_f19_winner_sets_next():
    """FU7: A at 59 goes out with an award of 3 points (Worked example 2): 62 would pass 61, so
    he scores nothing and the match goes on; F19: A, the hand's winner, sets the next hand."""
    g = position("five_up", [["6-6", "3-5"], ["5-6", "0-2"], ["4-6", "3-4"], ["4-5", "2-6"]],
                 setter=0, scores=[59, 0, 0, 0])
    step(g, 0, "set 6-6", [0, 0, 0, 0])
    step(g, 1, "play 5-6 on L0", [0, 0, 0, 0])
    step(g, 2, "play 4-6 on L1", [0, 0, 0, 0])
    step(g, 3, "play 4-5 on L1", [0, 0, 0, 2])
    step(g, 0, "play 3-5 on L0", [0, 0, 0, 0])
    assert not g.done and g.scores == [59, 0, 0, 2] and g.hand_number == 1
    assert g.to_move == 0
    plays = 28 * 16
    assert g.legal_actions() and all(plays <= a < plays + 28 for a in g.legal_actions())


def test_fu6_award_table_boundaries():
    """five_up.md Worked example 2 at its edges (FU6, AF8): opponents at 3 pips ([1-2]: 1 point),
    12 pips ([3-4], [0-5]: 2 points) and 1 pip ([0-1]: 0 points): A's award is 3."""
    g = position("five_up", [["6-6", "3-5"], ["5-6", "1-2"], ["4-6", "3-4", "0-5"], ["4-5", "0-1"]],
                 setter=0, target_score=None)
    step(g, 0, "set 6-6", [0, 0, 0, 0])            # E = 12
    step(g, 1, "play 5-6 on L0", [0, 0, 0, 0])     # E = 5 + 12 = 17
    step(g, 2, "play 4-6 on L1", [0, 0, 0, 0])     # E = 5 + 4 = 9
    step(g, 3, "play 4-5 on L1", [0, 0, 0, 2])     # E = 5 + 5 = 10
    step(g, 0, "play 3-5 on L0", [3, 0, 0, 0])     # E = 8; out: 1 + 2 + 0 = 3
