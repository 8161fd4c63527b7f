"""Cross (docs/rules/cross.md, CR1..CR6) and Double-Nine Cross (docs/rules/double_nine_cross.md,
DN1..DN6).

Every expected score, seat to move and legal-action list below was derived by hand from the
pages, never from the engine. Seats: A=0, B=1, C=2, D=3.
"""

from __future__ import annotations

import pytest

from family_helpers import assert_legal, obs_field, on_table, position, step, tiles_with, void_tiles, assert_won, engine  # noqa: F401 (engine: fixture)

pytestmark = pytest.mark.usefixtures("engine")

# cross.md Examples 1-4, four players, four tiles each (Draw's size, CR3). A holds the highest
# double [6-6]; the boneyard's top is [1-3] then [5-6].
CROSS_HANDS = [["6-6", "2-3", "1-5", "3-4"],
               ["2-6", "0-1", "0-2", "0-3"],
               ["2-5", "4-6", "1-1", "2-2"],
               ["0-6", "3-3", "2-4", "4-5"]]
CROSS_TOP = ["1-3", "5-6"]


def _cross_phase(g):
    """cross.md Examples 1-2 (CR2, CR4): the set [6-6] is a spinner with four empty arms."""
    # CR2 / F12: A's [6-6] is set by the engine; B moves first
    step(g, 1, "play 2-6 on C0", legal=[f"play 2-6 on C{k}" for k in range(4)])
    # Example 1: C0 shows 2 but is not empty: [2-5] does not fit; [6-4] has three actions
    step(g, 2, "play 4-6 on C1", legal=["play 4-6 on C1", "play 4-6 on C2", "play 4-6 on C3"])
    # Example 2: D must play [6-0] on an empty arm ([4-5] and [2-4] fit C1's 4 / C0's 2 only
    # after the cross; [3-3] fits nothing); no DRAW while a cross tile fits (F8)
    step(g, 3, "play 0-6 on C2", legal=["play 0-6 on C2", "play 0-6 on C3"])


def test_examples_1_to_4_forming_the_cross_and_after():
    """cross.md Examples 1-4 (CR4, CR5 "as_draw", F9 until_playable, F6 four arms)."""
    g = position("cross", CROSS_HANDS, CROSS_TOP, target_score=None)
    _cross_phase(g)
    # Example 3: C3 is empty; A holds [2-3] (fits C0's 2) and no 6: he draws until a 6 comes
    step(g, 0, "draw", legal=["draw"])
    step(g, 0, "draw", legal=["draw"])  # [1-3] was no 6
    step(g, 0, "play 5-6 on C3", legal=["play 5-6 on C3"])  # [5-6]; [2-3] still may not go on C0
    # Example 4: the cross is complete: ends C0 2, C1 4, C2 0, C3 5, every arm takes tiles
    step(g, 1, "play 0-1 on C2",
         legal=["play 0-1 on C2", "play 0-2 on C0", "play 0-2 on C2", "play 0-3 on C2"])
    # ends C0 2, C1 4, C2 1, C3 5
    step(g, 2, "play 2-2 on C0",
         legal=["play 2-5 on C0", "play 2-5 on C3", "play 2-2 on C0", "play 1-1 on C2"])
    # [2-2] lies across C0 and leaves 2; it opens no new arms (Cross's later doubles do not spin)
    assert_legal(g, ["play 2-4 on C0", "play 2-4 on C1", "play 4-5 on C1", "play 4-5 on C3"])
    assert g.to_move == 3


def test_cr5_cross_phase_draw_one():
    """cross.md Examples 3 with cross_phase_draw="one" (CR5): A draws a single tile, [1-3], and
    passes; B, still in the cross phase and without a 6, draws one tile, [5-6], which fits the
    empty C3 and must be played."""
    g = position("cross", CROSS_HANDS, CROSS_TOP, cross_phase_draw="one", target_score=None)
    _cross_phase(g)
    step(g, 0, "draw", legal=["draw"])
    step(g, 0, "pass", legal=["pass"])
    step(g, 1, "draw", legal=["draw"])
    step(g, 1, "play 5-6 on C3", legal=["play 5-6 on C3"])


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


def test_cross_f23_setter_extra_tile_on_an_empty_arm():
    """cross.md Options, play_on_double (F23): the setter of the spinner [6-6] (forced, F12) may
    place one more tile, a 6 on any empty arm, or PASS; then B (cross phase) has the three
    arms left for his [2-6]."""
    g = position("cross", [["6-6", "1-6", "2-3", "3-4"], ["2-6", "0-1", "0-2", "0-3"],
                           ["2-5", "4-6", "1-1", "2-2"], ["0-6", "3-3", "2-4", "4-5"]],
                 play_on_double=True, target_score=None)
    step(g, 0, "play 1-6 on C2", legal=[f"play 1-6 on C{k}" for k in range(4)] + ["pass"])
    step(g, 1, "play 2-6 on C0", legal=["play 2-6 on C0", "play 2-6 on C1", "play 2-6 on C3"])


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


def test_cross_phase_void_evidence_is_the_d_tiles():
    """Contract seat_void with CR4: in the cross phase only 6s on empty arms fit, so A's stuck
    draw (cross.md Examples 3) tells that he holds no 6, and nothing about C0's 2, C1's 4 or
    C2's 0 (tiles on the table left out of the check)."""
    g = position("cross", CROSS_HANDS, CROSS_TOP, target_score=None)
    _cross_phase(g)
    step(g, 0, "draw")
    table = on_table(g)
    assert void_tiles(g, 1, 0) - table == tiles_with({6}) - table


def test_cross_phase_arm_playable_is_the_empty_arms():
    """CR4 in the observation (contract arm_playable: the arm takes a tile now): during the
    cross phase only the empty arms; once all four hold a tile, all four."""
    g = position("cross", CROSS_HANDS, CROSS_TOP, target_score=None)
    step(g, 1, "play 2-6 on C0")
    assert list(obs_field(g, 2, "arm_playable")) == [0, 1, 1, 1]
    step(g, 2, "play 4-6 on C1")
    step(g, 3, "play 0-6 on C2")
    assert list(obs_field(g, 0, "arm_playable")) == [0, 0, 0, 1]
    for text in ("draw", "draw", "play 5-6 on C3"):
        step(g, 0, text)
    assert list(obs_field(g, 1, "arm_playable")) == [1, 1, 1, 1]


def test_cross_blocked_in_the_cross_phase_with_a_reserve():
    """cross.md For implementers / F11 / F13: with every boneyard tile in the reserve and no 6
    outside the set, the hand blocks in the cross phase at once; A (count 1) scores
    (8 - 1) + (6 - 1) = 12 against B ([1-2], [2-3]: 8) and C ([0-2], [1-3]: 6)."""
    g = position("cross", [["6-6", "0-1"], ["1-2", "2-3"], ["0-2", "1-3"]], hand_size=2,
                 boneyard_reserve=22, target_score=None)
    assert g.done and g.scores == [12, 0, 0]
