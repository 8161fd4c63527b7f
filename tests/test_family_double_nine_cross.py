"""Double-Nine Cross (docs/rules/double_nine_cross.md, DN1..DN6, on Cross's CR1..CR6 and the
family page F1..F24).

Every expected seat to move and legal-action list below was derived by hand from the pages,
never from the engine. Arms: C0..C3 of the set spinner, then A4, A5, ... two per later double
in the order they are laid (F7, DN3). Seats: A=0, B=1, C=2, D=3.
"""

from __future__ import annotations

import numpy as np
import pytest

from family_helpers import assert_legal, obs_field, position, step
from family_helpers import engine  # noqa: F401 (the fixture every test here uses)

pytestmark = pytest.mark.usefixtures("engine")


# double_nine_cross.md Examples 1-3: four players, five tiles each (DN1), double-nine set.
DN_HANDS = [["9-9", "7-9", "0-1", "0-2", "1-1"],
            ["3-9", "3-3", "1-2", "1-4", "2-4"],
            ["5-9", "3-6", "5-5", "3-4", "6-6"],
            ["0-9", "5-8", "2-2", "6-8", "4-8"]]


def test_dn_examples_new_arms_of_later_doubles():
    """double_nine_cross.md Examples 1-3 (DN2 highest double [9-9], CR4 cross phase, DN3 two new
    arms per later double, numbered by F7)."""
    g = position("double_nine_cross", DN_HANDS, target_score=None)
    step(g, 1, "play 3-9 on C0", legal=[f"play 3-9 on C{k}" for k in range(4)])
    # Example 3: C0 shows 3 but C2, C3 are empty: [3-6], [3-4] may not be played, nor [5-5]
    step(g, 2, "play 5-9 on C1", legal=["play 5-9 on C1", "play 5-9 on C2", "play 5-9 on C3"])
    step(g, 3, "play 0-9 on C2", legal=["play 0-9 on C2", "play 0-9 on C3"])
    # C3 still empty: A's [0-1], [0-2] fit C2's 0 but only [7-9] may go, on C3
    step(g, 0, "play 7-9 on C3", legal=["play 7-9 on C3"])
    # Example 1: ends C0 3, C1 5, C2 0, C3 7; [3-3] on C0 opens arms 4 and 5 at 3
    step(g, 1, "play 3-3 on C0", legal=["play 3-3 on C0"])
    # six ends, three of them 3s: [3-6] and [3-4] have three actions each; [5-5] fits C1
    step(g, 2, "play 5-5 on C1",
         legal=["play 3-6 on C0", "play 3-6 on A4", "play 3-6 on A5",
                "play 3-4 on C0", "play 3-4 on A4", "play 3-4 on A5", "play 5-5 on C1"])
    # Example 2: [5-5] on C1 adds arms 6 and 7 at 5: [5-8] fits C1, A6, A7
    step(g, 3, "play 5-8 on A6", legal=["play 5-8 on C1", "play 5-8 on A6", "play 5-8 on A7"])
    # A6 now shows 8; A holds [0-1], [0-2], [1-1]: only C2's 0 takes them
    assert_legal(g, ["play 0-1 on C2", "play 0-2 on C2"])


def test_dn_f23_extra_tile_on_the_three_new_ends():
    """double_nine_cross.md Options, play_on_double (F23 with DN3): after [3-3] on C0 (after
    the cross) B may place one more tile on any of the three ends the double leaves (C0, A4,
    A5, all 3), not on C1 (5) though his [3-5] fits it; or PASS."""
    hands = [["9-9", "7-9", "0-1", "0-2", "1-1"],
             ["3-9", "3-3", "3-5", "1-4", "2-4"],
             ["5-9", "3-6", "5-5", "3-4", "6-6"],
             ["0-9", "5-8", "2-2", "6-8", "4-8"]]
    g = position("double_nine_cross", hands, play_on_double=True, target_score=None)
    step(g, 0, "pass", legal=[f"play 7-9 on C{k}" for k in range(4)] + ["pass"])  # set's extra
    step(g, 1, "play 3-9 on C0")
    step(g, 2, "play 5-9 on C1")
    step(g, 3, "play 0-9 on C2")
    step(g, 0, "play 7-9 on C3", legal=["play 7-9 on C3"])
    # ends C0 3, C1 5, C2 0, C3 7
    step(g, 1, "play 3-3 on C0", legal=["play 3-3 on C0", "play 3-5 on C0", "play 3-5 on C1"])
    step(g, 1, "play 3-5 on A5",
         legal=["play 3-5 on C0", "play 3-5 on A4", "play 3-5 on A5", "pass"])
    assert g.to_move == 2


def test_dn3_a_double_on_a_new_arm_branches_too():
    """DN3 ("on any arm (new arms included)") and F7 in the observation: after Examples 1-2, A
    lays [8-8] on arm 6 (which shows 8): arms 8 and 9 open at 8; arm 6 goes on at 8 with two
    tiles; ten arms exist."""
    hands = [["9-9", "7-9", "0-1", "0-2", "8-8"]] + DN_HANDS[1:]
    g = position("double_nine_cross", hands, target_score=None)
    for seat, text in ((1, "play 3-9 on C0"), (2, "play 5-9 on C1"), (3, "play 0-9 on C2"),
                       (0, "play 7-9 on C3"), (1, "play 3-3 on C0"), (2, "play 5-5 on C1"),
                       (3, "play 5-8 on A6")):
        step(g, seat, text)
    step(g, 0, "play 8-8 on A6", legal=["play 0-1 on C2", "play 0-2 on C2", "play 8-8 on A6"])
    exists = obs_field(g, 1, "arm_exists")
    assert list(exists) == [1] * 10 + [0] * 12
    opens = [int(np.argmax(row)) for row in obs_field(g, 1, "arm_open")[:10]]
    assert opens == [3, 5, 0, 7, 3, 3, 8, 5, 8, 8]  # C0..C3, A4..A9
    assert list(obs_field(g, 1, "arm_count")[:10]) == [2, 2, 1, 1, 0, 0, 2, 0, 0, 0]
