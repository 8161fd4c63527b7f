"""Matador (docs/rules/matador.md, MA1..MA8, and the family page F1..F24).

Every expected score, seat to move and legal-action list below was derived by hand from the
pages, never from the engine. A Matador play names its outward number ("leaving x", MA2;
action side 0 = the lower number outward, 1 = the higher). Seats: A=0, B=1, C=2.
"""

from __future__ import annotations

import pytest

from family_helpers import assert_legal, position, step, void_tiles
from family_helpers import engine  # noqa: F401 (the fixture every test here uses)

pytestmark = pytest.mark.usefixtures("engine")

MATADORS = ["0-0", "1-6", "2-5", "3-4"]


def both_arms_both_sides(tile):
    a, b = tile.split("-")
    return [f"play {tile} on L{k} leaving {x}" for k in (0, 1) for x in sorted({a, b})]


def test_examples_4_and_3_sevens_on_a_six_and_the_open_blank():
    """matador.md Worked examples 4 (MA1, MA3: [6-6] set, [1-1] lies lengthwise and leaves 1),
    2 (MA2: a matador goes anywhere and its placer picks the outward number; [1-6] on a 6 may
    leave 1 or 6) and 3 (an open 0 takes only matadors); MA5: DRAW is legal although he can play."""
    g = position("matador", [["6-6", "2-5", "0-5", "0-3", "1-4"],
                             ["1-1", "1-6", "0-0", "2-3", "4-4"],
                             ["0-6", "3-4", "2-4", "3-5", "0-2"]], target_score=None)
    # MA4 / F12: A's [6-6] is set by the engine; ends 6 and 6 take a 1 (1 + 6 = 7) or a matador;
    # [2-3] (2+6, 3+6) and [4-4] (4+6) do not fit
    step(g, 1, "play 1-1 on L0 leaving 1",
         legal=["play 1-1 on L0 leaving 1", "play 1-1 on L1 leaving 1",
                *both_arms_both_sides("1-6"),
                "play 0-0 on L0 leaving 0", "play 0-0 on L1 leaving 0", "draw"])
    # L0 shows 1 (needs a 6), L1 shows 6 (needs a 1): [0-6] goes on L0 leaving 0; the matador
    # [3-4] anywhere; [2-4], [3-5], [0-2] nowhere
    step(g, 2, "play 0-6 on L0 leaving 0",
         legal=["play 0-6 on L0 leaving 0", *both_arms_both_sides("3-4"), "draw"])
    # Example 3: L0 shows 0: only the matador [2-5] goes there; L1 (6) also takes [1-4] with its
    # 1 against the 6, leaving 4; [0-5] and [0-3] fit nowhere
    assert_legal(g, [*both_arms_both_sides("2-5"), "play 1-4 on L1 leaving 4", "draw"])
    assert g.to_move == 0


def test_examples_1_and_5_an_open_three():
    """matador.md Worked examples 1 ([2-4] on an open 3: 4 + 3 = 7, leaves 2) and 5 (an open 3
    takes the tiles with a 4 and the matadors; [4-4] leaves 4). A sets [3-5] (free opening,
    F4): L0 shows 3, L1 shows 5."""
    g = position("matador", [["3-5", "0-4", "0-5", "0-6", "1-3"],
                             ["2-4", "4-4", "1-6", "0-1", "5-6"],
                             ["3-3", "0-2", "0-3", "1-1", "1-2"]],
                 ["2-2"], opening="free", setter=0, target_score=None)
    step(g, 0, "set 3-5")
    # [2-4]: 4 + 3 = 7 on L0 (leaves 2), 2 + 5 = 7 on L1 (leaves 4); [4-4] only on L0;
    # [0-1] and [5-6] fit neither end
    b_legal = ["play 2-4 on L0 leaving 2", "play 2-4 on L1 leaving 4", "play 4-4 on L0 leaving 4",
               *both_arms_both_sides("1-6"), "draw"]
    assert_legal(g, b_legal)
    # MA5: B may draw although he can play; the draw does not end his turn. [2-2] fits L1 (2 + 5)
    step(g, 1, "draw", [0, 0, 0])
    step(g, 1, "play 4-4 on L0 leaving 4", legal=b_legal[:-1] + ["play 2-2 on L1 leaving 2", "draw"])
    # L0 shows 4 (needs 3), L1 shows 5 (needs 2)
    assert_legal(g, ["play 3-3 on L0 leaving 3", "play 0-3 on L0 leaving 0",
                     "play 0-2 on L1 leaving 0", "play 1-2 on L1 leaving 1", "draw"])


def test_example6_going_out_end_award():
    """matador.md Worked examples 6 (MA6, MA7): the winner goes out; the others hold [0-0] and
    [6-6] (0 + 12 = 12) and [5-2] (7): he scores 19."""
    g = position("matador", [["1-3", "5-6"], ["0-0", "4-6"], ["2-5", "0-1"]], ["6-6"],
                 opening="free", setter=0, target_score=None)
    step(g, 0, "set 1-3", [0, 0, 0])  # L0 shows 1, L1 shows 3; nothing scores during play (MA6)
    step(g, 1, "draw", [0, 0, 0], legal=["play 0-0 on L0 leaving 0", "play 0-0 on L1 leaving 0",
                                         "play 4-6 on L0 leaving 4", "play 4-6 on L1 leaving 6",
                                         "draw"])
    step(g, 1, "play 4-6 on L1 leaving 6", [0, 0, 0])  # B drew [6-6]
    step(g, 2, "play 0-1 on L1 leaving 0", [0, 0, 0],
         legal=[*both_arms_both_sides("2-5"), "play 0-1 on L1 leaving 0", "draw"])
    step(g, 0, "play 5-6 on L0 leaving 5", [19, 0, 0], legal=["play 5-6 on L0 leaving 5", "draw"])
    assert g.done and g.scores == [19, 0, 0]


def test_ma5_stuck_player_draws_then_passes_and_void_evidence():
    """MA5 / F10 / F11: B has nothing for 6 and 6 and must draw; with boneyard_reserve=2 one of
    the three boneyard tiles is drawable, then PASS is his only action. Contract seat_void: a
    Matador draw is a draw at will (no evidence: void emptied); the PASS adds F, the tiles that
    fit now (a 1, or a matador)."""
    rest = [t for t in (f"{a}-{b}" for a in range(7) for b in range(a, 7))
            if t not in ("2-2", "3-3", "4-4", "5-5", "2-6")]
    g = position("matador", [rest, ["2-2", "3-3"]], ["4-4", "5-5", "2-6"], boneyard_reserve=2,
                 target_score=None)
    step(g, 1, "draw", legal=["draw"])
    assert void_tiles(g, 0, 1) == set()
    step(g, 1, "pass", legal=["pass"])
    fits = {"0-1", "1-1", "1-2", "1-3", "1-4", "1-5", *MATADORS}  # 1-6 is both
    assert void_tiles(g, 0, 1) - {"6-6"} == fits
    assert void_tiles(g, 1, 1) - {"6-6"} == fits
    assert g.to_move == 0


def test_ma5_reserve_zero_draws_the_whole_boneyard():
    """MA5 default reserve 0: B draws all three tiles ([4-4], [5-5], [2-6]: 4+6, 5+6, 2+6 and
    6+6 are not 7), then passes."""
    rest = [t for t in (f"{a}-{b}" for a in range(7) for b in range(a, 7))
            if t not in ("2-2", "3-3", "4-4", "5-5", "2-6")]
    g = position("matador", [rest, ["2-2", "3-3"]], ["4-4", "5-5", "2-6"], target_score=None)
    for _ in range(3):
        step(g, 1, "draw", legal=["draw"])
    step(g, 1, "pass", legal=["pass"])


# A blocked hand (MA8) with every tile dealt: [0-0] set, the three other matadors go down and
# both ends come back to 0, which only a matador could take.
BLOCK_LINE = [(0, "set 0-0"),
              (1, "play 1-6 on L0 leaving 1"),   # wild: 1 outward
              (2, "play 0-6 on L0 leaving 0"),   # 6 + 1 = 7
              (0, "play 2-5 on L0 leaving 2"),   # wild
              (1, "play 0-5 on L0 leaving 0"),   # 5 + 2 = 7
              (2, "play 3-4 on L1 leaving 3")]   # wild
BLOCK_HANDS = [["0-0", "2-5", "0-4", "0-1", "0-2"],                    # keeps 1 + 2 = 3
               ["1-6", "0-5", "0-3", "1-1", "1-2", "1-3", "1-4", "1-5", "2-2", "2-3", "2-4"],
               ["0-6", "3-4", "2-6", "3-3", "3-5", "3-6", "4-4", "4-5", "4-6", "5-5", "5-6", "6-6"]]


def test_ma8_blocked_hand_difference_and_total():
    """MA8 / MA6 / F16: after [0-4] on L1 (4 + 3 = 7, leaving 0) both ends show 0 and every
    matador is down: blocked. Counts: A 3; B 3+2+3+4+5+6+4+5+6 = 38; C 8+6+8+9+8+9+10+10+11+12
    = 91. A scores (38 - 3) + (91 - 3) = 123; with blocked_scoring="total" 38 + 91 = 129."""
    for scoring, award in (("difference", 123), ("total", 129)):
        g = position("matador", BLOCK_HANDS, opening="free", setter=0, blocked_scoring=scoring,
                     target_score=None)
        for seat, text in BLOCK_LINE:
            step(g, seat, text, [0, 0, 0])
        step(g, 0, "play 0-4 on L1 leaving 0", [award, 0, 0])
        assert g.done and g.scores == [award, 0, 0]


def test_example6_blocked_hand_counts_3_11_6():
    """matador.md Worked examples 6, its blocked hand (MA8, F13, F16): counts 3 (the lowest), 11
    and 6; the lowest scores (11 - 3) + (6 - 3) = 11, with blocked_scoring="total" 11 + 6 = 17.
    [0-0] set (free opening), the three other matadors go down and both ends come back to 0,
    which only a matador could take. boneyard_reserve=16 keeps the 16 boneyard tiles undrawn, so
    nobody may draw (MA5) and the hand ends at the last play (hand_size=4 only makes the rules
    accept that reserve: 3 x 4 + 16 = 28; the hands are given). A keeps [0-1] [0-2] (3), B [1-1]
    [4-5] (2 + 9 = 11), C [1-5] (6)."""
    hands = [["0-0", "2-5", "0-4", "0-1", "0-2"], ["1-6", "0-5", "1-1", "4-5"], ["0-6", "3-4", "1-5"]]
    for scoring, award in (("difference", 11), ("total", 17)):
        g = position("matador", hands, opening="free", setter=0, boneyard_reserve=16, hand_size=4,
                     blocked_scoring=scoring, target_score=None)
        step(g, 0, "set 0-0", [0, 0, 0])
        # ends 0 and 0: only a matador, and B's only one is [1-6]; no draw (reserve)
        step(g, 1, "play 1-6 on L0 leaving 1", [0, 0, 0], legal=both_arms_both_sides("1-6"))
        # L0 shows 1 (needs a 6: [0-6]), L1 shows 0 (a matador: [3-4]); [1-5] fits neither
        step(g, 2, "play 0-6 on L0 leaving 0", [0, 0, 0],
             legal=["play 0-6 on L0 leaving 0", *both_arms_both_sides("3-4")])
        step(g, 0, "play 2-5 on L0 leaving 2", [0, 0, 0], legal=both_arms_both_sides("2-5"))
        # L0 shows 2 (needs a 5): [0-5] and [4-5]; [1-1] fits nowhere
        step(g, 1, "play 0-5 on L0 leaving 0", [0, 0, 0],
             legal=["play 0-5 on L0 leaving 0", "play 4-5 on L0 leaving 4"])
        step(g, 2, "play 3-4 on L1 leaving 3", [0, 0, 0], legal=both_arms_both_sides("3-4"))
        # L1 shows 3 (needs a 4): A's [0-4] leaves 0; then 0 and 0 with every matador down: blocked
        step(g, 0, "play 0-4 on L1 leaving 0", [award, 0, 0], legal=["play 0-4 on L1 leaving 0"])
        assert g.done and g.scores == [award, 0, 0]
