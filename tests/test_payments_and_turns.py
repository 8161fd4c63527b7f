"""Payment and turn-order rules of Nos (docs/rules/nos.md §2, §5-§11).

Every expected chip count, ledger entry, seat to move and legal-action list
below was derived by hand from ``docs/rules/nos.md`` (the section or
decision is cited next to each check), never copied from the engine.

Conventions used in the expectations:
- 4 players unless said otherwise; seats 0..n-1, "left of i" is i+1 mod n;
- every seat starts with 500 chips, so the chip total is 500*n;
- payments caused by one event to several players are listed in seat order
  (the order the worked examples in tests/data/vectors use);
  settlement entries are compared as a set, the rules give them no order;
- D25 (every decision presented, D12 off, the default): after the announcement
  the declaration window asks EVERY seat, in turn order from left of the
  setter, the setter last; one without the table's count of dealt doubles (D8)
  has the single action ``no-declare``. The immediate-double window then asks
  every seat but the setter, from left of the setter, and asks a seat again
  after each double he places; one with no double fitting a free arm has the
  single action ``decline``. Tests about these windows (sections 5 and 6)
  write every step out, forced ones included; elsewhere
  :func:`through_forced_windows` walks windows in which every asked seat is
  forced, checking the order and the single action of each.
"""

from __future__ import annotations

import pytest

from conftest import through_forced_windows

from nos_env.deal import Deal
from nos_env.engine import Hand, IllegalActionError, new_hand
from nos_env.options import Options
from nos_env.session import Session
from nos_env.tiles import ALL_TILES, is_double, parse_tile, tile_str

START = 500


# ----------------------------------------------------------------- helpers
def make_deal(hands, boneyard):
    return Deal.from_tiles(hands=hands, boneyard=boneyard)


def deal_with_top(hands, top):
    """A deal whose boneyard starts with ``top``; the rest (index order) is never reached."""
    used = {parse_tile(t) for h in hands for t in h} | {parse_tile(t) for t in top}
    rest = [tile_str(t) for t in ALL_TILES if t not in used]
    return Deal.from_tiles(hands=hands, boneyard=list(top) + rest)


def led(h):
    return [p.to_list() for p in h.ledger]


def split_ledger(h):
    """(non-settlement entries in order, settlement entries sorted)."""
    entries = led(h)
    return (
        [e for e in entries if e[3] != "settlement"],
        sorted(e for e in entries if e[3] == "settlement"),
    )


def tiles(*texts):
    return [parse_tile(t) for t in texts]


def run(h, script):
    """Apply (seat, action) steps, checking before each that ``seat`` is to move."""
    for seat, action in script:
        assert h.to_move == seat, f"before {action!r}: expected seat {seat} to move, got {h.to_move}"
        h.step(action)


def wait_seats(h):
    waits = [e for e in h.events if e.action == "wait"]
    assert all(e.automatic for e in waits)  # D11: waits are automatic
    return [e.seat for e in waits]


def snapshot(h):
    return (
        list(h.chips),
        led(h),
        h.to_move,
        [list(x) for x in h.hands],
        h.legal_action_texts(),
        list(h.boneyard),
        h.phase,
        len(h.events),
        list(h.actions),
    )


# =========================================================== section 2: the set
@pytest.mark.parametrize(
    "hand, choice, v",
    [
        (["5-5", "2-2", "0-1", "1-3"], "5-5", 5),
        (["5-5", "2-2", "0-1", "1-3"], "2-2", 2),  # later-hand rule: his choice of doubles
        (["0-0", "1-2", "1-3", "1-4"], "0-0", 7),  # [0-0] from the hand: 7
    ],
)
def test_sec2_set_double_from_hand_setter_receives_v_from_each(hand, choice, v):
    others = [["0-2", "0-3", "0-4", "0-5"], ["1-5", "1-6", "2-3", "2-4"], ["2-5", "2-6", "3-4", "3-5"]]
    h = Hand(deal_with_top([hand] + others, []), on_set=0)
    assert h.to_move == 0
    doubles = sorted(t for t in hand if parse_tile(t)[0] == parse_tile(t)[1])
    # Later-hand rule: a setter holding doubles must set one of them; no draw.
    assert h.legal_action_texts() == [f"set {d}" for d in doubles]
    pays = h.step(f"set {choice}")
    expected = [[1, 0, v, "set"], [2, 0, v, "set"], [3, 0, v, "set"]]
    assert [p.to_list() for p in pays] == expected
    assert led(h) == expected
    assert h.chips == [START + 3 * v, START - v, START - v, START - v]
    assert h.to_move == 0 and h.phase == "announce"  # the setter announces next (section 4)


@pytest.mark.parametrize("drawn, each", [("4-4", 8), ("6-6", 12), ("1-1", 2), ("0-0", 14)])
def test_sec2_D19_drawn_double_setter_receives_2v_from_each(drawn, each):
    # Seat 2 on set holds no double: he must draw and set the drawn tile. A drawn
    # double earns 2v from each; D19: a drawn [0-0] earns 14.
    hands = [["0-1", "0-2", "0-3", "0-4"], ["0-5", "0-6", "1-2", "1-3"],
             ["1-4", "1-5", "1-6", "2-3"], ["2-4", "2-5", "2-6", "3-4"]]
    h = Hand(deal_with_top(hands, [drawn]), on_set=2)
    assert h.to_move == 2 and h.legal_action_texts() == ["draw"]
    assert h.step("draw") == []
    assert h.to_move == 2 and h.legal_action_texts() == [f"set {drawn}"]
    h.step(f"set {drawn}")
    assert led(h) == [[0, 2, each, "set"], [1, 2, each, "set"], [3, 2, each, "set"]]
    assert h.chips == [START - each, START - each, START + 3 * each, START - each]
    # D8: the drawn double is not a dealt double; nobody holds 3 doubles, so nobody may
    # declare. D25: the window still asks every seat from left of the setter (3, 0, 1),
    # the setter last, each with no-declare as his only action.
    h.step("announce ordinary")
    for seat in (3, 0, 1, 2):
        assert h.phase == "declare" and h.to_move == seat
        assert h.legal_action_texts() == ["no-declare"]
        assert h.step("no-declare") == []
    assert h.dealt_doubles(2) == 0
    # A line on the drawn double: only that double fits its arms, so every immediate
    # question is a forced decline.
    through_forced_windows(h, declare=False)
    assert h.chips == [START - each, START - each, START + 3 * each, START - each]


@pytest.mark.parametrize("drawn, pips", [("2-5", 7), ("0-1", 1), ("5-6", 11)])
def test_sec2_drawn_non_double_setter_pays_a_plus_b_to_each(drawn, pips):
    hands = [["0-2", "0-3", "0-4", "0-5"], ["0-6", "1-2", "1-3", "1-4"],
             ["1-5", "1-6", "2-3", "2-4"], ["2-6", "3-4", "3-5", "3-6"]]
    h = Hand(deal_with_top(hands, [drawn]), on_set=1)
    assert h.legal_action_texts() == ["draw"]
    h.step("draw")
    assert h.legal_action_texts() == [f"set {drawn}"]
    h.step(f"set {drawn}")
    assert led(h) == [[1, 0, pips, "set"], [1, 2, pips, "set"], [1, 3, pips, "set"]]
    assert h.chips == [START + pips, START - 3 * pips, START + pips, START + pips]


def test_sec2_later_hand_rule_without_double_must_draw_and_set_exactly_the_drawn_tile():
    hands = [["0-1", "0-2", "0-3", "0-4"], ["0-5", "0-6", "1-2", "1-3"],
             ["1-4", "1-5", "1-6", "2-3"], ["2-4", "2-5", "2-6", "3-4"]]
    h = Hand(deal_with_top(hands, ["3-5", "6-6"]), on_set=0)
    with pytest.raises(IllegalActionError):
        h.step("set 0-1")  # a tile from his hand: he must draw
    h.step("draw")
    assert sorted(h.hands[0]) == tiles("0-1", "0-2", "0-3", "0-4", "3-5")
    assert h.legal_action_texts() == ["set 3-5"]
    for wrong in ("set 0-1", "draw", "set 6-6"):  # no second draw, no other tile
        with pytest.raises(IllegalActionError):
            h.step(wrong)
    h.step("set 3-5")
    assert h.chips == [500 - 24, 508, 508, 508]


def test_sec2_later_hand_rule_with_doubles_may_not_draw():
    hands = [["1-1", "4-4", "0-1", "0-2"], ["0-3", "0-4", "0-5", "0-6"],
             ["1-2", "1-3", "1-4", "1-5"], ["1-6", "2-3", "2-4", "2-5"]]
    h = Hand(deal_with_top(hands, []), on_set=0)
    assert h.legal_action_texts() == ["set 1-1", "set 4-4"]
    for wrong in ("draw", "set 0-1"):
        with pytest.raises(IllegalActionError):
            h.step(wrong)
    h.step("set 1-1")  # his choice, the lower double is fine
    assert h.chips == [503, 499, 499, 499]


FIRST_HAND_HANDS = [
    ["0-1", "0-2", "0-3", "0-4"],
    ["3-3", "5-5", "0-5", "0-6"],  # highest double dealt: [5-5] ([6-6] is in the boneyard)
    ["4-4", "1-2", "1-3", "1-4"],
    ["1-5", "1-6", "2-3", "2-4"],
]


def test_sec2_first_hand_rule_highest_double_is_on_set_and_must_set_exactly_it():
    deal = deal_with_top(FIRST_HAND_HANDS, ["6-6"])
    h = Hand(deal, first_hand=True)
    assert h.on_set == 1 and h.to_move == 1
    assert h.legal_action_texts() == ["set 5-5"]
    with pytest.raises(IllegalActionError):
        h.step("set 3-3")  # a later hand would allow it; the first hand does not
    h.step("set 5-5")
    assert led(h) == [[0, 1, 5, "set"], [2, 1, 5, "set"], [3, 1, 5, "set"]]
    assert h.chips == [495, 515, 495, 495]
    # The same deal as a later hand: seat 1 may choose either double.
    assert Hand(deal, on_set=1).legal_action_texts() == ["set 3-3", "set 5-5"]
    # Naming the right seat is fine, a wrong one raises.
    assert Hand(deal, on_set=1, first_hand=True).on_set == 1
    for wrong in (0, 2, 3):
        with pytest.raises(ValueError):
            Hand(deal, on_set=wrong, first_hand=True)


def test_sec2_first_hand_rule_without_any_double_is_refused():
    hands = [["0-1", "0-2", "0-3", "0-4"], ["0-5", "0-6", "1-2", "1-3"],
             ["1-4", "1-5", "1-6", "2-3"], ["2-4", "2-5", "2-6", "3-4"]]
    with pytest.raises(ValueError):
        Hand(deal_with_top(hands, []), first_hand=True)  # "reshuffled and dealt again"


@pytest.mark.parametrize("n", [3, 4, 5])
def test_sec2_D20_new_hand_is_a_later_hand_with_random_setter(n):
    seen = [0] * n
    for seed in range(150):
        h = new_hand(n, seed=seed)
        assert not h.first_hand and h.phase == "set" and h.to_move == h.on_set
        seen[h.on_set] += 1
        doubles = sorted(t for t in h.deal.hands[h.on_set] if is_double(t))
        if doubles:
            assert h.legal_action_texts() == [f"set {tile_str(d)}" for d in doubles]
        else:
            assert h.legal_action_texts() == ["draw"]
    # Drawn uniformly at random: every seat is on set a fair share of 150 episodes.
    assert all(count >= 150 / n / 2 for count in seen), seen


@pytest.mark.parametrize("n", [3, 4, 5])
def test_sec2_D20_new_hand_first_hand_option(n):
    for seed in range(40):
        h = new_hand(n, seed=seed, first_hand=True)
        best = max((t for hand in h.deal.hands for t in hand if is_double(t)), key=lambda t: t[0])
        assert best in h.deal.hands[h.on_set]
        assert h.legal_action_texts() == [f"set {tile_str(best)}"]


# ======================================================= section 5: declared doubles
# 4 players; seat 0 on set with 3 doubles, seat 3 with 3 doubles, seat 2 with one.
DECLARE4_HANDS = [
    ["5-5", "1-1", "2-2", "0-3"],
    ["5-6", "0-1", "1-2", "2-3"],
    ["0-0", "4-5", "0-2", "1-3"],
    ["3-3", "4-4", "6-6", "1-5"],
]
DECLARE4_BONEYARD = ["0-4", "0-5", "0-6", "1-4", "1-6", "2-4", "2-5", "2-6", "3-4", "3-5", "3-6", "4-6"]


def _declare4_to_first_question():
    h = Hand(make_deal(DECLARE4_HANDS, DECLARE4_BONEYARD), on_set=0)
    assert h.legal_action_texts() == ["set 1-1", "set 2-2", "set 5-5"]
    h.step("set 5-5")
    h.step("announce ordinary")  # a line on [5-5]: only [5-5] fits, so no immediate doubles
    return h  # D25: at the first declaration question, seat 1 (left of the setter)


def test_sec5_D8_D9_4p_three_doubles_25_asked_left_of_setter_setter_last_public_doubles():
    h = _declare4_to_first_question()
    assert h.chips == [515, 495, 495, 495]
    # D9, D25: every seat is asked, in turn order from left of the setter, the setter
    # last. Seat 1 (0 doubles) and seat 2 (1 double) are not eligible: no-declare only.
    for seat in (1, 2):
        assert h.phase == "declare" and h.to_move == seat
        assert h.legal_action_texts() == ["no-declare"]
        assert h.step("no-declare") == []
    assert h.chips == [515, 495, 495, 495]
    assert h.phase == "declare" and h.to_move == 3
    assert h.legal_action_texts() == ["declare", "no-declare"]
    assert [p.to_list() for p in h.step("declare")] == [
        [0, 3, 25, "declared"], [1, 3, 25, "declared"], [2, 3, 25, "declared"]]
    assert h.chips == [490, 470, 470, 570]
    # D8: the setter's set [5-5] counts: 3 doubles as dealt.
    assert h.to_move == 0 and h.legal_action_texts() == ["declare", "no-declare"]
    h.step("declare")
    assert h.chips == [565, 445, 445, 545]
    assert led(h)[-3:] == [[1, 0, 25, "declared"], [2, 0, 25, "declared"], [3, 0, 25, "declared"]]
    # Only [5-5] fits a line on [5-5]: seats 1, 2, 3 each decline (forced); normal play
    # starts left of the setter.
    through_forced_windows(h, declare=False)
    assert h.phase == "play" and h.to_move == 1
    # D9: declared doubles still in the hand are public; undeclared ones are not.
    assert sorted(h.public_doubles(3)) == tiles("3-3", "4-4", "6-6")
    assert sorted(h.public_doubles(0)) == tiles("1-1", "2-2")  # [5-5] is on the table
    assert h.public_doubles(1) == [] and h.public_doubles(2) == []
    # Section 7: draw is legal with plays available (12 in the boneyard).
    assert sorted(h.legal_action_texts()) == sorted([
        "draw", "play 5-6 L0 out 6", "play 5-6 L0 out 6 close",
        "play 5-6 L1 out 6", "play 5-6 L1 out 6 close"])
    h.step("play 5-6 L0 out 6")
    h.step("play 4-5 L1 out 4")
    # Section 8: [4-4] on seat 2's [4-5], placed in the immediately preceding turn.
    assert [p.to_list() for p in h.step("play 4-4 L1 out 4")] == [[2, 3, 4, "double"]]
    assert h.chips == [565, 445, 441, 549]
    assert sorted(h.public_doubles(3)) == tiles("3-3", "6-6")  # public "until played"
    assert sum(h.chips) == 4 * START


def test_sec5_no_declare_pays_nothing_and_keeps_doubles_private():
    h = _declare4_to_first_question()
    # D25: seats 1 and 2 are asked too, with no-declare as their only action.
    for seat in (1, 2):
        assert h.to_move == seat and h.legal_action_texts() == ["no-declare"]
        assert h.step("no-declare") == []
    # Seat 3 and the setter may declare, and choose not to.
    assert h.to_move == 3 and h.legal_action_texts() == ["declare", "no-declare"]
    assert h.step("no-declare") == []
    assert h.to_move == 0 and h.legal_action_texts() == ["declare", "no-declare"]
    assert h.step("no-declare") == []
    assert h.chips == [515, 495, 495, 495]
    through_forced_windows(h, declare=False)  # only [5-5] fits: every seat declines
    assert [e[3] for e in led(h)] == ["set"] * 3
    assert h.public_doubles(3) == [] and h.public_doubles(0) == []
    assert h.phase == "play" and h.to_move == 1


def test_sec5_4p_four_doubles_250():
    hands = [["0-1", "0-2", "0-3", "0-4"], ["0-6", "1-2", "1-3", "1-4"],
             ["1-1", "2-2", "3-3", "4-4"], ["1-5", "1-6", "2-3", "2-4"]]
    boneyard = ["0-5", "0-0", "2-5", "2-6", "3-4", "3-5", "3-6", "4-5", "4-6", "5-5", "5-6", "6-6"]
    h = Hand(make_deal(hands, boneyard), on_set=0)
    h.step("draw")
    h.step("set 0-5")  # drawn non-double: 5 to each
    h.step("announce ordinary")  # L0 takes [0-0], L1 [5-5]: both in the boneyard
    # D25: seat 1 (no double) is asked first, no-declare only; then seat 2 (4 doubles).
    assert h.phase == "declare" and h.to_move == 1 and h.legal_action_texts() == ["no-declare"]
    h.step("no-declare")
    assert h.to_move == 2 and h.legal_action_texts() == ["declare", "no-declare"]
    h.step("declare")
    assert led(h) == [
        [0, 1, 5, "set"], [0, 2, 5, "set"], [0, 3, 5, "set"],
        [0, 2, 250, "declared"], [1, 2, 250, "declared"], [3, 2, 250, "declared"]]
    assert h.chips == [235, 255, 1255, 255]
    # Seat 3 and the setter (his set tile was drawn, D8) hold no double: no-declare only.
    for seat in (3, 0):
        assert h.phase == "declare" and h.to_move == seat
        assert h.legal_action_texts() == ["no-declare"]
        h.step("no-declare")
    through_forced_windows(h, declare=False)  # seat 2's doubles fit neither 0 nor 5
    assert h.phase == "play" and h.to_move == 1
    assert h.chips == [235, 255, 1255, 255]
    assert sorted(h.public_doubles(2)) == tiles("1-1", "2-2", "3-3", "4-4")


def test_sec5_3p_four_doubles_200_setter_counts_his_set_double_D8():
    # 3 players, 5 tiles each. Seat 0 holds 3 doubles: not in the 3-player table.
    hands = [["0-0", "1-1", "2-2", "0-2", "0-3"],
             ["6-6", "5-5", "4-4", "3-3", "0-1"],
             ["0-4", "0-5", "0-6", "1-2", "1-3"]]
    h = Hand(deal_with_top(hands, []), on_set=1)
    assert h.legal_action_texts() == ["set 3-3", "set 4-4", "set 5-5", "set 6-6"]
    h.step("set 6-6")
    assert h.chips == [494, 512, 494]
    h.step("announce ordinary")  # only [6-6] fits a line on [6-6]
    # D25: asked from left of the setter: seat 2 (no double), then seat 0, whose 3
    # doubles are no count in the 3-player table: both have no-declare only.
    for seat in (2, 0):
        assert h.phase == "declare" and h.to_move == seat
        assert h.legal_action_texts() == ["no-declare"]
        h.step("no-declare")
    assert h.to_move == 1 and h.legal_action_texts() == ["declare", "no-declare"]  # setter last
    h.step("declare")  # 4 doubles as dealt, [6-6] included (D8)
    assert led(h)[-2:] == [[0, 1, 200, "declared"], [2, 1, 200, "declared"]]
    assert h.chips == [294, 912, 294]
    assert sorted(h.public_doubles(1)) == tiles("3-3", "4-4", "5-5")
    through_forced_windows(h, declare=False)  # seats 2, 0: nothing fits a line on [6-6]
    assert h.phase == "play" and h.to_move == 2


def test_sec5_3p_five_doubles_500_and_D1_chips_may_go_negative():
    hands = [["6-6", "0-1", "0-2", "0-3", "0-4"],
             ["0-5", "0-6", "1-2", "1-3", "1-4"],
             ["0-0", "1-1", "2-2", "3-3", "4-4"]]
    h = Hand(deal_with_top(hands, []), on_set=0)
    h.step("set 6-6")
    h.step("announce ordinary")
    # D25: seat 1 (no double) is asked first, no-declare only.
    assert h.to_move == 1 and h.legal_action_texts() == ["no-declare"]
    h.step("no-declare")
    assert h.to_move == 2 and h.legal_action_texts() == ["declare", "no-declare"]
    h.step("declare")
    assert led(h) == [[1, 0, 6, "set"], [2, 0, 6, "set"],
                      [0, 2, 500, "declared"], [1, 2, 500, "declared"]]
    assert h.chips == [12, -6, 1494]  # D1: no bankruptcy
    assert sum(h.chips) == 3 * START
    # The setter, last, holds one double: no-declare only.
    assert h.to_move == 0 and h.legal_action_texts() == ["no-declare"]
    h.step("no-declare")
    assert h.phase == "immediate" and h.chips == [12, -6, 1494]


def test_sec5_5p_three_doubles_50_order_from_left_of_setter():
    # 5 players, 3 tiles each; seat 3 on set; eligible: seat 4 and seat 1.
    hands = [["0-1", "0-2", "0-3"], ["0-0", "1-1", "3-3"], ["0-4", "0-5", "0-6"],
             ["2-2", "1-2", "1-3"], ["4-4", "5-5", "6-6"]]
    h = Hand(deal_with_top(hands, []), on_set=3)
    h.step("set 2-2")
    assert h.chips == [498, 498, 498, 508, 498]
    h.step("announce ordinary")
    assert h.phase == "declare" and h.to_move == 4  # left of the setter first
    assert h.legal_action_texts() == ["declare", "no-declare"]
    h.step("declare")
    assert led(h)[-4:] == [[0, 4, 50, "declared"], [1, 4, 50, "declared"],
                           [2, 4, 50, "declared"], [3, 4, 50, "declared"]]
    assert h.chips == [448, 448, 448, 458, 698]
    # D25: seat 0 (no double) is asked too, no-declare only.
    assert h.to_move == 0 and h.legal_action_texts() == ["no-declare"]
    h.step("no-declare")
    assert h.to_move == 1 and h.legal_action_texts() == ["declare", "no-declare"]
    assert h.step("no-declare") == []
    # Seat 2 (no double) and the setter, last (one double), have no-declare only.
    for seat in (2, 3):
        assert h.phase == "declare" and h.to_move == seat
        assert h.legal_action_texts() == ["no-declare"]
        h.step("no-declare")
    through_forced_windows(h, declare=False)  # only [2-2] fits a line on [2-2]
    assert h.phase == "play" and h.to_move == 4
    assert sorted(h.public_doubles(4)) == tiles("4-4", "5-5", "6-6")
    assert h.public_doubles(1) == []


# =================================================== section 6: immediate doubles
# Matador line on a drawn [2-3], seat 2 on set. L0 (open 2) takes [5-5] or [0-0];
# L1 (open 3) takes [4-4] or [0-0]. Window order: 3, 0, 1 (D10, D25), setter not asked.
IMM_HANDS = [
    ["5-5", "0-5", "1-5", "0-6"],
    ["4-4", "2-4", "2-6", "3-5"],
    ["0-1", "0-2", "0-3", "0-4"],
    ["0-0", "1-2", "1-3", "1-4"],
]
IMM_BONEYARD = ["2-3", "1-1", "1-6", "2-2", "2-5", "3-3", "3-4", "3-6", "4-5", "4-6", "5-6", "6-6"]


def _imm_window():
    h = Hand(make_deal(IMM_HANDS, IMM_BONEYARD), on_set=2)
    h.step("draw")
    h.step("set 2-3")
    assert led(h) == [[2, 0, 5, "set"], [2, 1, 5, "set"], [2, 3, 5, "set"]]
    h.step("announce matador")
    # Nobody holds 3 doubles: every seat is asked and has no-declare only (D25).
    through_forced_windows(h, immediate=False)
    assert h.phase == "immediate"
    return h


def test_sec6_D10_window_order_conflict_to_earlier_player_decline_and_wait():
    h = _imm_window()
    assert h.to_move == 3  # left of the setter
    assert h.legal_action_texts() == ["immediate 0-0 L0 out 0", "immediate 0-0 L1 out 0", "decline"]
    assert [p.to_list() for p in h.step("immediate 0-0 L0 out 0")] == [[2, 3, 7, "immediate"]]
    # D10, D25: seat 3 is asked again; his only double is placed, so decline only.
    assert h.to_move == 3 and h.legal_action_texts() == ["decline"]
    assert h.step("decline") == []
    # Seat 0's [5-5] fitted only L0, which seat 3 took first: he is asked, decline only.
    assert h.to_move == 0 and h.legal_action_texts() == ["decline"]
    assert h.step("decline") == []
    assert h.to_move == 1
    assert h.legal_action_texts() == ["immediate 4-4 L1 out 4", "decline"]
    assert h.step("decline") == []
    # Normal play from left of the setter: seat 3's turn is an automatic wait (D11).
    assert h.phase == "play"
    assert wait_seats(h) == [3]
    assert h.to_move == 0
    assert h.chips == [505, 505, 478, 512]
    assert h.waits_owed == [[], [], [], []]


def test_sec6_D10_two_players_place_then_two_waits_in_a_row():
    h = _imm_window()
    h.step("decline")  # seat 3
    assert h.to_move == 0 and h.legal_action_texts() == ["immediate 5-5 L0 out 5", "decline"]
    assert [p.to_list() for p in h.step("immediate 5-5 L0 out 5")] == [[2, 0, 5, "immediate"]]
    # D25: asked again after each double he places; nothing else fits: decline only.
    assert h.to_move == 0 and h.legal_action_texts() == ["decline"]
    h.step("decline")
    assert h.to_move == 1 and h.legal_action_texts() == ["immediate 4-4 L1 out 4", "decline"]
    assert [p.to_list() for p in h.step("immediate 4-4 L1 out 4")] == [[2, 1, 4, "immediate"]]
    assert h.to_move == 1 and h.legal_action_texts() == ["decline"]
    h.step("decline")
    assert h.chips == [510, 509, 476, 505]
    # Seat 3 declined, so he owes no wait and plays.
    assert h.phase == "play" and h.to_move == 3 and wait_seats(h) == []
    h.step("play 1-3 L1 out 1")  # matador: 3 on the open 4
    # Seats 0 and 1 each wait once; the setter then has the turn.
    assert wait_seats(h) == [0, 1]
    assert h.to_move == 2
    assert h.chips == [510, 509, 476, 505]


# Ordinary line on a drawn [2-3]; seat 2 holds both fitting doubles.
TWO_WAITS_HANDS = [
    ["1-5", "0-1", "3-5", "1-4"],
    ["2-5", "4-6", "0-3", "5-6"],
    ["2-2", "3-3", "3-4", "0-6"],
    ["3-6", "4-4", "0-2", "2-6"],
]
TWO_WAITS_BONEYARD = ["2-3", "0-0", "0-4", "0-5", "1-1", "1-2", "1-3", "1-6", "2-4", "4-5", "5-5", "6-6"]


def test_sec6_one_player_two_doubles_one_per_decision_two_waits_and_wait_breaks_claim():
    h = Hand(make_deal(TWO_WAITS_HANDS, TWO_WAITS_BONEYARD), on_set=0)
    run(h, [(0, "draw"), (0, "set 2-3"), (0, "announce ordinary")])
    assert h.chips == [485, 505, 505, 505]
    through_forced_windows(h, immediate=False)  # nobody holds 3 doubles
    # D25: seat 1 has nothing that fits, he is asked all the same: decline only.
    assert h.to_move == 1 and h.legal_action_texts() == ["decline"]
    h.step("decline")
    # Seat 2 is asked; one double per decision.
    assert h.to_move == 2
    assert h.legal_action_texts() == ["immediate 2-2 L0 out 2", "immediate 3-3 L1 out 3", "decline"]
    h.step("immediate 2-2 L0 out 2")
    assert h.to_move == 2  # asked again while another double fits
    assert h.legal_action_texts() == ["immediate 3-3 L1 out 3", "decline"]
    h.step("immediate 3-3 L1 out 3")
    assert led(h)[3:] == [[0, 2, 2, "immediate"], [0, 2, 3, "immediate"]]
    # D25: asked again after each double, though both arms are now taken.
    assert h.to_move == 2 and h.legal_action_texts() == ["decline"]
    h.step("decline")
    # Seat 3's [4-4] fits neither arm (and both are taken): decline only.
    assert h.to_move == 3 and h.legal_action_texts() == ["decline"]
    h.step("decline")
    assert h.chips == [480, 505, 510, 505]
    assert h.phase == "play" and h.to_move == 1
    h.step("play 2-5 L0 out 5")
    assert wait_seats(h) == [2] and h.to_move == 3  # first wait
    run(h, [(3, "play 3-6 L1 out 6"), (0, "play 1-5 L0 out 1"), (1, "play 4-6 L1 out 4")])
    assert wait_seats(h) == [2, 2] and h.to_move == 3  # second double, second wait
    # Section 8: [4-4] lies on seat 1's [4-6], but seat 2's wait came between.
    assert h.step("play 4-4 L1 out 4") == []
    run(h, [(0, "play 0-1 L0 out 0"), (1, "play 0-3 L0 out 3")])
    # No third wait: seat 2 now has a real decision.
    assert h.to_move == 2 and wait_seats(h) == [2, 2]
    assert sorted(h.legal_action_texts()) == sorted([
        "draw", "play 3-4 L0 out 4", "play 3-4 L0 out 4 close",
        "play 3-4 L1 out 3", "play 3-4 L1 out 3 close"])
    assert h.chips == [480, 505, 510, 505]
    assert sum(h.chips) == 4 * START


def test_sec6_side_conditions_do_not_stop_immediate_doubles_game17_and_setter_not_asked():
    # Game 17 on [5-5]: C0, C2 matador (take [2-2] or [0-0]), C1, C3 ordinary. C2 is
    # locked by the order for normal play, not for immediate doubles. The setter
    # keeps [0-0] but is never asked (section 6: "each player other than the setter").
    hands = [["5-5", "0-0", "0-1", "0-2"], ["2-2", "1-3", "1-4", "1-5"],
             ["0-3", "0-4", "1-6", "2-3"], ["2-4", "2-6", "3-4", "3-5"]]
    h = Hand(deal_with_top(hands, []), on_set=0)
    assert h.legal_action_texts() == ["set 0-0", "set 5-5"]
    h.step("set 5-5")
    h.step("announce game17 cross")
    # D25: every seat is asked to declare, the setter last; nobody holds 3 doubles.
    through_forced_windows(h, immediate=False)
    assert h.to_move == 1
    assert h.legal_action_texts() == ["immediate 2-2 C0 out 2", "immediate 2-2 C2 out 2", "decline"]
    assert [p.to_list() for p in h.step("immediate 2-2 C2 out 2")] == [[0, 1, 2, "immediate"]]
    # D25: seat 1 is asked again (decline only), then seats 2 and 3, who hold no double.
    for seat in (1, 2, 3):
        assert h.phase == "immediate" and h.to_move == seat
        assert h.legal_action_texts() == ["decline"]
        h.step("decline")
    # The setter is not asked although his [0-0] would fit C0: play begins with seat 1,
    # whose arm C2 holds a tile and so is not locked by game 17's order (D11): he waits.
    assert h.phase == "play"
    assert wait_seats(h) == [1] and h.to_move == 2
    assert h.chips == [513, 497, 495, 495]


IMM_SWITCH_HANDS = [
    ["0-1", "0-2", "0-3", "0-4"],
    ["2-2", "1-2", "1-3", "1-4"],
    ["3-3", "4-4", "1-5", "1-6"],
    ["2-4", "2-5", "2-6", "3-4"],
]
IMM_SWITCH_BONEYARD = ["2-3", "0-0", "0-5", "0-6", "1-1", "3-5", "3-6", "4-5", "4-6", "5-5", "5-6", "6-6"]


@pytest.mark.parametrize("first_places", [True, False])
def test_sec6_D22_switch_fulfilled_by_an_immediate_double_changes_later_placements(first_places):
    h = Hand(make_deal(IMM_SWITCH_HANDS, IMM_SWITCH_BONEYARD), on_set=0)
    run(h, [(0, "draw"), (0, "set 2-3"), (0, "announce ordinary FIRST(L0,1) +switch")])
    through_forced_windows(h, immediate=False)  # nobody holds 3 doubles
    assert h.to_move == 1 and h.legal_action_texts() == ["immediate 2-2 L0 out 2", "decline"]
    if first_places:
        h.step("immediate 2-2 L0 out 2")
        # D25: seat 1 is asked again; he holds no other double: decline only.
        assert h.to_move == 1 and h.legal_action_texts() == ["decline"]
        h.step("decline")
        # D4 + D22: L0 holds 1 tile, FIRST(L0,1) is fulfilled, both arms switch to
        # matador: the open 3 of L1 now takes [4-4], no longer [3-3].
        assert h.to_move == 2
        assert h.legal_action_texts() == ["immediate 4-4 L1 out 4", "decline"]
        h.step("immediate 4-4 L1 out 4")
        assert led(h)[3:] == [[0, 1, 2, "immediate"], [0, 2, 4, "immediate"]]
        assert h.chips == [479, 507, 509, 505]
        # Asked again: both arms are taken, decline only.
        assert h.to_move == 2 and h.legal_action_texts() == ["decline"]
        h.step("decline")
    else:
        h.step("decline")
        # Still ordinary: the open 3 takes [3-3]; side conditions do not stop it.
        assert h.to_move == 2
        assert h.legal_action_texts() == ["immediate 3-3 L1 out 3", "decline"]
        h.step("immediate 3-3 L1 out 3")
        assert led(h)[3:] == [[0, 2, 3, "immediate"]]
        assert h.chips == [482, 505, 508, 505]
        # Asked again: L0 (still ordinary, FIRST(L0,1) unfulfilled) wants [2-2], which
        # seat 1 holds, and [4-4] fits no open 2: decline only.
        assert h.to_move == 2 and h.legal_action_texts() == ["decline"]
        h.step("decline")
    # D25: seat 3 holds no double and is asked all the same; the setter is not.
    assert h.to_move == 3 and h.legal_action_texts() == ["decline"]
    h.step("decline")
    assert h.phase == "play"


# Ordinary FHTT(L1) on a drawn [1-4]; seat 1 places [1-1] on L0 at once.
FHTT_HANDS = [
    ["0-6", "3-5", "2-5", "3-6"],
    ["1-1", "4-6", "1-3", "5-6"],
    ["1-2", "0-0", "2-3", "2-6"],
    ["2-2", "0-5", "1-5", "1-6"],
]
FHTT_BONEYARD = ["1-4", "0-1", "0-2", "0-3", "0-4", "2-4", "3-3", "3-4", "4-4", "4-5", "5-5", "6-6"]


def test_sec6_D11_wait_deferred_while_arm_locked_then_taken_and_breaks_the_claim():
    h = Hand(make_deal(FHTT_HANDS, FHTT_BONEYARD), on_set=0)
    run(h, [(0, "draw"), (0, "set 1-4"), (0, "announce ordinary FHTT(L1)")])
    through_forced_windows(h, immediate=False)  # nobody holds 3 doubles
    assert h.to_move == 1 and h.legal_action_texts() == ["immediate 1-1 L0 out 1", "decline"]
    h.step("immediate 1-1 L0 out 1")  # FHTT locks L0, but not for immediate doubles
    assert h.chips == [484, 506, 505, 505]
    # D25: seat 1 again, then seats 2 ([0-0]) and 3 ([2-2]), whose doubles fit neither
    # the open 1 nor the open 4: decline only.
    for seat in (1, 2, 3):
        assert h.phase == "immediate" and h.to_move == seat
        assert h.legal_action_texts() == ["decline"]
        h.step("decline")
    # Seat 1's first turn: L0 (his double's arm) is locked until L1 gets a tile, so
    # no wait; he plays normally, and only on L1 ([1-3] would fit L0's open 1).
    assert h.phase == "play" and h.to_move == 1 and wait_seats(h) == []
    assert h.legal_action_texts() == ["draw", "play 4-6 L1 out 6", "play 4-6 L1 out 6 close"]
    run(h, [(1, "play 4-6 L1 out 6"), (2, "play 1-2 L0 out 2")])
    # Section 8: [2-2] on seat 2's [1-2], placed in the preceding turn: 2 from seat 2.
    assert [p.to_list() for p in h.step("play 2-2 L0 out 2")] == [[2, 3, 2, "double"]]
    h.step("play 0-6 L1 out 0")  # seat 0
    # Seat 1's second turn: L0 is no longer locked, so he waits now.
    assert wait_seats(h) == [1] and h.to_move == 2
    # [0-0] on seat 0's [0-6]: the wait came between, nobody pays.
    assert h.step("play 0-0 L1 out 0") == []
    assert h.chips == [484, 506, 503, 507]
    assert led(h) == [[0, 1, 5, "set"], [0, 2, 5, "set"], [0, 3, 5, "set"],
                      [0, 1, 1, "immediate"], [2, 3, 2, "double"]]


# ==================================== section 8: payment for a double in play, D13
# Ordinary line on a drawn [2-3]: nobody may declare, no double fits (so, D25, every
# window question is a forced no-declare or decline).
PAY_HANDS = [
    ["2-4", "0-1", "1-3", "1-6"],
    ["4-4", "0-2", "0-5", "1-2"],
    ["3-5", "0-6", "1-4", "2-6"],
    ["5-5", "0-0", "4-5", "4-6"],
]
PAY_BONEYARD = ["2-3", "3-3", "0-3", "0-4", "1-1", "1-5", "2-2", "2-5", "3-4", "3-6", "5-6", "6-6"]


def _pay_hand(options=None):
    h = Hand(make_deal(PAY_HANDS, PAY_BONEYARD), on_set=0, options=options)
    run(h, [(0, "draw"), (0, "set 2-3"), (0, "announce ordinary")])
    through_forced_windows(h)
    return h


def test_sec8_D13_double_paid_by_previous_tile_player_set_tile_counts_for_first_turn():
    h = _pay_hand()
    assert h.phase == "play" and h.to_move == 1  # nothing declared, no immediate doubles
    assert sorted(h.legal_action_texts()) == sorted([
        "draw", "play 0-2 L0 out 0", "play 0-2 L0 out 0 close",
        "play 1-2 L0 out 1", "play 1-2 L0 out 1 close"])
    h.step("draw")  # [3-3]: drawing does not end the turn
    assert h.to_move == 1
    # First normal turn: the set tile counts as the setter's turn, the setter pays 3.
    assert [p.to_list() for p in h.step("play 3-3 L1 out 3")] == [[0, 1, 3, "double"]]
    assert h.step("play 3-5 L1 out 5") == []
    assert [p.to_list() for p in h.step("play 5-5 L1 out 5")] == [[2, 3, 5, "double"]]
    assert h.step("play 2-4 L0 out 4") == []
    assert [p.to_list() for p in h.step("play 4-4 L0 out 4")] == [[0, 1, 4, "double"]]
    assert led(h) == [[0, 1, 5, "set"], [0, 2, 5, "set"], [0, 3, 5, "set"],
                      [0, 1, 3, "double"], [2, 3, 5, "double"], [0, 1, 4, "double"]]
    assert h.chips == [478, 512, 500, 510]
    assert h.to_move == 2


# Matador line on a drawn [2-3]; seat 2 places [5-5] at once on L0.
NEXT_TO_IMM_HANDS = [
    ["0-1", "1-3", "1-4", "0-3"],
    ["2-2", "0-2", "0-4", "1-2"],
    ["5-5", "0-5", "0-6", "1-5"],
    ["1-1", "2-4", "2-6", "3-5"],
]
NEXT_TO_IMM_BONEYARD = ["2-3", "0-0", "1-6", "2-5", "3-3", "3-4", "3-6", "4-4", "4-5", "4-6", "5-6", "6-6"]


def test_sec8_never_paid_next_to_an_immediate_double():
    h = Hand(make_deal(NEXT_TO_IMM_HANDS, NEXT_TO_IMM_BONEYARD), on_set=0)
    run(h, [(0, "draw"), (0, "set 2-3"), (0, "announce matador")])
    through_forced_windows(h, immediate=False)  # nobody holds 3 doubles
    # D25: seat 1's [2-2] fits neither the open 2 nor the open 3 (2+2, 2+3 are not 7).
    assert h.to_move == 1 and h.legal_action_texts() == ["decline"]
    h.step("decline")
    assert h.to_move == 2 and h.legal_action_texts() == ["immediate 5-5 L0 out 5", "decline"]
    h.step("immediate 5-5 L0 out 5")
    assert h.chips == [480, 505, 510, 505]
    # Seat 2 again (nothing left to place), then seat 3's [1-1] (1+3 is not 7): decline only.
    for seat in (2, 3):
        assert h.to_move == seat and h.legal_action_texts() == ["decline"]
        h.step("decline")
    # First normal turn (the set tile is the "preceding turn"), but [2-2] lies on the
    # immediate [5-5] (2+5=7), which no turn placed: nobody pays.
    assert h.phase == "play" and h.to_move == 1
    assert "play 2-2 L0 out 2" in h.legal_action_texts()
    assert h.step("play 2-2 L0 out 2") == []
    assert h.chips == [480, 505, 510, 505]
    assert wait_seats(h) == [2] and h.to_move == 3


# Section 7 turns + section 8 "not after a pass". Ordinary line on [6-6] from the hand.
TURN_HANDS = [
    ["6-6", "0-1", "0-3", "1-3"],
    ["2-6", "0-4", "1-4", "3-4"],
    ["0-5", "1-5", "3-5", "4-5"],
    ["2-2", "0-2", "1-2", "2-3"],
]
TURN_BONEYARD = ["0-0", "0-6", "1-1", "1-6", "2-4", "2-5", "3-3", "3-6", "4-4", "4-6", "5-5", "5-6"]


def test_sec7_draw_iff_more_than_two_pass_iff_no_play_and_sec8_pass_breaks_claim():
    h = Hand(make_deal(TURN_HANDS, TURN_BONEYARD), on_set=0)
    assert h.legal_action_texts() == ["set 6-6"]
    run(h, [(0, "set 6-6"), (0, "announce ordinary")])
    through_forced_windows(h)  # only [6-6] fits a line on [6-6]; nobody may declare
    assert h.chips == [518, 494, 494, 494]
    assert h.phase == "play" and h.to_move == 1
    legal = h.legal_action_texts()
    assert sorted(legal) == sorted(["draw", "play 2-6 L0 out 2", "play 2-6 L0 out 2 close",
                                    "play 2-6 L1 out 2", "play 2-6 L1 out 2 close"])
    for _ in range(9):  # 12 -> 3: draw stays legal although a play exists
        h.step("draw")
        assert h.to_move == 1
    assert len(h.boneyard) == 3 and "draw" in h.legal_action_texts()
    h.step("draw")
    assert len(h.boneyard) == 2 and sorted(h.boneyard) == tiles("5-5", "5-6")
    legal = h.legal_action_texts()
    assert "draw" not in legal and "pass" not in legal  # he has a play, so no pass
    for wrong in ("draw", "pass"):
        with pytest.raises(IllegalActionError):
            h.step(wrong)
    h.step("play 2-6 L0 out 2")
    # Seat 2 has no 2 or 6 and 2 tiles are left: pass is his only action.
    assert h.to_move == 2 and h.legal_action_texts() == ["pass"]
    assert h.step("pass") == []
    # [2-2] on seat 1's [2-6]: a pass came between, so nobody pays.
    assert h.to_move == 3
    assert h.step("play 2-2 L0 out 2") == []
    assert h.chips == [518, 494, 494, 494]
    assert led(h) == [[1, 0, 6, "set"], [2, 0, 6, "set"], [3, 0, 6, "set"]]
    assert h.to_move == 0 and not h.over


# ================== section 8 + 9: last tile, nos, skipping, closing, end (a), 5 players
LAST_TILE_HANDS = [
    ["6-6", "3-5", "2-3"],
    ["1-6", "0-4", "3-3"],
    ["2-6", "1-5", "4-5"],
    ["1-3", "0-2", "3-6"],
    ["2-4", "1-4", "5-6"],
]
LAST_TILE_BONEYARD = ["4-6", "0-0", "0-1", "0-3", "0-5", "0-6", "1-1", "1-2", "2-2",
                      "2-5", "3-4", "4-4", "5-5"]


# The set and the announcement; D25's windows follow (every seat forced: only [6-6]
# fits a line on [6-6], nobody holds 3 doubles), then _last_tile_script's turns.
LAST_TILE_OPENING = [(0, "set 6-6"), (0, "announce ordinary")]


def _last_tile_script(close_t12, close_t15):
    script = [
        (1, "play 1-6 L0 out 1"),
        (2, "play 2-6 L1 out 2"),
        (3, "play 1-3 L0 out 3"),
        (4, "play 2-4 L1 out 4"),
        (0, "play 3-5 L0 out 5"),
        (1, "play 0-4 L1 out 0"),
        (2, "draw"),  # [4-6]
        (2, "play 1-5 L0 out 1"),
        (3, "play 0-2 L1 out 2"),
        (4, "draw"),  # [0-0]
        (4, "play 1-4 L0 out 4"),
        (0, "play 2-3 L1 out 3"),  # T10: seat 0's last tile: nos
        (1, "play 3-3 L1 out 3"),  # T11: on that last tile: no payment; seat 1 out too
        (2, "play 4-5 L0 out 5" + (" close" if close_t12 else "")),
        (3, "play 3-6 L1 out 6"),
        (4, "play 5-6 L0 out 6"),
        (2, "play 4-6 L1 out 4" + (" close" if close_t15 else "")),
    ]
    return script


def _expected_last_tile(close_t12, close_t15):
    entries = [[s, 0, 6, "set"] for s in (1, 2, 3, 4)]
    entries += [[s, 0, 5, "nos"] for s in (1, 2, 3, 4)]  # only the first to go out
    chips = [524 + 20, 489, 489, 489, 489]
    if close_t12:
        # Wrong (seat 3's [3-6] fits L1): 40 to every other player, seats 0 and 1 (out) too.
        entries += [[2, s, 40, "wrong_close"] for s in (0, 1, 3, 4)]
        chips = [c + 40 for c in chips]
        chips[2] -= 200
    if close_t15:
        # D21: seat 2's last tile leaves only seat 4 holding tiles: correct; seat 4
        # pays 20 and draws nothing (even though the boneyard's [0-6] would fit).
        entries += [[4, 2, 20, "close"]]
        chips[4] -= 20
        chips[2] += 20
    # Settlement: counts [0, 0, 0, 0, 14] ([0-0] counts 14): seat 4 pays 14 to each.
    settlement = sorted([4, s, 14, "settlement"] for s in (0, 1, 2, 3))
    chips = [c + 14 for c in chips[:4]] + [chips[4] - 56]
    return entries, settlement, chips


@pytest.mark.parametrize("close_t12, close_t15", [(False, False), (True, False), (False, True), (True, True)])
def test_sec8_sec9_last_tile_nos_once_out_players_skipped_wrong_close_D21(close_t12, close_t15):
    h = Hand(make_deal(LAST_TILE_HANDS, LAST_TILE_BONEYARD), on_set=0)
    run(h, LAST_TILE_OPENING)
    through_forced_windows(h)
    script = _last_tile_script(close_t12, close_t15)
    run(h, script[:11])  # up to seat 4's play in T9
    assert h.chips == [524, 494, 494, 494, 494]
    pays = h.step(script[11][1])  # T10: seat 0 empties his hand
    assert [p.to_list() for p in pays] == [[s, 0, 5, "nos"] for s in (1, 2, 3, 4)]
    assert h.out == [True, False, False, False, False] and h.to_move == 1
    assert h.step(script[12][1]) == []  # T11: no double payment, no second nos
    assert h.out[1] and h.to_move == 2
    run(h, script[13:15])
    if close_t12:
        assert not h.over  # a wrong close: play goes on
    assert h.to_move == 4
    h.step(script[15][1])  # T14
    # Seats 0, 1 and 3 are out: after seat 4 comes seat 2.
    assert h.to_move == 2 and not h.over
    h.step(script[16][1])
    assert h.over and h.to_move is None and h.legal_action_texts() == []
    assert h.end_reason == ("close" if close_t15 else "out")  # D23 end (a) or (b)
    assert h.counts == [0, 0, 0, 0, 14]
    assert h.losers == [4]
    assert h.hands[4] == [(0, 0)]  # D21: draws nothing
    assert len(h.boneyard) == 11
    entries, settlement, chips = _expected_last_tile(close_t12, close_t15)
    assert split_ledger(h) == (entries, settlement)
    assert h.chips == chips
    assert sum(h.chips) == 5 * START


# =================================================== section 9: closing, D14
# Triangle on [0-0] (the only double dealt): until [1-6], [2-5], [3-4] are all
# placed, only they can be played.
CLOSE_HANDS = [
    ["0-0", "0-1", "0-2", "0-3"],
    ["3-4", "1-2", "1-3", "1-4"],
    ["0-4", "0-5", "0-6", "1-5"],
    ["2-3", "2-4", "2-6", "3-5"],
]
# [1-6] and [2-5] are the last two tiles: they can never be drawn.
CLOSE_BONEYARD = ["1-1", "2-2", "3-3", "3-6", "4-4", "4-5", "4-6", "5-5", "5-6", "6-6", "1-6", "2-5"]
# Here [2-5] can still be drawn.
CLOSE_BONEYARD_WRONG = ["1-1", "2-2", "3-3", "3-6", "4-4", "4-5", "4-6", "5-5", "5-6", "2-5", "1-6", "6-6"]


def test_sec9_D14_correct_close_pays_20_next_draws_all_but_two_hand_ends_settlement():
    h = Hand(make_deal(CLOSE_HANDS, CLOSE_BONEYARD), on_set=0)
    run(h, [(0, "set 0-0"), (0, "announce triangle")])
    through_forced_windows(h)  # no double but [0-0] dealt; the triangle takes no double
    assert h.chips == [521, 493, 493, 493]  # [0-0] from the hand: 7 from each
    assert h.to_move == 1
    expected = {"draw"} | {f"play 3-4 T{a} out {o}{c}" for a in range(3) for o in (3, 4) for c in ("", " close")}
    assert set(h.legal_action_texts()) == expected and len(h.legal_action_texts()) == 13
    pays = h.step("play 3-4 T0 out 3 close")
    assert [p.to_list() for p in pays][:3] == [[0, 1, 20, "close"], [2, 1, 20, "close"], [3, 1, 20, "close"]]
    assert h.over and h.end_reason == "close" and h.to_move is None
    # Seat 2, next after the closer, draws the 10 tiles above the last two.
    assert sorted(h.hands[2]) == sorted(tiles("0-4", "0-5", "0-6", "1-5", "1-1", "2-2", "3-3", "3-6",
                                              "4-4", "4-5", "4-6", "5-5", "5-6", "6-6"))
    assert h.boneyard == tiles("1-6", "2-5")
    assert any(e.seat == 2 and e.automatic for e in h.events)
    # Counts: 1+2+3=6; 3+4+5=12; 21+81=102; 5+6+8+8=27.
    assert h.counts == [6, 12, 102, 27]
    assert h.losers == [2]
    entries, settlement = split_ledger(h)
    assert entries == [[1, 0, 7, "set"], [2, 0, 7, "set"], [3, 0, 7, "set"],
                       [0, 1, 20, "close"], [2, 1, 20, "close"], [3, 1, 20, "close"]]
    assert settlement == sorted([
        [1, 0, 6, "settlement"], [2, 0, 96, "settlement"], [3, 0, 21, "settlement"],
        [2, 1, 90, "settlement"], [3, 1, 15, "settlement"], [2, 3, 75, "settlement"]])
    assert h.chips == [624, 652, 212, 512]


def test_sec9_D14_close_wrong_when_a_drawable_boneyard_tile_fits_play_goes_on():
    h = Hand(make_deal(CLOSE_HANDS, CLOSE_BONEYARD_WRONG), on_set=0)
    run(h, [(0, "set 0-0"), (0, "announce triangle")])
    through_forced_windows(h)
    pays = h.step("play 3-4 T0 out 3 close")
    assert [p.to_list() for p in pays] == [[1, 0, 40, "wrong_close"], [1, 2, 40, "wrong_close"],
                                           [1, 3, 40, "wrong_close"]]
    assert h.chips == [561, 373, 533, 533]
    assert not h.over and h.to_move == 2
    assert len(h.boneyard) == 12 and len(h.hands[2]) == 4  # nobody draws
    assert h.legal_action_texts() == ["draw"]  # seat 2 holds no triangle matador


# Matador line on [0-0], 5 players: both arms open 0 take only matadors; [2-5] and
# [3-4] are the last two tiles, so after [1-6] only a chain on L0 can grow, and a
# tile leaving L0 open 0 again blocks everything. Seat 0 goes out first (nos).
CHAIN_HANDS = [
    ["0-0", "2-6", "1-3"],
    ["1-6", "1-5", "0-6"],
    ["1-2", "3-6", "0-1"],
    ["3-5", "2-4", "0-2"],
    ["1-4", "4-5", "0-3"],
]
CHAIN_BONEYARD = ["0-4", "0-5", "1-1", "2-2", "2-3", "3-3", "4-4", "4-6", "5-5", "5-6", "6-6", "2-5", "3-4"]
# The set and the announcement; D25's windows follow (every seat forced: [0-0] is the
# only double dealt, and an open 0 of a matador arm takes no double), then the turns.
CHAIN_OPENING = [(0, "set 0-0"), (0, "announce matador")]
CHAIN_SCRIPT = [
    (1, "play 1-6 L0 out 6"),  # a matador on the open 0; its placer picks 6
    (2, "play 1-2 L0 out 2"), (3, "play 3-5 L0 out 3"), (4, "play 1-4 L0 out 1"),
    (0, "play 2-6 L0 out 2"), (1, "play 1-5 L0 out 1"), (2, "play 3-6 L0 out 3"),
    (3, "play 2-4 L0 out 2"), (4, "play 4-5 L0 out 4"),
    (0, "play 1-3 L0 out 1"),  # seat 0's last tile: nos
]


@pytest.mark.parametrize("close", [True, False])
def test_sec9_out_players_neither_pay_a_correct_close_nor_count_for_the_end_by_passes(close):
    h = Hand(make_deal(CHAIN_HANDS, CHAIN_BONEYARD), on_set=0)
    run(h, CHAIN_OPENING)
    through_forced_windows(h)
    run(h, CHAIN_SCRIPT)
    assert h.out == [True, False, False, False, False]
    assert h.chips == [548, 488, 488, 488, 488]  # set [0-0]: 7 from each; nos: 5 from each
    assert h.to_move == 1
    # Seat 1 goes out too with [0-6] (6+1=7), leaving L0 open 0: no tile in a hand and
    # none that can be drawn fits any more.
    pays = h.step("play 0-6 L0 out 0" + (" close" if close else ""))
    assert h.out == [True, True, False, False, False]
    nos = [[s, 0, 5, "nos"] for s in (1, 2, 3, 4)]
    base = [[s, 0, 7, "set"] for s in (1, 2, 3, 4)] + nos
    if close:
        # D14 correct: only the players still in (2, 3, 4) pay 20; seat 0, out, does not.
        assert [p.to_list() for p in pays][:3] == [[2, 1, 20, "close"], [3, 1, 20, "close"], [4, 1, 20, "close"]]
        assert {p.reason for p in pays[3:]} == {"settlement"}  # the hand ends at once
        assert h.over and h.end_reason == "close"
        entries = base + [[2, 1, 20, "close"], [3, 1, 20, "close"], [4, 1, 20, "close"]]
        chips = [631, 631, 161, 541, 536]
    else:
        assert pays == [] and h.to_move == 2
        for _ in range(11):  # forced draws down to the last two
            assert h.legal_action_texts() == ["draw"]
            h.step("draw")
        assert h.legal_action_texts() == ["pass"]
        run(h, [(2, "pass"), (3, "pass")])
        assert not h.over and h.to_move == 4
        h.step("pass")
        # D23 (c): every player still in the game (2, 3, 4) has passed in succession.
        assert h.over and h.end_reason == "blocked"
        entries = base
        chips = [631, 571, 181, 561, 556]
    # Either way seat 2 ends up with the 11 drawable tiles (next after the closer, or
    # by his forced draws): count 1 + 77 = 78; seat 3: 2; seat 4: 3.
    assert h.boneyard == tiles("2-5", "3-4")
    assert h.counts == [0, 0, 78, 2, 3] and h.losers == [2]
    settlement = sorted([
        [2, 0, 78, "settlement"], [2, 1, 78, "settlement"], [2, 3, 76, "settlement"], [2, 4, 75, "settlement"],
        [4, 0, 3, "settlement"], [4, 1, 3, "settlement"], [4, 3, 1, "settlement"],
        [3, 0, 2, "settlement"], [3, 1, 2, "settlement"]])
    assert split_ledger(h) == (entries, settlement)
    assert h.chips == chips and sum(h.chips) == 5 * START


# ========================================= D23: the end by passes, a wait breaks the run
# Matador FIRST(L0,2) on a drawn [3-4]; seat 3 places [0-0] at once on L0, whose open 0
# then takes only matadors; the two left ([1-6], [2-5]) are the last boneyard tiles,
# and L1 stays locked (L0 holds 1 tile, D4). Nobody can ever play.
BLOCK_HANDS = [
    ["0-1", "0-2", "0-3", "0-4"],
    ["1-1", "1-2", "1-3", "1-4"],
    ["2-2", "2-3", "2-4", "2-6"],
    ["0-0", "0-5", "0-6", "1-5"],
]
BLOCK_BONEYARD = ["3-4", "3-3", "3-5", "3-6", "4-4", "4-5", "4-6", "5-5", "5-6", "6-6", "1-6", "2-5"]
# Counts: 10; 14 + 83 (nine drawn tiles) = 97; 23; 17.
BLOCK_COUNTS = [10, 97, 23, 17]
BLOCK_ENTRIES = [[0, 1, 7, "set"], [0, 2, 7, "set"], [0, 3, 7, "set"], [0, 3, 7, "immediate"]]
BLOCK_SETTLEMENT = sorted([
    [1, 0, 87, "settlement"], [1, 2, 74, "settlement"], [1, 3, 80, "settlement"],
    [2, 0, 13, "settlement"], [2, 3, 6, "settlement"], [3, 0, 7, "settlement"]])
BLOCK_CHIPS = [579, 266, 562, 593]


def test_sec9_D23_blocked_end_and_a_wait_breaks_the_run_of_passes():
    h = Hand(make_deal(BLOCK_HANDS, BLOCK_BONEYARD), on_set=0)
    run(h, [(0, "draw"), (0, "set 3-4"), (0, "announce matador FIRST(L0,2)")])
    assert h.chips == [479, 507, 507, 507]
    through_forced_windows(h, immediate=False)  # nobody holds 3 doubles
    # D25: seats 1 ([1-1]) and 2 ([2-2]) are asked first; their doubles fit neither the
    # open 3 nor the open 4 by matador matching: decline only.
    for seat in (1, 2):
        assert h.to_move == seat and h.legal_action_texts() == ["decline"]
        h.step("decline")
    assert h.to_move == 3
    assert h.legal_action_texts() == ["immediate 0-0 L0 out 0", "immediate 0-0 L1 out 0", "decline"]
    h.step("immediate 0-0 L0 out 0")
    assert h.chips == [472, 507, 507, 514]
    assert h.to_move == 3 and h.legal_action_texts() == ["decline"]  # asked again (D25)
    h.step("decline")
    assert h.phase == "play" and h.to_move == 1
    for left in range(11, 2, -1):  # only draws while more than 2 remain
        assert h.legal_action_texts() == ["draw"] and len(h.boneyard) == left
        h.step("draw")
    assert h.legal_action_texts() == ["pass"]
    with pytest.raises(IllegalActionError):
        h.step("draw")  # 2 left: never drawable
    run(h, [(1, "pass"), (2, "pass")])
    # Seat 3's turn is his wait (its arm L0 is not locked), taken automatically.
    assert wait_seats(h) == [3] and h.to_move == 0
    run(h, [(0, "pass"), (1, "pass"), (2, "pass")])
    # Without D23 these would make four passes in succession; the wait broke the run.
    assert not h.over and h.to_move == 3 and h.legal_action_texts() == ["pass"]
    h.step("pass")
    assert h.over and h.end_reason == "blocked"
    assert h.counts == BLOCK_COUNTS and h.losers == [1]
    assert split_ledger(h) == (BLOCK_ENTRIES, BLOCK_SETTLEMENT)
    assert h.chips == BLOCK_CHIPS
    assert [(e.seat, e.action) for e in h.events[-8:]] == [
        (1, "draw"), (1, "pass"), (2, "pass"), (3, "wait"), (0, "pass"), (1, "pass"), (2, "pass"), (3, "pass")]


# ============================================================ D16: illegal actions
def _state_set_phase():
    return Hand(make_deal(TURN_HANDS, TURN_BONEYARD), on_set=0), "draw"


def _state_declare_phase():
    return _declare4_to_first_question(), "pass"


def _state_immediate_phase():
    h = _imm_window()
    return h, "immediate 5-5 L0 out 5"  # seat 3 does not hold [5-5]


def _state_play_pass_with_a_play():
    return _pay_hand(), "pass"


def _state_play_tile_not_held():
    return _pay_hand(), "play 3-3 L1 out 3"  # [3-3] is still in the boneyard


def _state_play_wrong_arm():
    return _pay_hand(), "play 0-2 L1 out 0"  # L1's open end is 3


STATES = [_state_set_phase, _state_declare_phase, _state_immediate_phase,
          _state_play_pass_with_a_play, _state_play_tile_not_held, _state_play_wrong_arm]


@pytest.mark.parametrize("make_state", STATES, ids=lambda f: f.__name__)
def test_D16_illegal_action_raises_names_it_lists_legal_and_leaves_hand_unchanged(make_state):
    h, illegal = make_state()
    legal = h.legal_action_texts()
    assert illegal not in legal and len(legal) <= 40
    before = snapshot(h)
    with pytest.raises(IllegalActionError) as info:
        h.step(illegal)
    message = str(info.value)
    assert illegal in message
    assert all(text in message for text in legal)
    assert info.value.legal == legal
    assert snapshot(h) == before


def test_D16_illegal_announcement_and_action_after_the_end():
    h = Hand(make_deal(PAY_HANDS, PAY_BONEYARD), on_set=0)
    run(h, [(0, "draw"), (0, "set 2-3")])
    before = snapshot(h)
    with pytest.raises(IllegalActionError) as info:
        h.step("announce triangle")  # games 13-16 need [0-0]
    assert "announce triangle" in str(info.value)
    assert info.value.legal == h.legal_action_texts() and len(info.value.legal) == 60  # section 4
    assert snapshot(h) == before
    done = Hand(make_deal(CLOSE_HANDS, CLOSE_BONEYARD), on_set=0)
    run(done, [(0, "set 0-0"), (0, "announce triangle")])
    through_forced_windows(done)
    run(done, [(1, "play 3-4 T0 out 3 close")])
    before = snapshot(done)
    with pytest.raises(IllegalActionError):
        done.step("draw")
    assert snapshot(done) == before


@pytest.mark.parametrize("illegal", ["pass", "play 6-6 L0 out 6", "decline"])
def test_D16_penalty_option_40_to_every_other_player_same_player_again(illegal):
    h = _pay_hand(Options(illegal="penalty"))
    assert h.chips == [485, 505, 505, 505] and h.to_move == 1
    legal = h.legal_action_texts()
    hands = [list(x) for x in h.hands]
    pays = h.step(illegal)
    assert [p.to_list() for p in pays] == [[1, 0, 40, "penalty"], [1, 2, 40, "penalty"], [1, 3, 40, "penalty"]]
    assert led(h)[3:] == [[1, 0, 40, "penalty"], [1, 2, 40, "penalty"], [1, 3, 40, "penalty"]]
    assert h.chips == [525, 385, 545, 545]
    assert h.to_move == 1 and h.legal_action_texts() == legal
    assert [list(x) for x in h.hands] == hands and len(h.boneyard) == 11
    # Play continues normally, the section 8 claim on the set tile still stands.
    h.step("draw")
    assert [p.to_list() for p in h.step("play 3-3 L1 out 3")] == [[0, 1, 3, "double"]]
    assert h.chips == [522, 388, 545, 545]


# ============================================================ D12: auto_forced
def test_D12_auto_forced_same_result_blocked_hand():
    h = Hand(make_deal(BLOCK_HANDS, BLOCK_BONEYARD), on_set=0, options=Options(auto_forced=True))
    # The draw for the set and the set itself are forced: applied at once.
    assert h.phase == "announce" and h.to_move == 0
    assert h.chips == [479, 507, 507, 507]
    h.step("announce matador FIRST(L0,2)")
    h.step("immediate 0-0 L0 out 0")
    # Everything after is forced (draws, passes) or automatic (the wait).
    assert h.over and h.end_reason == "blocked"
    assert h.counts == BLOCK_COUNTS
    assert split_ledger(h) == (BLOCK_ENTRIES, BLOCK_SETTLEMENT)
    assert h.chips == BLOCK_CHIPS


@pytest.mark.parametrize("auto", [False, True])
def test_D12_auto_forced_same_result_played_out_hand(auto):
    h = Hand(make_deal(LAST_TILE_HANDS, LAST_TILE_BONEYARD), on_set=0,
             options=Options(auto_forced=auto))
    if auto:
        assert h.phase == "announce"  # seat 0's only double was set automatically
        run(h, LAST_TILE_OPENING[1:])
        # D12 + D25: every window question has one legal action, so all are applied
        # at once: no-declare by 1, 2, 3, 4 and the setter 0, decline by 1, 2, 3, 4.
        assert h.phase == "play" and h.to_move == 1
        assert [(e.seat, e.action, e.automatic) for e in h.events] == (
            [(0, "set 6-6", True), (0, "announce ordinary", False)]
            + [(s, "no-declare", True) for s in (1, 2, 3, 4, 0)]
            + [(s, "decline", True) for s in (1, 2, 3, 4)])
    else:
        run(h, LAST_TILE_OPENING)
        through_forced_windows(h)
    run(h, _last_tile_script(False, True))
    entries, settlement, chips = _expected_last_tile(False, True)
    assert h.over and h.end_reason == "close"
    assert split_ledger(h) == (entries, settlement)
    assert h.chips == chips


# ============================================================ section 10: sessions
def test_sec10_session_carries_chips_loser_sets_next_D15_keeps_total():
    s = Session(num_players=4, num_hands=2, seed=7, end_settlement=True)
    h1 = s.start_hand(make_deal(CLOSE_HANDS, CLOSE_BONEYARD))
    assert h1.first_hand and h1.on_set == 0  # holder of the highest (only) double
    with pytest.raises(RuntimeError):
        s.start_hand()  # the current hand is not over
    run(h1, [(0, "set 0-0"), (0, "announce triangle")])
    through_forced_windows(h1)
    run(h1, [(1, "play 3-4 T0 out 3 close")])
    assert h1.chips == [624, 652, 212, 512] and h1.losers == [2]
    # Hand 2: the same hands rotated by two seats; the loser (seat 2) is on set.
    rotated = [CLOSE_HANDS[2], CLOSE_HANDS[3], CLOSE_HANDS[0], CLOSE_HANDS[1]]
    h2 = s.start_hand(make_deal(rotated, CLOSE_BONEYARD))
    assert not h2.first_hand and h2.on_set == 2 and h2.to_move == 2
    assert h2.chips_start == [624, 652, 212, 512] and h2.chips == [624, 652, 212, 512]
    assert h2.legal_action_texts() == ["set 0-0"]
    run(h2, [(2, "set 0-0"), (2, "announce triangle")])
    through_forced_windows(h2)  # from left of seat 2: declarations 3, 0, 1, 2; declines 3, 0, 1
    run(h2, [(3, "play 3-4 T0 out 3 close")])
    # Set: +7 from each; close: 20 from each of 0, 1, 2; seat 0 draws the 10 tiles.
    assert h2.counts == [102, 27, 6, 12]
    entries, settlement = split_ledger(h2)
    assert entries == [[0, 2, 7, "set"], [1, 2, 7, "set"], [3, 2, 7, "set"],
                       [0, 3, 20, "close"], [1, 3, 20, "close"], [2, 3, 20, "close"]]
    assert settlement == sorted([
        [0, 1, 75, "settlement"], [0, 2, 96, "settlement"], [0, 3, 90, "settlement"],
        [1, 2, 21, "settlement"], [1, 3, 15, "settlement"], [3, 2, 6, "settlement"]])
    assert h2.chips == [336, 664, 336, 664]
    with pytest.raises(RuntimeError):
        s.start_hand()  # num_hands=2: no hands left
    final = s.finish()
    # D15: 336 -> 320, 664 -> 660; the remainders 16+4+16+4 = 40 go to one player.
    rounded = [320, 660, 320, 660]
    assert sum(final) == 4 * START
    assert [f - r for f, r in zip(final, rounded)].count(0) == 3
    assert sorted(f - r for f, r in zip(final, rounded)) == [0, 0, 0, 40]
    assert all(p.amount in (16, 4) for p in s.settlement)
