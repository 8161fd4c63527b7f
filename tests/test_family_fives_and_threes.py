"""Fives and Threes (docs/rules/fives_and_threes.md, FT1..FT4, on All Fives' AF1..AF10).

Every expected score below was derived by hand from the pages (the end count E is written out
at each play, counted as All Fives' AF4), never from the engine. Seats: A=0, B=1, C=2, D=3.
"""

from __future__ import annotations

import pytest

from family_helpers import position, step, assert_won, engine  # noqa: F401 (engine: fixture)
from test_family_all_fives import BLOCKED_HANDS, BLOCKED_PLAYS, LINE_HANDS, OUT_HANDS

pytestmark = pytest.mark.usefixtures("engine")


def test_worked_examples_1_to_3_multiples_of_three_and_five():
    """fives_and_threes.md Worked examples 1-3 and 6 (FT1): 6 scores 6, 10 scores 10, 15 scores
    15 once; 3, 9 score, 7, 8 and 4... do not. The All Fives line of Worked examples 1-3."""
    g = position("fives_and_threes", LINE_HANDS, opening="free", setter=0, target_score=None)
    step(g, 0, "set 2-6", [0, 0, 0])          # E = 8: nothing
    step(g, 1, "play 1-6 on L1", [0, 3, 0])   # E = 2 + 1 = 3: a multiple of 3
    step(g, 2, "play 2-4 on L0", [0, 0, 5])   # E = 4 + 1 = 5
    step(g, 0, "play 1-3 on L1", [0, 0, 0])   # E = 4 + 3 = 7: nothing
    step(g, 1, "play 3-3 on L1", [0, 10, 0])  # E = 4 + 3 + 3 = 10
    step(g, 2, "play 3-6 on L1", [0, 0, 10])  # E = 4 + 6 = 10
    step(g, 0, "play 3-4 on L0", [9, 0, 0])   # E = 3 + 6 = 9: a multiple of 3
    step(g, 1, "play 6-6 on L1", [0, 15, 0])  # Example 3 / 4: 3 + 6 + 6 = 15, scored once
    assert g.scores == [9, 28, 15]


def test_worked_example5_set_doubles():
    """fives_and_threes.md Worked example 5: [6-6] set alone counts 12 and the setter scores 12
    (a multiple of 3); then the All Fives counts 17 (nothing), 9 (9) and 10 (10)."""
    g = position("fives_and_threes", OUT_HANDS, opening="free", setter=0, target_score=None)
    step(g, 0, "set 6-6", [12, 0, 0, 0])          # E = 12
    step(g, 1, "play 5-6 on L0", [0, 0, 0, 0])    # E = 5 + 12 = 17
    step(g, 2, "play 4-6 on L1", [0, 0, 9, 0])    # E = 5 + 4 = 9
    step(g, 3, "play 4-5 on L1", [0, 0, 0, 10])   # E = 5 + 5 = 10
    # FT2: A goes out ([3-5] on L0: E = 3 + 5 = 8, nothing); unrounded award 2 + 2 + 1 = 5
    step(g, 0, "play 3-5 on L0", [5, 0, 0, 0])
    assert g.done and g.scores == [17, 0, 9, 10]


def test_ft2_blocked_award_is_not_rounded():
    """FT2 in a blocked hand (the All Fives blocked line): E = 0, 1, 2, 0, 3 (A scores 3), 4, 0,
    5 (B 5), 6 (A 6), 0; blocked with A 46 against B 80: A scores 80 - 46 = 34, unrounded."""
    g = position("fives_and_threes", BLOCKED_HANDS, opening="free", setter=0, target_score=None)
    expected = [[0, 0], [0, 0], [0, 0], [0, 0], [3, 0], [0, 0], [0, 0], [0, 5], [6, 0], [34, 0]]
    for (seat, text), points in zip(BLOCKED_PLAYS, expected):
        step(g, seat, text, points)
    assert g.done and g.scores == [43, 5]
